/**
 * equivalence_rule: upstream 0.7.0's example rollouts (joined to their rows) and ngym's, then generated answers to
 * long-context questions (counts, names, passages reproduced with a code prepended or appended, and answers in other
 * scripts), right, re-cased or re-spaced (Python whitespace, and characters only JavaScript calls whitespace), near
 * (a wrong code, a miscount, a cut passage, an explanation around the answer), wrong, empty, split across messages and
 * parts, beside reasoning, refusals and tool calls, and rows whose expected_answer is missing or no string (both
 * refuse). Long answers reach difflib's autojunk length. The same cases run under each grading rule: `exact`
 * (the config's), `seq_match` and `weighted_seq_match`.
 */
import type { ResponseItem } from '../../src/protocol/index.ts';
import { type ParityCase, callOutput, dataRows, response, rolloutCase, textOutput, truncate, upstreamRolloutCases } from '../cases.ts';
import type { ParityEnvironment } from '../environment.ts';
import type { SeededRandom as Random } from 'ngym';

const COMPUTED = ['equivalence_score'];

const PASSAGES = [
  'Salt wind on the stair\nthe keeper counts ninety steps\nthe lamp answers twice',
  'Skerrin harbour, 06:00. Swell 1.5 m from the west, visibility good. The 07:30 ferry sails on time; the fish market opens late.',
  '**OFFICIAL NOTICE: THE SPRINT FESTIVAL**\n\nMark your calendars — the Annual Festival of the Sprinter is upon us! Join us at Riverside Track on June 22nd for races, clinics and a “Slow Walk Parade”.\n\n— Organized by the Council for Athletic Elevation',
  'Straße der Fischer: ΟΔΟΣ ΘΑΛΑΣΣΗΣ. İstanbul’a giden feribot 09:15’te kalkar. 港の天気は晴れ。 🌊',
  'aaaa bbbb aaaa bbbb '.repeat(14).trim(),
  'Oatcakes for six: 200 g oatmeal, a pinch of salt, 30 g melted butter, hot water to bind. Roll thin, cut in rounds, bake 20 minutes.',
];
const SHORT_ANSWERS = ['6', '12', '0', 'Paris', 'the keeper', 'İstanbul', 'ΣΟΦΙΑ', 'Ｔｏｋｙｏ', 'ß', 'N/A'];
const CODES = ['NfA7x2Qp', 'Zr5Kw0', 'pL4vWc9n', 'T9wqAe'];
// Python's str.isspace() set, and characters JavaScript's \s takes but Python's does not (U+FEFF) or neither takes (U+200B).
const SPACES = [' ', '\t', '\n', '\r\n', '\u3000', '\u001c', '\u0085', '\u00a0', '\u2028', '\u000b'];
const NOT_PYTHON_SPACES = ['\ufeff', '\u200b', '\u180e'];

function expectedAnswer(random: Random): { kind: string; answer: string } {
  const roll = random.int(0, 99);
  if (roll < 35) return { kind: 'short', answer: random.pick(SHORT_ANSWERS) };
  const passage = random.pick(PASSAGES);
  const code = random.pick(CODES);
  if (roll < 70) return { kind: 'prepended', answer: `${code}${passage}` };
  if (roll < 90) return { kind: 'appended', answer: `${passage}${code}` };
  return { kind: 'passage', answer: passage };
}

/** `text` with each whitespace run re-spaced: Python whitespace (equal once normalized) or not. */
function respaced(random: Random, text: string, pythonOnly: boolean): string {
  return text.replace(/\s+/g, () => (pythonOnly ? random.pick(SPACES).repeat(random.int(1, 3)) : `${random.pick(NOT_PYTHON_SPACES)} `));
}

function answerText(random: Random, expected: string): { form: string; text: string } {
  const other = random.pick([...SHORT_ANSWERS, ...PASSAGES]);
  const forms: [string, () => string][] = [
    ['exact', () => expected],
    ['exact', () => expected],
    ['upper', () => expected.toUpperCase()],
    ['lower', () => expected.toLowerCase()],
    ['respaced', () => respaced(random, expected, true)],
    ['padded', () => `${random.pick(SPACES)}${expected}${random.pick(SPACES)}${random.pick(SPACES)}`],
    ['not_python_space', () => respaced(random, expected, false)],
    ['bom_prefix', () => `\ufeff${expected}`],
    ['trailing_period', () => `${expected}.`],
    ['explained', () => `The answer is ${expected}.`],
    ['markdown', () => `**${expected}**`],
    ['wrong_code', () => expected.replace(/^[A-Za-z0-9]{6,8}|[A-Za-z0-9]{6,8}$/, random.pick(CODES))],
    ['miscount', () => String((Number.parseInt(expected, 10) || 0) + random.pick([1, -1, 10]))],
    ['truncated', () => truncate(expected, random.pick([0.3, 0.6, 0.95]))],
    ['doubled', () => `${expected}\n\n${expected}`],
    ['other', () => other],
    ['empty', () => ''],
    ['whitespace_only', () => random.pick(SPACES).repeat(3)],
    ['prefix_only', () => expected.slice(0, 10)],
  ];
  const [form, make] = random.pick(forms);
  return { form, text: make() };
}

