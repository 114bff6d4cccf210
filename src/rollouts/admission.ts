/**
 * Admission: when one more rollout may start. It waits for the reader of the outcomes, for the ordered
 * writer's room, for a slot under `concurrency` and for the collector's memory to be under its budget
 * (src/util/memory-gate.ts); a run that began stopping meanwhile starts nothing. With sandbox boxes counted
 * (`memoryGateCountingBoxes`), the collector's memory is its own plus what its gym run's boxes hold.
 */
import { RunBoxMemory, type RunBoxMemoryOptions } from '../sandbox/providers/docker/run-box-memory.ts';
import { MemoryGate } from '../util/memory-gate.ts';
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

/**
 * A gate for the collector's admission that counts, beside its own resident memory, the memory the sandbox boxes of
 * its gym run hold on the container engine (each box's memory limit, or its measured use without one:
 * src/sandbox/providers/docker/run-box-memory.ts). So rollouts whose boxes take gigabytes start only as the budget
 * allows, though the collector itself holds little. close() stops watching the engine.
 */
export async function memoryGateCountingBoxes(budgetBytes: number, boxes: RunBoxMemoryOptions, onHold?: () => void): Promise<{ gate: MemoryGate; boxes: RunBoxMemory; close(): Promise<void> }> {
  const watched = new RunBoxMemory(boxes);
  try {
    await watched.start();
  } catch (error) {
    await watched.close();
    throw error;
  }
  // A rollout has shown its memory once its box is up (a rollout holds one box, as SWE and terminal tasks do): time
  // says nothing, since a create takes from a second to many on a loaded engine.
  const gate = new MemoryGate({ shownPieces: () => watched.boxes, budgetBytes, onHold, residentBytes: () => process.memoryUsage.rss() + watched.heldBytes });
  return { gate, boxes: watched, close: () => watched.close() };
}
