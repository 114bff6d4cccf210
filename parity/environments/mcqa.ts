/**
 * mcqa: the example rows and rollouts, then generated questions in every option format upstream 0.7.0 reads (upper,
 * lower and mixed-case keys, null texts, two options in one object, keys that are no letter, an empty text, no
 * options) and every grading mode a row can name (strict_single_letter_boxed, lenient_boxed, lenient_answer_colon,
 * none; and the ones it cannot), with template output_regex (one pattern, a list, invalid ones, answer_prefix),
 * answered right, wrong, ambiguously and in the forms models write.
 */
import { type ParityCase, callOutput, dataRows, response, rolloutCase, textOutput, textResponse, truncate } from '../cases.ts';
import type { ParityEnvironment } from '../environment.ts';
import type { SeededRandom as Random } from 'ngym';

const TOPICS = ['Mercury', 'Nitrogen', 'cos(x)', 'Hash table', '42', 'Photosynthesis', 'E. coli', '$\\frac{1}{2}$', 'None of the above', 'Paris', 'Both A and B', 'O(n log n)', 'A polygenic risk score', 'It is B'];
const MODES = ['strict_single_letter_boxed', 'lenient_boxed', 'lenient_answer_colon', undefined] as const;
// Modes a row may not name (0.7.0's `lenient_answer_colon_md` is a server setting): both sides refuse.
const REFUSED_MODES = ['lenient_answer_colon_md', null, 'lenient'] as const;
const REGEXES = [
  '(?i)final choice\\s*:\\s*\\(?([A-J])\\)?',
  'Answer:\\s*([A-Z])',
  '\\[\\[([A-J])\\]\\]',
  '(?i)the answer is \\(?([a-j])\\)?',
  'Answer\\s*:\\s*(?!Answer)\\s*([A-Za-z])',
  'Answer:\\s*(\\S)',
  'ANSWER IS\\s*(.+?)\\.',
  'الإجابة:\\s*([أ-د])',
  'Final Choice:\\s*[A-J]',
  '([A-Z]',
  '(Answer):\\s*([A-Z])',
];
const PREFIXES = ['answer is', 'La respuesta es', '答えは', 'Die Antwort ist'];
const ARABIC = 'أبجد';

