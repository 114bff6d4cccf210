/**
 * The outcomes a collection yields to whoever iterates it. Nothing is kept until someone iterates (a run
 * only awaited with done() holds no outcomes); once someone does, a slow reader slows admission instead of
 * growing memory.
 */
import { AsyncQueue } from '../util/async-queue.ts';
import type { RolloutOutcome } from './rollout-outcome.ts';

export class OutcomeStream implements AsyncIterable<RolloutOutcome> {
  private readonly queue = new AsyncQueue<RolloutOutcome>(1024);
  private consumer = false;

  push(outcome: RolloutOutcome): void {
    if (this.consumer) this.queue.push(outcome);
  }

  /** Resolves once the reader has room for more (at once while nobody reads). */
  async waitForSpace(): Promise<void> {
    if (this.consumer) await this.queue.waitForSpace();
  }

  /** Ends the iteration; with an error, the reader's next read throws it. */
  close(error?: unknown): void {
    this.queue.close(error);
  }

  [Symbol.asyncIterator](): AsyncIterator<RolloutOutcome> {
    this.consumer = true;
    return this.queue;
  }
}
