/**
 * The progress bar's total for an input file, roughly: its lines times the repeats (before limits on
 * duplicates). Counting the lines of a large input takes a while, so it runs alongside the collection and
 * the total appears when known.
 */
import { createReadStream, existsSync } from 'node:fs';
import type { CollectOptions } from './collect-options.ts';
import type { ProgressReporter } from './progress.ts';

export function estimateTotalAlongside(options: Pick<CollectOptions, 'input' | 'limit'>, numRepeats: number, progress: ProgressReporter): void {
  if (typeof options.input !== 'string') return;
  void estimateRollouts(options.input, options.limit ?? null, numRepeats).then(
    (total) => total !== undefined && progress.setTotal(total),
    () => {},
  );
}

async function estimateRollouts(path: string, limit: number | null, numRepeats: number): Promise<number | undefined> {
  if (!existsSync(path)) return undefined;
  let lines = 0;
  let last = 10;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    for (let index = chunk.indexOf(10); index !== -1; index = chunk.indexOf(10, index + 1)) lines++;
    last = chunk.at(-1) ?? last;
  }
  if (last !== 10) lines++;
  return (limit === null ? lines : Math.min(limit, lines)) * numRepeats;
}
