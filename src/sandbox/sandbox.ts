/**
 * Sandbox: runs model-written programs in boxes of one provider (bubblewrap, podman or docker). A warm
 * pool keeps boxes started ahead of need; a box serves one run at a time and, between runs, is reset
 * (every process killed, the writable directories emptied, IPC objects removed) and reused up to
 * `runsPerBox` times, so start-up cost stays out of the per-run cost. Sessions hold one box for many runs
 * that share a work directory (an agent editing a repository) or one long-lived process (an interpreter
 * keeping its state).
 */
import * as z from 'zod';
import { Box, BoxStartError, type BoxSpawn, resolveLimits } from './box.ts';
import { type BoxOptions, bubblewrapSpawn } from './bubblewrap.ts';
import { type ContainerEngine, containerSpawn } from './container.ts';
import { DEFAULT_LIMITS, SandboxError, type SandboxRunHandle, type SandboxRunRequest, type SandboxRunResult, type SandboxLimits } from './types.ts';

export type SandboxProviderName = 'bubblewrap' | ContainerEngine;

const MIB = 1024 ** 2;

/** The `sandbox:` block of an environment's config (snake_case, as every config key). */
export const sandboxConfigSchema = z
  .strictObject({
    /** bubblewrap (local Linux namespaces), podman or docker. */
    provider: z.enum(['bubblewrap', 'podman', 'docker']).default('bubblewrap'),
    /** Image of the container providers; needs python3. */
    image: z.string().min(1).nullable().default(null),
    /** Python of the box (the supervisor, and `python3` for programs). */
    python: z.string().min(1).default('python3'),
    /** Boxes kept started and ready; 0 starts a box for every run and discards it after. */
    pool_size: z.number().int().min(0).default(2),
    /** Runs one box serves (reset in between) before it is replaced. */
    runs_per_box: z.number().int().min(1).default(100),
    workspace_mb: z.number().positive().default(256),
    tmp_mb: z.number().positive().default(64),
    /** Per process address space, and resident memory of a run's processes together. */
    memory_mb: z.number().positive().nullable().default((DEFAULT_LIMITS.memoryBytes as number) / MIB),
    processes: z.number().int().positive().nullable().default(DEFAULT_LIMITS.processes),
    file_size_mb: z.number().positive().nullable().default((DEFAULT_LIMITS.fileSizeBytes as number) / MIB),
    /** Kept of stdout and of stderr each; more ends the run. */
    output_mb: z.number().positive().default(DEFAULT_LIMITS.outputBytes / MIB),
    /** Container providers: `--user` (empty: the image's own user). */
    container_user: z.string().default(''),
    /** Host uid the bubblewrap box runs as when ngym runs as root. */
    rootless_uid: z.number().int().min(1).default(65534),
  })
  .prefault({});

export type SandboxConfig = z.infer<typeof sandboxConfigSchema>;

export interface SandboxOptions {
  provider?: SandboxProviderName;
  image?: string | null;
  python?: string;
  poolSize?: number;
  runsPerBox?: number;
  workdir?: string;
  workspaceBytes?: number;
  tmpBytes?: number;
  /** Defaults of every run (a request's own limits override them). */
  limits?: Partial<SandboxLimits>;
  env?: Record<string, string>;
  containerUser?: string;
  rootlessUid?: number;
}

export interface SessionOptions {
  /** Host directories shown read-only inside the box. */
  mounts?: { source: string; target: string }[];
  workdir?: string;
  /** Container providers: another image for this session (a SWE-bench instance's). */
  image?: string;
  /** Container providers: the work directory is the image's own (a repository checkout). */
  workspace?: 'tmpfs' | 'image';
}

const INSTALL_HINT: Record<SandboxProviderName, string> = {
  bubblewrap: 'the local sandbox needs bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) and unprivileged user namespaces; see docs/sandbox.md',
  podman: 'the podman provider needs a working podman and an image with python3; see docs/sandbox.md',
  docker: 'the docker provider needs a running Docker daemon and an image with python3; see docs/sandbox.md',
};

export class Sandbox {
  readonly provider: SandboxProviderName;
  readonly limits: SandboxLimits;
  private readonly options: Required<Omit<SandboxOptions, 'limits' | 'image'>> & { image: string | null };
  private readonly idle: Box[] = [];
  private readonly live = new Set<Box>();
  private starting = 0;
  /** Boxes given out to runs and sessions, and boxes being reset after a run. */
  private busy = 0;
  private resetting = 0;
  private readonly waiters: { resolve: (box: Box) => void; reject: (error: unknown) => void }[] = [];
  private closed = false;
  /** Boxes started so far (the pool's work); runs served. */
  boxesStarted = 0;
  runs = 0;

