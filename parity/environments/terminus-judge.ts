/**
 * terminus_judge: upstream 0.7.0's example rollouts (joined to their rows) and ngym's, then generated gold steps in
 * both harness formats (terminus_1, terminus_2; none to three commands, the task complete or not) answered the ways a
 * policy answers: the gold batch (re-indented, compact, keys reordered), keystrokes edited a little (near the 0.9 and
 * 0.95 thresholds) or replaced, the task flag flipped or dropped, schema breaks (a key missing or extra, a wrong type,
 * a bool for a number, the other harness's batch), text that is no JSON object (prose around it, a ```json fence,
 * Python quotes, a trailing comma, cut short, a list, empty), NaN and Infinity, repeated keys, `<think>` before it (or
 * inside a keystroke), two messages, a tool call only, a lone surrogate (rarely). Rows carry the gold batch or not (empty,
 * null, in `metadata.expected_answer` as text, a dict or a number, not JSON, not an object, breaking its schema), a
 * harness or not, a `threshold` (a number, numeric text, a bool, text that is no number), uuids of each type. Run in
 * each of upstream's configs (the rubric judge; the simple judge with the swap check, its failure scored -1; string
 * similarity only) and the two other combinations of its switches (the judge alone, with a system message; no check
 * but the format), the judge being the scripted parity judge.
 */
import { type ParityCase, dataRows, response, rolloutCase, truncate, upstreamRolloutCases } from '../cases.ts';
import type { ParityEnvironment } from '../environment.ts';
import { outputItems } from './nvarc.ts';
import type { SeededRandom as Random } from 'ngym';

const JUDGE = 'parity_judge';
const judgeServer = { [JUDGE]: { responses_api_models: { parity_judge: { entrypoint: 'app.ts' } } } };
const judgeRef = { type: 'responses_api_models', name: JUDGE };

type Harness = 'terminus_1' | 'terminus_2';
type Batch = Record<string, unknown>;

const KEYSTROKES = [
  'ls -la\n',
  'cd /testbed\n',
  'python3 -m pytest tests/test_api.py -x -q\n',
  'grep -rn "def parse" src/ | head -20\n',
  'cat setup.py\n',
  'pip install -e .\n',
  "sed -i 's/return None/return result/' src/core.py\n",
  'git diff --stat\n',
  'C-c',
  'find . -name "*.py" -newer setup.py\n',
  "cat > repro.py << 'EOF'\nfrom pkg import parse\nprint(parse('1.0.0'))\nEOF\n",
  'python3 repro.py\n',
  '',
  'echo "done" > /tmp/status.txt\n',
];

function command(random: Random, harness: Harness, keystrokes: string): Batch {
  return harness === 'terminus_1'
    ? { keystrokes, is_blocking: random.chance(0.8), timeout_sec: random.pick([1, 2, 5, 10, 0.5, 30]) }
    : random.chance(0.8)
      ? { keystrokes, duration: random.pick([0.1, 0.5, 1.0, 5.0, 10]) }
      : { keystrokes };
}

function goldBatch(random: Random, harness: Harness): Batch {
  const commands = Array.from({ length: random.pick([0, 1, 1, 1, 2, 2, 3]) }, () => command(random, harness, random.pick(KEYSTROKES)));
  const complete = random.chance(0.25);
  if (harness === 'terminus_1') return { state_analysis: 'The shell is at the repository root.', explanation: 'Look at the failing code first.', commands, is_task_complete: complete };
  const batch: Batch = { analysis: 'The shell is at the repository root.', plan: 'Reproduce the bug, then fix it.', commands };
  if (random.chance(0.8)) batch.task_complete = complete;
  return batch;
}

/** Keystrokes a little different: a flag, a path, a space or the newline. */
function nearMiss(random: Random, keystrokes: string): string {
  const edits: ((text: string) => string)[] = [
    (text) => text.replace('\n', ''),
    (text) => text.replace(' ', '  '),
    (text) => text.replace('-la', '-al').replace('-x -q', '-q -x'),
    (text) => text.replace('src/', './src/').replace('/testbed', '/testbed/'),
    (text) => `${text.trimEnd()} \n`,
    (text) => text.replace('python3', 'python'),
    (text) => text.toUpperCase(),
  ];
  return random.pick(edits)(keystrokes);
}

