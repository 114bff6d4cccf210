/**
 * reasoning_gym: upstream 0.7.0's example rollouts (joined to their rows) and ngym's, then rows of every task of
 * the reasoning-gym library (0.1.25: 105 tasks), made once per run by the library itself through ngym's
 * `scripts/create_dataset.py` (its `build_dataset`, one dataset per task, seeded from the case seed), answered
 * right (the oracle, or the solution the library keeps in the metadata), wrong (another row's answer, prose),
 * near misses (last character changed, case changed, half the answer, a trailing period, inner spaces) and empty,
 * in the forms upstream's verify extracts from: answer tags (padded, across lines, unicode spaces, two of them, an
 * unclosed one, upper-case tags), `\boxed{}` (alone, two, after tags), the whole last message, reasoning items,
 * several messages and content parts, refusal parts, tool calls only, empty output, truncated text.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type ParityCase, callOutput, dataRows, response, rolloutCase, textOutput, truncate, upstreamRolloutCases } from '../cases.ts';
import type { ParityEnvironment } from '../environment.ts';
import { type PythonSetup, pythonSetup } from '../gym.ts';
import type { ResponseItem } from '../../src/protocol/index.ts';
import { LIBRARY_SCRIPTS } from '../../resources_servers/reasoning_gym/library.ts';
import { TASKS } from '../../resources_servers/reasoning_gym/tasks/index.ts';
import { type SeededRandom as Random } from 'ngym';
import { pythonJsonDumps } from 'ngym/python-compat';

const COMPUTED = ['task_name', 'score', 'extracted_answer'];
const ROWS_PER_TASK = 6;
// The TypeScript ports are ngym's own scorers (the other tasks are scored by the library on both sides): more rows.
const ROWS_PER_PORTED_TASK = 30;

// Rows of every library task, one dataset per task (as create_dataset.py's --task makes them), as JSON on stdout.
// PYTHONHASHSEED is fixed below, and Python's global random seeded per task: a task iterating a set of strings, or
// drawing from the global generator (list_functions' odd numbers do, reasoning-gym 0.1.25), would otherwise differ
// from process to process.
const MAKE_ROWS = `
import contextlib, json, random, sys
sys.path.insert(0, sys.argv[1])
from create_dataset import build_dataset, library_tasks, nemo_gym_row
seed, sizes = int(sys.argv[2]), json.loads(sys.argv[3])
rows = []
with contextlib.redirect_stdout(sys.stderr):
    for task in sorted(name for names in library_tasks().values() for name in names):
        size = sizes.get(task, sizes["*"])
        random.seed(seed)
        dataset = build_dataset([task], size, seed, {})
        for index in range(size):
            try:
                rows.append(nemo_gym_row(dataset[index], "reasoning_gym_simple_agent"))
            except Exception as error:  # create_dataset.py skips an item the library fails to make, so do we
                print(f"{task}[{index}]: {error!r}", file=sys.stderr)
print(json.dumps(rows))
`;

const rowCache = new Map<number, Record<string, unknown>[]>();

/** The library's rows for `seed` (made once per process and seed: the generator is called more than once per run). */
function libraryRows(python: PythonSetup, seed: number): Record<string, unknown>[] {
  const cached = rowCache.get(seed);
  if (cached !== undefined) return cached;
  const sizes = { '*': ROWS_PER_TASK, ...Object.fromEntries([...TASKS.keys()].map((task) => [task, ROWS_PER_PORTED_TASK])) };
  const made = spawnSync(python.executable, ['-c', MAKE_ROWS, LIBRARY_SCRIPTS, String(seed), JSON.stringify(sizes)], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    env: { ...process.env, PYTHONHASHSEED: '0' },
  });
  if (made.status !== 0) throw new Error(`reasoning_gym parity rows: the reasoning-gym library failed to make them (${made.signal ?? `exit code ${made.status}`}): ${made.stderr.slice(-2000)}`);
  const rows = JSON.parse(made.stdout) as Record<string, unknown>[];
  rowCache.set(seed, rows);
  return rows;
}

const taskOf = (row: Record<string, unknown>): string => (row.metadata as Record<string, unknown>).source_dataset as string;

/** The right answer: the oracle, or the solution the library stores where the oracle is null (as library.test.ts). */
function rightAnswer(row: Record<string, unknown>): string {
  if (typeof row.answer === 'string') return row.answer;
  const metadata = row.metadata as Record<string, unknown>;
  if (typeof metadata.example_answer === 'string') return metadata.example_answer;
  if (metadata.possible_answer !== undefined) return pythonJsonDumps(metadata.possible_answer);
  return '';
}

