/**
 * The arithmetic of `gym eval compare`: one agent's reward profile in a baseline run against the same agent (or
 * another) in candidate runs. Upstream 0.7.0's rules and field names:
 *
 *   metric rows   every point metric of agent_metrics and key_metrics (isPrimaryMetric), each side's value
 *                 (`mean_across_repeats/<m>` when recorded), its interval across repeats as the run recorded it,
 *                 the difference and Welch's 95% interval over the runs' repeat-level values
 *   flips         per task (joined on `_ng_task_index`), tasks whose mean reward crossed 0.5 (binary rewards), or
 *                 that moved at all (other rewards)
 *
 * ngym adds, per difference, a 95% interval paired over tasks (the per-task values of the metric in
 * group_level_metrics: the same tasks in both runs make most of the run-to-run spread cancel) and `significance`,
 * read from the paired interval when there is one, else from Welch's.
 */
import { isDict } from '../config/tree.ts';
import { NgymError } from '../errors.ts';
import { isPrimaryMetric } from './reward-profile.ts';
import { pairedDifferenceInterval, welchDifferenceInterval } from './statistics.ts';

type Json = Record<string, unknown>;

const TASK = '_ng_task_index';
const ROLLOUT = '_ng_rollout_index';
const FLIP_FIELD = 'reward';
const TASK_MEAN = `mean/${FLIP_FIELD}`;
const TASK_MIN = `min/${FLIP_FIELD}`;
const TASK_MAX = `max/${FLIP_FIELD}`;
/** A task passes when the mean of its repeats is above this. */
const PASS_THRESHOLD = 0.5;
/** Flips per direction the markdown report lists; flips beyond it keep no per-repeat rewards in the JSON. */
export const MAX_FLIPS_SHOWN = 10;

/** One side of a comparison: one agent's entry of a run's aggregate metrics. */
export interface LoadedRun {
  agent_name: string;
  agent_metrics: Json;
  key_metrics: Json;
  group_level_metrics: Json[];
  repeat_level_metrics: Json[];
  num_tasks: number;
  num_repeats: number | null;
  has_repeat_cis: boolean;
}

export interface MetricValue {
  value: number;
  /** `ci_{low,high}_95_across_repeats/<metric>` as the run recorded them. */
  ci_low: number | null;
  ci_high: number | null;
  se_across_repeats: number | null;
  mean_across_repeats: number | null;
  /** `<metric>/std_err_across_runs` of pass@k-style metrics, carried through. */
  std_err_across_runs: number | null;
}

type Significance = 'higher' | 'lower' | 'not_significant' | 'no_interval';

export interface CandidateMetricValue extends MetricValue {
  delta: number | null;
  delta_pct: number | null;
  /** Welch's 95% interval of candidate minus baseline over the runs' repeat-level values. */
  delta_ci_low: number | null;
  delta_ci_high: number | null;
  /** ngym: the mean over common tasks of (candidate - baseline) per-task values, and its 95% t-interval. */
  paired_delta: number | null;
  paired_delta_ci_low: number | null;
  paired_delta_ci_high: number | null;
  paired_task_count: number;
  /** ngym: whether the interval (paired when there is one) lies above 0, below 0, or spans it. */
  significance: Significance;
}

export interface MetricRow {
  metric: string;
  is_key_metric: boolean;
  /** `baseline` and/or `candidate[<i>]`: the sides that reported the metric. */
  present_in: string[];
  baseline: MetricValue | null;
  candidates: (CandidateMetricValue | null)[];
}

type FlipDirection = 'pass_to_fail' | 'fail_to_pass' | 'changed';

interface TaskFlip {
  task_index: number;
  baseline_score: number;
  candidate_score: number;
  delta: number;
  direction: FlipDirection;
  baseline_rewards: number[] | null;
  candidate_rewards: number[] | null;
}

