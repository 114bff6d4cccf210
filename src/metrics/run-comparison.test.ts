/**
 * `gym eval compare`'s arithmetic: the two difference intervals against scipy's figures, metric rows (values,
 * deltas, significance), per-task flips in both modes, and the refusal of runs that share no metric.
 */
import { describe, expect, it } from 'vitest';
import { findRegressions, renderMarkdown } from './comparison-report.ts';
import { computeAggregateMetrics } from './reward-profile.ts';
import { buildFlipSummary, compareRuns, type LoadedRun, loadedRun, MAX_FLIPS_SHOWN } from './run-comparison.ts';
import { pairedDifferenceInterval, welchDifferenceInterval } from './statistics.ts';

/** A run of `rewards[task][repeat]`, profiled as an agent's /aggregate_metrics would. */
function run(rewards: number[][], agent = 'agent'): LoadedRun {
  const rows = rewards.flatMap((repeats, task) => repeats.map((reward, repeat) => ({ _ng_task_index: task, _ng_rollout_index: repeat, reward })));
  return loadedRun(agent, computeAggregateMetrics(rows) as unknown as Record<string, unknown>);
}

describe('difference intervals', () => {
  it("Welch's interval is scipy's ttest_ind(equal_var=False).confidence_interval(0.95)", () => {
    // scipy 1.x: ConfidenceInterval(low=0.05158622882496705, high=0.548413771175033) and (0.056027458656242285, 0.3556392080104245)
    const [low, high] = welchDifferenceInterval([0.5, 0.6, 0.7], [0.3, 0.3]) as [number, number];
    expect(low).toBeCloseTo(0.05158622882496705, 10);
    expect(high).toBeCloseTo(0.548413771175033, 10);
    const [low2, high2] = welchDifferenceInterval([0.62, 0.71, 0.55, 0.69], [0.41, 0.52, 0.38]) as [number, number];
    expect(low2).toBeCloseTo(0.056027458656242285, 10);
    expect(high2).toBeCloseTo(0.3556392080104245, 10);
    expect(welchDifferenceInterval([0.5], [0.1, 0.2])).toBeUndefined();
    expect(welchDifferenceInterval([0.5, 0.5], [0.3, 0.3])).toEqual([0.2, 0.2]);
  });

  it("the paired interval is scipy's t.interval(0.95, n-1, mean, sem) of the differences", () => {
    const interval = pairedDifferenceInterval([0.25, -0.5, 0, 0.75, 1, 0.25]);
    expect(interval?.mean).toBeCloseTo(0.2916666666666667, 12);
    expect(interval?.low).toBeCloseTo(-0.26898804219479305, 10);
    expect(interval?.high).toBeCloseTo(0.8523213755281265, 10);
    expect(pairedDifferenceInterval([0.3])).toBeUndefined();
  });
});

