/**
 * Benchmark metrics environments add to `/aggregate_metrics` (upstream 0.7.0's names and rules), from the
 * run's verify responses grouped by task (each task's rollouts in the order they were given):
 *
 *   pass@{k}/{score}                 unbiased pass@k for 0/1 scores, else the best of the first k; in percent
 *   pass@1[avg-of-{k}]/{score}       the mean score of each task's first k rollouts, averaged over tasks
 *   majority@{k}/{score}             the score of the most frequent answer among the first k (ties averaged)
 *   .../std_dev_across_runs, .../std_err_across_runs, .../avg_sample_std_dev   spread across repeats
 *   per_sample_aggregate             per score, the pass@1 of each rollout index
 *
 * With an `answerKey`, `no_answer` (the answer is null or absent) is scored like any other score.
 */
import { pythonStr, pythonTruthy } from '../python-compat/python-values.ts';
import type { ScoredRollout } from './reward-profile.ts';
import { passAtK } from './rollout-metrics.ts';
import { mean, standardDeviation } from './statistics.ts';

type Json = Record<string, unknown>;
type Scores = Record<string, number>;
/** The scores of one rollout by name (booleans count as 0 and 1). */
export type ScoreFunction<Rollout extends ScoredRollout = ScoredRollout> = (rollout: Rollout) => Record<string, number | boolean>;

const defaultScore: ScoreFunction = (rollout) => ({ accuracy: rollout.reward });

export interface PassMajorityResult {
  metrics: Json;
  scores: Scores[][];
  scoreNames: string[];
  maxK: number;
}

const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from + 1) }, (_, index) => from + index);

function majorityScore(answers: unknown[], scores: Scores[], name: string, k: number): number {
  const votes = new Map<string, { count: number; score: number }>();
  for (const [index, answer] of answers.slice(0, k).entries()) {
    const score = scores[index]?.[name];
    if (answer === null || answer === undefined || score === undefined) continue;
    const key = JSON.stringify([answer, score]);
    const vote = votes.get(key) ?? { count: 0, score };
    vote.count++;
    votes.set(key, vote);
  }
  if (votes.size === 0) return 0;
  const most = Math.max(...[...votes.values()].map((vote) => vote.count));
  return mean([...votes.values()].filter((vote) => vote.count === most).map((vote) => vote.score));
}

export function computePassMajorityMetrics<Rollout extends ScoredRollout>(
  tasks: readonly Rollout[][],
  scoreFn: ScoreFunction<Rollout> = defaultScore,
  answerKey?: string,
): PassMajorityResult {
  if (tasks.length === 0) return { metrics: {}, scores: [], scoreNames: [], maxK: 0 };
  const maxK = Math.max(...tasks.map((rollouts) => rollouts.length));
  const scores: Scores[][] = [];
  const answers: unknown[][] = [];
  for (const rollouts of tasks) {
    scores.push(
      rollouts.map((rollout) => {
        const taskScores = Object.fromEntries(Object.entries(scoreFn(rollout)).map(([name, value]) => [name, Number(value)]));
        if (answerKey !== undefined) taskScores.no_answer = rollout[answerKey] === null || rollout[answerKey] === undefined ? 1 : 0;
        return taskScores;
      }),
    );
    if (answerKey !== undefined) answers.push(rollouts.map((rollout) => rollout[answerKey]));
  }
  const scoreNames = [...new Set(scores.flatMap((task) => task.flatMap((rollout) => Object.keys(rollout))))].sort();
  const valuesOf = (task: Scores[], name: string) => task.flatMap((rollout) => (name in rollout ? [rollout[name] as number] : []));
  const percent = (values: number[]) => (100 * values.reduce((a, b) => a + b, 0)) / values.length;

  const metrics: Json = {};
  for (const k of range(1, maxK)) {
    for (const name of scoreNames) {
      const passValues = scores.flatMap((task) => {
        const values = valuesOf(task, name);
        if (values.length === 0 || k > values.length) return [];
        if (!values.every((value) => value === 0 || value === 1)) return [Math.max(...values.slice(0, k))];
        return [passAtK(values.length, values.filter((value) => value !== 0).length, k)];
      });
      if (passValues.length > 0) metrics[`pass@${k}/${name}`] = percent(passValues);
      const averages = scores.flatMap((task) => {
        const values = valuesOf(task.slice(0, k), name);
        return values.length > 0 ? [mean(values)] : [];
      });
      if (averages.length > 0) metrics[`pass@1[avg-of-${k}]/${name}`] = percent(averages);
      if (answerKey !== undefined) {
        metrics[`majority@${k}/${name}`] = percent(scores.map((task, index) => majorityScore(answers[index] as unknown[], task, name, k)));
      }
    }
  }

  const perSample: Record<string, number[]> = {};
  for (const index of range(0, maxK - 1)) {
    for (const name of scoreNames) {
      const runScores = scores.flatMap((task) => (task[index] !== undefined && name in task[index] ? [task[index][name] as number] : []));
      if (runScores.length > 0) (perSample[name] ??= []).push(percent(runScores));
    }
  }
  metrics.per_sample_aggregate = perSample;
  for (const k of range(2, maxK)) {
    for (const name of scoreNames) {
      const runs = (perSample[name] ?? []).slice(0, k);
      if (runs.length < 2) continue;
      const std = standardDeviation(runs, 1);
      metrics[`pass@1[avg-of-${k}]/${name}/std_dev_across_runs`] = std;
      metrics[`pass@1[avg-of-${k}]/${name}/std_err_across_runs`] = std / Math.sqrt(runs.length);
    }
  }
  return { metrics, scores, scoreNames, maxK };
}