  constructor(options: SandboxOptions = {}) {
    this.provider = options.provider ?? 'bubblewrap';
    this.limits = resolveLimits(options.limits);
    this.options = {
      provider: this.provider,
      image: options.image ?? null,
      python: options.python ?? 'python3',
      poolSize: options.poolSize ?? 2,
      runsPerBox: options.runsPerBox ?? 100,
      workdir: options.workdir ?? '/work',
      workspaceBytes: options.workspaceBytes ?? 256 * MIB,
      tmpBytes: options.tmpBytes ?? 64 * MIB,
      env: options.env ?? {},
      containerUser: options.containerUser ?? '',
      rootlessUid: options.rootlessUid ?? 65534,
    };
  }

  /** A sandbox from an environment's `sandbox:` config; `limits` are the environment's own run defaults. */
  static fromConfig(config: SandboxConfig, limits: Partial<SandboxLimits> = {}): Sandbox {
    return new Sandbox({
      provider: config.provider,
      image: config.image,
      python: config.python,
      poolSize: config.pool_size,
      runsPerBox: config.runs_per_box,
      workspaceBytes: config.workspace_mb * MIB,
      tmpBytes: config.tmp_mb * MIB,
      containerUser: config.container_user,
      rootlessUid: config.rootless_uid,
      limits: {
        memoryBytes: config.memory_mb === null ? null : Math.round(config.memory_mb * MIB),
        processes: config.processes,
        fileSizeBytes: config.file_size_mb === null ? null : Math.round(config.file_size_mb * MIB),
        outputBytes: Math.round(config.output_mb * MIB),
        ...limits,
      },
    });
  }

  /**
   * A sandbox from an environment's config, already checked to work (one box started and run): what an
   * environment's setup calls, so a missing requirement stops the server at start with the reason.
   */
  static async checkedFromConfig(config: SandboxConfig, limits: Partial<SandboxLimits> = {}): Promise<Sandbox> {
    const sandbox = Sandbox.fromConfig(config, limits);
    try {
      await sandbox.check();
    } catch (error) {
      await sandbox.close();
      throw error;
    }
    return sandbox;
  }

  private spawnSpec(session: SessionOptions = {}): BoxSpawn {
    const workdir = session.workdir ?? this.options.workdir;
    const mounts = session.mounts ?? [];
    if (this.provider === 'bubblewrap') {
      const options: BoxOptions = {
        python: this.options.python,
        workdir,
        workspaceBytes: this.options.workspaceBytes,
        tmpBytes: this.options.tmpBytes,
        mounts,
        env: this.options.env,
        rootlessUid: this.options.rootlessUid,
      };
      return bubblewrapSpawn(options);
    }
    const image = session.image ?? this.options.image;
    if (image === null) throw new SandboxError(`The ${this.provider} sandbox provider needs an image (sandbox.image, or the session's).`);
    return containerSpawn({
      engine: this.provider,
      image,
      python: this.options.python,
      workdir,
      workspace: session.workspace ?? 'tmpfs',
      workspaceBytes: this.options.workspaceBytes,
      tmpBytes: this.options.tmpBytes,
      mounts,
      env: this.options.env,
      user: this.options.containerUser,
      limits: this.limits,
    });
  }

  private async startBox(spec: BoxSpawn): Promise<Box> {
    if (this.closed) throw new SandboxError('The sandbox is closed.');
    let box: Box;
    try {
      box = await Box.start(spec);
    } catch (error) {
      const reason = error instanceof BoxStartError ? error.message : String(error);
      throw new SandboxError(`Cannot start a ${this.provider} sandbox: ${reason}. (${INSTALL_HINT[this.provider]})`, error);
    }
    this.boxesStarted++;
    if (this.closed) {
      box.kill();
      throw new SandboxError('The sandbox is closed.');
    }
    this.live.add(box);
    void box.exited.then(() => this.live.delete(box));
    return box;
  }

  /** Boxes alive or on their way: ready, starting, given out, being reset. */
  private get pooled(): number {
    return this.idle.length + this.starting + this.busy + this.resetting;
  }

  /** A box is ready: the longest waiting run gets it, or it waits in `idle`. */
  private offer(box: Box): void {
    const waiter = this.waiters.shift();
    if (waiter === undefined) {
      this.idle.push(box);
      return;
    }
    this.busy++;
    waiter.resolve(box);
  }

  /** Keeps `poolSize` boxes alive (ready or busy): boxes are started ahead of need, never beyond it. */
  private refill(): void {
    while (!this.closed && this.pooled < this.options.poolSize) {
      this.starting++;
      this.startBox(this.spawnSpec())
        .then((box) => {
          this.starting--;
          this.offer(box);
        })
        .catch((error: unknown) => {
          this.starting--;
          // Runs waiting for a box that will not come get the reason.
          while (this.waiters.length > this.starting + this.resetting) this.waiters.pop()?.reject(error);
        });
    }
  }

