/**
 * The default answer of `POST /aggregate_metrics` (upstream 0.7.0's reward profile of verify responses), so a
 * collector that asks any resources server for it, upstream's included, gets the same figures from ngym:
 *
 *   group_level_metrics   per task: mean/max/min/median/std of every numeric field (booleans as 0/1, the
 *                         response's `usage` counts included), the rollouts' own numbers, completion counts
 *   agent_metrics         the same statistics over all rollouts; with several repeats also, per statistic
 *                         `mean/<field>`, its spread across repeats (`<stat>_across_repeats/mean/<field>`)
 *   key_metrics           the `mean/*` entries
 *   repeat_level_metrics  per rollout index (only with several): mean/median/std/sem/min/max/p25/p75 and a
 *                         95% t-interval per field
 *   perf_summary          token, turn and latency statistics of the rollouts' `ng_perf` records, if any
 *
 * Rollouts marked `mask_sample` are left out of every quality figure and counted under `coverage/*`.
 * An environment adds its own figures with `computeMetrics` and picks its headlines with `getKeyMetrics`
 * (upstream's `compute_metrics` and `get_key_metrics`; src/metrics/pass-majority.ts has their usual pieces).
 */
import { NgymError } from '../errors.ts';
import { isPythonDict, pythonTruthy } from '../python-compat/python-values.ts';
import { mean, median, quantile, standardDeviation, tInterval95 } from './statistics.ts';

type Json = Record<string, unknown>;

export interface AggregateMetrics {
  group_level_metrics: Json[];
  agent_metrics: Json;
  key_metrics: Json;
  perf_summary: Json | null;
  repeat_level_metrics: Json[];
}

const TASK = '_ng_task_index';
const ROLLOUT = '_ng_rollout_index';
const AGENT = 'agent';
const ACROSS_REPEATS = '_across_repeats/';

/** Statistics that are not point estimates, so they are not summarized again across repeats. */
const EXCLUDED_PREFIXES = ['max/', 'min/', 'median/', 'std/', 'sem/', 'se/', 'p25/', 'p75/', 'ci_low_95/', 'ci_high_95/', 'histogram/'];
const EXCLUDED_SUFFIXES = [
  '/max', '/min', '/median', '/p5', '/p25', '/p75', '/p95', '/ci_low_95', '/ci_high_95', '/ci_lower', '/ci_upper', '_ci_lower',
  '_ci_upper', '_ci95_lower', '_ci95_upper', '/_ng_attempt_index', '/std_dev_across_runs', '/std_err_across_runs', '/avg_sample_std_dev',
];
const EXCLUDED_NAMES = new Set([TASK, ROLLOUT, '_ng_attempt_index', 'sample_count', 'missing_count', 'num_repeats', 'token_usage_version']);

/** Whether a metric is a point estimate (not a spread, interval, count or index): the ones summarized across repeats and compared. */
export function isPrimaryMetric(name: string): boolean {
  return (
    !EXCLUDED_NAMES.has(name) &&
    !EXCLUDED_PREFIXES.some((prefix) => name.startsWith(prefix)) &&
    !EXCLUDED_SUFFIXES.some((suffix) => name.endsWith(suffix)) &&
    !name.includes(ACROSS_REPEATS)
  );
}

/** A number as upstream's profiler counts it: numbers, and booleans as 0/1. */
function numeric(value: unknown): number | undefined {
  if (typeof value === 'boolean') return Number(value);
  return typeof value === 'number' ? value : undefined;
}

function usageOf(result: Json): Json {
  const response = result.response;
  const usage = isPythonDict(response) ? response.usage : undefined;
  return isPythonDict(usage) ? usage : {};
}

function indexOf(result: Json, key: string): number {
  return typeof result[key] === 'number' ? (result[key] as number) : 0;
}

/** The numeric fields of one rollout: its own (not `_`-prefixed) and its response's usage counts. */
function numericFields(result: Json): Map<string, number> {
  const fields = new Map<string, number>();
  for (const [key, value] of Object.entries({ ...result, ...usageOf(result) })) {
    const number = key.startsWith('_') ? undefined : numeric(value);
    if (number !== undefined) fields.set(key, number);
  }
  return fields;
}