function answerText(random: Random, letter: string, option: string, other: string, otherText: string): { form: string; text: string } {
  const arabic = ARABIC['ABCD'.indexOf(letter)] ?? letter;
  const forms: [string, string][] = [
    ['boxed', `Reasoning...\n\n\\boxed{${letter}}`],
    ['boxed_text', `\\boxed{\\text{${letter}}}`],
    ['boxed_paren', `So the answer is \\boxed{(${letter})}.`],
    ['boxed_bracket', `\\boxed{[${letter}]}`],
    ['boxed_label', `\\boxed{${letter}: ${option}}`],
    ['boxed_label_dot', `\\boxed{${letter}. ${option}}`],
    ['boxed_label_paren', `\\boxed{${letter}) ${option}}`],
    ['boxed_label_dash', `\\boxed{ ${letter} - ${option}}`],
    ['boxed_text_label', `\\boxed{\\text{${letter}: ${option}}}`],
    ['boxed_label_text', `\\[ \\boxed{${letter}: \\text{${option}}} \\]`],
    ['boxed_label_newline', `\\[\n\\boxed{\n${letter}: ${option}\n}\n\\]`],
    ['boxed_option_text', `\\boxed{${option}}`],
    ['boxed_option_text_wrapped', `\\boxed{\\text{${option}}}`],
    ['boxed_lower', `\\boxed{${letter.toLowerCase()}}`],
    ['boxed_math', `$\\boxed{${letter}}$`],
    ['boxed_two', `First \\boxed{${other}}, on reflection \\boxed{${letter}}`],
    ['boxed_then_idea', `\\boxed{${letter}} but also \\boxed{\\text{some idea}}`],
    ['boxed_idea_then', `Thinking: \\boxed{\\text{some idea}}. Final: \\boxed{${letter}}`],
    ['boxed_then_unclosed', `\\boxed{${other}} and \\boxed{${letter}`],
    ['boxed_list', `\\boxed{${other}, ${letter}}`],
    ['boxed_or', `\\boxed{${letter} or ${other}}`],
    ['boxed_nested', `\\boxed{\\textbf{${letter}}}`],
    ['boxed_unclosed', `\\boxed{${letter}`],
    ['boxed_answer_colon', `\\boxed{\\text{Answer: ${letter}}}`],
    ['answer_colon', `Work.\nAnswer: ${letter}`],
    ['answer_colon_lower', `answer: ${letter.toLowerCase()}`],
    ['answer_colon_md', `**Answer:** ${letter}`],
    ['answer_colon_md_bold', `**Answer: ${letter}**`],
    ['answer_colon_underscore', `__Answer__: ${letter}`],
    ['answer_colon_text', `Answer: ${option}`],
    ['answer_colon_paren', `Answer: (${letter})`],
    ['answer_colon_dollar', `Answer: $${letter}$`],
    ['answer_colon_latex', `Answer: $\\text{${letter}}$`],
    ['answer_colon_because', `Answer: ${letter} because ${other} is not valid`],
    ['answer_colon_list', `Answer: ${other}/${letter}`],
    ['answer_colon_repeated', `Answer: ${letter}/${letter}`],
    ['answer_colon_two', `Answer: ${other}\nWait.\nAnswer: ${letter}`],
    ['answer_colon_then_unknown', `Answer: ${letter}\nAnswer: unknown`],
    ['answer_colon_option_other', `Answer: ${otherText}`],
    ['answer_colon_fullwidth', `Answer: ${String.fromCharCode(letter.charCodeAt(0) + 0xfee0)}`],
    ['answer_colon_arabic', `الإجابة: ${arabic}`],
    ['answer_is_upper', `ANSWER IS ${option}.`],
    ['prefix_phrase', `${random.pick(PREFIXES)} (${letter}).`],
    ['final_choice', `Final Choice: ${letter}`],
    ['double_bracket', `[[${letter}]]`],
    ['the_answer_is', `The answer is (${letter}).`],
    ['bare_letter', letter],
    ['markdown_bold', `**${letter}**`],
    ['fullwidth', `\\boxed{${String.fromCharCode(letter.charCodeAt(0) + 0xfee0)}}`],
    ['whitespace', `  \n\t\\boxed{ ${letter} }\n  `],
    ['empty', ''],
    ['spaces_only', '   \n '],
    ['truncated', truncate(`Let me think about ${option}. The answer is \\boxed{${letter}}`, random.pick([0.3, 0.6, 0.9]))],
  ];
  const [form, text] = random.pick(forms);
  return { form, text };
}

type OptionFormat = 'upper' | 'lower_keys' | 'mixed_keys' | 'null_value' | 'null_gold' | 'two_keys' | 'odd_keys' | 'empty_text' | 'no_options';

/** The `options` of a row in one of the formats 0.7.0 reads; null when the row has none. */
function optionsIn(format: OptionFormat, letters: string[], texts: string[], gold: string, random: Random): Record<string, string | null>[] | null {
  if (format === 'no_options') return null;
  const nullAt = format === 'null_gold' ? letters.indexOf(gold) : format === 'null_value' ? random.pick(letters.map((_, position) => position).filter((position) => letters[position] !== gold)) : -1;
  const options: Record<string, string | null>[] = letters.map((letter, position) => {
    const key = format === 'lower_keys' || (format === 'mixed_keys' && position % 2 === 1) ? letter.toLowerCase() : letter;
    if (position === nullAt) return { [key]: null };
    if (format === 'empty_text' && position === letters.length - 1) return { [key]: '' };
    return { [key]: texts[position] as string };
  });
  // Two options in one object (0.7.0 reads every key), keys that are no letter (`1`, `AB`: never allowed).
  if (format === 'two_keys' && options.length > 2) return [{ ...options[0], ...options[1] }, ...options.slice(2)];
  if (format === 'odd_keys') return [...options, { 1: 'one' }, { AB: 'Both A and B' }];
  return options;
}

function templateMetadata(random: Random): Record<string, unknown> {
  const roll = random.int(0, 99);
  if (roll < 55) return { output_regex: random.pick(REGEXES), template_id: 'parity' };
  if (roll < 85) return { output_regex: [random.pick(REGEXES), random.pick(REGEXES)] };
  if (roll < 92) return { output_regex: random.pick(REGEXES), answer_prefix: random.pick(PREFIXES) };
  // Not a pattern: 0.7.0 fails (500), ngym refuses (422); both refuse. (A dict is not generated: 0.7.0 reads its
  // keys as patterns, ngym refuses it; docs/parity.md.)
  return { output_regex: random.pick([null, 7]) };
}

