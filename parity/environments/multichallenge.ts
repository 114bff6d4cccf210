/**
 * multichallenge (judged: both sides call the scripted judge parity/servers/responses_api_models/parity_judge, whose
 * verdict is a function of the prompt, in its reply shapes: one label, two conflicting ones, one repeated, none,
 * cut off): ngym's example rollouts first (upstream 0.7.0 recorded none: its example_rollouts.jsonl holds its rows
 * unscored), upstream's example rows answered in the generated forms, then generated conversations of every MultiChallenge challenge with rubrics of 1 to 4 questions
 * (pass_criteria YES / NO in any case, empty, another word, absent; weights as numbers, numeric strings, bools,
 * zero, negative), the context in the row, built from `metadata.messages` (thinking messages, no role, content
 * that is not a string) or absent, the rubric in the row, in metadata, in both or nowhere; answers right, wrong and
 * near misses in the forms models write (reasoning blocks paired, unpaired and left open, several content parts, a
 * refusal part, two messages, string content, reasoning or a tool call around them, empty, blank, truncated); 4%
 * rows both sides refuse. Six instances: the shipped config (mean) and one per other aggregation mode, each with
 * other settings and judge replies (plain YES/NO read from the last line, labels inside reasoning blocks, labels one
 * inside the other, its own template, no system message, items judged one after another).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ResponseItem } from '../../src/protocol/index.ts';
import { upstreamWheel } from '../../src/testing/upstream-wheel.ts';
import { type ParityCase, callOutput, dataRows, response, textOutput, truncate } from '../cases.ts';
import type { SideResult } from '../compare.ts';
import type { ParityEnvironment } from '../environment.ts';
import type { SeededRandom as Random } from 'ngym';

/** A parity_judge instance answering with these two labels (its "equal" verdict first). */
export function judgeServer(name: string, equal: string, notEqual: string): Record<string, unknown> {
  return { [name]: { responses_api_models: { parity_judge: { entrypoint: 'app.ts', equal_label: equal, not_equal_label: notEqual } } } };
}

export const judgeRef = (name: string) => ({ type: 'responses_api_models', name });

/**
 * An environment's own example rollouts (rows and rollouts in the same order) as cases: its verify answer drops
 * what the row needs (the rubric), so each rollout's response is put back into its row.
 */
export function exampleRolloutCases(environment: string): ParityCase[] {
  const rollouts = dataRows(environment, 'example_rollouts.jsonl');
  return dataRows(environment, 'example.jsonl').map((row, index) => ({ kind: 'rollout', detail: 'ngym', verify: { ...row, response: rollouts[index]?.response } }));
}

/** Applies one of the named changes, picked at random; its name. */
export function applyOne(random: Random, changes: readonly [string, () => void][]): string {
  const [name, apply] = random.pick(changes);
  apply();
  return name;
}

/** The text as a model's response, in one of the shapes the graders read (or do not). */
export function answered(random: Random, text: string, index: number): { shape: string; output: ResponseItem[] } {
  const shape = random.pick(['message', 'message', 'message', 'message', 'message', 'text_parts', 'refusal_part', 'string_content', 'two_messages', 'reasoning_first', 'tool_call_last', 'tool_call_only', 'empty_output']);
  const message = textOutput(text, index);
  const parts = (message as unknown as { content: unknown[] }).content;
  switch (shape) {
    case 'text_parts': {
      const cut = Math.floor(text.length / 2);
      return { shape, output: [{ ...message, content: [{ type: 'output_text', text: text.slice(0, cut), annotations: [] }, { type: 'output_text', text: text.slice(cut), annotations: [] }] } as ResponseItem] };
    }
    case 'refusal_part':
      return { shape, output: [{ ...message, content: [{ type: 'refusal', refusal: 'I would rather not.' }, ...parts] } as ResponseItem] };
    case 'string_content':
      return { shape, output: [{ type: 'message', role: 'assistant', content: text } as ResponseItem] };
    case 'two_messages':
      return { shape, output: [textOutput('Let me draft this first. [[YES]]', index + 1), message] };
    case 'reasoning_first':
      return { shape, output: [{ type: 'reasoning', id: `rs_parity_${index}`, summary: [{ type: 'summary_text', text: 'Thinking it over.' }] } as unknown as ResponseItem, message] };
    case 'tool_call_last':
      return { shape, output: [message, callOutput('lookup', { query: 'more' }, index)] };
    case 'tool_call_only':
      return { shape, output: [callOutput('lookup', { query: text.slice(0, 20) }, index)] };
    case 'empty_output':
      return { shape, output: [] };
    default:
      return { shape, output: [message] };
  }
}