export interface FlipSummary {
  candidate_index: number;
  mode: 'binary' | 'continuous' | 'unavailable';
  reason: string | null;
  field: string;
  common_task_count: number;
  baseline_only_task_count: number;
  candidate_only_task_count: number;
  pass_to_fail_count: number | null;
  fail_to_pass_count: number | null;
  tied_count: number | null;
  unchanged_count: number | null;
  net: number | null;
  flips: TaskFlip[];
}

export interface AgentComparison {
  baseline_agent: string;
  candidate_agents: string[];
  baseline_task_count: number;
  candidate_task_counts: number[];
  baseline_repeat_count: number | null;
  candidate_repeat_counts: (number | null)[];
  metrics: MetricRow[];
  flips: FlipSummary[];
  notes: string[];
}

const numeric = (value: unknown): number | null => (typeof value === 'number' ? value : null);

/** Narrows one agent's entry of an aggregate-metrics file. */
export function loadedRun(agentName: string, entry: Json): LoadedRun {
  const dictionary = (value: unknown): Json => (isDict(value) ? value : {});
  const list = (value: unknown): Json[] => (Array.isArray(value) ? value.filter(isDict) : []);
  const agentMetrics = dictionary(entry.agent_metrics);
  const groups = list(entry.group_level_metrics);
  const repeats = list(entry.repeat_level_metrics);
  return {
    agent_name: agentName,
    agent_metrics: agentMetrics,
    key_metrics: dictionary(entry.key_metrics),
    group_level_metrics: groups,
    repeat_level_metrics: repeats,
    num_tasks: groups.length,
    num_repeats: repeatCount(groups, repeats),
    has_repeat_cis: Object.keys(agentMetrics).some((key) => key.startsWith('ci_low_95_across_repeats/')),
  };
}

/** The most rollouts any task expected (a partly recovered run leaves some tasks short), else one per repeat entry. */
function repeatCount(groups: readonly Json[], repeats: readonly Json[]): number | null {
  const expected = groups.flatMap((group) => (Number.isInteger(group.expected_num_rollouts) ? [group.expected_num_rollouts as number] : []));
  if (expected.length > 0) return Math.max(...expected);
  return repeats.length > 0 ? repeats.length : null;
}

function metricValue(metrics: Json, name: string): MetricValue | null {
  const value = numeric(metrics[name]);
  if (value === null) return null;
  return {
    value,
    ci_low: numeric(metrics[`ci_low_95_across_repeats/${name}`]),
    ci_high: numeric(metrics[`ci_high_95_across_repeats/${name}`]),
    se_across_repeats: numeric(metrics[`se_across_repeats/${name}`]),
    mean_across_repeats: numeric(metrics[`mean_across_repeats/${name}`]),
    std_err_across_runs: numeric(metrics[`${name}/std_err_across_runs`]),
  };
}

/** The value a side is compared by: its mean across repeats when recorded. */
export function comparisonValue(metric: MetricValue): number {
  return metric.mean_across_repeats ?? metric.value;
}

function repeatValues(run: LoadedRun, name: string): number[] {
  return run.repeat_level_metrics.flatMap((entry) => {
    const value = numeric(entry[name]);
    return value !== null && Number.isFinite(value) ? [value] : [];
  });
}

function welchInterval(baseline: LoadedRun, candidate: LoadedRun, name: string): [number, number] | undefined {
  const acrossRepeats = `mean_across_repeats/${name}`;
  if (numeric(baseline.agent_metrics[acrossRepeats]) === null || numeric(candidate.agent_metrics[acrossRepeats]) === null) return undefined;
  return welchDifferenceInterval(repeatValues(candidate, name), repeatValues(baseline, name));
}

function groupsByTask(run: LoadedRun): Map<number, Json> {
  return new Map(run.group_level_metrics.flatMap((group) => (typeof group[TASK] === 'number' ? [[group[TASK] as number, group] as const] : [])));
}

/** Candidate minus baseline per common task, for a metric the groups carry under the same name. */
function pairedInterval(baseline: Map<number, Json>, candidate: Map<number, Json>, name: string) {
  const differences: number[] = [];
  for (const [task, group] of baseline) {
    const before = numeric(group[name]);
    const after = numeric(candidate.get(task)?.[name]);
    if (before !== null && after !== null) differences.push(after - before);
  }
  return { count: differences.length, interval: pairedDifferenceInterval(differences) };
}

