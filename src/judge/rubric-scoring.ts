/**
 * How the rubric-judged environments (multichallenge, inverse_if) turn one judge verdict per rubric item into a
 * reward, as upstream 0.7.0's `_aggregate_scores`: each item scores 1.0 or 0.0, and the server's
 * `aggregation_mode` combines them.
 */

/** Upstream's `AggregationMode` values, the config's `aggregation_mode`. */
export const AGGREGATION_MODES = ['mean', 'min', 'max', 'all', 'any', 'weighted'] as const;
export type AggregationMode = (typeof AGGREGATION_MODES)[number];

/** An item counts as passed from 0.99 up, as upstream compares. */
const PASSED = 0.99;

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

export const countPassed = (scores: readonly number[]): number => scores.filter((score) => score >= PASSED).length;

/**
 * The reward of a rubric: 0.0 without items. `weighted` divides the weighted sum by the sum of `weights` (0.0 when
 * that is 0); without weights (inverse_if's items carry none) it is the mean.
 */
export function aggregateScores(scores: readonly number[], mode: AggregationMode, weights?: readonly number[]): number {
  if (scores.length === 0) return 0.0;
  switch (mode) {
    case 'mean':
      return sum(scores) / scores.length;
    case 'min':
      return Math.min(...scores);
    case 'max':
      return Math.max(...scores);
    case 'all':
      return countPassed(scores) === scores.length ? 1.0 : 0.0;
    case 'any':
      return countPassed(scores) > 0 ? 1.0 : 0.0;
    case 'weighted': {
      if (weights === undefined) return sum(scores) / scores.length;
      const total = sum(weights);
      return total === 0 ? 0.0 : sum(scores.map((score, index) => score * (weights[index] ?? 0))) / total;
    }
  }
}

/**
 * Runs `evaluate` on every item: all at once when `parallel` (upstream's `parallel_evaluation`, asyncio.gather)
 * and there are several, else one after another. Results keep the items' order either way.
 */
export async function evaluateEach<Item, Result>(items: readonly Item[], parallel: boolean, evaluate: (item: Item, index: number) => Promise<Result>): Promise<Result[]> {
  if (parallel && items.length > 1) return Promise.all(items.map(evaluate));
  const results: Result[] = [];
  for (const [index, item] of items.entries()) results.push(await evaluate(item, index));
  return results;
}