function rolloutInfo(result: Json): Json {
  const task = indexOf(result, TASK);
  const rollout = indexOf(result, ROLLOUT);
  const info: Json = { rollout_id: `${task}:${rollout}`, [TASK]: task, [ROLLOUT]: rollout };
  if ('reward' in result) info.reward = result.reward;
  for (const [key, value] of Object.entries(usageOf(result))) {
    const number = numeric(value);
    if (number !== undefined) info[key] = number;
  }
  for (const [key, value] of Object.entries(result)) {
    const number = key.startsWith('_') || key === 'reward' || key === 'response' ? undefined : numeric(value);
    if (number !== undefined) info[key] = number;
  }
  return info;
}

interface Measured {
  task: number;
  rollout: number;
  fields: Map<string, number>;
}

/** mean/max/min/median/std (pandas' describe) of each column over some rollouts; missing values are skipped. */
function describe(rollouts: readonly Measured[], columns: readonly string[]): Json {
  const out: Json = {};
  const stds = new Map<string, number>();
  const complete = new Set<string>();
  for (const column of columns) {
    const values = rollouts.flatMap((rollout) => (rollout.fields.has(column) ? [rollout.fields.get(column) as number] : []));
    if (values.length === rollouts.length) complete.add(column);
    stds.set(column, standardDeviation(values, 1));
    if (values.length === 0) continue;
    out[`mean/${column}`] = mean(values);
    out[`max/${column}`] = Math.max(...values);
    out[`min/${column}`] = Math.min(...values);
    out[`median/${column}`] = median(values);
  }
  // A standard deviation of one value is reported as 0 rather than left out, as upstream does.
  const noSpread = [...stds.values()].every(Number.isNaN);
  for (const [column, std] of stds) {
    if (!Number.isNaN(std)) out[`std/${column}`] = std;
    else if (noSpread && complete.has(column)) out[`std/${column}`] = 0;
  }
  return out;
}

/** mean ± t(0.975, n-1) · standard error, or undefined for one value. */
function confidenceInterval(center: number, standardError: number, n: number): [number, number] | undefined {
  return n <= 1 ? undefined : tInterval95(center, standardError, n - 1);
}

function repeatLevelMetrics(measured: readonly Measured[], columns: readonly string[]): Json[] {
  const byRollout = groupBy(measured, (rollout) => rollout.rollout);
  if (byRollout.size <= 1) return [];
  const totalTasks = new Set(measured.map((rollout) => rollout.task)).size;
  return [...byRollout].map(([rolloutIndex, rollouts]) => {
    const present = new Set(rollouts.map((rollout) => rollout.task)).size;
    const entry: Json = { [ROLLOUT]: rolloutIndex, sample_count: present, missing_count: totalTasks - present };
    for (const column of columns) {
      const values = rollouts.flatMap((rollout) => (rollout.fields.has(column) ? [rollout.fields.get(column) as number] : []));
      if (values.length === 0) continue;
      const center = mean(values);
      const std = values.length > 1 ? standardDeviation(values, 1) : 0;
      const sem = std / Math.sqrt(values.length);
      Object.assign(entry, {
        [`mean/${column}`]: center,
        [`median/${column}`]: median(values),
        [`std/${column}`]: std,
        [`sem/${column}`]: sem,
        [`min/${column}`]: Math.min(...values),
        [`max/${column}`]: Math.max(...values),
        [`p25/${column}`]: quantile(values, 0.25),
        [`p75/${column}`]: quantile(values, 0.75),
      });
      const interval = confidenceInterval(center, sem, values.length);
      if (interval !== undefined) [entry[`ci_low_95/${column}`], entry[`ci_high_95/${column}`]] = interval;
    }
    return entry;
  });
}

/** Each repeat's point estimates (`mean/<field>`) summarized across repeats. */
function acrossRepeats(repeats: readonly Json[]): Json {
  const out: Json = {};
  const names = [...new Set(repeats.flatMap((entry) => Object.keys(entry)))].filter(isPrimaryMetric);
  for (const name of names) {
    const values = repeats.flatMap((entry) => (typeof entry[name] === 'number' ? [entry[name] as number] : []));
    if (values.length === 0) continue;
    const center = mean(values);
    const std = values.length > 1 ? standardDeviation(values, 1) : 0;
    const standardError = std / Math.sqrt(values.length);
    Object.assign(out, {
      [`mean${ACROSS_REPEATS}${name}`]: center,
      [`median${ACROSS_REPEATS}${name}`]: median(values),
      [`std${ACROSS_REPEATS}${name}`]: std,
      [`min${ACROSS_REPEATS}${name}`]: Math.min(...values),
      [`max${ACROSS_REPEATS}${name}`]: Math.max(...values),
      [`se${ACROSS_REPEATS}${name}`]: standardError,
    });
    const interval = confidenceInterval(center, standardError, values.length);
    if (interval !== undefined) [out[`ci_low_95${ACROSS_REPEATS}${name}`], out[`ci_high_95${ACROSS_REPEATS}${name}`]] = interval;
  }
  return out;
}

