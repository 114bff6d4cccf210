/**
 * A small pool of worker threads for CPU-heavy work (math equivalence, parsing, scoring), so one slow task
 * never blocks the event loop that serves other sessions. Each task has a time limit: a task that exceeds
 * it has its worker terminated (the only way to stop synchronous JavaScript) and replaced.
 *
 * The worker module default-exports `(task) => result` (sync or async); tasks and results cross threads by
 * structured clone. TypeScript modules are loaded through tsx inside the worker, as `bin/ngym.js` does.
 *
 * @example
 * const pool = new WorkerPool<{ latex: string }, boolean>({ module: new URL('./worker.ts', import.meta.url), taskTimeoutMs: 2000 });
 * const equal = await pool.run({ latex: '\\frac12' });
 */
import { availableParallelism } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import * as z from 'zod';
import { NgymError } from '../errors.ts';
import { SOURCE_NODE_ARGS } from './package-root.ts';

export interface WorkerPoolOptions {
  /** The worker module (file URL or absolute path); its default export handles one task. */
  module: URL | string;
  /** Number of threads (default: available cores, at most 4). Threads start on first use. */
  size?: number;
  /** Time limit of one task once a thread runs it (queueing excluded). */
  taskTimeoutMs: number;
  /** Heap limit of each thread; a task that exceeds it fails, and the thread is replaced. */
  maxHeapMb?: number;
  /** Thread name prefix in diagnostics. */
  name?: string;
}

export interface WorkerPoolStats {
  size: number;
  busy: number;
  queued: number;
  completed: number;
  timedOut: number;
  replaced: number;
}

/** A task did not finish: it timed out, its thread died, or the handler threw (the message says which). */
export class WorkerTaskError extends NgymError {
  constructor(
    message: string,
    readonly reason: 'timeout' | 'crashed' | 'failed' | 'closed',
    cause?: unknown,
  ) {
    super('NGYM_INTERNAL', message, { cause, retryable: reason !== 'failed' });
  }

  get timedOut(): boolean {
    return this.reason === 'timeout';
  }
}

interface Task<Input, Output> {
  input: Input;
  timeoutMs: number;
  resolve: (value: Output) => void;
  reject: (error: Error) => void;
}

interface Slot<Input, Output> {
  worker: Worker;
  ready: boolean;
  task: Task<Input, Output> | undefined;
  timer: NodeJS.Timeout | undefined;
}

type WorkerMessage = { type: 'ready' } | { type: 'result'; value: unknown } | { type: 'error'; name: string; message: string; stack?: string };

