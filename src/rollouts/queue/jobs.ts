/**
 * What travels through the queue: one job per (task, rollout), its id fixed by the run and the rollout so
 * that enqueueing it again (a resumed collector) finds the job already there instead of adding a second one.
 */
import type { TraceContext } from '../../telemetry/tracing.ts';
import type { RolloutFailure } from '../failures.ts';
import type { RolloutRequest } from '../run-attempt.ts';

export interface RolloutJobData extends RolloutRequest {
  /** Limit of one `/run` attempt; null: none; absent: the worker's request_timeout_seconds. */
  timeoutMs?: number | null;
  /**
   * W3C trace context of the collector's span for this rollout, which the worker's spans join; absent with
   * tracing off (and from older collectors): the worker then starts a trace of its own.
   */
  traceContext?: TraceContext;
}

/** A job's return value: the output row, or the failure of its last attempt (a failure never becomes a row). */
export type RolloutJobResult = { line: string; attempts: number } | { failure: RolloutFailure; attempts: number };

export const ROLLOUT_JOB_NAME = 'rollout';

/** BullMQ ids may not be integers nor contain ':'; this one is neither. */
export function rolloutJobId(runId: string, taskIndex: number, rolloutIndex: number): string {
  return `${runId}-${taskIndex}-${rolloutIndex}`;
}