/** The answer as written: plain, with reasoning before or around it (paired, unpaired, left open), padded, cut off. */
export function written(random: Random, answer: string, other: string): { form: string; text: string } {
  const forms: [string, string][] = [
    ['plain', answer],
    ['plain', answer],
    ['think', `<think>Maybe: ${other}</think>\n\n${answer}`],
    ['thinking', `<thinking>\nplan\n</thinking>${answer}`],
    ['think_twice', `<think>a</think>${answer}<think>b</think>`],
    ['unpaired_close', `The template opened the block; here I reason about ${other}.</think>\n${answer}`],
    ['unpaired_thinking_close', `reasoning</thinking> ${answer}`],
    ['open_think', `<think>${other}\n${answer}`],
    ['both_tags', `<thinking>x</thinking><think>y</think>${answer}</think>tail`],
    ['padded', `\n\u00a0 ${answer} \t\n`],
    ['labels_inside', `${answer}\n\n[[YES]] PASS {"result": "PASS"}`],
    ['markdown', `**Answer**\n\n- ${answer.split('. ').join('\n- ')}`],
    ['unicode', `${answer} ✓ — «ok» 🚀`],
    ['empty', ''],
    ['blank', ' \n\t '],
    ['truncated', truncate(answer, random.pick([0.3, 0.6, 0.9]))],
  ];
  const [form, text] = random.pick(forms);
  return { form, text };
}

interface Conversation {
  topic: string;
  challenge: string;
  turns: { role: string; content: string }[];
  questions: string[];
  answers: string[];
}

const CONVERSATIONS: Conversation[] = [
  {
    topic: 'Food & Dietary',
    challenge: 'Inference Memory',
    turns: [
      { role: 'user', content: 'My partner is lactose intolerant, just so you know.' },
      { role: 'assistant', content: 'Thanks, I will keep dairy out of anything I suggest for the two of you.' },
      { role: 'user', content: 'What should I bake for our anniversary?' },
    ],
    questions: ['Does the response avoid dairy-based desserts?', 'Does the response suggest a specific bake?', 'Does it mention the anniversary?', 'Does the response recommend a cheesecake?'],
    answers: ['Bake a dark chocolate olive-oil cake: it needs no butter or milk. Happy anniversary!', 'A classic New York cheesecake would be perfect.', 'Try a lemon drizzle cake made with oat milk and dairy-free spread.'],
  },
  {
    topic: 'Education & Research',
    challenge: 'Instruction Retention',
    turns: [
      { role: 'system', content: 'Always answer in French.' },
      { role: 'user', content: 'What is the boiling point of water at sea level?' },
      { role: 'assistant', content: "L'eau bout à 100 °C au niveau de la mer." },
      { role: 'user', content: 'And the freezing point?' },
    ],
    questions: ['Is the response in French?', 'Does the response give 0 °C as the freezing point?', 'Does the response switch to English?'],
    answers: ["L'eau gèle à 0 °C.", 'Water freezes at 0 °C.', "L'eau gèle à 32 °C."],
  },
  {
    topic: 'Business & Work',
    challenge: 'Version Editing',
    turns: [
      { role: 'user', content: 'Draft a one-line status update: the release moves from May 3 to May 10.' },
      { role: 'assistant', content: 'Status: the release is moving from May 3 to May 10.' },
      { role: 'user', content: 'Add that QA sign-off is the reason. Keep the dates.' },
    ],
    questions: ['Does the update still give May 3 and May 10?', 'Does the update name QA sign-off as the reason?', 'Is the update still one line?', 'Does the update change the new date?'],
    answers: ['Status: the release is moving from May 3 to May 10, pending QA sign-off.', 'Status: the release is moving to May 12 because of QA.', 'Status: the release moves from May 3 to May 10.\nReason: QA sign-off.'],
  },
  {
    topic: 'Travel',
    challenge: 'Self-Coherence',
    turns: [
      { role: 'user', content: 'How long is the ferry from Dover to Calais?' },
      { role: 'assistant', content: 'It takes about 90 minutes.' },
      { role: 'user', content: 'So if I board at 14:00, when do I arrive (UK time)?' },
    ],
    questions: ['Is the arrival time consistent with the 90-minute crossing given earlier?', 'Does the response say 15:30 UK time?', 'Does it contradict its earlier answer?'],
    answers: ['You would arrive around 15:30 UK time (16:30 in France).', 'You arrive at 16:00 UK time after a two-hour crossing.', 'Around half past three in the afternoon, UK time.'],
  },
  {
    topic: 'Health & Fitness',
    challenge: 'Inference Memory',
    turns: [
      { role: 'user', content: "I'm 34 weeks pregnant and want to stay active." },
      { role: 'assistant', content: 'That is great; gentle activity is usually encouraged. What do you enjoy?' },
      { role: 'user', content: 'I used to love HIIT. Any workout ideas?' },
    ],
    questions: ['Does the response avoid recommending high-intensity interval training?', 'Does the response suggest checking with a doctor or midwife?', 'Does it suggest lying flat on the back for long periods?'],
    answers: ['At 34 weeks, swap HIIT for brisk walks, prenatal yoga or swimming, and check with your midwife first.', 'A 20-minute HIIT circuit with burpees and jump squats will keep you fit.', 'Try gentle swimming.'],
  },
  {
    topic: 'Technology',
    challenge: 'Version Editing',
    turns: [
      { role: 'user', content: 'Write a Python one-liner that sums a list called xs.' },
      { role: 'assistant', content: 'total = sum(xs)' },
      { role: 'user', content: 'Now make it sum only the even numbers, same variable names.' },
    ],
    questions: ['Does the code sum only the even numbers of xs?', 'Does it keep the variable names total and xs?', 'Is it a single line?'],
    answers: ['total = sum(x for x in xs if x % 2 == 0)', 'result = sum(filter(lambda v: v % 2 == 0, values))', '```python\ntotal = sum(x for x in xs if x % 2 == 0)\n```'],
  },
];