function answerOf(random: Random, row: Record<string, unknown>, sameTask: Record<string, unknown>[]): { outcome: string; answer: string } {
  const right = rightAnswer(row);
  const other = sameTask.filter((candidate) => rightAnswer(candidate) !== right);
  const outcomes: [string, () => string][] = [
    ['right', () => right],
    ['right', () => right],
    ['right', () => right],
    ['other_row', () => (other.length > 0 ? rightAnswer(random.pick(other)) : 'no idea')],
    ['wrong', () => random.pick(['no idea', 'I cannot solve this.', '42', 'None', '[]', '{}', 'True'])],
    ['near_last_char', () => (right === '' ? '0' : right.slice(0, -1) + (right.endsWith('0') ? '1' : '0'))],
    ['near_case', () => (random.chance(0.5) ? right.toUpperCase() : right.toLowerCase())],
    ['near_half', () => right.slice(0, Math.ceil(right.length / 2))],
    ['near_period', () => `${right}.`],
    ['near_spaces', () => right.replace(/,\s*/gu, ' , ').replace(/\n/gu, ' \n ')],
    ['near_json', () => pythonJsonDumps(right)],
    ['empty', () => ''],
  ];
  const [outcome, make] = random.pick(outcomes);
  return { outcome, answer: make() };
}

/** The model's text holding `answer`, in a form upstream's extraction reads (or does not). */
function written(random: Random, answer: string, other: string): { form: string; text: string } {
  const forms: [string, string][] = [
    ['tag', `<answer>${answer}</answer>`],
    ['tag_after_reasoning', `Let me work through it step by step.\n\nSo the result follows.\n<answer>${answer}</answer>`],
    ['tag_padded', `<answer> ${answer} </answer>`],
    ['tag_lines', `<answer>\n${answer}\n</answer>`],
    ['tag_two_spaces', `<answer>  ${answer}\n\n</answer>`],
    ['tag_unicode_space', `<answer>\u00a0${answer}\u2003</answer>`],
    ['tag_two', `<answer>${other}</answer>\nWait, let me re-check.\n<answer>${answer}</answer>`],
    ['tag_two_reversed', `<answer>${answer}</answer> no: <answer>${other}</answer>`],
    ['tag_empty', '<answer></answer>'],
    ['tag_unclosed', `<answer>${answer}`],
    ['tag_upper', `<ANSWER>${answer}</ANSWER>`],
    ['tag_nested', `<answer><answer>${answer}</answer></answer>`],
    ['think_then_tag', `<think>\nMaybe <answer>${other}</answer>?\n</think>\n<answer>${answer}</answer>`],
    ['boxed', `The answer is \\boxed{${answer}}.`],
    ['boxed_two', `\\boxed{${answer}} or maybe \\boxed{${other}}`],
    ['boxed_then_tag', `\\boxed{${other}}\n<answer>${answer}</answer>`],
    ['boxed_spaces', `\\boxed{  ${answer}\n}`],
    ['boxed_empty', `\\boxed{} ${answer}`],
    ['bare', answer],
    ['bare_padded', `\n\n  ${answer}  \n`],
    ['prose', `The answer is ${answer}`],
    ['markdown', `**Answer:** ${answer}`],
    ['truncated', truncate(`Thinking about it.\n<answer>${answer}</answer>`, random.pick([0.4, 0.8, 0.95]))],
    ['blank', ' \n\t '],
  ];
  const [form, text] = random.pick(forms);
  return { form, text };
}

