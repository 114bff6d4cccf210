/**
 * Upstream's recorded rollouts (`data/example_rollouts.jsonl`) against a run's rollouts: rows matched to their task
 * of `data/example.jsonl` by input, then each rollout's reward and verify fields compared with a recorded one of the
 * same task. Also what a recording holds besides the policy model's replies (judge evaluations), and its reward
 * profile.
 */
import { existsSync, readFileSync } from 'node:fs';
import { normalizeInput, type ResponseItem } from 'ngym';
import { mean } from 'ngym/metrics';

export type Row = Record<string, unknown>;

export type JsonlRead = { rows: Row[] } | { problem: string };

/** A JSONL file's rows, or why it has none usable (missing, a placeholder, not JSON). */
export function readRows(path: string): JsonlRead {
  if (!existsSync(path)) return { problem: `${path} does not exist` };
  const rows: Row[] = [];
  const lines = readFileSync(path, 'utf8').split('\n');
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    try {
      const row = JSON.parse(line) as unknown;
      if (typeof row !== 'object' || row === null || Array.isArray(row)) return { problem: `${path}:${index + 1} is not a JSON object` };
      rows.push(row as Row);
    } catch {
      return { problem: `${path}:${index + 1} is not JSON (${JSON.stringify(line.slice(0, 40))})` };
    }
  }
  return rows.length === 0 ? { problem: `${path} has no rows` } : { rows };
}

/**
 * Model calls recorded inside the rollouts besides the policy model's (a judge's `judge_evaluations`, a delegated
 * agent's response): every nested object holding `responses_create_params.input` and `response.output`, as rows
 * replay_model can answer from.
 */
export function nestedModelCalls(rows: readonly Row[]): Row[] {
  const found: Row[] = [];
  const visit = (value: unknown, depth: number) => {
    if (Array.isArray(value)) for (const item of value) visit(item, depth + 1);
    else if (typeof value === 'object' && value !== null) {
      const object = value as Row;
      const params = object.responses_create_params as Row | undefined;
      const response = object.response as Row | undefined;
      if (depth > 0 && params?.input !== undefined && Array.isArray(response?.output)) found.push({ responses_create_params: params, response });
      for (const item of Object.values(object)) visit(item, depth + 1);
    }
  };
  for (const row of rows) visit(row, 0);
  return found;
}

export interface RewardProfile {
  mean: number;
  min: number;
  max: number;
  count: number;
}

export function rewardProfile(rows: readonly Row[]): RewardProfile | undefined {
  const rewards = rows.map((row) => row.reward).filter((reward): reward is number => typeof reward === 'number');
  if (rewards.length === 0) return undefined;
  return { mean: mean(rewards), min: Math.min(...rewards), max: Math.max(...rewards), count: rewards.length };
}

/** What identifies a conversation item for matching (ids, defaults and formatting do not). */
function itemIdentity(item: ResponseItem): string {
  if (item.type === 'function_call') return JSON.stringify(['call', item.name, item.arguments]);
  if (item.type === 'function_call_output') return JSON.stringify(['output', item.output]);
  if (item.type === 'reasoning') return JSON.stringify(['reasoning']);
  const content = typeof item.content === 'string' ? item.content : item.content.map(partIdentity).join('');
  return JSON.stringify([item.role, content]);
}

/** A content part by what it carries (text, an image's URL, a file), not by defaults such as `detail: auto`. */
function partIdentity(part: Record<string, unknown>): string {
  for (const key of ['text', 'refusal', 'image_url', 'file_url', 'file_data', 'file_id']) if (typeof part[key] === 'string') return part[key];
  const { detail: _detail, ...rest } = part;
  return JSON.stringify(rest);
}

/** The task of each recorded rollout (undefined: its input starts with no example's input). */
export function recordedTasks(examples: readonly Row[], recorded: readonly Row[]): (number | undefined)[] {
  const exampleInputs = examples.map(inputOf);
  return recorded.map((row) => taskOf(row, examples, exampleInputs));
}

/** Whether two different example rows share one input: replay_model, which answers by input, cannot tell them apart. */
export function sharedInputs(examples: readonly Row[]): boolean {
  const byInput = new Map<string, string>();
  for (const example of examples) {
    const input = JSON.stringify(inputOf(example));
    const whole = JSON.stringify(example);
    if (byInput.has(input) && byInput.get(input) !== whole) return true;
    byInput.set(input, whole);
  }
  return false;
}

/**
 * Whether some rows send the model one same input (repeats, or tasks differing only in other fields): replay_model
 * answers those in the recording's task order, so they must run one at a time, in order.
 */
export function repeatedInputs(rows: readonly Row[]): boolean {
  const inputs = rows.map((row) => JSON.stringify(inputOf(row)));
  return new Set(inputs).size < inputs.length;
}

function inputOf(row: Row): string[] | undefined {
  const input = (row.responses_create_params as Row | undefined)?.input;
  if (typeof input !== 'string' && !Array.isArray(input)) return undefined;
  try {
    return normalizeInput(input as string | ResponseItem[]).map(itemIdentity);
  } catch {
    return undefined;
  }
}