// Runs as a CommonJS eval script: registers tsx for TypeScript modules, loads the handler, then answers tasks.
const BOOTSTRAP = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  if (workerData.tsx) (await import(workerData.tsx)).register();
  const loaded = await import(workerData.module);
  const handle = loaded.default;
  if (typeof handle !== 'function') throw new Error(workerData.module + ' must default-export a function (task) => result');
  parentPort.on('message', async (task) => {
    try {
      parentPort.postMessage({ type: 'result', value: await handle(task) });
    } catch (error) {
      parentPort.postMessage({ type: 'error', name: error?.name ?? 'Error', message: String(error?.message ?? error), stack: error?.stack });
    }
  });
  parentPort.postMessage({ type: 'ready' });
})();
`;

let tsxApi: string | undefined;
function tsxApiUrl(): string {
  tsxApi ??= import.meta.resolve('tsx/esm/api');
  return tsxApi;
}

export class WorkerPool<Input, Output> {
  readonly size: number;
  private readonly moduleUrl: string;
  private readonly slots: Slot<Input, Output>[] = [];
  private readonly queue: Task<Input, Output>[] = [];
  private closed = false;
  private readonly counters = { completed: 0, timedOut: 0, replaced: 0 };

  constructor(private readonly options: WorkerPoolOptions) {
    this.size = options.size ?? Math.min(4, availableParallelism());
    if (!Number.isInteger(this.size) || this.size < 1) throw new RangeError(`WorkerPool size must be a positive integer, got ${options.size}`);
    if (!(options.taskTimeoutMs > 0)) throw new RangeError(`WorkerPool taskTimeoutMs must be > 0, got ${options.taskTimeoutMs}`);
    const module = options.module;
    this.moduleUrl = module instanceof URL ? module.href : module.startsWith('file:') ? module : pathToFileURL(module).href;
  }

  /** Runs one task on a free thread (queued FIFO when all are busy); `timeoutMs` overrides the pool's limit. */
  run(input: Input, options: { timeoutMs?: number } = {}): Promise<Output> {
    if (this.closed) return Promise.reject(new WorkerTaskError('the worker pool is closed', 'closed'));
    return new Promise<Output>((resolve, reject) => {
      this.queue.push({ input, timeoutMs: options.timeoutMs ?? this.options.taskTimeoutMs, resolve, reject });
      this.dispatch();
    });
  }

  stats(): WorkerPoolStats {
    return {
      size: this.size,
      busy: this.slots.filter((slot) => slot.task !== undefined).length,
      queued: this.queue.length,
      ...this.counters,
    };
  }

  /** Starts every thread now and waits until they are ready (otherwise they start on first use). */
  async warmUp(): Promise<void> {
    while (this.slots.length < this.size) this.spawn();
    await Promise.all(
      this.slots.map(
        (slot) =>
          new Promise<void>((resolve, reject) => {
            if (slot.ready) return resolve();
            slot.worker.once('message', () => resolve());
            slot.worker.once('error', reject);
          }),
      ),
    );
  }

  /** Terminates every thread; queued and running tasks fail with reason 'closed'. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const task of this.queue.splice(0)) task.reject(new WorkerTaskError('the worker pool was closed', 'closed'));
    const slots = this.slots.splice(0);
    for (const slot of slots) {
      clearTimeout(slot.timer);
      slot.task?.reject(new WorkerTaskError('the worker pool was closed', 'closed'));
      slot.task = undefined;
    }
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const idle = this.slots.find((slot) => slot.ready && slot.task === undefined);
      if (idle === undefined) {
        if (this.slots.length < this.size) this.spawn();
        return;
      }
      this.start(idle, this.queue.shift() as Task<Input, Output>);
    }
  }

  private spawn(): void {
    const worker = new Worker(BOOTSTRAP, {
      eval: true,
      name: this.options.name ?? 'ngym-worker',
      workerData: { module: this.moduleUrl, tsx: /\.[mc]?ts$/.test(fileURLToPath(this.moduleUrl)) ? tsxApiUrl() : undefined },
      // In a checkout, `import 'ngym'` in the worker module resolves to the sources, as in the thread that made it.
      execArgv: SOURCE_NODE_ARGS.length > 0 ? [...process.execArgv, ...SOURCE_NODE_ARGS] : undefined,
      resourceLimits: this.options.maxHeapMb === undefined ? undefined : { maxOldGenerationSizeMb: this.options.maxHeapMb },
    });
    // Idle threads must not keep the process alive; a running task refs its thread.
    worker.unref();
    const slot: Slot<Input, Output> = { worker, ready: false, task: undefined, timer: undefined };
    this.slots.push(slot);
    worker.on('message', (message: WorkerMessage) => this.onMessage(slot, message));
    worker.on('error', (error) => this.onExit(slot, error));
    worker.on('exit', (code) => this.onExit(slot, new Error(`worker thread exited with code ${code}`)));
  }

  private start(slot: Slot<Input, Output>, task: Task<Input, Output>): void {
    slot.task = task;
    slot.worker.ref();
    slot.timer = setTimeout(() => {
      this.counters.timedOut++;
      this.retire(slot, new WorkerTaskError(`the task exceeded its time limit of ${task.timeoutMs} ms; its thread was terminated`, 'timeout'));
    }, task.timeoutMs);
    slot.worker.postMessage(task.input);
  }

  private onMessage(slot: Slot<Input, Output>, message: WorkerMessage): void {
    if (message.type === 'ready') {
      slot.ready = true;
      this.dispatch();
      return;
    }
    const task = slot.task;
    if (task === undefined) return;
    clearTimeout(slot.timer);
    slot.task = undefined;
    slot.worker.unref();
    if (message.type === 'result') {
      this.counters.completed++;
      task.resolve(message.value as Output);
    } else {
      const error = new WorkerTaskError(`${message.name}: ${message.message}`, 'failed');
      if (message.stack !== undefined) error.stack = message.stack;
      task.reject(error);
    }
    this.dispatch();
  }

  /** The thread died (crash, out of memory, failed to load): fail its task, and replace it if work waits. */
  private onExit(slot: Slot<Input, Output>, error: Error): void {
    if (!this.slots.includes(slot)) return;
    if (slot.ready) {
      this.retire(slot, new WorkerTaskError(`the worker thread failed: ${error.message}`, 'crashed', error));
      return;
    }
    // A module that cannot even load would fail forever: fail the queue instead of respawning in a loop.
    this.retire(slot, new WorkerTaskError(`the worker module ${this.moduleUrl} failed to load: ${error.message}`, 'crashed', error), false);
    for (const task of this.queue.splice(0)) task.reject(new WorkerTaskError(`the worker module ${this.moduleUrl} failed to load: ${error.message}`, 'crashed', error));
  }

  private retire(slot: Slot<Input, Output>, error: WorkerTaskError, replace = true): void {
    const index = this.slots.indexOf(slot);
    if (index === -1) return;
    this.slots.splice(index, 1);
    clearTimeout(slot.timer);
    slot.task?.reject(error);
    slot.task = undefined;
    void slot.worker.terminate();
    if (this.closed || !replace) return;
    this.counters.replaced++;
    // Start the replacement right after the failed task's caller has its answer (creating a thread costs
    // the main thread a few milliseconds), and before the next task needs it: loading a module takes a while.
    setImmediate(() => {
      if (this.closed) return;
      if (this.slots.length < this.size) this.spawn();
      this.dispatch();
    });
  }
}

/** Config keys of a resources server whose verify runs its checks on worker threads. */
export const verifyWorkersConfigShape = {
  /** Threads that run the checks off the event loop. */
  verify_workers: z.number().int().positive().default(2),
  /** Time limit of one check; beyond it verify fails (500, retryable) instead of scoring. */
  verify_timeout_seconds: z.number().positive().default(30),
};

export interface VerifyWorkersConfig {
  verify_workers: number;
  verify_timeout_seconds: number;
}

export interface VerifyWorkerPoolOptions {
  /** The worker module; its default export runs one check. */
  module: URL | string;
  /** The server's {@link verifyWorkersConfigShape} values. */
  config: VerifyWorkersConfig;
  /** Thread name prefix in diagnostics. */
  name: string;
  /** What one task is, for error messages ("schema check" gives "schema check did not finish: ..."). */
  check: string;
}

/**
 * The worker pool of a server's verify, sized and time-limited by its `verify_workers` and
 * `verify_timeout_seconds`. A check that does not finish (time limit, dead thread, handler error) fails the
 * verify request with a retryable 500 rather than scoring a rollout on a check that never ran.
 */
export class VerifyWorkerPool<Input, Output> {
  private readonly pool: WorkerPool<Input, Output>;
  private readonly check: string;

  constructor(options: VerifyWorkerPoolOptions) {
    this.check = options.check;
    this.pool = new WorkerPool({
      module: options.module,
      size: options.config.verify_workers,
      taskTimeoutMs: options.config.verify_timeout_seconds * 1000,
      name: options.name,
    });
  }

  async run(input: Input): Promise<Output> {
    try {
      return await this.pool.run(input);
    } catch (error) {
      throw new NgymError('NGYM_INTERNAL', `${this.check} did not finish: ${(error as Error).message}`, { cause: error, retryable: true });
    }
  }

  stats(): WorkerPoolStats {
    return this.pool.stats();
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