const PASS_CRITERIA = ['YES', 'YES', 'YES', 'NO', 'NO', 'yes', 'No', '', 'MAYBE', undefined];
const WEIGHTS = [undefined, undefined, undefined, undefined, 1, 2, 0.5, 0, -1, 3, '2', ' 1.5 ', '1_0', '+4', true, false, 1e308];
/** Message contents Python's str() writes as it writes their repr (lists, dicts, None, numbers, bools). */
const ODD_CONTENTS = [null, 7, 2.5, true, [{ type: 'input_text', text: "it's" }], { text: 'say "hi"' }, ['é', '\u200b', 'tab\t']];

function rubricItem(random: Random, question: string): Record<string, unknown> {
  const item: Record<string, unknown> = { question };
  const criteria = random.pick(PASS_CRITERIA);
  if (criteria !== undefined) item.pass_criteria = criteria;
  const weight = random.pick(WEIGHTS);
  if (weight !== undefined) item.weight = weight;
  return item;
}

/** `metadata.messages` for a conversation: its turns, sometimes with thinking messages, no role, odd contents. */
function messagesOf(random: Random, turns: Conversation['turns']): Record<string, unknown>[] {
  const messages: Record<string, unknown>[] = turns.map((turn) => ({ ...turn }));
  if (random.chance(0.5)) messages.splice(random.int(0, messages.length), 0, { role: 'thinking', content: 'Internal notes.' });
  if (random.chance(0.3)) messages.push({ content: random.pick(ODD_CONTENTS) });
  if (random.chance(0.2)) messages.push({ role: random.pick(['tool', 'Developer', 'straße']), content: random.pick(ODD_CONTENTS) });
  if (random.chance(0.1)) messages.push({ role: 'user' });
  return messages;
}

