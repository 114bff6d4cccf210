/**
 * Upstream's reward profile (what `/aggregate_metrics` answers by default) of recorded rollouts, per agent:
 * what `gym eval aggregate` and `gym eval profile` write, and what `gym eval compare` reads of a run that has no
 * metrics file.
 */
import { isDict } from '../config/tree.ts';
import { type AggregateMetrics, computeAggregateMetrics } from '../metrics/reward-profile.ts';

type Row = Record<string, unknown>;

/** The agent a rollout ran on (`rollouts` for rows without an agent_ref). */
export function rolloutAgentName(row: Row): string {
  return isDict(row.agent_ref) && typeof row.agent_ref.name === 'string' ? row.agent_ref.name : 'rollouts';
}

/** A rollout as `/aggregate_metrics` is sent it: its verify fields, without the prompt and the trajectory (the response keeps its usage). */
export function verifyResponseOf(row: Row): Row {
  const { response, responses_create_params: _params, ...rest } = row;
  return { ...rest, response: { usage: isDict(response) ? (response.usage ?? null) : null } };
}

/** Per agent, the reward profile of its rollouts. */
export function rewardProfiles(rows: Iterable<Row>): Record<string, AggregateMetrics> {
  const byAgent = new Map<string, Row[]>();
  for (const row of rows) {
    const agent = rolloutAgentName(row);
    const verifyResponses = byAgent.get(agent);
    if (verifyResponses === undefined) byAgent.set(agent, [verifyResponseOf(row)]);
    else verifyResponses.push(verifyResponseOf(row));
  }
  return Object.fromEntries([...byAgent].map(([agent, verifyResponses]) => [agent, computeAggregateMetrics(verifyResponses)]));
}

export interface AgentEntry extends Row {
  agent_ref: { name: string };
}

const ENTRY_FIELDS = ['agent_metrics', 'key_metrics', 'group_level_metrics', 'repeat_level_metrics', 'perf_summary'];

/** One agent's entry of upstream's `<stem>_aggregate_metrics.json` (a list of these), from its metrics. */
export function aggregateMetricsEntry(agent: string, metrics: Row): AgentEntry {
  return { agent_ref: { name: agent }, ...Object.fromEntries(ENTRY_FIELDS.filter((field) => field in metrics).map((field) => [field, metrics[field]])) };
}
