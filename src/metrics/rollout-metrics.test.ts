import { describe, expect, it } from 'vitest';
import { computeMetrics, MetricsAccumulator } from './rollout-metrics.ts';

const row = (task: number, rollout: number, agent: string, reward: number) => ({ _ng_task_index: task, _ng_rollout_index: rollout, agent_ref: { name: agent }, reward });

// fan_out runs one task under several agents with consecutive rollout indices (agent a: 0..1, agent b: 2..3),
// as upstream 0.7.0's preprocessing numbers them; its reward profile groups by (task, agent) and reads each
// group's repeats in order, so agent b's first rollout is index 2.
describe('metrics of a fanned-out task', () => {
  const rows = [row(0, 0, 'a', 1), row(0, 1, 'a', 0), row(0, 2, 'b', 0), row(0, 3, 'b', 1), row(1, 0, 'a', 0), row(1, 1, 'a', 0), row(1, 2, 'b', 1), row(1, 3, 'b', 1)];

  it('keys tasks by task and agent, and reads each agent repeats from its own first rollout', () => {
    const metrics = computeMetrics(rows, { numRepeats: 2 });
    expect(metrics.agents.a).toMatchObject({ rollouts: 4, tasks: 2 });
    expect(metrics.agents.b).toMatchObject({ rollouts: 4, tasks: 2 });
    // Agent a: task 0 has 1 pass in 2, task 1 none; mean@1 reads index 0 of each.
    expect(metrics.agents.a?.metrics).toMatchObject({ 'pass@1': 0.25, 'pass@2': 0.5, 'mean@1': 0.5, 'mean@2': 0.25 });
    // Agent b: its first rollouts are indices 2 (reward 0 and 1).
    expect(metrics.agents.b?.metrics).toMatchObject({ 'pass@1': 0.75, 'pass@2': 1, 'mean@1': 0.5, 'mean@2': 0.75 });
    // Overall: one entry per (task, agent), four of them.
    expect(metrics.tasks).toBe(4);
    expect(metrics.metrics['pass@2']).toBeCloseTo(0.75);
    expect(metrics.metrics['mean@1']).toBeCloseTo(0.5);
  });

  it('closing a task folds every agent of it, whatever order the rollouts arrive in', () => {
    const accumulator = new MetricsAccumulator({ numRepeats: 2 });
    for (const each of [...rows].reverse()) accumulator.add(each);
    accumulator.closeTask(1);
    expect(accumulator.openTasks).toBe(1);
    accumulator.closeTask(0);
    expect(accumulator.openTasks).toBe(0);
    expect(accumulator.result()).toEqual(computeMetrics(rows, { numRepeats: 2 }));
  });
});