function generated(random: Random, index: number): ParityCase {
  const { kind, answer } = expectedAnswer(random);
  const { form, text } = answerText(random, answer);
  // (A lone surrogate is not generated: upstream cannot encode its answer echoing one, a 500 in any environment.)
  let shape = random.pick(['one', 'one', 'one', 'one', 'split_messages', 'split_parts', 'refusal_part', 'reasoning_first', 'tool_call_then_text', 'tool_call_only', 'reasoning_only', 'string_content']);
  // A string content: upstream iterates its characters and fails (500); ngym reads no output_text part (knownCause).
  if (shape === 'string_content' && !random.chance(0.02)) shape = 'one';
  let output: ResponseItem[];
  const cut = Math.floor(text.length / 2);
  const reasoning = { id: `rs_parity_${index}`, type: 'reasoning', summary: [{ type: 'summary_text', text: answer }] } as unknown as ResponseItem;
  switch (shape) {
    case 'split_messages':
      output = [textOutput(text.slice(0, cut), index), textOutput(text.slice(cut), index + 1)];
      break;
    case 'split_parts':
      output = [{ ...textOutput('', index), content: [{ type: 'output_text', text: text.slice(0, cut), annotations: [] }, { type: 'output_text', text: text.slice(cut), annotations: [] }] } as unknown as ResponseItem];
      break;
    case 'refusal_part':
      output = [{ ...textOutput('', index), content: [{ type: 'refusal', refusal: answer }, { type: 'output_text', text, annotations: [] }] } as unknown as ResponseItem];
      break;
    case 'reasoning_first':
      output = [reasoning, textOutput(text, index)];
      break;
    case 'tool_call_then_text':
      output = [callOutput('search', { query: answer.slice(0, 20) }, index), textOutput(text, index)];
      break;
    case 'tool_call_only':
      output = [callOutput('answer', { text }, index)];
      break;
    case 'reasoning_only':
      output = [reasoning];
      break;
    case 'string_content':
      output = [{ type: 'message', role: 'assistant', content: text } as ResponseItem];
      break;
    default:
      output = [textOutput(text, index)];
  }
  const question = `Here are some pieces of writing.\n\n${PASSAGES.join('\n\n')}\n\nQuestion ${index}: reproduce the piece the question names, with its code.`;
  const verify: Record<string, unknown> = {
    responses_create_params: { input: [{ role: 'user', content: question, type: 'message' }], temperature: 1.0 },
    expected_answer: answer,
    question: `Question ${index}`,
    dataset: 'mrcr.parity+XS.0-8k',
    source: 'mrcr',
    hashid: `parity${index}`,
    context_length: String(question.length),
    response: response(output, index),
  };
  let row = kind;
  if (random.chance(0.01)) {
    row = 'bad_expected_answer';
    const bad = random.pick([undefined, null, 6, ['6']]);
    if (bad === undefined) delete verify.expected_answer;
    else verify.expected_answer = bad;
  }
  return { kind: shape === 'one' ? form : `${shape}/${form}`, detail: row, verify };
}

const exact: ParityEnvironment = {
  name: 'equivalence_rule',
  configs: { ngym: 'equivalence_rule.yaml', upstream: 'lc.yaml' },
  fields: ['equivalence_score'],
  knownCause: (ngym, upstream) =>
    upstream.status === 500 && String(upstream.body).includes('has no attribute') && ngym.status === 200
      ? 'assistant message with a string content: 0.7.0 iterates its characters and fails (500), ngym reads no output_text part'
      : undefined,
  generate(random, count) {
    const cases = [...upstreamRolloutCases('equivalence_rule', COMPUTED), ...dataRows('equivalence_rule', 'example_rollouts.jsonl').map((row) => rolloutCase(row, COMPUTED))];
    for (let index = cases.length; index < count; index += 1) cases.push(generated(random, index));
    return cases.slice(0, Math.max(count, 5));
  },
};

/** The config's rule, `exact`. */
export const equivalenceRule: ParityEnvironment = exact;

export const equivalenceRuleSeqMatch: ParityEnvironment = { ...exact, instance: 'equivalence_rule_seq_match', overrides: { grading_rule: 'seq_match' } };

export const equivalenceRuleWeightedSeqMatch: ParityEnvironment = { ...exact, instance: 'equivalence_rule_weighted_seq_match', overrides: { grading_rule: 'weighted_seq_match' } };