const withCommands = (batch: Batch, change: (commands: Batch[]) => unknown[]): Batch => ({ ...batch, commands: change((batch.commands as Batch[]).map((item) => ({ ...item }))) });

/** The model's batch, and how it departs from the gold one. */
function answerBatch(random: Random, gold: Batch, harness: Harness): { form: string; batch: unknown } {
  const flag = harness === 'terminus_1' ? 'is_task_complete' : 'task_complete';
  const forms: [string, () => unknown][] = [
    ['gold', () => gold],
    ['gold', () => gold],
    ['near_miss', () => withCommands(gold, (commands) => commands.map((item) => ({ ...item, keystrokes: nearMiss(random, String(item.keystrokes)) })))],
    ['near_miss', () => withCommands(gold, (commands) => commands.map((item, index) => (index === 0 ? { ...item, keystrokes: nearMiss(random, String(item.keystrokes)) } : item)))],
    ['other_commands', () => withCommands(gold, (commands) => commands.map((item) => ({ ...item, keystrokes: random.pick(KEYSTROKES) })))],
    ['extra_command', () => withCommands(gold, (commands) => [...commands, command(random, harness, random.pick(KEYSTROKES))])],
    ['no_commands', () => withCommands(gold, () => [])],
    ['reordered_commands', () => withCommands(gold, (commands) => [...commands].reverse())],
    ['flag_flipped', () => ({ ...gold, [flag]: gold[flag] !== true })],
    ['flag_dropped', () => Object.fromEntries(Object.entries(gold).filter(([key]) => key !== flag))],
    ['missing_key', () => Object.fromEntries(Object.entries(gold).filter(([key]) => key !== random.pick(Object.keys(gold))))],
    ['extra_key', () => ({ ...gold, confidence: 0.9 })],
    ['command_extra_key', () => withCommands(gold, (commands) => [...commands, { keystrokes: 'ls\n', note: 'x' }])],
    ['wrong_type', () => ({ ...gold, [random.pick(Object.keys(gold))]: random.pick(['text', 1, null, true, [], {}]) })],
    ['bool_for_number', () => withCommands(gold, (commands) => [...commands, harness === 'terminus_1' ? { keystrokes: 'ls\n', is_blocking: true, timeout_sec: true } : { keystrokes: 'ls\n', duration: false }])],
    ['number_as_text', () => withCommands(gold, (commands) => [...commands, harness === 'terminus_1' ? { keystrokes: 'ls\n', is_blocking: 'true', timeout_sec: 1 } : { keystrokes: 'ls\n', duration: '1.0' }])],
    ['keystrokes_not_text', () => withCommands(gold, (commands) => [...commands, { keystrokes: ['l', 's'], duration: 1, is_blocking: true, timeout_sec: 1 }])],
    ['commands_not_list', () => ({ ...gold, commands: 'ls -la' })],
    ['other_harness', () => (harness === 'terminus_1' ? { analysis: 'a', plan: 'p', commands: [{ keystrokes: 'ls\n' }] } : { state_analysis: 's', explanation: 'e', commands: [{ keystrokes: 'ls\n', is_blocking: true, timeout_sec: 1 }], is_task_complete: false })],
  ];
  // Two in three batches keep the schema (the first eight forms), so the later checks run often.
  const [form, make] = random.chance(0.65) ? random.pick(forms.slice(0, 8)) : random.pick(forms.slice(8));
  return { form, batch: make() };
}

