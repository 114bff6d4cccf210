/**
 * The collector's side of a distributed collection: each rollout becomes a BullMQ job (deterministic id,
 * `attempts` and exponential backoff from the collector's retry settings), and its result comes back through
 * QueueEvents. The collector keeps writing rows, failures and metrics itself, so exactly-once in the output
 * holds as in a local run: a (task, rollout) is written once per run and skipped on resume.
 *
 * Jobs already in Redis when a collector resumes are found by their ids (BullMQ does not add a job twice):
 * results that finished while no collector listened are read back, unfinished jobs are waited for.
 */
import { Job, type JobsOptions, Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { currentTraceContext } from '../../telemetry/tracing.ts';
import type { RolloutExecutor, RolloutOutcome } from '../collect.ts';
import type { RolloutFailure } from '../failures.ts';
import type { RolloutRequest } from '../run-attempt.ts';
import type { Task } from '../task-source.ts';
import { ROLLOUT_JOB_NAME, type RolloutJobData, type RolloutJobResult, rolloutJobId } from './jobs.ts';

export interface QueueExecutorOptions {
  connection: Redis;
  name: string;
  /** Attempts after the first, by BullMQ on any worker, for retryable failures. */
  maxRetries: number;
  retryDelayMs: number;
  /** Limit of one `/run` attempt (null: none; undefined: each worker's request_timeout_seconds). */
  rolloutTimeoutMs: number | null | undefined;
  /** How often a job with no news is looked up (a result whose event was missed, a job Redis lost). */
  checkIntervalMs?: number;
  /** Finished jobs left behind (a collector that never came back) expire after this long. */
  keepFinishedSeconds?: number;
}

type Finished = { result: RolloutJobResult } | { failedReason: string; attempts: number };

export class QueueExecutor implements RolloutExecutor {
  private queue: Queue<RolloutJobData, RolloutJobResult> | undefined;
  private events: QueueEvents | undefined;
  private runId = '';
  private resumed = false;

  constructor(private readonly options: QueueExecutorOptions) {}

  async start(runId: string, resumed: boolean): Promise<void> {
    this.runId = runId;
    this.resumed = resumed;
    this.queue = new Queue(this.options.name, { connection: this.options.connection });
    this.events = new QueueEvents(this.options.name, { connection: this.options.connection });
    // waitUntilFinished listens on both, once per rollout in flight.
    this.events.setMaxListeners(0);
    this.queue.setMaxListeners(0);
    await Promise.all([this.queue.waitUntilReady(), this.events.waitUntilReady()]);
  }

  async run(request: RolloutRequest, task: Task): Promise<{ outcome: RolloutOutcome; line?: string }> {
    const started = performance.now();
    const jobId = rolloutJobId(this.runId, request.taskIndex, request.rolloutIndex);
    // Run inside the rollout's span (CollectionTracing): the worker's spans join its trace.
    const traceContext = currentTraceContext();
    const data: RolloutJobData = {
      ...request,
      ...(this.options.rolloutTimeoutMs === undefined ? {} : { timeoutMs: this.options.rolloutTimeoutMs }),
      ...(traceContext === undefined ? {} : { traceContext }),
    };
    let job = await this.add(jobId, data);
    if (this.resumed) job = await this.reopen(job, data);
    const finished = await this.waitFor(job, data);
    // The row is the collector's from here: the job is no longer needed (a crash before the row reaches the
    // file only means the rollout runs again on resume).
    await this.queue?.remove(jobId).catch(() => {});
    const reference = { taskIndex: task.taskIndex, rolloutIndex: request.rolloutIndex, agent: task.agent, durationMs: performance.now() - started };
    if ('result' in finished && 'line' in finished.result) {
      const result = JSON.parse(finished.result.line) as Record<string, unknown>;
      return { outcome: { ...reference, status: 'completed', result, attempts: finished.result.attempts }, line: finished.result.line };
    }
    const [failure, attempts]: [RolloutFailure, number] =
      'result' in finished && 'failure' in finished.result
        ? [finished.result.failure, finished.result.attempts]
        : [queueFailure((finished as { failedReason: string }).failedReason), (finished as { attempts: number }).attempts];
    return { outcome: { ...reference, status: 'failed', failure, attempts } };
  }

  async close(): Promise<void> {
    await this.events?.close();
    await this.queue?.close();
  }

  private add(jobId: string, data: RolloutJobData): Promise<Job<RolloutJobData, RolloutJobResult>> {
    const keep = { age: this.options.keepFinishedSeconds ?? 7 * 24 * 3600 };
    const options: JobsOptions = {
      jobId,
      attempts: this.options.maxRetries + 1,
      backoff: { type: 'exponential', delay: this.options.retryDelayMs, jitter: 0.5 },
      removeOnComplete: keep,
      removeOnFail: keep,
    };
    return (this.queue as Queue<RolloutJobData, RolloutJobResult>).add(ROLLOUT_JOB_NAME, data, options);
  }

  /**
   * A job an earlier collector left that ended in failure is run again, as a local resume retries failures. One
   * not started yet takes this collector's data: its trace context is this run's (the earlier collector's rollout
   * span ended with it, unexported).
   */
  private async reopen(job: Job<RolloutJobData, RolloutJobResult>, data: RolloutJobData): Promise<Job<RolloutJobData, RolloutJobResult>> {
    const queue = this.queue as Queue<RolloutJobData, RolloutJobResult>;
    const existing = await Job.fromId<RolloutJobData, RolloutJobResult>(queue, job.id as string);
    if (existing === undefined) return job;
    const state = await existing.getState();
    // A worker may take it meanwhile: it then runs with either data, both this rollout's.
    if (state === 'waiting' || state === 'delayed' || state === 'prioritized') await existing.updateData(data).catch(() => {});
    const failedResult = state === 'completed' && existing.returnvalue !== null && 'failure' in existing.returnvalue;
    if (state !== 'failed' && !failedResult) return existing;
    await existing.remove();
    return this.add(job.id as string, data);
  }

  private async waitFor(job: Job<RolloutJobData, RolloutJobResult>, data: RolloutJobData): Promise<Finished> {
    const queue = this.queue as Queue<RolloutJobData, RolloutJobResult>;
    const jobId = job.id as string;
    for (;;) {
      try {
        return { result: await job.waitUntilFinished(this.events as QueueEvents, this.options.checkIntervalMs ?? 30_000) };
      } catch {
        // A failure event, no news within the interval, or a lost connection: the job's state in Redis decides.
      }
      const current = await Job.fromId<RolloutJobData, RolloutJobResult>(queue, jobId);
      if (current === undefined) {
        // Redis lost it (restarted without its data): run it again under the same id.
        job = await this.add(jobId, data);
        continue;
      }
      const state = await current.getState();
      if (state === 'completed' && current.returnvalue !== null) return { result: current.returnvalue };
      if (state === 'failed') return { failedReason: current.failedReason, attempts: current.attemptsMade };
      job = current;
    }
  }
}

/** A job BullMQ gave up on by itself: it stalled too often (workers died or lost Redis), or a worker crashed on it. */
function queueFailure(reason: string): RolloutFailure {
  return { failureClass: /stalled/i.test(reason) ? 'stalled' : 'server_error', message: `the queue gave up on the job: ${reason}`, retryable: false };
}
