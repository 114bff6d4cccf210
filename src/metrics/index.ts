/**
 * `ngym/metrics`: what is computed over rollouts. The collector's metrics (mean reward, pass@k), the default
 * `/aggregate_metrics` answer (upstream's reward profile), the pieces an environment's `computeMetrics` hook
 * uses (pass@k and majority@k over its own scores), and the running summaries behind dataset metrics.
 */
export { type AggregatedAvgMinMax, AvgMinMax } from './avg-min-max.ts';
export {
  addAverageSampleStdDev,
  computePassMajorityMetrics,
  computeSubsetMetrics,
  highestKMetrics,
  type PassMajorityResult,
  pickMetrics,
  type ScoreFunction,
} from './pass-majority.ts';
export { type AggregateMetrics, type AggregateMetricsHooks, computeAggregateMetrics, type ScoredRollout } from './reward-profile.ts';
export { computeMetrics, MetricsAccumulator, type MetricsOptions, passAtK, type RolloutMetrics } from './rollout-metrics.ts';
export { mean, median, quantile, standardDeviation } from './statistics.ts';
export { TDigest } from './t-digest.ts';