describe('metric rows', () => {
  const baseline = run([[1, 0, 0], [0, 0, 0], [1, 1, 0], [0, 0, 1], [0, 1, 0], [0, 0, 0]]);
  const better = run([[1, 1, 1], [1, 0, 1], [1, 1, 1], [1, 1, 0], [1, 1, 1], [0, 1, 1]]);

  it('gives each side, the difference, both intervals and which way it went', () => {
    const comparison = compareRuns(baseline, [better]);
    const reward = comparison.metrics.find((row) => row.metric === 'mean/reward');
    expect(reward).toMatchObject({ is_key_metric: true, present_in: ['baseline', 'candidate[0]'] });
    expect(reward?.baseline?.value).toBeCloseTo(5 / 18, 12);
    const candidate = reward?.candidates[0];
    expect(candidate?.delta).toBeCloseTo(15 / 18 - 5 / 18, 12);
    expect(candidate?.delta_pct).toBeCloseTo(((15 - 5) / 5) * 100, 9);
    expect(candidate?.paired_task_count).toBe(6);
    // The per-task differences of the task means: (2/3, 2/3, 1/3, 1/3, 2/3, 2/3).
    const paired = pairedDifferenceInterval([2 / 3, 2 / 3, 1 / 3, 1 / 3, 2 / 3, 2 / 3]);
    expect(candidate?.paired_delta_ci_low).toBeCloseTo(paired?.low as number, 12);
    expect(candidate?.paired_delta).toBeCloseTo(candidate?.delta as number, 12);
    expect(candidate?.delta_ci_low).not.toBeNull();
    expect(candidate?.significance).toBe('higher');
    expect(compareRuns(better, [baseline]).metrics.find((row) => row.metric === 'mean/reward')?.candidates[0]?.significance).toBe('lower');
    // Statistics that are not point estimates are not rows.
    expect(comparison.metrics.map((row) => row.metric)).not.toContain('std/reward');
  });

  it('finds no difference between identical runs', () => {
    const comparison = compareRuns(baseline, [run([[1, 0, 0], [0, 0, 0], [1, 1, 0], [0, 0, 1], [0, 1, 0], [0, 0, 0]])]);
    const candidate = comparison.metrics.find((row) => row.metric === 'mean/reward')?.candidates[0];
    expect(candidate).toMatchObject({ delta: 0, paired_delta: 0, paired_delta_ci_low: 0, paired_delta_ci_high: 0, significance: 'not_significant' });
    expect(comparison.flips[0]).toMatchObject({ mode: 'binary', pass_to_fail_count: 0, fail_to_pass_count: 0, net: 0, flips: [] });
    expect(findRegressions([comparison])).toEqual([]);
  });

  it('refuses runs that share no metric', () => {
    const other = loadedRun('agent', { agent_metrics: { 'mean/score': 1 }, key_metrics: {} });
    expect(() => compareRuns(baseline, [other])).toThrow(/report no metric in common .*candidate: mean\/score/);
  });

  it('flags a significant drop of mean reward as a regression, in the report too', () => {
    const comparison = compareRuns(better, [baseline]);
    const regressions = findRegressions([comparison]);
    expect(regressions).toEqual([expect.objectContaining({ agent: 'agent', candidate_index: 0, metric: 'mean/reward', interval: 'paired_over_tasks' })]);
    const run = { role: 'baseline' as const, index: 0, rollouts_jsonl_fpath: '/r/a/rollouts.jsonl', aggregate_metrics_fpath: '/r/a/rollouts.jsonl', label: 'a', agent_names: ['agent'], metrics_source: 'rollouts' as const };
    const markdown = renderMarkdown({ schema_version: '1', generated_at: 'now', nemo_gym_version: 'ngym test', command: 'gym eval compare', baseline: run, candidates: [{ ...run, role: 'candidate' }], comparisons: [comparison], skipped_agents: {}, warnings: [], regressions });
    expect(markdown).toContain('**Regression:** `agent` mean/reward -0.5556 (95% CI [-0.7362, -0.3749])');
    expect(markdown).toContain('| `mean/reward` | -0.5556 (-66.7%) | [-0.7362, -0.3749] | [-0.7946, -0.3165] | lower | 0.8333 |');
  });
});

describe('per-task flips', () => {
  it('lists binary flips, regressions first, and counts ties at 0.5', () => {
    const summary = buildFlipSummary(run([[1, 1], [1, 1], [0, 0], [1, 0], [0, 0]]), run([[0, 0], [1, 1], [1, 1], [1, 1], [1, 0]]));
    expect(summary).toMatchObject({ mode: 'binary', common_task_count: 5, pass_to_fail_count: 1, fail_to_pass_count: 1, tied_count: 2, unchanged_count: 1, net: 0 });
    expect(summary.flips.map((flip) => [flip.task_index, flip.direction, flip.baseline_rewards, flip.candidate_rewards])).toEqual([
      [0, 'pass_to_fail', [1, 1], [0, 0]],
      [2, 'fail_to_pass', [0, 0], [1, 1]],
    ]);
  });

  it('lists the largest moves when rewards are not 0 or 1, and caps the per-repeat rewards kept', () => {
    const tasks = MAX_FLIPS_SHOWN + 3;
    const summary = buildFlipSummary(
      run(Array.from({ length: tasks }, () => [0.5])),
      run(Array.from({ length: tasks }, (_, task) => [task === 0 ? 0.5 : 0.5 + task / 100])),
    );
    expect(summary).toMatchObject({ mode: 'continuous', unchanged_count: 1, pass_to_fail_count: null });
    expect(summary.flips.map((flip) => flip.task_index)).toEqual(Array.from({ length: tasks - 1 }, (_, index) => tasks - 1 - index));
    expect(summary.flips.filter((flip) => flip.candidate_rewards !== null)).toHaveLength(MAX_FLIPS_SHOWN);
  });

  it('says why when the runs share no task', () => {
    const summary = buildFlipSummary(run([[1]]), loadedRun('agent', { agent_metrics: { 'mean/reward': 1 }, group_level_metrics: [{ _ng_task_index: 5, 'mean/reward': 1 }] }));
    expect(summary).toMatchObject({ mode: 'unavailable', common_task_count: 0, baseline_only_task_count: 1, candidate_only_task_count: 1 });
    expect(summary.reason).toContain('share no task index');
  });
});
