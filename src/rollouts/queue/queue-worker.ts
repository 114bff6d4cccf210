/**
 * The worker's side of a distributed collection: a BullMQ Worker that runs each rollout job against the
 * servers this host reaches (its own head server). One `/run` attempt per BullMQ attempt: a retryable failure
 * with attempts left is thrown, so BullMQ retries it after its backoff on whichever worker is free; the last
 * attempt's failure is returned as the job's result, for the collector to record.
 *
 * A worker that dies (SIGKILL, lost host, cut off from Redis) stops renewing its jobs' locks; after
 * `lock_seconds` another worker's stalled-job check puts them back in the queue, and BullMQ refuses the late
 * completion of a job whose lock was lost, so each job has one result. Under `ngym worker`'s supervisor
 * (worker-supervisor.ts) the jobs in hand and their lock tokens are reported as they start and end, so that a death
 * of this process is recorded against them at once instead.
 *
 * With tracing on, each attempt is a `gym.worker.rollout` span, a child of the collector's span for the rollout
 * (the trace context its job carries), so a queued rollout is one trace as a local one is.
 */
import { type Job, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { ServerClient } from '../../client/server-client.ts';
import { describeError } from '../../errors.ts';
import { inRolloutTrace, markSpanFailed, type Tracer } from '../../telemetry/tracing.ts';
import { attemptRollout } from '../run-attempt.ts';
import type { RolloutJobData, RolloutJobResult } from './jobs.ts';

export interface QueueWorkerOptions {
  connection: Redis;
  name: string;
  client: ServerClient;
  /** Rollouts this worker runs at once. */
  concurrency: number;
  lockSeconds: number;
  maxStalled: number;
  log: (message: string) => void;
  /** Told as each job starts (with the token of its lock) and ends, whatever its result. */
  onJob?: (event: HeldJobEvent) => void;
  /** This worker's tracer (gymTracer); undefined: tracing is off. */
  tracer?: Tracer;
}

export type HeldJobEvent = { type: 'job-started'; jobId: string; token: string } | { type: 'job-ended'; jobId: string };

/** Thrown for an attempt BullMQ should retry; its message is the failure's. */
class RetryableAttempt extends Error {}

/** One attempt at a job, in the trace of the collector that submitted it. */
function runRolloutJob(client: ServerClient, job: Job<RolloutJobData, RolloutJobResult>, tracer: Tracer | undefined): Promise<RolloutJobResult> {
  const data = job.data;
  return inRolloutTrace(
    tracer,
    'gym.worker.rollout',
    { taskIndex: data.taskIndex, rolloutIndex: data.rolloutIndex },
    async (span) => {
      span?.setAttributes({
        'nemo.gym.agent.name': data.agent,
        'nemo.gym.queue.job_id': job.id as string,
        'nemo.gym.queue.attempt': job.attemptsMade + 1,
        // From the collector's clock to this worker's: clamped, as two hosts' clocks may disagree.
        'nemo.gym.queue.wait_ms': Math.max(0, (job.processedOn ?? Date.now()) - job.timestamp),
      });
      const result = await attemptJob(client, job);
      if (span !== undefined && 'failure' in result) markSpanFailed(span.setAttribute('nemo.gym.rollout.failure_class', result.failure.failureClass), result.failure.message);
      return result;
    },
    { parent: data.traceContext },
  );
}

async function attemptJob(client: ServerClient, job: Job<RolloutJobData, RolloutJobResult>): Promise<RolloutJobResult> {
  const attempts = job.attemptsMade + 1;
  const data = job.data;
  try {
    client.url(data.agent);
  } catch (error) {
    return { failure: { failureClass: 'invalid_input', message: `this worker cannot reach agent '${data.agent}': ${describeError(error)}`, retryable: false }, attempts };
  }
  const attempted = await attemptRollout(client, data, { timeoutMs: data.timeoutMs === undefined ? client.defaultTimeoutMs : data.timeoutMs });
  if (attempted.ok) return { line: attempted.line, attempts };
  if (attempted.failure.retryable && attempts < (job.opts.attempts ?? 1)) throw new RetryableAttempt(attempted.failure.message);
  return { failure: attempted.failure, attempts };
}

export function startQueueWorker(options: QueueWorkerOptions): Worker<RolloutJobData, RolloutJobResult> {
  const lockMs = options.lockSeconds * 1000;
  const processJob = (job: Job<RolloutJobData, RolloutJobResult>, token: string | undefined) => {
    if (token !== undefined) options.onJob?.({ type: 'job-started', jobId: job.id as string, token });
    return runRolloutJob(options.client, job, options.tracer);
  };
  const worker = new Worker<RolloutJobData, RolloutJobResult>(options.name, processJob, {
    connection: options.connection,
    concurrency: options.concurrency,
    lockDuration: lockMs,
    stalledInterval: lockMs,
    maxStalledCount: options.maxStalled,
  });
  worker.on('stalled', (jobId) => options.log(`Job ${jobId} stalled (its worker stopped renewing the lock); it is back in the queue for another attempt.`));
  worker.on('failed', (job, error) => {
    if (job !== undefined) options.log(`Job ${job.id} attempt ${job.attemptsMade} failed: ${error.message.slice(0, 300)}`);
  });
  // After BullMQ has stored the result (or the retry): from here the job is no longer this process's.
  const ended = (job: Job | undefined) => {
    if (job !== undefined) options.onJob?.({ type: 'job-ended', jobId: job.id as string });
  };
  worker.on('completed', ended);
  worker.on('failed', ended);
  // Connection losses, and BullMQ refusing a result whose lock this worker lost (another worker has the job).
  worker.on('error', (error) => options.log(`Queue: ${describeError(error)}`));
  return worker;
}