/** The batch written out as a model writes it, or text that is not one. */
function answerText(random: Random, batch: unknown): { form: string; text: string } {
  const json = JSON.stringify(batch, null, random.pick([2, 4]));
  const forms: [string, () => string][] = [
    ['json', () => json],
    ['json', () => json],
    ['json', () => json],
    ['compact', () => JSON.stringify(batch)],
    ['keys_reordered', () => JSON.stringify(Object.fromEntries(Object.entries(batch as Batch).reverse()))],
    ['think_first', () => `<think>The gold step is probably ls.</think>\n${json}`],
    ['two_thinks', () => `<think>a</think> b </think>\n\n${json}`],
    ['think_in_keystrokes', () => json.replace('"commands": [', '"commands": [{"keystrokes": "echo </think>\\n", "duration": 1}, ').replace('"commands": [{"keystrokes": "echo </think>\\n", "duration": 1}, ]', '"commands": [{"keystrokes": "echo </think>\\n", "duration": 1}]')],
    ['prose_before', () => `Here is my next step:\n${json}`],
    ['prose_after', () => `${json}\nThat should work.`],
    ['json_fence', () => `\`\`\`json\n${json}\n\`\`\``],
    ['python_quotes', () => json.replaceAll('"', "'")],
    ['trailing_comma', () => json.replace(/\n}$/, ',\n}')],
    ['truncated', () => truncate(json, random.pick([0.5, 0.9, 0.99]))],
    ['nan', () => json.replace(/("duration"|"timeout_sec"): [0-9.]+/, '$1: NaN')],
    ['infinity', () => json.replace(/("duration"|"timeout_sec"): [0-9.]+/, '$1: -Infinity')],
    ['big_number', () => json.replace(/("duration"|"timeout_sec"): [0-9.]+/, '$1: 1e400')],
    ['repeated_key', () => json.replace(/^\{/, '{"commands": "overwritten later",')],
    ['list', () => `[${json}]`],
    ['string', () => JSON.stringify(json)],
    ['null', () => 'null'],
    ['empty', () => ''],
    ['whitespace', () => ' \n\t '],
  ];
  // Rare in real answers, and a 500 upstream when the judge gets it (see knownCause): a few cases show it.
  if (random.chance(0.004)) return { form: 'lone_surrogate', text: json.replace('The shell', 'The \ud800 shell') };
  // Most texts parse (the first seven forms), so the later checks run often.
  const [form, make] = random.chance(0.6) ? random.pick(forms.slice(0, 7)) : random.pick(forms.slice(7));
  return { form, text: make() };
}

/** The row's gold answer and metadata, as data carries them or breaks them. */
function rowFields(random: Random, gold: Batch, harness: Harness): { form: string; fields: Record<string, unknown> } {
  const text = JSON.stringify(gold, null, 4);
  const metadata = { category: random.pick(['first_round', 'later_round']), harness };
  const roll = random.int(0, 99);
  if (roll < 80) return { form: 'gold', fields: { expected_answer: text, metadata } };
  const forms: [string, Record<string, unknown>][] = [
    ['empty_gold', { expected_answer: '', metadata }],
    ['null_gold', { expected_answer: null, metadata }],
    ['metadata_gold', { metadata: { ...metadata, expected_answer: text } }],
    ['metadata_gold_dict', { expected_answer: '', metadata: { ...metadata, expected_answer: gold } }],
    ['metadata_gold_number', { metadata: { ...metadata, expected_answer: random.pick([3, true, [1, 2]]) } }],
    ['gold_not_json', { expected_answer: text.slice(0, -1), metadata }],
    ['gold_not_object', { expected_answer: '["ls"]', metadata }],
    ['gold_breaks_schema', { expected_answer: JSON.stringify({ ...gold, extra: true }), metadata }],
    ['no_metadata', { expected_answer: text }],
    ['null_metadata', { expected_answer: text, metadata: null }],
    ['empty_metadata', { expected_answer: text, metadata: {} }],
    ['no_harness', { expected_answer: text, metadata: { category: 'first_round' } }],
    ['other_harness', { expected_answer: text, metadata: { harness: random.pick(['terminus_3', 'Terminus_2', ['terminus_2'], 2]) } }],
    ['gold_not_text', { expected_answer: gold, metadata }],
  ];
  const [form, fields] = random.pick(forms);
  return { form, fields };
}

