/**
 * The last step of a run with an output file: sort the output when ordered rows could not be written in
 * order, ask each agent that serves one for its `/aggregate_metrics`, and write `<stem>_metrics.json`.
 */
import { writeFileSync } from 'node:fs';
import type { ServerClient } from '../client/server-client.ts';
import type { RolloutMetrics } from '../metrics/rollout-metrics.ts';
import type { CollectionTally } from './collection-tally.ts';
import { type CountedZero, withTaskFields } from './counted-zeros.ts';
import { type OutputPaths, readLinesWithOffsets, sortOutputFile } from './output-files.ts';
import { verifyResponseOf } from './reward-profiles.ts';

export interface FinishedRun {
  paths: OutputPaths;
  /** Rewrite the output in (task, rollout) order first (OutcomeWriter.needsSorting). */
  sort: boolean;
  /** Undefined when an executor ran the rollouts without a client, or with disable_aggregation: no agent is asked then. */
  client: ServerClient | undefined;
  /** Metrics of every rollout in the output. */
  totals: RolloutMetrics;
  /** Not asked: their /aggregate_metrics would wait on the same frozen server. */
  stalledAgents: ReadonlySet<string>;
  tally: CollectionTally;
  /** Rollouts without a score that `/aggregate_metrics` is sent as a reward of 0 (count_*_as_zero). */
  countedAsZero?: readonly CountedZero[];
}

/** Resolves to the agents' `/aggregate_metrics` answers. */
export async function finishOutputFiles(run: FinishedRun): Promise<Record<string, unknown>> {
  if (run.sort) await sortOutputFile(run.paths.output);
  const counted = run.countedAsZero ?? [];
  // An agent all of whose rollouts failed is asked too when its failures count.
  const agents = [...new Set([...Object.keys(run.totals.agents), ...counted.map((zero) => zero.agent)])].filter((agent) => !run.stalledAgents.has(agent));
  const aggregateMetrics = run.client === undefined ? {} : await requestAggregateMetrics(run.client, run.paths.output, agents, counted);
  const { counts } = run.tally;
  writeFileSync(
    run.paths.metrics,
    `${JSON.stringify({ ...run.totals, failures: counts.failed, failures_by_class: counts.failuresByClass, invalid_input_lines: run.tally.invalidCount, aggregate_metrics: aggregateMetrics }, null, 2)}\n`,
  );
  return aggregateMetrics;
}

/** POSTs each agent's stripped results to its `/aggregate_metrics` (upstream's later API), if it serves one. */
async function requestAggregateMetrics(client: ServerClient, outputPath: string, agents: string[], counted: readonly CountedZero[]): Promise<Record<string, unknown>> {
  const answers: Record<string, unknown> = {};
  for (const agent of agents) {
    let probe;
    try {
      probe = await client.post(agent, '/aggregate_metrics', { verify_responses: [] }, { timeoutMs: 30_000 });
    } catch {
      continue;
    }
    if (probe.status === 404 || probe.status === 405) continue;
    const rows: Record<string, unknown>[] = [];
    const carried = new Set<string>();
    for await (const { bytes } of readLinesWithOffsets(outputPath)) {
      if (bytes.length === 0) continue;
      const row = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
      if ((row.agent_ref as { name?: string } | undefined)?.name !== agent) continue;
      for (const key of Object.keys(row)) carried.add(key);
      rows.push(verifyResponseOf(row));
    }
    for (const zero of counted) if (zero.agent === agent) rows.push(withTaskFields(zero, carried));
    // In (task, rollout) order, as upstream's collector sends them: per-repeat metrics (pass@1[avg-of-k]'s spread
    // across runs) take a task's k-th rollout as run k, and the file holds rollouts in the order they finished.
    rows.sort((a, b) => Number(a._ng_task_index) - Number(b._ng_task_index) || Number(a._ng_rollout_index) - Number(b._ng_rollout_index));
    const answer = await client.post(agent, '/aggregate_metrics', { verify_responses: rows }, { timeoutMs: 600_000 });
    if (answer.ok) answers[agent] = answer.json();
  }
  return answers;
}