  private async acquire(): Promise<Box> {
    let box: Box | undefined;
    while ((box = this.idle.pop()) !== undefined && !box.alive);
    if (box !== undefined) {
      this.busy++;
    } else if (this.starting + this.resetting > this.waiters.length) {
      // A box is on its way (starting, or being reset after a run): waiting for it is cheaper than a new one.
      box = await new Promise<Box>((resolve, reject) => this.waiters.push({ resolve, reject }));
    } else {
      this.busy++;
      try {
        box = await this.startBox(this.spawnSpec());
      } catch (error) {
        this.busy--;
        throw error;
      }
    }
    this.refill();
    return box;
  }

  /** A box back from a run: reset and kept while the pool is not full, else ended. */
  private release(box: Box): void {
    this.busy--;
    const keep = !this.closed && box.alive && box.spec.reusable !== false && box.runs < this.options.runsPerBox && this.pooled < this.options.poolSize;
    if (!keep) {
      box.kill();
      this.refill();
      return;
    }
    this.resetting++;
    void box.reset().then((ok) => {
      this.resetting--;
      if (ok && !this.closed) this.offer(box);
      else box.kill();
      this.refill();
    });
  }

  /** Runs one program in a box of the pool. Throws SandboxError when no box can run it. */
  async run(request: SandboxRunRequest): Promise<SandboxRunResult> {
    const box = await this.acquire();
    let result: SandboxRunResult;
    try {
      result = await box.run(request, this.limits);
    } finally {
      this.release(box);
    }
    this.runs++;
    if (result.status === 'sandbox_error') throw new SandboxError(`The sandbox failed during a run: ${result.reason}`);
    return result;
  }

  /**
   * Starts a program in a box of the pool and hands back the running program: the host streams its stdin
   * and stdout, and may kill it (for example once its output settles a test). The box returns to the pool
   * when the run ends.
   */
  async start(request: SandboxRunRequest): Promise<SandboxRunHandle> {
    const box = await this.acquire();
    let handle: SandboxRunHandle;
    try {
      handle = box.start(request, this.limits);
    } catch (error) {
      this.release(box);
      throw error;
    }
    void handle.result.then(() => {
      this.runs++;
      this.release(box);
    });
    return handle;
  }

  /** A box of its own for several runs (shared work directory) or one long-lived process. */
  async openSession(options: SessionOptions = {}): Promise<SandboxSession> {
    const plain = options.mounts === undefined && options.workdir === undefined && options.image === undefined && options.workspace === undefined;
    let box: Box;
    if (plain) {
      box = await this.acquire();
      // A session's box is never given back: it leaves the pool, which starts a replacement.
      this.busy--;
      this.refill();
    } else {
      box = await this.startBox(this.spawnSpec(options));
    }
    return new SandboxSession(box, this.limits, () => this.runs++);
  }

  /** Starts a box and runs the Python in it once; throws SandboxError saying what is missing. */
  async check(): Promise<void> {
    const result = await this.run({ command: [this.options.python, '-c', 'print("ok")'], limits: { wallSeconds: 30 } });
    if (result.status !== 'exited' || result.exitCode !== 0 || result.stdout !== 'ok\n') {
      throw new SandboxError(`The ${this.provider} sandbox cannot run ${this.options.python}: ${result.reason ?? result.stderr.trim() ?? result.status}`);
    }
  }

  /** Kills every box; runs under way end with `sandbox_error`. */
  async close(): Promise<void> {
    this.closed = true;
    this.idle.length = 0;
    for (const waiter of this.waiters.splice(0)) waiter.reject(new SandboxError('The sandbox is closed.'));
    const boxes = [...this.live];
    for (const box of boxes) box.kill();
    await Promise.all(boxes.map((box) => box.exited));
  }
}

/** One box for one rollout: runs share its work directory; every process of a run ends with the run. */
export class SandboxSession {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly box: Box,
    private readonly limits: SandboxLimits,
    private readonly counted: () => void,
  ) {}

  get alive(): boolean {
    return this.box.alive;
  }

  /** Runs a program to its end (runs of one session are queued). Throws SandboxError when the box is gone. */
  run(request: SandboxRunRequest): Promise<SandboxRunResult> {
    const next = this.queue.then(async () => {
      if (!this.box.alive) throw new SandboxError('The sandbox session has ended (its box is gone).');
      const result = await this.box.run(request, this.limits);
      this.counted();
      if (result.status === 'sandbox_error') throw new SandboxError(`The sandbox failed during a run: ${result.reason}`);
      return result;
    });
    this.queue = next.catch(() => {});
    return next;
  }

  /** Starts a long-lived program the host talks to through stdin/stdout (nothing else may run meanwhile). */
  start(request: SandboxRunRequest): SandboxRunHandle {
    if (!this.box.alive) throw new SandboxError('The sandbox session has ended (its box is gone).');
    const handle = this.box.start(request, this.limits);
    this.queue = this.queue.then(() => handle.result).catch(() => {});
    return handle;
  }

  close(): void {
    this.box.kill();
  }
}