function generated(random: Random, index: number): ParityCase {
  const harness: Harness = random.pick(['terminus_1', 'terminus_2']);
  const gold = goldBatch(random, harness);
  const { form: rowForm, fields } = rowFields(random, gold, harness);
  const { form: batchForm, batch } = answerBatch(random, gold, harness);
  const { form: textForm, text } = answerText(random, batch);
  const { shape, output } = outputItems(random, text, index);
  const verify: Record<string, unknown> = { responses_create_params: { input: [{ role: 'user', content: `Task ${index}: fix the failing test. Answer with a ${harness} command batch.` }] }, ...fields, response: response(output, index) };
  const uuidRoll = random.int(0, 99);
  if (uuidRoll < 70) verify.uuid = `parity-${index}`;
  else if (uuidRoll < 85) verify.uuid = index;
  else if (uuidRoll < 88) verify.uuid = random.pick([true, 1.5, null]);
  const thresholdRoll = random.int(0, 99);
  if (thresholdRoll < 15) verify.threshold = random.pick([0, 0.5, 0.8, 0.85, 0.9, 0.95, 0.99, 1, 1.01]);
  else if (thresholdRoll < 18) verify.threshold = random.pick([' 0.8 ', '0.95', true, false, null, 'high']);
  return { kind: `${batchForm}/${textForm}`, detail: `${harness} row=${rowForm} ${shape}`, verify };
}

const COMPUTED = ['expected_answer', 'model_output', 'parsed_output', 'similarity_score', 'schema_check_passed', 'task_complete_check_passed', 'string_similarity_passed', 'judge_passed', 'failure_reason', 'judge_evaluations', 'threshold'];

function generate(random: Random, count: number): ParityCase[] {
  const cases = [...upstreamRolloutCases('terminus_judge', COMPUTED), ...dataRows('terminus_judge', 'example_rollouts.jsonl').map((row) => rolloutCase(row, COMPUTED))];
  for (let index = cases.length; index < count; index += 1) cases.push(generated(random, index));
  return cases.slice(0, Math.max(count, 5));
}

const judged = { judge_model_server: judgeRef };

export const terminusJudge: ParityEnvironment = {
  name: 'terminus_judge',
  configs: { ngym: 'terminus_judge.yaml', upstream: 'terminus_judge.yaml' },
  overrides: judged,
  servers: judgeServer,
  fields: [
    'failure_reason',
    'similarity_score',
    'schema_check_passed',
    'task_complete_check_passed',
    'string_similarity_passed',
    'judge_passed',
    'judge_evaluations',
    'expected_answer',
    'model_output',
    'parsed_output',
    'uuid',
    'metadata',
    'threshold',
  ],
  generate,
  knownCause: (ngym, upstream) =>
    ngym.status === 200 && upstream.status === 500 && String(upstream.body).includes('UnicodeEncodeError')
      ? 'upstream 500: a lone surrogate in an answer the judge must see fails its judge request, then its judge-failure row (UnicodeEncodeError); ngym judges it'
      : undefined,
};

/** terminus_judge_simple.yaml: the simple prompt with the swap check, a disagreeing swap scored -1. */
export const terminusJudgeSimple: ParityEnvironment = {
  ...terminusJudge,
  instance: 'terminus_judge_simple',
  configs: { ngym: 'terminus_judge_simple.yaml', upstream: 'terminus_judge_simple.yaml' },
  overrides: { ...judged, reward_if_swap_fails: -1.0 },
};

export const terminusJudgeStringOnly: ParityEnvironment = {
  ...terminusJudge,
  instance: 'terminus_judge_string_only',
  configs: { ngym: 'terminus_judge_string_only.yaml', upstream: 'terminus_judge_string_only.yaml' },
  overrides: {},
  servers: {},
};

/** The judge alone (string similarity off), with a system message and the swap check. */
export const terminusJudgeJudgeOnly: ParityEnvironment = {
  ...terminusJudgeSimple,
  instance: 'terminus_judge_judge_only',
  overrides: { ...judged, enable_string_similarity: false, judge_system_message: 'You grade terminal command batches.' },
};

/** Both checks off: the format checks alone decide. */
export const terminusJudgeFormatOnly: ParityEnvironment = {
  ...terminusJudgeStringOnly,
  instance: 'terminus_judge_format_only',
  overrides: { enable_string_similarity: false },
};
