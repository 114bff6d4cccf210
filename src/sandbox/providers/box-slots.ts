/**
 * The boxes one provider instance holds, and for the local and opensandbox providers the `max_sandboxes` bound on
 * them: a create beyond it waits (first come, first served) until a box of this provider is closed; adopted boxes
 * (`connect`) are counted by their creator, not here. (The docker provider bounds the whole gym run's boxes on its
 * engine instead: docker/run-box-bound.ts.)
 */
import { Semaphore } from '../../util/semaphore.ts';
import { SandboxProviderError } from './contract.ts';

export class BoxSlots {
  private readonly semaphore: Semaphore | undefined;
  private readonly held = new Map<string, () => void>();
  private readonly waiters = new Set<(error: Error) => void>();
  private closed = false;

  constructor(limit: number | null | undefined) {
    this.semaphore = limit === null || limit === undefined ? undefined : new Semaphore(limit);
  }

  /** Boxes this provider holds. */
  get inUse(): number {
    return this.held.size;
  }

  /** Waits for a slot; the returned function gives it back (once). Rejects when the provider closes meanwhile. */
  async acquire(): Promise<() => void> {
    if (this.closed) throw new SandboxProviderError('unsupported', 'The sandbox provider is closed.');
    const semaphore = this.semaphore;
    if (semaphore === undefined) return () => {};
    await new Promise<void>((resolve, reject) => {
      const onClose = (error: Error) => reject(error);
      this.waiters.add(onClose);
      void semaphore.acquire().then(() => {
        this.waiters.delete(onClose);
        // A slot that arrives after the provider closed goes straight back.
        if (this.closed) semaphore.release();
        else resolve();
      });
    });
    let released = false;
    return () => {
      if (released) return;
      released = true;
      semaphore.release();
    };
  }

  /** Ties a slot to a box, so `release(boxId)` gives it back. */
  hold(boxId: string, release: () => void): void {
    this.held.set(boxId, release);
  }

  release(boxId: string): void {
    this.held.get(boxId)?.();
    this.held.delete(boxId);
  }

  heldBoxes(): string[] {
    return [...this.held.keys()];
  }

  /** Rejects every waiting create. */
  close(): void {
    this.closed = true;
    for (const reject of this.waiters) reject(new SandboxProviderError('unsupported', 'The sandbox provider was closed while this create waited for a free slot (max_sandboxes).'));
    this.waiters.clear();
  }
}
