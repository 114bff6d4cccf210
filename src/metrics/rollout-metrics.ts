/**
 * Metrics of a rollouts file: per agent and overall, the mean of every numeric top-level field the rollout
 * produced (booleans count as 0/1; fields copied from the input rows are task metadata, not metrics), and
 * over the repeats of each task:
 *   pass@k  the unbiased estimator 1 - C(n-c, k) / C(n, k) (Chen et al., 2021), averaged over tasks, where a
 *           rollout passes when its reward is at least `passThreshold` (default 1.0);
 *   mean@k  the mean reward of the first k rollouts of each task, averaged over tasks.
 * A task here is a task under one agent, as upstream 0.7.0's reward profile groups them: fan_out runs one input
 * row under several agents with consecutive rollout indices (a: 0..1, b: 2..3), so each agent's repeats are read
 * in rollout-index order from its own first one.
 * Computed as rollouts arrive (and from the output file in one streaming pass when resuming). A task the
 * caller closes (all its rollouts are in) is folded into the totals, so memory holds only the open tasks.
 */

export interface MetricsOptions {
  /** Largest number of rollouts per task; k runs over powers of two up to it, and it. */
  numRepeats: number;
  passThreshold?: number;
  /** Top-level fields of the input rows (excluded from the means, except `reward`); may grow until result(). */
  inputFields?: ReadonlySet<string>;
}

interface MetricGroup {
  rollouts: number;
  tasks: number;
  metrics: Record<string, number>;
}

export interface RolloutMetrics extends MetricGroup {
  agents: Record<string, MetricGroup>;
}

/** 1 - C(n-c, k) / C(n, k), as a product so large n never overflows. */
export function passAtK(n: number, c: number, k: number): number {
  if (k > n) throw new RangeError(`pass@${k} needs at least ${k} samples, got ${n}`);
  if (n - c < k) return 1;
  let allFail = 1;
  for (let i = n - c + 1; i <= n; i++) allFail *= 1 - k / i;
  return 1 - allFail;
}

export function kValues(numRepeats: number): number[] {
  const values = new Set<number>();
  for (let k = 1; k <= numRepeats; k *= 2) values.add(k);
  values.add(Math.max(1, numRepeats));
  return [...values].sort((a, b) => a - b);
}

interface TaskState {
  agent: string;
  n: number;
  passed: number;
  /** Rewards with their rollout indices, ordered when the task is folded (rollouts arrive in any order). */
  rewards: { rolloutIndex: number; reward: number }[];
}

class GroupAccumulator {
  rollouts = 0;
  private readonly sums = new Map<string, { total: number; count: number }>();
  private readonly passSums: number[];
  private readonly passCounts: number[];
  private readonly meanSums: number[];
  private readonly meanCounts: number[];
  tasks = 0;

  constructor(private readonly ks: number[]) {
    this.passSums = ks.map(() => 0);
    this.passCounts = ks.map(() => 0);
    this.meanSums = ks.map(() => 0);
    this.meanCounts = ks.map(() => 0);
  }

  addRollout(row: Record<string, unknown>): void {
    this.rollouts++;
    for (const [key, value] of Object.entries(row)) {
      if (key.startsWith('_ng_')) continue;
      const number = typeof value === 'boolean' ? Number(value) : value;
      if (typeof number !== 'number' || !Number.isFinite(number)) continue;
      const entry = this.sums.get(key) ?? { total: 0, count: 0 };
      entry.total += number;
      entry.count++;
      this.sums.set(key, entry);
    }
  }

  addTask(task: TaskState): void {
    this.tasks++;
    const ordered = task.rewards.toSorted((left, right) => left.rolloutIndex - right.rolloutIndex);
    this.ks.forEach((k, index) => {
      if (task.n >= k) {
        this.passSums[index] = (this.passSums[index] ?? 0) + passAtK(task.n, task.passed, k);
        this.passCounts[index] = (this.passCounts[index] ?? 0) + 1;
      }
      const first = ordered.slice(0, k);
      if (first.length > 0) {
        this.meanSums[index] = (this.meanSums[index] ?? 0) + first.reduce((sum, each) => sum + each.reward, 0) / first.length;
        this.meanCounts[index] = (this.meanCounts[index] ?? 0) + 1;
      }
    });
  }

