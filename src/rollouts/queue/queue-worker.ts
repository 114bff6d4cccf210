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
 */
import { type Job, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { ServerClient } from '../../client/server-client.ts';
import { describeError } from '../../errors.ts';
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
}

export type HeldJobEvent = { type: 'job-started'; jobId: string; token: string } | { type: 'job-ended'; jobId: string };

/** Thrown for an attempt BullMQ should retry; its message is the failure's. */
class RetryableAttempt extends Error {}

async function runRolloutJob(client: ServerClient, job: Job<RolloutJobData, RolloutJobResult>): Promise<RolloutJobResult> {
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
    return runRolloutJob(options.client, job);
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
