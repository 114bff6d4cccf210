/**
 * What the viewer computes over the index: per-task pass@k with the collector's unbiased estimator
 * (1 - C(n-c, k) / C(n, k)) and the filters of the rollout table; the reward histogram is metrics/reward-histogram.ts.
 */
import { kValues, passAtK } from '../metrics/rollout-metrics.ts';
import type { RolloutSummary } from './rollout-index.ts';

export interface TaskStats {
  taskKey: string;
  taskIndex: number | null;
  prompt: string;
  /** Index of the task's first rollout (its row in the table). */
  first: number;
  rollouts: number;
  passed: number;
  meanReward: number | null;
  /** pass@k for each k in `ks` that is <= rollouts. */
  passAt: Map<number, number>;
}

export function taskStats(rollouts: readonly RolloutSummary[], threshold: number): { tasks: TaskStats[]; ks: number[]; overall: Map<number, number> } {
  const groups = new Map<string, RolloutSummary[]>();
  for (const rollout of rollouts) {
    const group = groups.get(rollout.taskKey);
    if (group === undefined) groups.set(rollout.taskKey, [rollout]);
    else group.push(rollout);
  }
  const maxRollouts = Math.max(0, ...[...groups.values()].map((group) => group.length));
  const ks = maxRollouts === 0 ? [] : kValues(maxRollouts);
  const tasks = [...groups.entries()].map(([taskKey, group]) => {
    const rewards = group.map((rollout) => rollout.reward).filter((reward): reward is number => reward !== null);
    const passed = rewards.filter((reward) => reward >= threshold).length;
    const passAt = new Map(ks.filter((k) => k <= group.length).map((k) => [k, passAtK(group.length, passed, k)]));
    const first = group[0] as RolloutSummary;
    return {
      taskKey,
      taskIndex: first.taskIndex,
      prompt: first.prompt,
      first: first.index,
      rollouts: group.length,
      passed,
      meanReward: rewards.length > 0 ? rewards.reduce((sum, reward) => sum + reward, 0) / rewards.length : null,
      passAt,
    };
  });
  const overall = new Map<number, number>();
  for (const k of ks) {
    const eligible = tasks.filter((task) => task.passAt.has(k));
    if (eligible.length > 0) overall.set(k, eligible.reduce((sum, task) => sum + (task.passAt.get(k) as number), 0) / eligible.length);
  }
  return { tasks, ks, overall };
}

export interface RolloutFilter {
  rewardMin?: number;
  rewardMax?: number;
  /** Exclusive upper bound (histogram bins). */
  rewardBelow?: number;
  outcome?: 'pass' | 'fail' | 'invalid';
  task?: string;
  agent?: string;
  /** Case-insensitive text in the prompt or the answer. */
  query?: string;
  threshold: number;
}

export function matchesFilter(rollout: RolloutSummary, filter: RolloutFilter): boolean {
  const reward = rollout.reward;
  if (filter.rewardMin !== undefined && (reward === null || reward < filter.rewardMin)) return false;
  if (filter.rewardMax !== undefined && (reward === null || reward > filter.rewardMax)) return false;
  if (filter.rewardBelow !== undefined && (reward === null || reward >= filter.rewardBelow)) return false;
  if (filter.outcome === 'pass' && (reward === null || reward < filter.threshold)) return false;
  if (filter.outcome === 'fail' && (reward === null || reward >= filter.threshold)) return false;
  if (filter.outcome === 'invalid' && rollout.problem === null) return false;
  if (filter.task !== undefined && rollout.taskKey !== filter.task) return false;
  if (filter.agent !== undefined && rollout.agent !== filter.agent) return false;
  if (filter.query !== undefined) {
    const query = filter.query.toLowerCase();
    if (!rollout.prompt.toLowerCase().includes(query) && !rollout.answer.toLowerCase().includes(query)) return false;
  }
  return true;
}
