/**
 * Rollouts that produced no score but that the user asked to count as a reward of 0 in the aggregate metrics, as
 * upstream 0.7.0's `count_failure_classes_as_zero` and `count_missing_rollouts_as_zero` do. Only what
 * `/aggregate_metrics` is sent changes: the output and the failures file keep every failure as a failure.
 *
 * A counted failure is the last record of a rollout in the failures file whose class is named. Upstream's classes
 * map to ngym's: `agent_run_error` (the agent answered an error: the rollout ran and broke) is ngym's
 * `server_error`, `judge_failed`, `rejected` and `invalid_result`; `agent_request_failed` (no answer, or a gateway's
 * 429/502/503/504) is ngym's `connection`, `timeout` and `rate_limited`. ngym's own class names, and the classes an
 * agent reports itself (`timeout_exceeded`, ...), are taken as they are. A missing rollout is one this run did not
 * start (the dispatch budget ran out, or the run stopped early); it carries its task's dataset fields that the
 * agent's scored rows carry too, as upstream fills them. A counted failure carries the fields of its failure record
 * only: ngym's failures file does not keep the row.
 */
import { existsSync } from 'node:fs';
import type { FailureClass } from './failures.ts';
import { readLinesWithOffsets, rolloutKey } from './output-files.ts';

type Row = Record<string, unknown>;

const UPSTREAM_FAILURE_CLASSES: Readonly<Record<string, readonly FailureClass[]>> = {
  agent_run_error: ['server_error', 'judge_failed', 'rejected', 'invalid_result'],
  agent_request_failed: ['connection', 'timeout', 'rate_limited'],
};

/** ngym's fields of a failure record: diagnostics, which the aggregator would otherwise average as metrics. */
const DIAGNOSTICS = new Set(['error', 'status', 'code', 'attempts', 'input_line', 'failed_at', 'failure_kind', 'failure_reason']);

/** The class names a failure record may carry for the names the user gave. */
export function countedClassNames(names: readonly string[]): Set<string> {
  return new Set(names.flatMap((name) => [name, ...(UPSTREAM_FAILURE_CLASSES[name] ?? [])]));
}

/** A rollout to count as 0, with the input row its dataset fields come from. */
export interface CountedZero {
  agent: string;
  row: Row;
  input: Row | undefined;
}

/** The last record of each rollout in the failures file whose class is counted, as a scored row of reward 0. */
export async function failuresCountedAsZero(failuresPath: string, classes: ReadonlySet<string>): Promise<CountedZero[]> {
  if (classes.size === 0 || !existsSync(failuresPath)) return [];
  const latest = new Map<number, Row>();
  for await (const { bytes } of readLinesWithOffsets(failuresPath)) {
    if (bytes.length === 0) continue;
    let record: Row;
    try {
      record = JSON.parse(bytes.toString('utf8')) as Row;
    } catch {
      continue;
    }
    if (typeof record._ng_task_index === 'number' && typeof record._ng_rollout_index === 'number') latest.set(rolloutKey(record._ng_task_index, record._ng_rollout_index), record);
  }
  const counted: CountedZero[] = [];
  for (const record of latest.values()) {
    if (!classes.has(String(record._ng_failure_class))) continue;
    const row = Object.fromEntries(Object.entries(record).filter(([key]) => !key.startsWith('_ng_failure_') && !DIAGNOSTICS.has(key)));
    counted.push({ agent: agentOf(record), row: { ...row, mask_sample: false, reward: row.reward ?? 0 }, input: undefined });
  }
  return counted;
}

/** A rollout this run did not start, as a scored row of reward 0. */
export function missingCountedAsZero(taskIndex: number, rolloutIndex: number, agent: string, input: Row): CountedZero {
  return { agent, row: { _ng_task_index: taskIndex, _ng_rollout_index: rolloutIndex, agent_ref: { name: agent }, reward: 0 }, input };
}

/** Adds to each counted row the dataset fields of its task that `carried` (the fields of the agent's scored rows) has. */
export function withTaskFields(zero: CountedZero, carried: ReadonlySet<string>): Row {
  const row = { ...zero.row };
  for (const [key, value] of Object.entries(zero.input ?? {})) {
    if (key.startsWith('_') || key === 'responses_create_params' || key === 'response' || !carried.has(key) || key in row) continue;
    row[key] = value;
  }
  return row;
}

function agentOf(record: Row): string {
  const name = (record.agent_ref as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' ? name : 'rollouts';
}