function generated(random: Random, index: number): ParityCase {
  const size = random.pick([2, 3, 4, 4, 4, 5, 10]);
  const letters = 'ABCDEFGHIJ'.slice(0, size).split('');
  const texts = random.shuffled(TOPICS).slice(0, size);
  const optionFormat = random.pick<OptionFormat>(['upper', 'upper', 'upper', 'lower_keys', 'mixed_keys', 'null_value', 'null_gold', 'two_keys', 'odd_keys', 'empty_text', 'no_options']);
  const gold = random.pick(letters);
  const options = optionsIn(optionFormat, letters, texts, gold, random);
  const outcome = random.pick(['right', 'right', 'wrong', 'out_of_range']);
  const wrong = random.pick(letters.filter((letter) => letter !== gold));
  const said = outcome === 'right' ? gold : outcome === 'wrong' ? wrong : 'Z';
  const saidText = texts[letters.indexOf(said)] ?? 'Zebra';
  const { form, text } = answerText(random, said, saidText, outcome === 'right' ? wrong : gold, texts[letters.indexOf(outcome === 'right' ? wrong : gold)] as string);
  const refused = random.chance(0.02);
  const mode = refused ? random.pick(REFUSED_MODES) : random.pick(MODES);
  const templated = random.chance(0.2);
  const prompt = `Answer the question.\n\n${letters.map((letter, position) => `${letter}: ${texts[position]}`).join('\n')}`;
  const verify: Record<string, unknown> = {
    responses_create_params: { input: [{ role: 'user', content: prompt }] },
    expected_answer: random.chance(0.1) ? gold.toLowerCase() : gold,
    uuid: `parity-mcqa-${index}`,
  };
  if (options !== null) verify.options = options;
  if (mode !== undefined) verify.grading_mode = mode;
  if (templated) verify.template_metadata = templateMetadata(random);
  const shape = random.int(0, 99);
  let responseKind = 'text';
  if (shape < 2) {
    responseKind = 'tool_call_only';
    verify.response = response([callOutput('submit', { answer: said }, index)], index);
  } else if (shape < 6) {
    responseKind = 'two_messages';
    verify.response = response([textOutput('Thinking...', index), textOutput(text, index + 1)], index);
  } else if (shape < 9) {
    // One answer cut across two messages: output_text joins them without a separator.
    responseKind = 'split_messages';
    const cut = Math.floor(text.length / 2);
    verify.response = response([textOutput(text.slice(0, cut), index), textOutput(text.slice(cut), index + 1)], index);
  } else verify.response = textResponse(text, index);
  return {
    kind: responseKind === 'tool_call_only' ? responseKind : form,
    detail: `${mode === undefined ? 'default' : String(mode)}${templated ? '+regex' : ''}/${optionFormat}/${outcome}/${responseKind}`,
    verify,
  };
}

export const mcqa: ParityEnvironment = {
  name: 'mcqa',
  configs: { ngym: 'mcqa.yaml', upstream: 'mcqa.yaml' },
  fields: ['expected_answer', 'extracted_answer'],
  generate(random, count) {
    const cases = dataRows('mcqa', 'example_rollouts.jsonl').map((row) => rolloutCase(row, ['expected_answer', 'extracted_answer']));
    // The example rows again with every recorded answer put under each grading mode.
    for (const row of dataRows('mcqa', 'example_rollouts.jsonl')) {
      for (const mode of MODES.slice(0, 3)) cases.push({ kind: `rollout_as/${mode}`, verify: { ...rolloutCase(row, ['extracted_answer']).verify, grading_mode: mode } });
    }
    for (let index = cases.length; index < count; index += 1) cases.push(generated(random, index));
    return cases.slice(0, Math.max(count, 5));
  },
};

/** The same cases on servers whose config sets 0.7.0's `grading_mode: lenient_answer_colon_md` (it overrides every row's). */
export const mcqaAnswerColonMd: ParityEnvironment = {
  ...mcqa,
  instance: 'mcqa_answer_colon_md',
  overrides: { grading_mode: 'lenient_answer_colon_md' },
};