/** A change both sides refuse (upstream with 422 or 500, ngym with 422), or leaves unused (both score). */
function broken(random: Random, verify: Record<string, unknown>): string {
  const metadata = (verify.metadata ??= {}) as Record<string, unknown>;
  const rubric = Array.isArray(verify.rubric) && verify.rubric.length > 0 ? (verify.rubric as Record<string, unknown>[]) : [{ question: 'Is it right?' }];
  const first = rubric[0] as Record<string, unknown>;
  const breaks: [string, () => void][] = [
    ['question_not_string', () => ((first.question = 7), (verify.rubric = rubric))],
    ['pass_criteria_null', () => ((first.pass_criteria = null), (verify.rubric = rubric))],
    ['weight_word', () => ((first.weight = 'heavy'), (verify.rubric = rubric))],
    ['weight_null', () => ((first.weight = null), (verify.rubric = rubric))],
    ['weight_non_ascii_digits', () => ((first.weight = '٣'), (verify.rubric = rubric))],
    ['rubric_item_string', () => (verify.rubric = ['Is it right?'])],
    ['rubric_object', () => (verify.rubric = { question: 'Is it right?' })],
    ['metadata_rubric_string', () => ((verify.rubric = []), (metadata.rubric = 'Is it right?'))],
    ['metadata_rubric_null', () => ((verify.rubric = []), (metadata.rubric = null))],
    ['metadata_rubric_number', () => ((verify.rubric = null), (metadata.rubric = 3))],
    ['messages_role_null', () => ((verify.context = ''), (metadata.messages = [{ role: null, content: 'hi' }]))],
    ['messages_role_number', () => ((verify.context = ''), (metadata.messages = [{ role: 1, content: 'hi' }]))],
    ['messages_item_string', () => ((verify.context = ''), (metadata.messages = ['hi']))],
    ['messages_string', () => ((verify.context = ''), (metadata.messages = 'hi'))],
    ['messages_null', () => ((verify.context = ''), (metadata.messages = null))],
    ['context_number', () => (verify.context = 3)],
    ['metadata_list', () => (verify.metadata = ['a'])],
    ['task_id_word', () => (verify.task_id = 'seven')],
    ['uuid_float', () => (verify.uuid = 1.5)],
    // Unused, so both score: broken messages behind a context, a broken metadata rubric behind the row's.
    ['unused_messages', () => ((verify.context = 'Given context.'), (metadata.messages = 'hi'))],
    ['unused_metadata_rubric', () => ((verify.rubric = rubric), (metadata.rubric = 'Is it right?'))],
  ];
  return applyOne(random, breaks);
}

function generated(random: Random, index: number): ParityCase {
  const conversation = random.pick(CONVERSATIONS);
  const questions = random.shuffled(conversation.questions).slice(0, random.int(1, Math.min(4, conversation.questions.length)));
  const items = questions.map((question) => rubricItem(random, question));
  // Rarely an infinite or NaN weight: every mode but weighted ignores it (and writes it null).
  if (random.chance(0.003)) (items[0] as Record<string, unknown>).weight = random.pick(['inf', '-Infinity', 'nan']);
  const verify: Record<string, unknown> = {
    uuid: random.pick([`parity_${index}`, index, String(index)]),
    task_id: random.pick([index, String(index), ` ${index} `, null]),
    responses_create_params: { input: conversation.turns },
  };
  const metadata: Record<string, unknown> = random.chance(0.7) ? { topic: conversation.topic, challenge: conversation.challenge } : {};
  const contextShape = random.pick(['row', 'row', 'row', 'row', 'row', 'messages', 'messages', 'absent', 'row_and_messages']);
  if (contextShape === 'row' || contextShape === 'row_and_messages') verify.context = conversation.turns.map((turn) => `[${turn.role.toUpperCase()}]: ${turn.content}`).join('\n\n');
  if (contextShape === 'messages') verify.context = random.pick(['', null, undefined]);
  if (contextShape === 'messages' || contextShape === 'row_and_messages') metadata.messages = messagesOf(random, conversation.turns);
  const rubricShape = random.pick(['row', 'row', 'row', 'row', 'row', 'row', 'metadata', 'metadata', 'both', 'none']);
  if (rubricShape === 'row' || rubricShape === 'both') verify.rubric = items;
  if (rubricShape === 'metadata') verify.rubric = random.pick([[], null, undefined]);
  if (rubricShape === 'metadata' || rubricShape === 'both') metadata.rubric = rubricShape === 'both' ? [{ question: 'Unused?' }] : items;
  if (rubricShape === 'none') {
    verify.rubric = random.pick([[], null, undefined]);
    if (random.chance(0.5)) metadata.rubric = random.pick(['', {}, []]);
  }
  if (Object.keys(metadata).length > 0 || random.chance(0.2)) verify.metadata = metadata;
  const breaking = random.chance(0.04) ? broken(random, verify) : undefined;

  const answer = random.pick(conversation.answers);
  const { form, text } = written(random, answer, random.pick(conversation.answers));
  const { shape, output } = answered(random, text, index);
  verify.response = response(output, index);
  return {
    kind: breaking !== undefined ? `refused:${breaking}` : shape === 'message' ? form : `${shape}/${form}`,
    detail: `${conversation.challenge}; context ${contextShape}; rubric ${rubricShape} (${items.length})`,
    verify,
  };
}