function significanceOf(low: number | null, high: number | null): Significance {
  if (low === null || high === null) return 'no_interval';
  if (low > 0) return 'higher';
  if (high < 0) return 'lower';
  return 'not_significant';
}

function candidateValue(metrics: Json, name: string, baselinePoint: number | null, welch: [number, number] | undefined, paired: ReturnType<typeof pairedInterval>): CandidateMetricValue | null {
  const base = metricValue(metrics, name);
  if (base === null) return null;
  const delta = baselinePoint === null ? null : comparisonValue(base) - baselinePoint;
  const [low, high] = paired.interval === undefined ? (welch ?? [null, null]) : [paired.interval.low, paired.interval.high];
  return {
    ...base,
    delta,
    delta_pct: delta === null || !baselinePoint ? null : (delta / Math.abs(baselinePoint)) * 100,
    delta_ci_low: welch?.[0] ?? null,
    delta_ci_high: welch?.[1] ?? null,
    paired_delta: paired.interval?.mean ?? null,
    paired_delta_ci_low: paired.interval?.low ?? null,
    paired_delta_ci_high: paired.interval?.high ?? null,
    paired_task_count: paired.count,
    significance: delta === null ? 'no_interval' : significanceOf(low, high),
  };
}

/** Baseline's order first (it is the reference), then what only candidates reported; numbers only. */
function orderedMetricNames(baseline: Json, candidates: readonly Json[]): string[] {
  const names = new Set<string>();
  for (const metrics of [baseline, ...candidates]) for (const [name, value] of Object.entries(metrics)) if (typeof value === 'number') names.add(name);
  return [...names];
}

/** Repeats whose task samples differ make an interval across repeats mix task difficulty into the spread. */
function unevenRepeatsNote(run: LoadedRun, label: string): string[] {
  const sampleCounts = new Set(run.repeat_level_metrics.map((entry) => entry.sample_count));
  const missing = run.repeat_level_metrics.some((entry) => (numeric(entry.missing_count) ?? 0) > 0);
  return missing || sampleCounts.size > 1 ? [`${label} agent '${run.agent_name}' did not run every task in every repeat; intervals across repeats also reflect which tasks each repeat had.`] : [];
}

function buildMetricRows(baseline: LoadedRun, candidates: readonly LoadedRun[]): MetricRow[] {
  // key_metrics may name metrics agent_metrics lacks; agent_metrics wins where both have one.
  const baselineMetrics = { ...baseline.key_metrics, ...baseline.agent_metrics };
  const candidateMetrics = candidates.map((run) => ({ ...run.key_metrics, ...run.agent_metrics }));
  const keyNames = new Set([baseline, ...candidates].flatMap((run) => Object.keys(run.key_metrics)));
  const baselineGroups = groupsByTask(baseline);
  const candidateGroups = candidates.map(groupsByTask);
  return orderedMetricNames(baselineMetrics, candidateMetrics)
    .filter(isPrimaryMetric)
    .map((name) => {
      const base = metricValue(baselineMetrics, name);
      const baselinePoint = base === null ? null : comparisonValue(base);
      const values = candidates.map((candidate, index) =>
        candidateValue(
          candidateMetrics[index] as Json,
          name,
          baselinePoint,
          base === null ? undefined : welchInterval(baseline, candidate, name),
          pairedInterval(baselineGroups, candidateGroups[index] as Map<number, Json>, name),
        ),
      );
      return {
        metric: name,
        is_key_metric: keyNames.has(name),
        present_in: [...(base === null ? [] : ['baseline']), ...values.flatMap((value, index) => (value === null ? [] : [`candidate[${index}]`]))],
        baseline: base,
        candidates: values,
      };
    });
}

