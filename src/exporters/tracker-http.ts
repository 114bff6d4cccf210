/**
 * One HTTP call to a tracker's REST API. Trackers are outside the gym (often across the internet), so calls go
 * through Node's fetch rather than the gym's server client, and every failure names the tracker, the URL and
 * what went wrong (refused, timed out, status and the server's message).
 */
import { NgymError } from '../errors.ts';

export interface TrackerCall {
  method: 'GET' | 'POST' | 'PUT';
  url: string;
  headers?: Record<string, string>;
  /** A JSON body (sent as application/json) or raw bytes. */
  json?: unknown;
  body?: string | Uint8Array;
  /** Ends the call; the export's deadline, shared by all its calls. */
  signal: AbortSignal;
}

export class TrackerError extends NgymError {
  constructor(
    message: string,
    /** The tracker's error code (MLflow's `error_code`), when it answered with one. */
    readonly trackerCode?: string,
  ) {
    super('NGYM_UPSTREAM_STATUS', message);
  }
}

function networkProblem(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) return 'no answer within tracking_timeout_seconds';
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code === 'ECONNREFUSED') return 'connection refused (is the server running?)';
  if (cause?.code === 'ENOTFOUND') return 'host not found';
  return cause?.message ?? (error as Error).message;
}

/** Sends the call; resolves to the answer's JSON (or undefined for an empty body); throws a TrackerError otherwise. */
export async function trackerCall(tracker: string, call: TrackerCall): Promise<unknown> {
  const headers = { ...call.headers, ...(call.json === undefined ? {} : { 'Content-Type': 'application/json' }) };
  let answer: Response;
  try {
    answer = await fetch(call.url, { method: call.method, headers, body: call.json === undefined ? call.body : JSON.stringify(call.json), signal: call.signal });
  } catch (error) {
    throw new TrackerError(`${tracker} at ${new URL(call.url).origin}: ${call.method} ${new URL(call.url).pathname} failed: ${networkProblem(error, call.signal)}`);
  }
  const text = await answer.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!answer.ok) {
    const detail = (parsed as { message?: unknown; error_code?: unknown } | undefined) ?? {};
    const message = typeof detail.message === 'string' ? detail.message : text.slice(0, 300);
    throw new TrackerError(
      `${tracker} at ${new URL(call.url).origin}: ${call.method} ${new URL(call.url).pathname} answered ${answer.status}: ${message}`,
      typeof detail.error_code === 'string' ? detail.error_code : undefined,
    );
  }
  return parsed;
}
