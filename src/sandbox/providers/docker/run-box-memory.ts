/**
 * The memory the boxes of a gym run hold on a container engine, for a collector's admission by memory: rollouts
 * whose boxes take gigabytes must count them against `memory_budget`, which the collector's own resident memory
 * never shows. A box with a memory limit (`resources.memory_mib`, upstream's `--memory` too) counts its limit, since
 * that is what it may take; a box without one counts what the engine measures it using. Only running boxes count.
 *
 * The figure is read synchronously (admission reads memory at every decision) and refreshed from the engine in the
 * background: one listing of the run's boxes, an inspect once per new box, a stats call per box without a limit.
 */
import { EngineClient } from './engine-client.ts';
import { listSandboxBoxes } from './reaper.ts';
import { RUN_LABEL } from '../run-identity.ts';

/** How often the figure is refreshed from the engine. */
const REFRESH_MS = 250;

export interface RunBoxMemoryOptions {
  /** The engine (default DOCKER_HOST). */
  dockerHost?: string;
  /** Whose boxes count: one gym run's; unset, every box of a live ngym run (and upstream's) on the engine. */
  runId?: string;
}

export class RunBoxMemory {
  private readonly engine: EngineClient;
  private readonly runId: string | undefined;
  /** Each box's memory limit in bytes (null: none), inspected once; boxes gone are dropped. */
  private readonly limits = new Map<string, number | null>();
  private bytes = 0;
  private count = 0;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(options: RunBoxMemoryOptions = {}) {
    this.engine = new EngineClient(options.dockerHost, 4);
    this.runId = options.runId;
  }

  /** Bytes the counted boxes hold, as of the last refresh. */
  get heldBytes(): number {
    return this.bytes;
  }

  /** Running boxes counted at the last refresh. */
  get boxes(): number {
    return this.count;
  }

  /** A first figure (a missing engine throws, naming its socket), then refreshes in the background until close(). */
  async start(): Promise<void> {
    await this.refresh();
    this.schedule();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.engine.close();
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      // A failed refresh keeps the last figure: the engine going away must not free memory that boxes may still hold.
      void this.refresh()
        .catch(() => undefined)
        .finally(() => this.schedule());
    }, REFRESH_MS);
    this.timer.unref();
  }

  async refresh(): Promise<number> {
    const running = await this.runningBoxIds();
    const present = new Set(running);
    for (const id of this.limits.keys()) if (!present.has(id)) this.limits.delete(id);
    const held = await Promise.all(
      running.map(async (id) => {
        if (!this.limits.has(id)) {
          const memory = (await this.engine.inspectContainer(id))?.HostConfig.Memory;
          this.limits.set(id, memory ? memory : null);
        }
        return this.limits.get(id) ?? (await this.engine.containerMemoryUsage(id)) ?? 0;
      }),
    );
    this.bytes = held.reduce((sum, bytes) => sum + bytes, 0);
    this.count = running.length;
    return this.bytes;
  }

  /** The run's running boxes; without a run, every running box on the engine but those of a run that is gone. */
  private async runningBoxIds(): Promise<string[]> {
    if (this.runId !== undefined) return (await this.engine.listContainers([`${RUN_LABEL}=${this.runId}`], false)).filter((box) => box.State === 'running').map((box) => box.Id);
    return (await listSandboxBoxes(this.engine)).filter((box) => box.state === 'running' && box.runAlive).map((box) => box.id);
  }
}
