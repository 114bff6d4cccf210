/**
 * One attempt of one rollout: POST the stamped row to its agent's `/run` and judge the answer. The local
 * collector retries attempts in process; a distributed worker makes one attempt per BullMQ attempt.
 */
import type { ServerClient } from '../client/server-client.ts';
import { isDict } from '../config/tree.ts';
import { failureFromError, failureFromResponse, type RolloutFailure } from './failures.ts';
import { StallError } from './stall-watch.ts';

type Row = Record<string, unknown>;

export interface RolloutRequest {
  agent: string;
  taskIndex: number;
  rolloutIndex: number;
  /** A retry of a rollout an earlier run failed (upstream's `_ng_attempt_index`). */
  attemptIndex?: number;
  /** The row with its identity stamps, as JSON. */
  body: string;
}

/** `answered`: the agent sent an HTTP answer (what the stall watch counts as progress). */
export type AttemptResult = { ok: true; result: Row; line: string } | { ok: false; failure: RolloutFailure; answered: boolean };

export async function attemptRollout(
  client: ServerClient,
  request: RolloutRequest,
  options: { timeoutMs: number | null | undefined; signal?: AbortSignal },
): Promise<AttemptResult> {
  const url = client.url(request.agent, '/run');
  try {
    const response = await client.post(request.agent, '/run', request.body, { timeoutMs: options.timeoutMs, signal: options.signal });
    if (!response.ok) return { ok: false, failure: failureFromResponse(response), answered: true };
    const result = parseResult(response.text);
    if (typeof result !== 'string' && typeof result._ng_failure_class === 'string') return { ok: false, failure: declaredFailure(result, url), answered: true };
    if (typeof result === 'string') return { ok: false, failure: { failureClass: 'invalid_result', message: `${url}: ${result}`, retryable: false }, answered: true };
    return { ok: true, result, line: outputLine(result, response.text, request) };
  } catch (error) {
    const reason: unknown = options.signal?.reason;
    if (reason instanceof StallError) return { ok: false, failure: { failureClass: 'stalled', message: `${url}: ${reason.message}`, retryable: false }, answered: false };
    return { ok: false, failure: failureFromError(error), answered: false };
  }
}

/** The row of a stamped result, written as-is when the server already echoed our stamps (no re-serialization). */
function outputLine(result: Row, text: string, request: RolloutRequest): string {
  const echoed = result._ng_task_index === request.taskIndex && result._ng_rollout_index === request.rolloutIndex && result._ng_attempt_index === request.attemptIndex && isDict(result.agent_ref);
  if (echoed && !text.includes('\n')) return text;
  if (result._ng_task_index !== request.taskIndex) result._ng_task_index = request.taskIndex;
  if (result._ng_rollout_index !== request.rolloutIndex) result._ng_rollout_index = request.rolloutIndex;
  if (request.attemptIndex !== undefined) result._ng_attempt_index = request.attemptIndex;
  if (!isDict(result.agent_ref)) result.agent_ref = { name: request.agent };
  return JSON.stringify(result);
}

/**
 * A `/run` answer that says it failed (`_ng_failure_class`, upstream's contract: an agent's own per-task timeout, a
 * sample it skipped): recorded as the agent classed it, not retried in this run; a resume retries it unless the
 * agent stamped it `_ng_failure_terminal` (src/rollouts/prior-failures.ts).
 */
function declaredFailure(declared: Row, url: string): RolloutFailure {
  const reason = declared._ng_failure_message ?? declared.error ?? declared.failure_reason;
  return { failureClass: 'agent_declared', message: `${url} reported a failure of class ${String(declared._ng_failure_class)}${typeof reason === 'string' ? `: ${reason}` : ''}`, retryable: false, declared };
}

/** The answer as a row; an agent's failure record (`_ng_failure_class`) needs no reward. */
function parseResult(text: string): Row | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return `the response is not JSON: ${text.slice(0, 200)}`;
  }
  if (!isDict(value)) return `the response is not a JSON object: ${text.slice(0, 200)}`;
  if (typeof value._ng_failure_class === 'string') return value as Row;
  if (typeof value.reward !== 'number' || !Number.isFinite(value.reward)) return `the response has no numeric reward: ${text.slice(0, 200)}`;
  return value as Row;
}
