/**
 * Why a rollout attempt failed, and whether trying again can help. A failed rollout is retried, then
 * recorded in the failures file; it is never written to the output, so it is never scored as 0.
 */
import type { HttpResponse } from '../client/http-client.ts';
import { ERROR_CODE_HEADER, errorCodeOf, NgymError, UpstreamError } from '../errors.ts';

export type FailureClass =
  | 'connection'
  | 'timeout'
  | 'stalled'
  | 'server_error'
  | 'rate_limited'
  | 'rejected'
  | 'judge_failed'
  | 'invalid_result'
  | 'agent_declared'
  | 'invalid_input'
  | 'server_oom_killed'
  | 'server_heap_exhausted'
  | 'server_died'
  | 'worker_oom_killed'
  | 'worker_heap_exhausted'
  | 'worker_died';

export interface RolloutFailure {
  failureClass: FailureClass;
  message: string;
  retryable: boolean;
  status?: number;
  /** The innermost server's error code, when it reported one. */
  code?: string;
  /** The agent's own answer, when it reported the failure itself (`_ng_failure_class`; failureClass `agent_declared`). */
  declared?: Record<string, unknown>;
}

export function failureFromError(error: unknown): RolloutFailure {
  if (error instanceof UpstreamError) {
    if (error.code === 'NGYM_UPSTREAM_TIMEOUT') return { failureClass: 'timeout', message: error.message, retryable: true, code: error.code };
    if (error.code === 'NGYM_UPSTREAM_CONNECTION') return { failureClass: 'connection', message: error.message, retryable: true, code: error.code };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { failureClass: 'server_error', message, retryable: NgymError.isInstance(error) ? error.retryable : true, code: errorCodeOf(error) };
}

/**
 * A server of the gym died while it ran (`ngym run` answers its ports with why, src/gym/tombstone.ts): the gym is
 * stopping, so trying again cannot help.
 */
const SERVER_DEATHS: Readonly<Record<string, FailureClass>> = {
  NGYM_SERVER_OOM_KILLED: 'server_oom_killed',
  NGYM_SERVER_HEAP_EXHAUSTED: 'server_heap_exhausted',
  NGYM_SERVER_DIED: 'server_died',
};

export function isServerDeath(failure: RolloutFailure): boolean {
  return Object.values(SERVER_DEATHS).includes(failure.failureClass);
}

/**
 * The queue worker process that held the rollout died (`ngym worker`'s supervisor records it,
 * src/rollouts/queue/worker-supervisor.ts). Not retried: what killed the worker (often the rollouts' own memory)
 * would likely kill the next one too.
 */
const WORKER_DEATHS: ReadonlySet<FailureClass> = new Set(['worker_oom_killed', 'worker_heap_exhausted', 'worker_died']);

export function isWorkerDeath(failure: RolloutFailure): boolean {
  return WORKER_DEATHS.has(failure.failureClass);
}

export function failureFromResponse(response: HttpResponse): RolloutFailure {
  const header = response.headers[ERROR_CODE_HEADER];
  const code = typeof header === 'string' ? header : undefined;
  const message = `${response.url} answered HTTP ${response.status}: ${response.text.slice(0, 2000)}`;
  const base = { message, status: response.status, code };
  const death = code === undefined ? undefined : SERVER_DEATHS[code];
  if (death !== undefined) return { ...base, failureClass: death, retryable: false };
  if (code === 'NGYM_JUDGE_FAILED') return { ...base, failureClass: 'judge_failed', retryable: true };
  // A server behind the one called refused the request (a 4xx there): the same call would be refused again.
  if (code === 'NGYM_UPSTREAM_REJECTED') return { ...base, failureClass: 'rejected', retryable: false };
  if (response.status === 429) return { ...base, failureClass: 'rate_limited', retryable: true };
  if (response.status === 408 || response.status === 504) return { ...base, failureClass: 'timeout', retryable: true };
  if (response.status >= 500) return { ...base, failureClass: 'server_error', retryable: true };
  // A 4xx means the row itself was refused (for example a 422 naming an invalid field): retrying cannot help.
  return { ...base, failureClass: 'rejected', retryable: false };
}
