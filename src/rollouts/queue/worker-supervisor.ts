/**
 * `ngym worker` as two processes: this small supervisor, which does no work of its own (so the kernel's OOM killer,
 * which picks the process holding the most memory, picks the worker instead), and the worker process under it. The
 * worker reports each job it takes, with the token of its lock, and each job it is done with. When the worker
 * dies, the supervisor records that death as the result of every job it held (`worker_oom_killed` when the kernel
 * counted an OOM kill as it died, `worker_heap_exhausted` when V8 said on its stderr that it ran out of JavaScript
 * heap, `worker_died` otherwise), naming the worker and its memory at the last sample, and starts a fresh worker:
 * at once after one that ran a while, after a growing wait after one that died soon after it started
 * (restart-backoff.ts). Without the supervisor those jobs would only stall and run again elsewhere, or end as
 * `stalled`, with nothing saying why.
 *
 * The result is stored under the dead worker's lock, as the worker would have stored it: should the lock have
 * expired first (the job already stalled and went back to the queue), BullMQ refuses it and the job is retried
 * as a stalled job instead, so each job still has one result.
 */
import type { ChildProcess } from 'node:child_process';
import { hostname } from 'node:os';
import { Job, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { describeError } from '../../errors.ts';
import { HeapExhaustionWatch, heapLimitOf, nodeFlagsOf } from '../../gym/heap-exhaustion.ts';
import { describeEnd, type MemorySample, OomKillWatch, type ProcessEnd, sampleMemory } from '../../gym/server-memory.ts';
import type { FailureClass, RolloutFailure } from '../failures.ts';
import { DEFAULT_RESTART_BACKOFF, RestartBackoff, type RestartBackoffSettings } from './restart-backoff.ts';
import type { RolloutJobData, RolloutJobResult } from './jobs.ts';
import type { HeldJobEvent } from './queue-worker.ts';

/** What the worker process tells its supervisor over IPC. */
export type WorkerMessage = HeldJobEvent | { type: 'ready' };

/** How often the worker's memory and the kernel's OOM kill count are read (as `ngym run` reads its servers'). */
const SAMPLE_INTERVAL_MS = 1_000;
const HEAP_REMEDY = 'give it more heap (NODE_OPTIONS=--max-old-space-size=<MiB> in the environment of ngym worker) or fewer rollouts at once (+concurrency)';

export interface WorkerSupervisorOptions {
  connection: Redis;
  /** The queue. */
  name: string;
  /**
   * Starts the worker process, with an IPC channel, in this process's environment. Its stderr, when piped, is read
   * for V8 running out of heap and passed on to `stderr`.
   */
  startWorker: () => ChildProcess;
  log: (message: string) => void;
  /** Where the worker's piped stderr goes; default this process's stderr. */
  stderr?: (text: string) => void;
  /** When a worker that died soon after it started is replaced; default 1 s doubling to 30 s, reset after 60 s up. */
  restartBackoff?: RestartBackoffSettings;
}

interface WorkerProcess {
  process: ChildProcess;
  ready: boolean;
  /** Job id -> the token of its lock. */
  held: Map<string, string>;
  memory: MemorySample | undefined;
  startedAt: number;
  heap: HeapExhaustionWatch;
}

export class WorkerSupervisor {
  private queue: Queue<RolloutJobData, RolloutJobResult> | undefined;
  private worker: WorkerProcess | undefined;
  private readonly oomKills = new OomKillWatch();
  private sampler: NodeJS.Timeout | undefined;
  private stopping = false;
  private stoppedNow = false;
  private finish: ((code: number) => void) | undefined;
  private readonly backoff: RestartBackoff;
  /** The wait before the next worker starts, while there is one. */
  private restartTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: WorkerSupervisorOptions) {
    this.backoff = new RestartBackoff(options.restartBackoff ?? DEFAULT_RESTART_BACKOFF);
  }

  /** Runs workers until stopped (resolves with the last worker's exit code), or until one dies before it is ready. */
  async run(): Promise<number> {
    this.queue = new Queue(this.options.name, { connection: this.options.connection });
    await this.queue.waitUntilReady();
    const finished = new Promise<number>((resolve) => (this.finish = resolve));
    this.sample();
    this.sampler = setInterval(() => this.sample(), SAMPLE_INTERVAL_MS);
    this.startWorker();
    const code = await finished;
    clearInterval(this.sampler);
    await this.queue.close();
    return code;
  }

  /**
   * The first call lets the worker finish the jobs in hand; a second ends it at once (its jobs stall). During the
   * wait before a new worker starts, the first ends that wait and the supervisor.
   */
  stop(): void {
    if (this.restartTimer !== undefined) {
      clearTimeout(this.restartTimer);
      this.restartTimer = undefined;
      this.stoppedNow ||= this.stopping;
      this.stopping = true;
      this.finish?.(this.stoppedNow ? 130 : 0);
      return;
    }
    if (this.stopping) {
      this.stoppedNow = true;
      this.worker?.process.kill('SIGKILL');
      return;
    }
    this.stopping = true;
    this.worker?.process.kill('SIGTERM');
  }

  private startWorker(): void {
    const worker: WorkerProcess = { process: this.options.startWorker(), ready: false, held: new Map(), memory: undefined, startedAt: Date.now(), heap: new HeapExhaustionWatch() };
    this.worker = worker;
    worker.process.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      worker.heap.write(chunk);
      if (this.options.stderr === undefined) process.stderr.write(chunk);
      else this.options.stderr(chunk);
    });
    worker.process.on('message', (message: WorkerMessage) => {
      if (message.type === 'ready') worker.ready = true;
      else if (message.type === 'job-started') worker.held.set(message.jobId, message.token);
      else worker.held.delete(message.jobId);
    });
    // 'close', not 'exit': by then every message the worker sent has been read.
    worker.process.once('close', (code, signal) => void this.ended(worker, code, signal));
    // A stop asked for while the previous worker was being replaced.
    if (this.stopping) worker.process.kill('SIGTERM');
  }

  private sample(): void {
    this.oomKills.sample();
    const pid = this.worker?.process.pid;
    if (this.worker !== undefined && pid !== undefined) this.worker.memory = sampleMemory(pid) ?? this.worker.memory;
  }

  private async ended(worker: WorkerProcess, code: number | null, signal: NodeJS.Signals | null): Promise<void> {
    if (this.stopping) {
      this.finish?.(this.stoppedNow ? 130 : (code ?? 1));
      return;
    }
    // Its stderr has closed ('close' comes after it): V8's last words, if any, have been read.
    const heapExhausted = worker.heap.exhausted ? { limit: heapLimitOf(nodeFlagsOf(worker.process.spawnargs.slice(1))), remedy: HEAP_REMEDY } : undefined;
    const end = this.oomKills.end(code, signal, worker.memory, heapExhausted);
    const description = `Worker process ${worker.process.pid} on ${hostname()} ${describeEnd(end, worker.ready ? 'unexpectedly' : 'before it was ready')}`;
    const held = [...worker.held];
    this.options.log(`${description}; it held ${held.length} job(s).`);
    const failure: RolloutFailure = { failureClass: failureClassOf(end), message: `${description}.`, retryable: false };
    const outcomes = await Promise.all(held.map(([jobId, token]) => this.recordDeath(jobId, token, failure)));
    const count = (outcome: DeathRecord) => outcomes.filter((each) => each === outcome).length;
    this.options.log(
      `Worker process ${worker.process.pid}: ${count('recorded')} of the ${held.length} job(s) it held recorded as ${failure.failureClass}, ${count('finished')} finished just before it died, ${count('stalls')} left to stall and run again.`,
    );
    // One that could not start (bad config, servers out of reach) would only fail again: its error is printed.
    if (!worker.ready) return this.finish?.(code ?? 1);
    if (this.stopping) return this.finish?.(this.stoppedNow ? 130 : 0);
    const uptimeMs = Date.now() - worker.startedAt;
    const delayMs = this.backoff.delayAfter(uptimeMs);
    if (delayMs === 0) {
      this.options.log('Starting a new worker process.');
      this.startWorker();
      return;
    }
    this.options.log(
      `The worker process died ${this.backoff.quickDeaths > 1 ? 'again ' : ''}within ${this.backoff.settings.stableMs / 1000} s of starting (after ${(uptimeMs / 1000).toFixed(1)} s): starting a new worker process in ${delayMs / 1000} s.`,
    );
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      this.startWorker();
    }, delayMs);
  }

  /** The death as the job's result, as the worker stores a failure it does not retry. */
  private async recordDeath(jobId: string, token: string, failure: RolloutFailure): Promise<DeathRecord> {
    try {
      const job = await Job.fromId<RolloutJobData, RolloutJobResult>(this.queue as Queue<RolloutJobData, RolloutJobResult>, jobId);
      // Finished just before the death (a message that did not arrive), and maybe taken by the collector already.
      if (job === undefined || (await job.getState()) !== 'active') return 'finished';
      await job.moveToCompleted({ failure, attempts: job.attemptsMade + 1 }, token, false);
      this.options.log(`Job ${jobId}: recorded as ${failure.failureClass}.`);
      return 'recorded';
    } catch (error) {
      this.options.log(`Job ${jobId}: the worker's death could not be recorded (${describeError(error)}); it stalls and runs again.`);
      return 'stalls';
    }
  }
}

/** What became of a job the dead worker held: its death recorded, already finished, or left to stall and run again. */
type DeathRecord = 'recorded' | 'finished' | 'stalls';

function failureClassOf(end: ProcessEnd): FailureClass {
  if (end.heapExhausted !== undefined) return 'worker_heap_exhausted';
  return end.oomKilled ? 'worker_oom_killed' : 'worker_died';
}