function perRepeatRewards(group: Json): number[] | null {
  const infos = Array.isArray(group.rollout_infos) ? group.rollout_infos.filter(isDict) : [];
  if (infos.length === 0) return null;
  const ordered = [...infos].sort((a, b) => (numeric(a[ROLLOUT]) ?? 0) - (numeric(b[ROLLOUT]) ?? 0));
  const rewards = ordered.map((info) => numeric(info[FLIP_FIELD]));
  return rewards.every((reward): reward is number => reward !== null) ? rewards : null;
}

/** Every observed reward is 0 or 1, judged by each task's min and max (a task with mean 0.5 can still be binary). */
function looksBinary(tasks: readonly number[], sides: readonly Map<number, Json>[]): boolean {
  for (const task of tasks) {
    for (const groups of sides) {
      const group = groups.get(task) as Json;
      const bounds = [group[TASK_MIN], group[TASK_MAX]].filter((value) => value !== undefined && value !== null);
      for (const value of bounds.length > 0 ? bounds : [group[TASK_MEAN]]) {
        const number = numeric(value);
        if (number === null || (number !== 0 && number !== 1)) return false;
      }
    }
  }
  return true;
}

/** Flips past the shown ones per direction drop their per-repeat rewards, so the JSON does not grow with tasks x repeats. */
function capRewardLists(flips: TaskFlip[]): TaskFlip[] {
  const counts = new Map<FlipDirection, number>();
  return flips.map((flip) => {
    const count = counts.get(flip.direction) ?? 0;
    counts.set(flip.direction, count + 1);
    return count >= MAX_FLIPS_SHOWN ? { ...flip, baseline_rewards: null, candidate_rewards: null } : flip;
  });
}

function flipDirection(baseline: number, candidate: number): 'pass_to_fail' | 'fail_to_pass' | undefined {
  if (baseline === PASS_THRESHOLD || candidate === PASS_THRESHOLD) return undefined;
  if (baseline > PASS_THRESHOLD && candidate < PASS_THRESHOLD) return 'pass_to_fail';
  if (candidate > PASS_THRESHOLD && baseline < PASS_THRESHOLD) return 'fail_to_pass';
  return undefined;
}

/** Per-task movement between two runs, joined on the task index. */
export function buildFlipSummary(baseline: LoadedRun, candidate: LoadedRun, candidateIndex = 0): FlipSummary {
  const baselineGroups = groupsByTask(baseline);
  const candidateGroups = groupsByTask(candidate);
  const common = [...baselineGroups.keys()].filter((task) => candidateGroups.has(task)).sort((a, b) => a - b);
  const summary: FlipSummary = {
    candidate_index: candidateIndex,
    mode: 'unavailable',
    reason: null,
    field: FLIP_FIELD,
    common_task_count: common.length,
    baseline_only_task_count: baselineGroups.size - common.length,
    candidate_only_task_count: candidateGroups.size - common.length,
    pass_to_fail_count: null,
    fail_to_pass_count: null,
    tied_count: null,
    unchanged_count: null,
    net: null,
    flips: [],
  };
  if (baselineGroups.size === 0 || candidateGroups.size === 0) return { ...summary, reason: 'a run has no per-task metrics (group_level_metrics).' };
  if (common.length === 0) return { ...summary, reason: `the runs share no task index (baseline ${baselineGroups.size} tasks, candidate ${candidateGroups.size}).` };
  const scored = common.flatMap((task) => {
    const before = numeric(baselineGroups.get(task)?.[TASK_MEAN]);
    const after = numeric(candidateGroups.get(task)?.[TASK_MEAN]);
    return before === null || after === null ? [] : [{ task, before, after }];
  });
  if (scored.length === 0) return { ...summary, reason: `no common task has \`${TASK_MEAN}\`.` };

  const flip = (task: number, before: number, after: number, direction: FlipDirection): TaskFlip => ({
    task_index: task,
    baseline_score: before,
    candidate_score: after,
    delta: after - before,
    direction,
    baseline_rewards: perRepeatRewards(baselineGroups.get(task) as Json),
    candidate_rewards: perRepeatRewards(candidateGroups.get(task) as Json),
  });

  if (!looksBinary(scored.map(({ task }) => task), [baselineGroups, candidateGroups])) {
    const movers = scored.filter(({ before, after }) => before !== after).map(({ task, before, after }) => flip(task, before, after, 'changed'));
    movers.sort((a, b) => Math.abs(b.delta) - Math.abs(a.delta) || a.task_index - b.task_index);
    return { ...summary, mode: 'continuous', unchanged_count: scored.length - movers.length, flips: capRewardLists(movers) };
  }

  const flips: TaskFlip[] = [];
  let tied = 0;
  let unchanged = 0;
  for (const { task, before, after } of scored) {
    const direction = flipDirection(before, after);
    if (direction !== undefined) flips.push(flip(task, before, after, direction));
    else if (before === PASS_THRESHOLD || after === PASS_THRESHOLD) tied++;
    else unchanged++;
  }
  // Regressions first, then the largest moves.
  flips.sort((a, b) => Number(a.direction !== 'pass_to_fail') - Number(b.direction !== 'pass_to_fail') || Math.abs(b.delta) - Math.abs(a.delta) || a.task_index - b.task_index);
  const passToFail = flips.filter((item) => item.direction === 'pass_to_fail').length;
  const failToPass = flips.length - passToFail;
  return {
    ...summary,
    mode: 'binary',
    pass_to_fail_count: passToFail,
    fail_to_pass_count: failToPass,
    tied_count: tied,
    unchanged_count: unchanged,
    net: failToPass - passToFail,
    flips: capRewardLists(flips),
  };
}

