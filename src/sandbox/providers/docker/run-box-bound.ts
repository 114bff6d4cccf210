/**
 * The gym-wide `max_sandboxes` of the docker provider: boxes on the engine labelled with this gym run, whoever made
 * them (every docker provider instance of every ngym server of the run, and the boxes upstream's Python servers make
 * under `ngym run`, which it labels with the run too), are at most `limit`.
 *
 * The engine's labelled containers are the ledger, not a lease server: a box counts while it exists, so a lease
 * cannot outlive its box or be lost with a process that kept it in memory. A box also carries `ngym.holder=<the
 * process that made it>` (host:pid:start time); a holder that died (a server killed, crashed, restarted) frees its
 * boxes: the next count removes them and does not count them, as the gym's own end frees a dead run's.
 *
 * Two creates racing in different processes are kept under the bound by checking twice: before its container is
 * made (room among the run's boxes and this process's pending creates), and after (the run's boxes, its own now
 * among them, still within the bound; else it removes its container and waits again). Of the creates that pass,
 * the last one made saw all the others on the engine, so they never exceed the bound; two that both back off retry
 * after a random pause. Within a process, creates wait in arrival order and share one engine listing.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { ownRunId, RUN_LABEL, runIsAlive } from '../run-identity.ts';
import { SandboxProviderError } from '../contract.ts';
import type { EngineClient } from './engine-client.ts';

/** The label naming the process that made a box (its holder), in run-identity's `host:pid:start` form. */
export const HOLDER_LABEL = 'ngym.holder';
/** How often waiting creates look at the engine again for boxes other processes closed. */
const POLL_MS = 250;

/** Bounds of one run in this process, so a box closed by one provider instance wakes the creates of another at once. */
const boundsOfRun = new Map<string, Set<RunBoxBound>>();

interface Waiter {
  name: string;
  resolve: () => void;
  reject: (error: Error) => void;
}

export class RunBoxBound {
  /** Names of this instance's creates that have room but whose container may not be on the engine yet. */
  private readonly pending = new Set<string>();
  private readonly queue: Waiter[] = [];
  private pumping = false;
  private pumpAgain = false;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  readonly holder = ownRunId();
  /** Called when a create has to wait for room (the warm pool then gives back its spares). */
  onFull: (() => void) | undefined;

  constructor(
    private readonly engine: EngineClient,
    private readonly runId: string,
    readonly limit: number,
  ) {
    let bounds = boundsOfRun.get(runId);
    if (bounds === undefined) boundsOfRun.set(runId, (bounds = new Set()));
    bounds.add(this);
  }

  /** The labels a box of this bound carries. */
  labels(): Record<string, string> {
    return { [RUN_LABEL]: this.runId, [HOLDER_LABEL]: this.holder };
  }

  /**
   * Makes the container `name` (with `make`) once the run has room for it, and resolves when it counts within the
   * bound. `make` may be called more than once (after a race lost to another process, the container is removed and
   * made again); when it throws, nothing is held.
   */
  async admit(name: string, make: () => Promise<void>): Promise<void> {
    for (;;) {
      await new Promise<void>((resolve, reject) => {
        this.queue.push({ name, resolve, reject });
        this.pump();
      });
      try {
        await make();
        if (await this.withinBound(name)) {
          this.pending.delete(name);
          return;
        }
        await this.engine.removeContainer(name).catch(() => false);
      } catch (error) {
        this.pending.delete(name);
        throw error;
      }
      this.pending.delete(name);
      // Lost a race with another process: both may have backed off, so each waits a random while before trying again.
      await delay(Math.random() * POLL_MS);
      if (this.closed) throw closedError();
    }
  }

  /**
   * Makes the container `name` only if the run has room for it now and no create is waiting: true when it was made
   * and counts within the bound, false when there was no room (nothing is left made). For boxes made ahead of need.
   */
  async tryAdmit(name: string, make: () => Promise<void>): Promise<boolean> {
    if (this.closed || this.queue.length > 0) return false;
    const occupied = await this.runBoxes();
    for (const other of this.pending) occupied.add(other);
    if (occupied.size >= this.limit || this.queue.length > 0) return false;
    this.pending.add(name);
    try {
      await make();
      if (await this.withinBound(name)) return true;
      await this.engine.removeContainer(name).catch(() => false);
      return false;
    } finally {
      this.pending.delete(name);
    }
  }

  /** After a box of the run is gone: waiting creates (of every bound of the run in this process) look again. */
  boxGone(): void {
    for (const bound of boundsOfRun.get(this.runId) ?? []) bound.pump();
  }

  /** Rejects every waiting create; the bound is no longer counted on for wakes. */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    for (const waiter of this.queue.splice(0)) waiter.reject(closedError());
    const bounds = boundsOfRun.get(this.runId);
    bounds?.delete(this);
    if (bounds?.size === 0) boundsOfRun.delete(this.runId);
  }

  /** The names of the run's boxes that count: on the engine (any state), minus those of a dead holder, which go. */
  private async runBoxes(): Promise<Set<string>> {
    const boxes = await this.engine.listContainers([`${RUN_LABEL}=${this.runId}`]);
    const counted = new Set<string>();
    const orphans: string[] = [];
    for (const box of boxes) {
      const name = (box.Names[0] ?? box.Id).replace(/^\//, '');
      const holder = box.Labels?.[HOLDER_LABEL];
      if (holder !== undefined && !runIsAlive(holder)) orphans.push(box.Id);
      else counted.add(name);
    }
    await Promise.all(orphans.map((id) => this.engine.removeContainer(id).catch(() => false)));
    return counted;
  }

  private async withinBound(name: string): Promise<boolean> {
    const occupied = await this.runBoxes();
    for (const other of this.pending) occupied.add(other);
    occupied.add(name);
    return occupied.size <= this.limit;
  }

  /** Gives room to waiting creates in arrival order, from one listing of the engine; several wakes share it. */
  private pump(): void {
    if (this.closed || this.queue.length === 0) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    void (async () => {
      try {
        do {
          this.pumpAgain = false;
          let occupied: Set<string>;
          try {
            occupied = await this.runBoxes();
          } catch (error) {
            // The engine does not answer: the creates fail as a create would, naming the engine.
            for (const waiter of this.queue.splice(0)) waiter.reject(error instanceof Error ? error : new Error(String(error)));
            return;
          }
          for (const other of this.pending) occupied.add(other);
          while (this.queue.length > 0 && occupied.size < this.limit) {
            const waiter = this.queue.shift() as Waiter;
            this.pending.add(waiter.name);
            occupied.add(waiter.name);
            waiter.resolve();
          }
          if (this.queue.length > 0) this.onFull?.();
        } while (this.pumpAgain && this.queue.length > 0);
      } finally {
        this.pumping = false;
        // Boxes other processes close wake no one here: look again in a while.
        if (this.queue.length > 0 && !this.closed) this.timer = setTimeout(() => this.pump(), POLL_MS);
      }
    })();
  }
}

function closedError(): SandboxProviderError {
  return new SandboxProviderError('unsupported', 'The sandbox provider was closed while this create waited for room under max_sandboxes.');
}
