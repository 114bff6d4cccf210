/**
 * mcqa: the example rows and rollouts, then generated questions in every option format and grading mode upstream
 * 0.7.0 reads from a row (strict_single_letter_boxed, lenient_boxed, lenient_answer_colon, a template's
 * output_regex, answer_prefix), answered right, wrong, ambiguously and in the forms models write.
 */
import { type ParityCase, callOutput, dataRows, response, rolloutCase, textOutput, textResponse, truncate } from '../cases.ts';
import type { ParityEnvironment } from '../environment.ts';
import type { SeededRandom as Random } from 'ngym';

const TOPICS = ['Mercury', 'Nitrogen', 'cos(x)', 'Hash table', '42', 'Photosynthesis', 'E. coli', '$\\frac{1}{2}$', 'None of the above', 'Paris', 'Both A and B', 'O(n log n)'];
const MODES = ['strict_single_letter_boxed', 'lenient_boxed', 'lenient_answer_colon', undefined] as const;
const REGEXES = ['(?i)final choice\\s*:\\s*\\(?([A-J])\\)?', 'Answer:\\s*([A-Z])', '\\[\\[([A-J])\\]\\]', '(?i)the answer is \\(?([a-j])\\)?'];

function answerText(random: Random, letter: string, option: string, other: string, otherText: string): { form: string; text: string } {
  const forms: [string, string][] = [
    ['boxed', `Reasoning...\n\n\\boxed{${letter}}`],
    ['boxed_text', `\\boxed{\\text{${letter}}}`],
    ['boxed_paren', `So the answer is \\boxed{(${letter})}.`],
    ['boxed_bracket', `\\boxed{[${letter}]}`],
    ['boxed_label', `\\boxed{${letter}: ${option}}`],
    ['boxed_label_dot', `\\boxed{${letter}. ${option}}`],
    ['boxed_option_text', `\\boxed{${option}}`],
    ['boxed_lower', `\\boxed{${letter.toLowerCase()}}`],
    ['boxed_math', `$\\boxed{${letter}}$`],
    ['boxed_two', `First \\boxed{${other}}, on reflection \\boxed{${letter}}`],
    ['boxed_list', `\\boxed{${other}, ${letter}}`],
    ['boxed_or', `\\boxed{${letter} or ${other}}`],
    ['boxed_nested', `\\boxed{\\textbf{${letter}}}`],
    ['boxed_unclosed', `\\boxed{${letter}`],
    ['answer_colon', `Work.\nAnswer: ${letter}`],
    ['answer_colon_lower', `answer: ${letter.toLowerCase()}`],
    ['answer_colon_md', `**Answer:** ${letter}`],
    ['answer_colon_md_bold', `**Answer: ${letter}**`],
    ['answer_colon_text', `Answer: ${option}`],
    ['answer_colon_paren', `Answer: (${letter})`],
    ['answer_colon_latex', `Answer: $\\text{${letter}}$`],
    ['answer_colon_two', `Answer: ${other}\nWait.\nAnswer: ${letter}`],
    ['answer_colon_option_other', `Answer: ${otherText}`],
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

function generated(random: Random, index: number): ParityCase {
  const size = random.pick([2, 3, 4, 4, 4, 5, 10]);
  const letters = 'ABCDEFGHIJ'.slice(0, size).split('');
  const texts = random.shuffled(TOPICS).slice(0, size);
  const optionFormat = random.pick(['upper', 'upper', 'lower_keys', 'null_value']);
  const options = letters.map((letter, position) => {
    if (optionFormat === 'lower_keys') return { [letter.toLowerCase()]: texts[position] as string };
    if (optionFormat === 'null_value' && position === size - 1) return { [letter]: null };
    return { [letter]: texts[position] as string };
  });
  const gold = random.pick(letters.slice(0, optionFormat === 'null_value' ? size - 1 : size));
  const outcome = random.pick(['right', 'right', 'wrong', 'out_of_range']);
  const wrong = random.pick(letters.filter((letter) => letter !== gold));
  const said = outcome === 'right' ? gold : outcome === 'wrong' ? wrong : 'Z';
  const saidText = texts[letters.indexOf(said)] ?? 'Zebra';
  const { form, text } = answerText(random, said, saidText, outcome === 'right' ? wrong : gold, texts[letters.indexOf(outcome === 'right' ? wrong : gold)] as string);
  const mode = random.pick(MODES);
  const templated = random.chance(0.15);
  const prompt = `Answer the question.\n\n${letters.map((letter, position) => `${letter}: ${texts[position]}`).join('\n')}`;
  const verify: Record<string, unknown> = {
    responses_create_params: { input: [{ role: 'user', content: prompt }] },
    options,
    expected_answer: random.chance(0.1) ? gold.toLowerCase() : gold,
    uuid: `parity-mcqa-${index}`,
  };
  if (mode !== undefined) verify.grading_mode = mode;
  if (templated) verify.template_metadata = random.chance(0.7) ? { output_regex: random.pick(REGEXES) } : { output_regex: [random.pick(REGEXES), random.pick(REGEXES)] };
  const toolOnly = random.chance(0.02);
  verify.response = toolOnly ? response([callOutput('submit', { answer: said }, index)], index) : random.chance(0.05) ? response([textOutput('Thinking...', index), textOutput(text, index + 1)], index) : textResponse(text, index);
  return {
    kind: optionFormat === 'null_value' ? 'null_option_value' : toolOnly ? 'tool_call_only' : form,
    detail: `${mode ?? 'default'}${templated ? '+regex' : ''}/${optionFormat}/${outcome}`,
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
