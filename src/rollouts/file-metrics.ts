/** The collector's metrics of a rollouts file already on disk (`ngym collect`'s summary of an earlier run). */
import { MetricsAccumulator, type MetricsOptions, type RolloutMetrics } from '../metrics/rollout-metrics.ts';
import { readLinesWithOffsets } from './output-files.ts';

/** Folds every rollout of a file into an accumulator (what an earlier run wrote, when resuming). */
async function addRolloutsFromFile(accumulator: MetricsAccumulator, path: string): Promise<void> {
  for await (const { bytes } of readLinesWithOffsets(path)) {
    if (bytes.length > 0) accumulator.add(JSON.parse(bytes.toString('utf8')) as Record<string, unknown>);
  }
}

/** Metrics of a rollouts file, keeping a few numbers per task. */
export async function computeMetricsFromFile(path: string, options: MetricsOptions): Promise<RolloutMetrics> {
  const accumulator = new MetricsAccumulator(options);
  await addRolloutsFromFile(accumulator, path);
  return accumulator.result();
}