function groupBy<T>(items: readonly T[], key: (item: T) => number): Map<number, T[]> {
  const groups = new Map<number, T[]>();
  for (const item of items) {
    const group = groups.get(key(item));
    if (group === undefined) groups.set(key(item), [item]);
    else group.push(item);
  }
  return new Map([...groups].sort(([a], [b]) => a - b));
}

function coverage(all: readonly Json[], scored: readonly Json[], masked: readonly Json[]): Json {
  if (masked.length === 0) return {};
  const tasks = new Set(all.map((result) => indexOf(result, TASK)));
  const measuredTasks = new Set(scored.map((result) => indexOf(result, TASK)));
  return {
    'coverage/measured_rollouts': scored.length,
    'coverage/masked_rollouts': masked.length,
    'coverage/measured_tasks': measuredTasks.size,
    'coverage/fully_masked_tasks': [...tasks].filter((task) => !measuredTasks.has(task)).length,
  };
}

const PERF_TOKEN_FIELDS = ['prompt_tokens', 'cached_prompt_tokens', 'completion_tokens', 'reasoning_tokens'];

/** Token, turn and latency statistics of the rollouts' `ng_perf` records; null when none has one. */
function perfSummary(records: readonly Json[], totalRollouts: number): Json | null {
  if (totalRollouts <= 0 || records.length === 0) return null;
  const valuesOf = (key: string) => records.flatMap((record) => (numeric(record[key]) === undefined ? [] : [numeric(record[key]) as number]));
  const summary: Json = {
    overall_observability_coverage: records.length / totalRollouts,
    token_observability_coverage: records.filter((record) => (numeric(record.token_observability_coverage) ?? 0) > 0).length / totalRollouts,
  };
  for (const field of PERF_TOKEN_FIELDS) {
    const values = valuesOf(field);
    if (values.length === 0) continue;
    Object.assign(summary, { [`mean_${field}`]: mean(values), [`median_${field}`]: median(values), [`total_${field}`]: values.reduce((a, b) => a + b, 0) });
  }
  const turns = valuesOf('num_turns');
  if (turns.length > 0) {
    Object.assign(summary, {
      mean_num_turns: mean(turns),
      median_num_turns: median(turns),
      std_num_turns: standardDeviation(turns, 0),
      min_num_turns: Math.min(...turns),
      p90_num_turns: quantile(turns, 0.9),
      max_num_turns: Math.max(...turns),
    });
  }
  const perTurn = records.flatMap((record) => {
    const tokens = numeric(record.completion_tokens);
    const count = numeric(record.num_turns);
    return tokens !== undefined && count !== undefined && count > 0 ? [tokens / count] : [];
  });
  if (perTurn.length > 0) Object.assign(summary, { mean_tokens_per_turn: mean(perTurn), median_tokens_per_turn: median(perTurn) });
  const latency = valuesOf('total_latency_ms');
  if (latency.length > 0) {
    Object.assign(summary, {
      total_latency_p50_ms: quantile(latency, 0.5),
      total_latency_p90_ms: quantile(latency, 0.9),
      total_latency_p99_ms: quantile(latency, 0.99),
      total_latency_mean_ms: mean(latency),
    });
  }
  return summary;
}

/**
 * A scored verify response as the metric hooks receive it: the environment's verify result (`Result`) with the
 * row's fields. Upstream's `/aggregate_metrics` takes plain dicts whose contract is a numeric `reward` and the
 * task and rollout indexes; the fields are what the caller sent back from `/verify`.
 */
export type ScoredRollout<Result extends { reward: number } = { reward: number }> = Result & Json;