/** One agent's comparison: metric rows, flips per candidate, and what the reader should know about them. */
export function compareRuns(baseline: LoadedRun, candidates: readonly LoadedRun[]): AgentComparison {
  const rows = buildMetricRows(baseline, candidates);
  if (!rows.some((row) => row.baseline !== null && row.candidates.some((value) => value !== null))) {
    const firstFive = (names: string[]) => names.sort().slice(0, 5).join(', ') || 'none';
    throw new NgymError(
      'NGYM_INPUT_INVALID',
      `Nothing to compare for agent '${baseline.agent_name}': the baseline and the candidate report no metric in common ` +
        `(baseline: ${firstFive(rows.filter((row) => row.baseline !== null).map((row) => row.metric))}; ` +
        `candidate: ${firstFive(rows.filter((row) => row.baseline === null).map((row) => row.metric))}). Runs with different --num-repeats name their pass@k metrics differently.`,
    );
  }
  const notes = [...unevenRepeatsNote(baseline, 'Baseline'), ...candidates.flatMap((run, index) => unevenRepeatsNote(run, `Candidate[${index}]`))];
  const repeatCounts = candidates.map((run) => run.num_repeats);
  if (baseline.num_repeats !== null && repeatCounts.some((count) => count !== null && count !== baseline.num_repeats)) {
    notes.push(`The runs have different repeat counts (baseline ${baseline.num_repeats}, candidate ${repeatCounts.join(', ')}): metrics whose names carry k (pass@k) do not pair up.`);
  }
  if (!baseline.has_repeat_cis && !candidates.some((run) => run.has_repeat_cis)) {
    notes.push('No run recorded intervals across repeats (a run needs 2 or more repeats), so the baseline and candidate interval columns are empty.');
  }
  const oneSided = rows.filter((row) => row.present_in.length < 1 + candidates.length).length;
  if (oneSided > 0) notes.push(`${oneSided} metric(s) were reported by only some of the runs.`);
  return {
    baseline_agent: baseline.agent_name,
    candidate_agents: candidates.map((run) => run.agent_name),
    baseline_task_count: baseline.num_tasks,
    candidate_task_counts: candidates.map((run) => run.num_tasks),
    baseline_repeat_count: baseline.num_repeats,
    candidate_repeat_counts: repeatCounts,
    metrics: rows,
    flips: candidates.map((run, index) => buildFlipSummary(baseline, run, index)),
    notes,
  };
}
