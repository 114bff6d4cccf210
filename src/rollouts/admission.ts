/**
 * Admission: when one more rollout may start. It waits for the reader of the outcomes, for the ordered
 * writer's room, for a slot under `concurrency` and for the collector's memory to be under its budget
 * (src/util/memory-gate.ts); a run that began stopping meanwhile starts nothing.
 */
import type { MemoryGate } from '../util/memory-gate.ts';
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
    private readonly memory: MemoryGate | undefined,
  ) {
    this.semaphore = concurrency ? new Semaphore(concurrency) : undefined;
  }

  /** Rollouts held back now because the collector is over its memory budget. */
  get waitingForMemory(): number {
    return this.memory?.waiting ?? 0;
  }

  /** True with a slot held (release() it when the rollout ends); false when the run is stopping. */
  async admit(): Promise<boolean> {
    await this.outcomes.waitForSpace();
    await this.writer.waitForRoom();
    await this.semaphore?.acquire();
    const admitted = this.memory?.admit(() => this.signal.abortSignal) ?? true;
    if (admitted !== true && !(await admitted)) {
      this.semaphore?.release();
      return false;
    }
    if (!this.signal.stopping) return true;
    this.release();
    return false;
  }

  release(): void {
    this.memory?.release();
    this.semaphore?.release();
  }
}