export interface AggregateMetricsHooks<Rollout extends ScoredRollout = ScoredRollout> {
  /**
   * Extra run metrics from the scored verify responses grouped by task (ascending task index). They join
   * `agent_metrics`; a `per_task_metrics` list (entries with `_ng_task_index`) joins the task's group instead.
   */
  computeMetrics?: (tasks: Rollout[][]) => Json;
  /** The headline subset of `agent_metrics` (default: its `mean/*` entries). */
  getKeyMetrics?: (agentMetrics: Json) => Json;
}

function byTask(results: readonly Json[]): Json[][] {
  return [...groupBy(results, (result) => indexOf(result, TASK)).values()];
}

export function computeAggregateMetrics<Rollout extends ScoredRollout>(verifyResponses: readonly Json[], hooks: AggregateMetricsHooks<Rollout> = {}): AggregateMetrics {
  const empty: AggregateMetrics = { group_level_metrics: [], agent_metrics: {}, key_metrics: {}, perf_summary: null, repeat_level_metrics: [] };
  if (verifyResponses.length === 0) return empty;
  const seen = new Set<string>();
  for (const result of verifyResponses) {
    const key = `${indexOf(result, TASK)}:${indexOf(result, ROLLOUT)}`;
    if (seen.has(key)) throw new NgymError('NGYM_INVALID_REQUEST', `two verify responses have the same (${TASK}, ${ROLLOUT}) = (${key.replace(':', ', ')})`, { status: 422 });
    seen.add(key);
  }
  const scored = verifyResponses.filter((result) => !pythonTruthy(result.mask_sample));
  const masked = verifyResponses.filter((result) => pythonTruthy(result.mask_sample));
  const covered = coverage(verifyResponses, scored, masked);
  const perf = perfSummary(
    verifyResponses.flatMap((result) => (isPythonDict(result.ng_perf) ? [result.ng_perf] : [])),
    verifyResponses.length,
  );
  if (scored.length === 0) return { ...empty, agent_metrics: { ...covered }, key_metrics: { ...covered }, perf_summary: perf };

  const results = scored
    .map(({ mask_sample: _flag, ...rest }) => rest as Json)
    .sort((a, b) => indexOf(a, TASK) - indexOf(b, TASK) || indexOf(a, ROLLOUT) - indexOf(b, ROLLOUT));
  const measured: Measured[] = results.map((result) => ({ task: indexOf(result, TASK), rollout: indexOf(result, ROLLOUT), fields: numericFields(result) }));
  const columns = [...new Set(measured.flatMap((rollout) => [...rollout.fields.keys()]))];
  const infos = new Map(results.map((result, index) => [measured[index] as Measured, rolloutInfo(result)]));

  const group_level_metrics: Json[] = [...groupBy(measured, (rollout) => rollout.task)].map(([task, rollouts]) => ({
    [TASK]: task,
    ...describe(rollouts, columns),
    sample: { agent_ref: { name: AGENT } },
    num_rollouts: rollouts.length,
    expected_num_rollouts: rollouts.length,
    missing_num_rollouts: 0,
    reward_profile_completion_pct: 100,
    rollout_infos: rollouts.map((rollout) => infos.get(rollout)),
  }));
  const repeats = repeatLevelMetrics(measured, columns);
  const agent_metrics: Json = { ...describe(measured, columns), ...acrossRepeats(repeats), ...covered };
  if (hooks.computeMetrics !== undefined) {
    // The one place the wire's dicts become typed rollouts: they are the environment's own verify responses.
    const { per_task_metrics: perTask, ...custom } = hooks.computeMetrics(byTask(scored) as Rollout[][]);
    for (const entry of Array.isArray(perTask) ? (perTask as Json[]) : []) {
      const { [TASK]: task, ...fields } = entry;
      Object.assign(group_level_metrics.find((group) => group[TASK] === task) ?? {}, fields);
    }
    Object.assign(agent_metrics, custom);
  }
  agent_metrics.num_repeats = new Set(verifyResponses.map((result) => indexOf(result, ROLLOUT))).size;
  const headlines = hooks.getKeyMetrics?.(agent_metrics) ?? Object.fromEntries(Object.entries(agent_metrics).filter(([name]) => name.startsWith('mean/')));
  const key_metrics: Json = { ...headlines, ...covered };
  return { group_level_metrics, agent_metrics, key_metrics, perf_summary: perf, repeat_level_metrics: repeats };
}
