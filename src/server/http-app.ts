/**
 * What every Gym server shares: `GET /` liveness, Prometheus `GET /metrics` and a span per request in the caller's
 * trace (observe-requests.ts), admission by memory (admission.ts), the session cookie on every response, a
 * per-request time limit, and the one place where errors become HTTP answers:
 *   - a body that fails its schema: 422 `{"detail": [{type, loc, msg, input}]}` (FastAPI's shape);
 *   - an NgymError with a 4xx status, or another server's refusal (502 NGYM_UPSTREAM_REJECTED): that status,
 *     `{"detail": message}`;
 *   - a body over the size limit: 413 `{"detail": message}` naming the limit and its config key;
 *   - anything else thrown by a handler: 500 whose body is the JSON string `repr(e)`, e.g.
 *     `"ValueError('bad')"`, because agents hand tool bodies to the model verbatim.
 */
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { getCookie } from 'hono/cookie';
import { HTTPException } from 'hono/http-exception';
import { admissionMiddleware, serverMemoryGate } from './admission.ts';
import { authMiddleware } from './auth.ts';
import { ERROR_CODE_HEADER, errorCodeOf, NgymError } from '../errors.ts';
import { RequestValidationError } from '../protocol/validation.ts';
import { pythonExceptionRepr } from '../python-compat/python-json.ts';
import type { Logger } from '../util/logger.ts';
import { ServerMetrics } from '../telemetry/server-metrics.ts';
import type { Tracer } from '../telemetry/tracing.ts';
import { METRICS_PATH, metricsHandler, observeRequests } from './observe-requests.ts';
import { requestTimeout } from './request-timeout.ts';
import { newSessionId, SessionSigner, sessionCookieName, setCookieHeader } from './sessions.ts';

interface ServerVariables {
  /** The caller's session id, starting a session (and its cookie) on first use. */
  sessionId: () => string;
  session: string | undefined;
}

export type ServerEnv = { Variables: ServerVariables };
export type ServerApp = Hono<ServerEnv>;
export type ServerRequestContext = Context<ServerEnv>;

export interface ServerAppOptions {
  className: string;
  instanceName: string;
  /** HMAC key for the session cookie; defaults to the cookie name, as upstream. */
  sessionSecret?: string;
  /** Per-request limit in ms (answered 504 when exceeded); null for none. */
  requestTimeoutMs?: number | null;
  /** Largest request body in bytes (answered 413 beyond it); null for none; default DEFAULT_MAX_REQUEST_BODY_MB. */
  maxBodyBytes?: number | null;
  /** The shared `auth_token` every route but `GET /` requires; none when undefined. */
  authToken?: string;
  logger: Logger;
  /** Serve Prometheus `GET /metrics` and measure every request (`telemetry.metrics_enabled`, default on). */
  metrics?: boolean;
  /** This server's tracer when tracing is on: every request gets its span in the caller's trace. */
  tracer?: Tracer;
  /** Requests that bring work wait while this process holds this many resident bytes or more (admission.ts); null or absent: never. */
  memoryBudgetBytes?: number | null;
}

const MIB = 1024 * 1024;
/**
 * Default of the `max_request_body_mb` server key. A /verify body carries the whole rollout: one response of
 * 65,536 token ids with logprobs is about 2 MiB, so this fits long multi-turn rollouts with token information
 * with room to spare, while a runaway client cannot make a server buffer gigabytes.
 */
const DEFAULT_MAX_REQUEST_BODY_MB = 256;

/**
 * Answers 413 to a body over `maxBodyBytes` (counted as it streams in when there is no content-length). Every
 * Gym server and the head server use it; `max_request_body_mb` in their config sets it.
 */
export function bodyLimitMiddleware(maxBodyBytes: number): MiddlewareHandler {
  const shown = maxBodyBytes >= MIB ? `${Number((maxBodyBytes / MIB).toFixed(2))} MiB` : `${maxBodyBytes} bytes`;
  const detail = `Request body is larger than this server's limit of ${shown} (config key max_request_body_mb)`;
  const streamedLimit = bodyLimit({
    maxSize: maxBodyBytes,
    onError: (context) => {
      // An HTTP/1.1 socket whose request body was left unread is closed after the answer, so the client must
      // not reuse it; HTTP/2 streams need nothing of the kind (and refuse the header).
      const incoming = (context.env as { incoming?: { httpVersionMajor?: number } } | undefined)?.incoming;
      const headers: Record<string, string> = { [ERROR_CODE_HEADER]: 'NGYM_BODY_TOO_LARGE' };
      if (incoming?.httpVersionMajor === 1) headers.connection = 'close';
      return context.json({ detail }, 413, headers);
    },
  });
  // Hono's bodyLimit reads `req.raw.body`, which makes @hono/node-server build a full fetch Request for every
  // request (it doubled the CPU per rollout). A declared length is checked from the header alone; only a
  // streamed body without one goes through the counting path.
  return async (context, next) => {
    if (context.req.method === 'GET' || context.req.method === 'HEAD') return next();
    const length = context.req.header('content-length');
    if (length === undefined || context.req.header('transfer-encoding') !== undefined) return streamedLimit(context, next);
    return Number.parseInt(length, 10) > maxBodyBytes ? streamedLimit(context, next) : next();
  };
}

/** `max_request_body_mb` of a config (default DEFAULT_MAX_REQUEST_BODY_MB) in bytes; null for no limit. */
export function maxBodyBytesOf(megabytes: number | null | undefined): number | null {
  return megabytes === null ? null : Math.floor((megabytes ?? DEFAULT_MAX_REQUEST_BODY_MB) * MIB);
}

