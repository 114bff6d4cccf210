import { describe, expect, it } from 'vitest';
import { computeAggregateMetrics } from './reward-profile.ts';
import { quantile, standardDeviation, studentTQuantile } from './statistics.ts';

const rollout = (task: number, index: number, reward: number, extra: Record<string, unknown> = {}) => ({
  _ng_task_index: task,
  _ng_rollout_index: index,
  reward,
  ...extra,
});

describe('statistics', () => {
  it("gives scipy's Student t quantiles (values from scipy.stats.t.ppf)", () => {
    expect(studentTQuantile(0.975, 1)).toBeCloseTo(12.706204736174694, 9);
    expect(studentTQuantile(0.975, 2)).toBeCloseTo(4.302652729749462, 11);
    expect(studentTQuantile(0.975, 10)).toBeCloseTo(2.228138851986274, 11);
    expect(studentTQuantile(0.975, 100)).toBeCloseTo(1.9839715185235518, 11);
    expect(studentTQuantile(0.025, 10)).toBeCloseTo(-2.228138851986274, 11);
  });

  it("interpolates quantiles linearly and takes pandas' and pstdev's standard deviations", () => {
    expect(quantile([4, 1, 3, 2], 0.25)).toBe(1.75);
    expect(quantile([7], 0.9)).toBe(7);
    expect(standardDeviation([1, 0], 1)).toBeCloseTo(Math.SQRT1_2, 15);
    expect(standardDeviation([1, 3], 0)).toBe(1);
    expect(standardDeviation([5], 1)).toBeNaN();
  });
});

describe('computeAggregateMetrics', () => {
  const responses = [
    rollout(0, 0, 1, { correct: true, response: { usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 } } } }),
    rollout(0, 1, 0, { correct: false, response: { usage: { input_tokens: 20 } } }),
    rollout(1, 0, 1, { correct: true, response: { usage: { input_tokens: 30 } } }),
    rollout(1, 1, 1, { correct: true, label: 'text is not a metric', response: { usage: { input_tokens: 40 } } }),
  ];

  it('profiles each task, the whole run and each repeat', () => {
    const metrics = computeAggregateMetrics(responses);
    const [first, second] = metrics.group_level_metrics;
    expect(first).toMatchObject({ _ng_task_index: 0, 'mean/reward': 0.5, 'max/reward': 1, 'min/reward': 0, 'median/input_tokens': 15, num_rollouts: 2 });
    expect(first?.['std/reward']).toBeCloseTo(Math.SQRT1_2, 15);
    expect(first?.rollout_infos).toEqual([
      { rollout_id: '0:0', _ng_task_index: 0, _ng_rollout_index: 0, reward: 1, input_tokens: 10, correct: 1 },
      { rollout_id: '0:1', _ng_task_index: 0, _ng_rollout_index: 1, reward: 0, input_tokens: 20, correct: 0 },
    ]);
    expect(second).toMatchObject({ 'mean/reward': 1, 'std/reward': 0, 'mean/correct': 1 });
    expect(metrics.agent_metrics).toMatchObject({ 'mean/reward': 0.75, 'std/reward': 0.5, 'mean/input_tokens': 25, num_repeats: 2 });
    expect(metrics.agent_metrics).not.toHaveProperty('mean/label');
    expect(metrics.key_metrics).toEqual({ 'mean/reward': 0.75, 'mean/correct': 0.75, 'mean/input_tokens': 25 });

    const [repeat0, repeat1] = metrics.repeat_level_metrics;
    expect(repeat0).toMatchObject({ _ng_rollout_index: 0, sample_count: 2, missing_count: 0, 'mean/reward': 1, 'sem/reward': 0, 'ci_low_95/reward': 1 });
    expect(repeat1?.['ci_high_95/reward']).toBeCloseTo(0.5 + 12.706204736174694 * 0.5, 9);
    expect(metrics.agent_metrics['mean_across_repeats/mean/reward']).toBe(0.75);
    expect(metrics.agent_metrics['se_across_repeats/mean/reward']).toBeCloseTo(0.25, 15);
    expect(metrics.agent_metrics).not.toHaveProperty('mean_across_repeats/median/reward');
    expect(metrics.perf_summary).toBeNull();
  });

  it('reports a single rollout with a spread of 0 and no repeat metrics', () => {
    const metrics = computeAggregateMetrics([rollout(3, 0, 0.25)]);
    expect(metrics.agent_metrics).toEqual({
      'mean/reward': 0.25, 'max/reward': 0.25, 'min/reward': 0.25, 'median/reward': 0.25, 'std/reward': 0, num_repeats: 1,
    });
    expect(metrics.repeat_level_metrics).toEqual([]);
  });

  it('leaves masked rollouts out of the figures and counts them as coverage', () => {
    const metrics = computeAggregateMetrics([rollout(0, 0, 1), rollout(0, 1, 0, { mask_sample: true }), rollout(1, 0, 0, { mask_sample: true })]);
    expect(metrics.key_metrics).toEqual({
      'mean/reward': 1,
      'coverage/measured_rollouts': 1,
      'coverage/masked_rollouts': 2,
      'coverage/measured_tasks': 1,
      'coverage/fully_masked_tasks': 1,
    });
    expect(metrics.agent_metrics).not.toHaveProperty('mean/mask_sample');
    const allMasked = computeAggregateMetrics([rollout(0, 0, 0, { mask_sample: true })]);
    expect(allMasked.group_level_metrics).toEqual([]);
    expect(allMasked.agent_metrics).not.toHaveProperty('mean/reward');
  });

  it("summarizes the rollouts' ng_perf records", () => {
    const perf = computeAggregateMetrics([
      rollout(0, 0, 1, { ng_perf: { completion_tokens: 100, num_turns: 2, total_latency_ms: 10, token_observability_coverage: 1 } }),
      rollout(1, 0, 1, { ng_perf: { completion_tokens: 300, num_turns: 3, total_latency_ms: 30 } }),
      rollout(2, 0, 1),
    ]).perf_summary;
    expect(perf).toMatchObject({
      overall_observability_coverage: 2 / 3,
      token_observability_coverage: 1 / 3,
      total_completion_tokens: 400,
      std_num_turns: 0.5,
      mean_tokens_per_turn: 75,
      total_latency_p50_ms: 20,
    });
  });

  it('rejects two responses for the same rollout with a named error', () => {
    expect(() => computeAggregateMetrics([rollout(0, 0, 1), rollout(0, 0, 0)])).toThrow(/same \(_ng_task_index, _ng_rollout_index\) = \(0, 0\)/);
  });
});
