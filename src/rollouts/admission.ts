/**
 * Admission: when one more rollout may start. It waits for the reader of the outcomes, for the ordered
 * writer's room and for a slot under `concurrency`; a run that began stopping meanwhile starts nothing.
 */
import { Semaphore } from '../util/semaphore.ts';
import type { OutcomeStream } from './outcome-stream.ts';
import type { OutcomeWriter } from './outcome-writer.ts';
import type { StopSignal } from './stop-signal.ts';

export class Admission {
  private readonly semaphore: Semaphore | undefined;

  constructor(
    concurrency: number | null | undefined,
    private readonly outcomes: OutcomeStream,
    private readonly writer: OutcomeWriter,
    private readonly signal: StopSignal,
  ) {
    this.semaphore = concurrency ? new Semaphore(concurrency) : undefined;
  }

  /** True with a slot held (release() it when the rollout ends); false when the run is stopping. */
  async admit(): Promise<boolean> {
    await this.outcomes.waitForSpace();
    await this.writer.waitForRoom();
    await this.semaphore?.acquire();
    if (!this.signal.stopping) return true;
    this.release();
    return false;
  }

  release(): void {
    this.semaphore?.release();
  }
}
