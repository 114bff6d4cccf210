/**
 * What a finished collection tells the world about itself, from its summary and its output file:
 *   - the per-agent entries of upstream's `<stem>_aggregate_metrics.json` (a list, each with `agent_ref.name`,
 *     `agent_metrics`, `key_metrics`, `group_level_metrics`, `repeat_level_metrics`): each agent's own
 *     `/aggregate_metrics` answer, or, for an agent that gave none (a distributed run, an agent without the
 *     route), upstream's reward profile of its rollouts in (task, rollout) order;
 *   - for the trackers: the metrics as upstream names them (`<agent>/<metric>`, `key_metrics/<agent>/<metric>`,
 *     `coverage/*`), the per-task table (each agent's `group_level_metrics`) and a sample of the rollouts.
 */
import { writeFileSync } from 'node:fs';
import { isDict } from '../config/tree.ts';
import type { CollectionSummary } from '../rollouts/collect.ts';
import { readJsonl } from '../rollouts/jsonl.ts';
import { outputPathsFor } from '../rollouts/output-files.ts';
import { type AgentEntry, aggregateMetricsEntry, rewardProfiles, verifyResponseOf } from '../rollouts/reward-profiles.ts';
import type { RunMetrics, Table } from './tracker.ts';

type Row = Record<string, unknown>;

export interface CollectionRecord {
  entries: AgentEntry[];
  metrics: RunMetrics;
  tasks: Table;
  /** The first rollouts of the output, one JSON text per row (upstream's `Rollout` column). */
  rollouts: Table;
}

const isPrimitive = (value: unknown): value is number | string | boolean => typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean';

const byTaskThenRollout = (a: Row, b: Row) => Number(a._ng_task_index ?? 0) - Number(b._ng_task_index ?? 0) || Number(a._ng_rollout_index ?? 0) - Number(b._ng_rollout_index ?? 0);

/** One pass over the output: the verify fields of every rollout (for profiles) and the first `sampleSize` rollouts whole. */
async function scanOutput(path: string, sampleSize: number): Promise<{ verifyResponses: Row[]; sample: Row[] }> {
  const verifyResponses: Row[] = [];
  const sample: Row[] = [];
  for await (const { value } of readJsonl(path)) {
    if (!isDict(value)) continue;
    verifyResponses.push(verifyResponseOf(value));
    if (sample.length < sampleSize) sample.push(value);
  }
  return { verifyResponses: verifyResponses.sort(byTaskThenRollout), sample: sample.sort(byTaskThenRollout) };
}

function trackerMetrics(entries: AgentEntry[], summary: CollectionSummary): RunMetrics {
  const metrics: RunMetrics = {};
  for (const entry of entries) {
    const agent = entry.agent_ref.name;
    for (const [field, prefix] of [['agent_metrics', `${agent}/`], ['key_metrics', `key_metrics/${agent}/`]] as const) {
      const values = entry[field];
      if (isDict(values)) for (const [key, value] of Object.entries(values)) if (isPrimitive(value)) metrics[`${prefix}${key}`] = value;
    }
  }
  const missing = summary.failed + summary.notStarted;
  metrics['coverage/expected'] = summary.metrics.rollouts + missing;
  metrics['coverage/scored'] = summary.metrics.rollouts;
  metrics['coverage/missing'] = missing;
  return metrics;
}

/** Each agent's per-task metrics (`group_level_metrics`) as one table: an `agent` column, then every scalar column. */
function taskTable(entries: AgentEntry[]): Table {
  const rows = entries.flatMap((entry) =>
    (Array.isArray(entry.group_level_metrics) ? entry.group_level_metrics.filter(isDict) : []).map((group) => ({
      agent: entry.agent_ref.name,
      ...Object.fromEntries(Object.entries(group).filter(([, value]) => isPrimitive(value) || value === null)),
    })),
  );
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  return { columns, data: rows.map((row) => columns.map((column) => (row as Row)[column] ?? null)) };
}

/**
 * The record of a collection with an output file. The output is read only when it is needed: for an agent that
 * gave no `/aggregate_metrics` answer, or for a sample of rollouts (`sampleSize` > 0).
 */
export async function collectionRecord(summary: CollectionSummary & { paths: NonNullable<CollectionSummary['paths']> }, sampleSize: number): Promise<CollectionRecord> {
  const agents = Object.keys(summary.metrics.agents).sort();
  const answered = (agent: string) => isDict(summary.aggregateMetrics[agent]) && isDict((summary.aggregateMetrics[agent] as Row).agent_metrics);
  const needsProfiles = agents.some((agent) => !answered(agent));
  const scan = needsProfiles || sampleSize > 0 ? await scanOutput(summary.paths.output, sampleSize) : { verifyResponses: [], sample: [] };
  const profiles: Record<string, unknown> = needsProfiles ? rewardProfiles(scan.verifyResponses) : {};
  const entries = agents.flatMap((agent): AgentEntry[] => {
    const source = answered(agent) ? summary.aggregateMetrics[agent] : profiles[agent];
    if (!isDict(source)) return [];
    return [aggregateMetricsEntry(agent, source)];
  });
  return {
    entries,
    metrics: trackerMetrics(entries, summary),
    tasks: taskTable(entries),
    rollouts: { columns: ['Rollout'], data: scan.sample.map((row) => [JSON.stringify(row)]) },
  };
}

/** Writes upstream's `<stem>_aggregate_metrics.json` beside the output; returns its path. */
export function writeAggregateMetricsFile(outputPath: string, entries: AgentEntry[]): string {
  const path = outputPathsFor(outputPath).aggregateMetrics;
  writeFileSync(path, `${JSON.stringify(entries, null, 2)}\n`);
  return path;
}
