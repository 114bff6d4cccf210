/**
 * Math answer equivalence off the main thread. `MathVerifier` runs each library check (extraction,
 * normalization, Compute Engine comparison) on a worker thread with a time limit, so a pathological
 * answer (`99999!`, a sum of a million terms) costs one thread for at most the limit and never blocks
 * the server's event loop. A check that times out or fails counts as "not equivalent", as upstream's
 * Math-Verify timeout does.
 */
import { siblingModule } from '../util/package-root.ts';
import { WorkerPool, WorkerTaskError } from '../util/worker-pool.ts';
import type { MathVerifyResult } from './math-verify.ts';
import type { MathTask } from './worker.ts';

// The Compute Engine loads only in worker threads; import math-verify.ts directly to check in-process.
export type { MathVerifyResult } from './math-verify.ts';
export { sympyString } from './sympy-str.ts';
export { lastBoxedContent } from './latex-normalize.ts';

export const DEFAULT_MATH_TIMEOUT_SECONDS = 5;

export interface MathVerifierOptions {
  /** Time limit of one check (default 5 s, Math-Verify's own limit). */
  timeoutSeconds?: number;
  /** Worker threads (default: available cores, at most 4). */
  threads?: number;
}

export interface MathCheck extends MathVerifyResult {
  /** Why the check gave no verdict: it exceeded the time limit or its thread failed. */
  failure?: 'timeout' | 'error';
  /** Milliseconds from the call to the verdict, queueing included. */
  elapsedMs: number;
}

export class MathVerifier {
  private readonly pool: WorkerPool<MathTask, MathVerifyResult>;

  constructor(options: MathVerifierOptions = {}) {
    this.pool = new WorkerPool({
      module: siblingModule(import.meta.url, 'worker'),
      size: options.threads,
      taskTimeoutMs: (options.timeoutSeconds ?? DEFAULT_MATH_TIMEOUT_SECONDS) * 1000,
      // A hostile answer can allocate huge numbers; cap each thread's heap so it fails alone.
      maxHeapMb: 512,
      name: 'ngym-math',
    });
  }

  async check(expectedAnswer: string, generated: string): Promise<MathCheck> {
    const started = performance.now();
    try {
      const result = await this.pool.run({ expectedAnswer, generated });
      return { ...result, elapsedMs: performance.now() - started };
    } catch (error) {
      if (!(error instanceof WorkerTaskError) || error.reason === 'closed') throw error;
      return { reward: 0, extractedAnswer: null, failure: error.timedOut ? 'timeout' : 'error', elapsedMs: performance.now() - started };
    }
  }

  /** Starts the threads now, so the first checks do not wait for the engine to load. */
  warmUp(): Promise<void> {
    return this.pool.warmUp();
  }

  stats() {
    return this.pool.stats();
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
