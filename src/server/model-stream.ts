/**
 * `stream: true` on a model server. As upstream NeMo Gym 0.7.0, the backend is called without streaming and
 * the dialect's events are synthesized from its complete answer. An answer that takes longer than the
 * keep-alive interval commits the stream early and sends an SSE comment every interval, so that proxies'
 * idle timeouts do not cut a long generation (upstream does this for Chat Completions). A failure of the
 * call (a malformed backend answer, a backend error, the request's time limit) ends the stream with the
 * dialect's error event: the client sees a failed call, never a stream that stops or hangs. A request error
 * (4xx) known before the stream is committed stays the HTTP error it is.
 */
import { describeError, NgymError } from '../errors.ts';
import type { StreamFailure } from '../protocol/sse.ts';
import type { Logger } from '../util/logger.ts';
import type { ServerRequestContext } from './http-app.ts';

/** How one dialect writes a complete answer, and a failure, as server-sent events. */
export interface StreamDialect<Answer> {
  events: (answer: Answer) => string[];
  failure: (failure: StreamFailure) => string[];
}

export interface StreamOptions {
  logger: Logger;
  /** The request's time limit in ms (null: none); the stream ends with a failure when it passes. */
  timeoutMs: number | null;
  /** Default 15 s, upstream's interval. */
  keepaliveMs?: number;
}

export const SSE_KEEPALIVE = ': keep-alive\n\n';
const DEFAULT_KEEPALIVE_MS = 15_000;
const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' };

type Outcome<Answer> = { ok: true; value: Answer } | { ok: false; error: unknown };

function failureOf(error: unknown): StreamFailure {
  return { status: NgymError.isInstance(error) ? error.status : 500, message: describeError(error) };
}

/** Answers a request that asked for a stream with `answer`'s events, or its failure's. */
export async function streamAnswer<Answer>(
  http: ServerRequestContext,
  answer: Promise<Answer>,
  dialect: StreamDialect<Answer>,
  options: StreamOptions,
): Promise<Response> {
  const started = performance.now();
  const keepaliveMs = options.keepaliveMs ?? DEFAULT_KEEPALIVE_MS;
  const { timeoutMs } = options;
  const outcome: Promise<Outcome<Answer>> = answer.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );
  let waiting: NodeJS.Timeout | undefined;
  const early = await Promise.race([outcome, new Promise<undefined>((resolve) => (waiting = setTimeout(() => resolve(undefined), Math.min(keepaliveMs, timeoutMs ?? keepaliveMs))))]);
  clearTimeout(waiting);
  if (early !== undefined && !early.ok && NgymError.isInstance(early.error) && early.error.status < 500) throw early.error;

  const render = (result: Outcome<Answer>): string => {
    let error: unknown;
    if (result.ok) {
      try {
        return dialect.events(result.value).join('');
      } catch (thrown) {
        error = thrown;
      }
    } else {
      error = result.error;
    }
    options.logger.error({ err: error, path: http.req.path }, `Model call of a streaming ${http.req.path} failed`);
    return dialect.failure(failureOf(error)).join('');
  };
  if (early !== undefined) return http.body(render(early), 200, SSE_HEADERS);

  const encoder = new TextEncoder();
  let keepalive: NodeJS.Timeout | undefined;
  let deadline: NodeJS.Timeout | undefined;
  let ended = false;
  const stop = () => {
    ended = true;
    clearInterval(keepalive);
    clearTimeout(deadline);
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const finish = (result: Outcome<Answer>) => {
        if (ended) return;
        stop();
        controller.enqueue(encoder.encode(render(result)));
        controller.close();
      };
      controller.enqueue(encoder.encode(SSE_KEEPALIVE));
      keepalive = setInterval(() => controller.enqueue(encoder.encode(SSE_KEEPALIVE)), keepaliveMs);
      if (timeoutMs !== null) {
        const timedOut = new NgymError('NGYM_UPSTREAM_TIMEOUT', `Request timed out after ${timeoutMs / 1000} s`, { status: 504 });
        deadline = setTimeout(() => finish({ ok: false, error: timedOut }), Math.max(0, timeoutMs - (performance.now() - started)));
      }
      void outcome.then(finish);
    },
    // The client went away: nothing more to send.
    cancel: stop,
  });
  return http.body(body, 200, SSE_HEADERS);
}