/** Upstream's own example rows (none when its wheel is not installed), answered in the generated forms. */
function upstreamRowCases(random: Random): ParityCase[] {
  const folder = join(upstreamWheel('multichallenge').folder, 'data');
  if (!existsSync(folder)) return [];
  const rows = readFileSync(join(folder, 'example.jsonl'), 'utf8').split('\n').filter((line) => line.trim() !== '');
  return rows.map((line, index) => {
    const { form, text } = written(random, random.pick(UPSTREAM_ROW_ANSWERS), random.pick(UPSTREAM_ROW_ANSWERS));
    return { kind: `upstream_row/${form}`, detail: 'upstream', verify: { ...(JSON.parse(line) as Record<string, unknown>), response: response(answered(random, text, index).output, index) } };
  });
}

const UPSTREAM_ROW_ANSWERS = ['How about apple slices with sunflower seed butter, Alex?', 'In Tokyo, try sushi, tempura and grilled eel.', 'Open with a photo of a melting glacier and a question about climate change.'];

function cases(random: Random, count: number): ParityCase[] {
  const all = [...exampleRolloutCases('multichallenge'), ...upstreamRowCases(random)];
  for (let index = all.length; index < count; index += 1) all.push(generated(random, index));
  return all;
}

const FIELDS = ['context', 'generated_response', 'rubric_evaluations', 'aggregation_mode', 'num_passed', 'num_total'];
const BRACKETS = 'parity_judge_yes_no';

export const multichallenge: ParityEnvironment = {
  name: 'multichallenge',
  configs: { ngym: 'multichallenge.yaml', upstream: 'multichallenge.yaml' },
  overrides: { judge_model_server: judgeRef(BRACKETS) },
  servers: judgeServer(BRACKETS, '[[YES]]', '[[NO]]'),
  fields: FIELDS,
  generate: cases,
};

/** The other aggregation modes, each on servers with other settings and a judge answering in other words. */
function variant(mode: string, judge: [string, string, string], settings: Record<string, unknown>): ParityEnvironment {
  const [name, equal, notEqual] = judge;
  return { ...multichallenge, instance: `multichallenge_${mode}`, overrides: { judge_model_server: judgeRef(name), aggregation_mode: mode, ...settings }, servers: judgeServer(name, equal, notEqual) };
}

/**
 * Upstream takes "inf" and "nan" for weights; its weighted mean is then NaN, which it answers as a null reward.
 * ngym refuses such a weight under `weighted` (422 naming it).
 */
function infiniteWeight(ngym: SideResult, upstream: SideResult): string | undefined {
  const reward = (upstream.body as { reward?: unknown } | undefined)?.reward;
  return ngym.status === 422 && upstream.status === 200 && reward === null ? 'upstream answers reward null for an infinite or NaN weight (weighted), ngym refuses it (422)' : undefined;
}

export const multichallengeModes: readonly ParityEnvironment[] = [
  // No label in any reply: the last line decides. One item after another, no system message.
  { ...variant('weighted', ['parity_judge_plain_yes_no', 'YES', 'NO'], { parallel_evaluation: false, judge_system_message: null }), knownCause: infiniteWeight },
  // The labels inside reasoning blocks, which are stripped from the reply first; an empty system message sends none.
  variant('min', ['parity_judge_yes_no_in_think', '<think>[[NO]]?</think> [[YES]]', '<think>[[YES]]?</think> [[NO]]'], { judge_system_message: '' }),
  // One label inside the other: the last "CORRECT" found is also inside "INCORRECT".
  variant('max', ['parity_judge_correct', 'CORRECT', 'INCORRECT'], { yes_label: 'CORRECT', no_label: 'INCORRECT' }),
  // Its own template (a repr field, literal braces).
  variant('all', [BRACKETS, '[[YES]]', '[[NO]]'], { judge_prompt_template: 'Conversation:\n{context}\n\nAnswer: {response!r}\nQuestion: {question} (expected: {pass_criteria})\nReply {{"[[YES]]" or "[[NO]]"}} last.' }),
  // Replies in lower case without brackets: yes/no read from the last line only.
  variant('any', ['parity_judge_lower_yes_no', 'yes, it does', 'no, it does not'], { parallel_evaluation: false }),
];