/** Adds `pass@1[avg-of-{k}]/{score}/avg_sample_std_dev`: the mean over tasks of the spread of their first k scores. */
export function addAverageSampleStdDev({ metrics, scores, scoreNames, maxK }: PassMajorityResult): void {
  for (const k of range(2, maxK)) {
    for (const name of scoreNames) {
      const spreads = scores.flatMap((task) => {
        const values = task.slice(0, k).flatMap((rollout) => (name in rollout ? [rollout[name] as number] : []));
        return values.length >= 2 ? [standardDeviation(values, 1)] : [];
      });
      if (spreads.length > 0) metrics[`pass@1[avg-of-${k}]/${name}/avg_sample_std_dev`] = mean(spreads);
    }
  }
}

/** The same metrics per value of a task field (its first rollout that has one), prefixed `{value}/`. */
export function computeSubsetMetrics<Rollout extends ScoredRollout>(tasks: readonly Rollout[][], subsetKey: string, scoreFn?: ScoreFunction<Rollout>, answerKey?: string): Json {
  const subsets = new Map<string, Rollout[][]>();
  for (const rollouts of tasks) {
    const value = rollouts.map((rollout) => rollout[subsetKey]).find(pythonTruthy);
    if (value === undefined) continue;
    const name = pythonStr(value);
    subsets.set(name, [...(subsets.get(name) ?? []), rollouts]);
  }
  const metrics: Json = {};
  for (const [name, subsetTasks] of subsets) {
    for (const [key, value] of Object.entries(computePassMajorityMetrics(subsetTasks, scoreFn, answerKey).metrics)) {
      if (key !== 'per_sample_aggregate') metrics[`${name}/${key}`] = value;
    }
  }
  return metrics;
}

const SPREAD_SUFFIXES = ['std_dev_across_runs', 'std_err_across_runs', 'avg_sample_std_dev'];

/** The entries of `pattern` (with `{k}`, e.g. `pass@{k}`) at the highest k present, spreads left out. */
export function highestKMetrics(agentMetrics: Json, pattern: string, options: { scoreNames?: string[]; excludeNames?: string[] } = {}): Json {
  const escaped = pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace('\\{k\\}', '(\\d+)');
  const regex = new RegExp(`^${escaped}/(.+)$`, 's');
  const matches: [number, string][] = [];
  for (const key of Object.keys(agentMetrics)) {
    const match = regex.exec(key);
    if (match === null) continue;
    const score = match[2] as string;
    if (SPREAD_SUFFIXES.some((suffix) => score.endsWith(suffix))) continue;
    if (options.scoreNames !== undefined && !options.scoreNames.includes(score)) continue;
    if (options.excludeNames?.includes(score)) continue;
    matches.push([Number(match[1]), key]);
  }
  if (matches.length === 0) return {};
  const top = Math.max(...matches.map(([k]) => k));
  return Object.fromEntries(matches.filter(([k]) => k === top).map(([, key]) => [key, agentMetrics[key]]));
}

/** The named metrics that are present. */
export function pickMetrics(metrics: Json, names: readonly string[]): Json {
  return Object.fromEntries(names.filter((name) => name in metrics).map((name) => [name, metrics[name]]));
}