/** The response items holding `text`, in the shapes a policy's output takes. */
function shaped(random: Random, text: string, index: number): { shape: string; items: ResponseItem[] } {
  const shape = random.pick(['one_message', 'one_message', 'one_message', 'one_message', 'reasoning_first', 'two_messages', 'split_messages', 'split_parts', 'refusal_part', 'reasoning_only', 'tool_call_only', 'tool_call_then_message', 'empty_output']);
  const reasoning = (summary: string) => ({ type: 'reasoning', id: `rs_parity_${index}`, summary: [{ type: 'summary_text', text: summary }] }) as ResponseItem;
  const cut = Math.floor(text.length / 2);
  switch (shape) {
    case 'reasoning_first':
      return { shape, items: [reasoning('<answer>not this</answer> \\boxed{nor this}'), textOutput(text, index)] };
    case 'two_messages':
      return { shape, items: [textOutput('First thoughts.', index), textOutput(text, index + 1)] };
    case 'split_messages':
      return { shape, items: [textOutput(text.slice(0, cut), index), textOutput(text.slice(cut), index + 1)] };
    case 'split_parts':
      return { shape, items: [{ ...textOutput('', index), content: [{ type: 'output_text', text: text.slice(0, cut), annotations: [] }, { type: 'output_text', text: text.slice(cut), annotations: [] }] } as ResponseItem] };
    case 'refusal_part':
      return { shape, items: [{ ...textOutput('', index), content: [{ type: 'refusal', refusal: '<answer>refused</answer>' }, { type: 'output_text', text, annotations: [] }] } as ResponseItem] };
    case 'reasoning_only':
      return { shape, items: [reasoning(text)] };
    case 'tool_call_only':
      return { shape, items: [callOutput('submit_answer', { answer: text }, index)] };
    case 'tool_call_then_message':
      return { shape, items: [callOutput('calculator', { expression: '1+1' }, index), { type: 'function_call_output', call_id: `call_parity_${index}`, output: '<answer>2</answer>' } as ResponseItem, textOutput(text, index + 1)] };
    case 'empty_output':
      return { shape, items: [] };
    default:
      return { shape, items: [textOutput(text, index)] };
  }
}

function generated(random: Random, rows: Record<string, unknown>[], byTask: Map<string, Record<string, unknown>[]>, index: number): ParityCase {
  const row = rows[index % rows.length] as Record<string, unknown>;
  const task = taskOf(row);
  const { outcome, answer } = answerOf(random, row, byTask.get(task) ?? []);
  const { form, text } = written(random, answer, rightAnswer(random.pick(byTask.get(task) ?? [row])));
  const { shape, items } = shaped(random, text, index);
  const verify: Record<string, unknown> = { ...row, response: response(items, index) };
  const odd = random.int(0, 99);
  let detail = task;
  // A few rows whose metadata names no task (both fail) or a task the library lacks (upstream scores it 0).
  if (odd === 0) {
    verify.metadata = { ...(row.metadata as Record<string, unknown>), source_dataset: undefined };
    detail = `${task} without source_dataset`;
  } else if (odd === 1) {
    verify.metadata = { ...(row.metadata as Record<string, unknown>), source_dataset: 'no_such_task' };
    detail = `${task} as no_such_task`;
  }
  return { kind: `${form}/${outcome}`, detail: `${detail}/${shape}: ${JSON.stringify(answer).slice(0, 200)}`, verify };
}

export const reasoningGym: ParityEnvironment = {
  name: 'reasoning_gym',
  configs: { ngym: 'reasoning_gym.yaml', upstream: 'reasoning_gym.yaml' },
  // Upstream scores a task its library lacks 0; ngym's default refuses it (422), this key is upstream's rule.
  // intermediate_integration's scorer (sympy's simplify) takes up to a minute on some right answers, on both sides
  // (upstream's server is blocked meanwhile): ngym's worker limit and the harness's are raised past it.
  overrides: { score_unknown_tasks_as_zero: true, library_timeout_seconds: 900 },
  timeoutMs: 900_000,
  unavailable: (python) => (existsSync(join(python.sitePackages, 'reasoning_gym')) ? undefined : 'the reasoning-gym library is not installed in the venv; run `npm run setup:python`'),
  generatorNeedsPython: true,
  fields: COMPUTED,
  generate(random, count) {
    const cases = [...upstreamRolloutCases('reasoning_gym', COMPUTED), ...dataRows('reasoning_gym', 'example_rollouts.jsonl').map((row) => rolloutCase(row, COMPUTED))];
    const byTask = new Map<string, Record<string, unknown>[]>();
    for (const row of libraryRows(pythonSetup(), random.int(0, 2 ** 31 - 1))) byTask.set(taskOf(row), [...(byTask.get(taskOf(row)) ?? []), row]);
    // Round robin over the tasks (each task's first row, then each one's second...): a short run covers every task.
    const rows = Array.from({ length: ROWS_PER_PORTED_TASK }, (_, position) => [...byTask.values()].flatMap((taskRows) => taskRows.slice(position, position + 1))).flat();
    for (let index = cases.length; index < count; index += 1) cases.push(generated(random, rows, byTask, index));
    return cases.slice(0, Math.max(count, 5));
  },
};