  /** A copy to which open tasks can be added without touching this one (result() may be called mid-run). */
  clone(): GroupAccumulator {
    const copy = new GroupAccumulator(this.ks);
    copy.rollouts = this.rollouts;
    copy.tasks = this.tasks;
    for (const [key, value] of this.sums) copy.sums.set(key, { ...value });
    for (const [target, source] of [
      [copy.passSums, this.passSums],
      [copy.passCounts, this.passCounts],
      [copy.meanSums, this.meanSums],
      [copy.meanCounts, this.meanCounts],
    ] as const) {
      target.splice(0, target.length, ...source);
    }
    return copy;
  }

  result(inputFields: ReadonlySet<string>): MetricGroup {
    const metrics: Record<string, number> = {};
    for (const [key, { total, count }] of this.sums) if (key === 'reward' || !inputFields.has(key)) metrics[key] = total / count;
    this.ks.forEach((k, index) => {
      if ((this.passCounts[index] ?? 0) > 0) metrics[`pass@${k}`] = (this.passSums[index] ?? 0) / (this.passCounts[index] ?? 1);
      if ((this.meanCounts[index] ?? 0) > 0) metrics[`mean@${k}`] = (this.meanSums[index] ?? 0) / (this.meanCounts[index] ?? 1);
    });
    return { rollouts: this.rollouts, tasks: this.tasks, metrics };
  }
}

/** Folds rollout rows (each with `_ng_task_index`, `_ng_rollout_index`, `agent_ref`, `reward`) into metrics. */
export class MetricsAccumulator {
  private readonly ks: number[];
  private readonly threshold: number;
  private readonly inputFields: ReadonlySet<string>;
  private readonly overall: GroupAccumulator;
  private readonly agents = new Map<string, GroupAccumulator>();
  /** (task, agent) pairs not closed yet, by task index then agent; closed ones are folded into the groups. */
  private readonly tasks = new Map<number, Map<string, TaskState>>();

  constructor(options: MetricsOptions) {
    this.ks = kValues(options.numRepeats);
    this.threshold = options.passThreshold ?? 1.0;
    this.inputFields = options.inputFields ?? new Set<string>();
    this.overall = new GroupAccumulator(this.ks);
  }

  add(row: Record<string, unknown>): void {
    const agent = String((row.agent_ref as { name?: unknown } | undefined)?.name ?? 'unknown');
    const reward = typeof row.reward === 'number' ? row.reward : Number(row.reward ?? 0);
    const rolloutIndex = Number(row._ng_rollout_index);
    this.overall.addRollout(row);
    let group = this.agents.get(agent);
    if (group === undefined) {
      group = new GroupAccumulator(this.ks);
      this.agents.set(agent, group);
    }
    group.addRollout(row);
    const taskIndex = Number(row._ng_task_index);
    let byAgent = this.tasks.get(taskIndex);
    if (byAgent === undefined) {
      byAgent = new Map();
      this.tasks.set(taskIndex, byAgent);
    }
    let task = byAgent.get(agent);
    if (task === undefined) {
      task = { agent, n: 0, passed: 0, rewards: [] };
      byAgent.set(agent, task);
    }
    task.n++;
    if (reward >= this.threshold) task.passed++;
    task.rewards.push({ rolloutIndex, reward });
  }

  /** Every rollout of this task, under every agent, is in (or will never be): fold it into the totals and forget it. */
  closeTask(taskIndex: number): void {
    for (const task of this.tasks.get(taskIndex)?.values() ?? []) {
      this.overall.addTask(task);
      this.agents.get(task.agent)?.addTask(task);
    }
    this.tasks.delete(taskIndex);
  }

  /** Tasks with rollouts in and not closed yet. */
  get openTasks(): number {
    return this.tasks.size;
  }

  result(): RolloutMetrics {
    const overall = this.overall.clone();
    const agents = new Map([...this.agents].map(([name, group]) => [name, group.clone()]));
    for (const task of [...this.tasks.values()].flatMap((byAgent) => [...byAgent.values()])) {
      overall.addTask(task);
      agents.get(task.agent)?.addTask(task);
    }
    return {
      ...overall.result(this.inputFields),
      agents: Object.fromEntries([...agents].map(([name, group]) => [name, group.result(this.inputFields)])),
    };
  }
}

export function computeMetrics(rows: Iterable<Record<string, unknown>>, options: MetricsOptions): RolloutMetrics {
  const accumulator = new MetricsAccumulator(options);
  for (const row of rows) accumulator.add(row);
  return accumulator.result();
}