const META_KEY = /^(_ng_|response$|responses_create_params$|agent_ref$)/;
const ID_OR_TIMING_KEY = /(^|_)(id|ids|uuid|time|times|seconds|secs|sec|ms|latency|duration|elapsed|timestamp|created_at|started_at|finished_at)$/i;

/** Top-level scalar fields that both rows have, other than ids, timings and the conversation itself. */
export function comparedFields(recorded: Row, result: Row): string[] {
  return Object.keys(recorded).filter((key) => {
    if (META_KEY.test(key) || ID_OR_TIMING_KEY.test(key) || !(key in result)) return false;
    const isScalar = (value: unknown) => value === null || ['number', 'string', 'boolean'].includes(typeof value);
    return isScalar(recorded[key]) && isScalar(result[key]);
  });
}

function sameValue(recorded: unknown, result: unknown): boolean {
  if (typeof recorded === 'number' && typeof result === 'number') {
    if (Number.isNaN(recorded) && Number.isNaN(result)) return true;
    return recorded === result || Math.abs(recorded - result) <= 1e-9 * Math.max(1, Math.abs(recorded));
  }
  return recorded === result;
}

interface Difference {
  field: string;
  recorded: unknown;
  result: unknown;
}

function differences(recorded: Row, result: Row): Difference[] {
  const fields = ['reward', ...comparedFields(recorded, result).filter((field) => field !== 'reward')];
  return fields.filter((field) => !sameValue(recorded[field], result[field])).map((field) => ({ field, recorded: recorded[field], result: result[field] }));
}

/**
 * The task of `examples` a rollout belongs to: the example whose input its input starts with (an agent may have
 * added to it), the longest such; among equal inputs, the one sharing most scalar fields with the rollout, and among
 * those the one at the rollout's `_ng_task_index` (a recording that kept none of its task's other fields).
 */
function taskOf(row: Row, examples: readonly Row[], exampleInputs: readonly (string[] | undefined)[]): number | undefined {
  const input = inputOf(row);
  if (input === undefined) return undefined;
  let best: { index: number; length: number; shared: number; atIndex: boolean } | undefined;
  exampleInputs.forEach((exampleInput, index) => {
    if (exampleInput === undefined || exampleInput.length > input.length || !exampleInput.every((item, position) => item === input[position])) return;
    const example = examples[index] as Row;
    const shared = Object.keys(example).filter((key) => key !== 'responses_create_params' && key in row && JSON.stringify(example[key]) === JSON.stringify(row[key])).length;
    const atIndex = row._ng_task_index === index;
    const better =
      best === undefined ||
      exampleInput.length > best.length ||
      (exampleInput.length === best.length && (shared > best.shared || (shared === best.shared && atIndex && !best.atIndex)));
    if (better) best = { index, length: exampleInput.length, shared, atIndex };
  });
  return best?.index;
}

export interface Comparison {
  /** Recorded rollouts a result equals (reward and every compared field). */
  equal: number;
  /** Recorded rollouts. */
  total: number;
  /** Results that came back (not failed). */
  results: number;
  /** The first differences of rollouts that did not equal a recorded one. */
  differing: { task: number | undefined; differences: Difference[] }[];
  /** Results whose task could not be told from the input. */
  unmatched: number;
}

/** Each result paired with an equal recorded rollout of its task where there is one (repeats may finish in any order). */
export function compareWithRecording(examples: readonly Row[], recorded: readonly Row[], results: readonly Row[]): Comparison {
  const exampleInputs = examples.map(inputOf);
  // Rows that are one task given twice (a recording holding its task several times) are one group: the first of them.
  const texts = examples.map((example) => JSON.stringify(example));
  const canonical = (task: number | undefined) => (task === undefined ? undefined : texts.indexOf(texts[task] as string));
  const group = (rows: readonly Row[]) => {
    const groups = new Map<number | undefined, Row[]>();
    for (const row of rows) {
      const task = canonical(taskOf(row, examples, exampleInputs));
      groups.set(task, [...(groups.get(task) ?? []), row]);
    }
    return groups;
  };
  const recordedByTask = group(recorded);
  const resultsByTask = group(results);
  const comparison: Comparison = { equal: 0, total: recorded.length, results: results.length, differing: [], unmatched: resultsByTask.get(undefined)?.length ?? 0 };
  for (const [task, taskResults] of resultsByTask) {
    if (task === undefined) continue;
    const open = [...(recordedByTask.get(task) ?? [])];
    const unequal: Row[] = [];
    for (const result of taskResults) {
      const match = open.findIndex((candidate) => differences(candidate, result).length === 0);
      if (match >= 0) {
        open.splice(match, 1);
        comparison.equal++;
      } else unequal.push(result);
    }
    unequal.forEach((result, index) => {
      const counterpart = open[index];
      comparison.differing.push({ task, differences: counterpart === undefined ? [{ field: 'task', recorded: 'no recorded rollout left', result: 'an extra rollout' }] : differences(counterpart, result) });
    });
  }
  return comparison;
}