export function createServerApp(options: ServerAppOptions): ServerApp {
  const app = new Hono<ServerEnv>();
  // Observed first, so that refused requests (401, 413) are measured too.
  const metrics = options.metrics === true ? new ServerMetrics() : undefined;
  if (metrics !== undefined || options.tracer !== undefined) app.use(observeRequests({ metrics, tracer: options.tracer, serverName: options.instanceName }));
  // Authentication first: a caller without the token gets nothing else from the server, not even a 413.
  if (options.authToken !== undefined) app.use(authMiddleware(options.authToken));
  const maxBodyBytes = options.maxBodyBytes === undefined ? maxBodyBytesOf(undefined) : options.maxBodyBytes;
  if (maxBodyBytes !== null) app.use(bodyLimitMiddleware(maxBodyBytes));
  // After the refusals (401, 413), which cost no memory; before the time limit, which counts the work only.
  const memoryGate = serverMemoryGate(options.instanceName, options.memoryBudgetBytes ?? null, options.logger, metrics);
  if (memoryGate !== undefined) app.use(admissionMiddleware(memoryGate));
  const cookieName = sessionCookieName(options.className, options.instanceName);
  const signer = new SessionSigner(options.sessionSecret ?? cookieName);

  const limit = options.requestTimeoutMs ?? null;
  app.use(async (context, next) => {
    const existing = signer.decode(getCookie(context, cookieName));
    // A session is started only when a handler asks for its id; an existing one is sent back every time.
    context.set('sessionId', () => {
      const current = context.get('session');
      if (current !== undefined) return current;
      const sessionId = newSessionId();
      context.set('session', sessionId);
      context.header('set-cookie', setCookieHeader(cookieName, signer.encode(sessionId)), { append: true });
      return sessionId;
    });
    if (existing !== undefined) {
      context.set('session', existing);
      // Set before the handler runs, so it joins the response as it is built (error responses included);
      // changing a built response's headers afterwards would cost a copy of the response.
      context.header('set-cookie', setCookieHeader(cookieName, signer.encode(existing)), { append: true });
    }
    return next();
  });
  // Past the limit a 504 whose body says the limit (an HTTPException, answered in onError below).
  if (limit !== null) app.use(requestTimeout(limit));

  app.get('/', (context) => context.json({ status: 'ok' }));
  if (metrics !== undefined) app.get(METRICS_PATH, metricsHandler(metrics));

  app.notFound((context) => context.json({ detail: 'Not Found' }, 404));

  app.onError((error, context) => {
    if (error instanceof HTTPException) return context.json({ detail: error.message }, error.status);
    const code = { [ERROR_CODE_HEADER]: errorCodeOf(error) };
    if (error instanceof RequestValidationError) return context.json({ detail: error.details }, 422, code);
    if (NgymError.isInstance(error) && (error.status < 500 || error.code === 'NGYM_UPSTREAM_REJECTED')) {
      return context.json({ detail: error.message }, error.status as 400, code);
    }
    options.logger.error({ err: error, path: context.req.path }, `Unhandled error in ${context.req.method} ${context.req.path}`);
    const status = NgymError.isInstance(error) ? error.status : 500;
    return context.body(JSON.stringify(pythonExceptionRepr(error)), status as 500, { 'content-type': 'application/json', ...code });
  });

  return app;
}

/** The caller's session id in a route of one's own (starts a session, and its cookie, if there is none). */
export function sessionIdOf(context: ServerRequestContext): string {
  return context.get('sessionId')();
}

/**
 * Deepest JSON nesting a body may have. Python's json (so upstream NeMo Gym) stops near 1000 levels, and our
 * own recursive steps (echoing a body, forwarding it) would overflow the stack far deeper: refusing it up
 * front keeps a hostile body a 422 instead of a 500 anywhere later.
 */
const MAX_JSON_DEPTH = 1000;

/** Whether `text` has more than `limit` opening brackets (found by native search: bodies of token arrays have few). */
function openingBracketsExceed(text: string, limit: number): boolean {
  let count = 0;
  for (const bracket of ['[', '{']) {
    for (let index = text.indexOf(bracket); index !== -1; index = text.indexOf(bracket, index + 1)) {
      if (++count > limit) return true;
    }
  }
  return false;
}

/** Whether `text` nests arrays and objects deeper than `limit` (brackets inside strings do not count). */
export function jsonNestingExceeds(text: string, limit: number): boolean {
  // Nesting deeper than `limit` needs more than `limit` opening brackets; counting them is ~100x faster than the scan.
  if (text.length <= limit || !openingBracketsExceed(text, limit)) return false;
  let depth = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x22) {
      // Skip the string, and the character after each backslash.
      for (index++; index < text.length; index++) {
        const inner = text.charCodeAt(index);
        if (inner === 0x5c) index++;
        else if (inner === 0x22) break;
      }
    } else if (code === 0x5b || code === 0x7b) {
      if (++depth > limit) return true;
    } else if (code === 0x5d || code === 0x7d) {
      depth--;
    }
  }
  return false;
}

/** Parses a JSON body; malformed or too deeply nested JSON is a 422 naming the problem, as FastAPI answers. */
export async function readJsonBody(context: ServerRequestContext): Promise<unknown> {
  const text = await context.req.text();
  // No body at all is a missing body, as FastAPI answers for any route that takes one.
  if (text.length === 0) throw new RequestValidationError([{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }]);
  if (jsonNestingExceeds(text, MAX_JSON_DEPTH)) {
    throw new RequestValidationError([
      { type: 'json_invalid', loc: ['body'], msg: `JSON decode error: nesting deeper than ${MAX_JSON_DEPTH} levels`, input: text.slice(0, 200) },
    ]);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new RequestValidationError([
      { type: 'json_invalid', loc: ['body'], msg: `JSON decode error: ${(error as Error).message}`, input: text.slice(0, 200) },
    ]);
  }
}
