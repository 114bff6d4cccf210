/**
 * The HTTP client every hop uses: undici keep-alive pools, a total timeout per request, and bounded retries
 * with exponential backoff on connection failures. HTTP statuses are returned, not thrown; callers decide,
 * except for `retryStatuses`, which are retried with the same backoff (model servers use it for 429/5xx).
 *
 * Nothing caps concurrency: other origins get an unlimited HTTP/1.1 pool. For ngym servers (`multiplexOrigin`),
 * requests beyond `http1ConnectionsPerServer` in flight go over cleartext HTTP/2 sessions (256 each) instead of
 * more sockets, so 16k rollouts in flight need neither 16k sockets per hop nor a queue; below that, the
 * cheaper HTTP/1.1 carries everything.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, type Dispatcher, errors as undiciErrors } from 'undici';
import { Http2Origin, type Http2Response, Http2TimeoutError } from './http2-session.ts';
import { describeError, UpstreamError } from '../errors.ts';
import { openFilesSoftLimit } from '../util/file-limits.ts';
import { wholeNumberFromEnv } from '../util/env-number.ts';
import { CookieJar } from './cookies.ts';
import { tracedCall } from '../telemetry/tracing.ts';

export interface HttpClientOptions {
  /** Connections per origin that cannot multiplex; null (the default) means unlimited. */
  connections?: number | null;
  /** HTTP/1.1 requests in flight per ngym server before further ones go over HTTP/2 (default: from the fd limit). */
  http1ConnectionsPerServer?: number;
  keepAliveTimeoutMs?: number;
}

export interface HttpRequestOptions {
  method?: 'GET' | 'POST';
  /** An object is sent as JSON; a string or Buffer is sent as-is (already serialized JSON). */
  body?: unknown;
  headers?: Record<string, string>;
  cookies?: CookieJar;
  /**
   * How long to wait for the response to start, and for each pause while its body arrives; null for no
   * limit. (undici's own timers: an AbortSignal per request would cost more than the rest of a hop.)
   */
  timeoutMs?: number | null;
  /** Attempts after a connection failure (refused, reset before a response). */
  connectionRetries?: number;
  /** Statuses that are retried (with backoff) before the response is returned. */
  retryStatuses?: readonly number[];
  statusRetries?: number;
  signal?: AbortSignal;
  /** Where the server also speaks cleartext HTTP/2 (an ngym server's `h2c_port`): requests beyond the HTTP/1.1 pool go there. */
  multiplexOrigin?: string;
}

export interface HttpResponse {
  url: string;
  /** The Gym server the request went to, when it was addressed by name (for error messages). */
  server?: string;
  status: number;
  ok: boolean;
  headers: Record<string, string | string[] | undefined>;
  /** Cookies the server set on this response. */
  cookies: CookieJar;
  text: string;
  json<T = unknown>(): T;
}

export const DEFAULT_CONNECTION_RETRIES = 4;
const RETRYABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOTCONN',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'ERR_HTTP2_STREAM_ERROR',
  'ERR_HTTP2_SESSION_ERROR',
  'ERR_HTTP2_GOAWAY_SESSION',
  'ERR_HTTP2_STREAM_CANCEL',
]);

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== undefined && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && RETRYABLE_CODES.has(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return (error as { code?: string } | null)?.code;
}

export function isConnectionError(error: unknown): boolean {
  const code = errorCode(error);
  return code !== undefined && RETRYABLE_CODES.has(code);
}

/** 100 ms, 200 ms, 400 ms... capped at 3 s, with jitter so a crowd of retries does not arrive at once. */
export function backoffMs(attempt: number): number {
  const base = Math.min(3000, 100 * 2 ** attempt);
  return base / 2 + Math.random() * (base / 2);
}

function parseJson<T>(text: string, url: string, status: number): T {
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new UpstreamError('NGYM_UPSTREAM_BODY', `Response from ${url} (HTTP ${status}) is not JSON: ${text.slice(0, 200)}`, {
      url,
      statusCode: status,
      responseBody: text,
      cause: error,
    });
  }
}

/** `http://host:port` and `/path?query` of an absolute URL, without the cost of a URL object per request. */
function splitUrl(url: string): { origin: string; path: string } {
  const slash = url.indexOf('/', url.indexOf('//') + 2);
  return slash < 0 ? { origin: url, path: '/' } : { origin: url.slice(0, slash), path: url.slice(slash) };
}

type RawResponse = Http2Response;

/**
 * One request through undici's low-level `dispatch`, collecting the body: about a third less CPU than its
 * `request()` wrapper, which matters on hops made several times per rollout.
 */
function dispatchRequest(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions & { signal?: AbortSignal },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const { signal, ...dispatchOptions } = options;
    const chunks: Buffer[] = [];
    let status = 0;
    let headers: RawResponse['headers'] = {};
    let onAbort: (() => void) | undefined;
    const settle = () => {
      if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
    };
    // undici 7's own handler API: the older onHeaders/onData form goes through a compatibility wrapper.
    dispatcher.dispatch(dispatchOptions, {
      onRequestStart(controller) {
        if (signal === undefined) return;
        if (signal.aborted) return controller.abort(signal.reason as Error);
        onAbort = () => controller.abort(signal.reason as Error);
        signal.addEventListener('abort', onAbort, { once: true });
      },
      onResponseStart(_controller, statusCode, responseHeaders) {
        status = statusCode;
        headers = responseHeaders;
      },
      onResponseData(_controller, chunk) {
        chunks.push(chunk);
      },
      onResponseEnd() {
        settle();
        resolve({ status, headers, text: chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8') });
      },
      onResponseError(_controller, error) {
        settle();
        reject(error);
      },
    });
  });
}

/**
 * HTTP/1.1 connections per ngym server before HTTP/2 takes over: `NGYM_HTTP1_CONNECTIONS_PER_SERVER`, else a
 * sixteenth of this process's open-files limit (room for several servers, the listening side and files),
 * between 64 and 4,096.
 */
function defaultHttp1ConnectionsPerServer(): number {
  const configured = wholeNumberFromEnv(process.env, 'NGYM_HTTP1_CONNECTIONS_PER_SERVER');
  if (configured !== undefined) return configured;
  const limit = openFilesSoftLimit() ?? 16_384;
  return Math.max(64, Math.min(4096, Math.floor(limit / 16)));
}

// Each request sets its own limits (`timeoutMs`); undici's 300 s defaults would cut long generations.
const NO_UNDICI_TIMEOUTS = { headersTimeout: 0, bodyTimeout: 0, connect: { timeout: 10_000 } };

export class HttpClient {
  readonly agent: Agent;
  private readonly serverAgent: Agent;
  private readonly http1PerServer: number;
  private readonly multiplexed = new Map<string, Http2Origin>();
  private readonly inFlight = new Map<string, number>();

  constructor(options: HttpClientOptions = {}) {
    const keepAlive = { keepAliveTimeout: options.keepAliveTimeoutMs ?? 15_000, keepAliveMaxTimeout: 60_000 };
    this.agent = new Agent({ connections: options.connections ?? null, ...keepAlive, ...NO_UNDICI_TIMEOUTS });
    this.http1PerServer = options.http1ConnectionsPerServer ?? defaultHttp1ConnectionsPerServer();
    this.serverAgent = new Agent({ connections: this.http1PerServer, ...keepAlive, ...NO_UNDICI_TIMEOUTS });
  }

  /** HTTP/1.1 while the server's pool has room, else its HTTP/2 connection; returns where to send and a release callback. */
  private route(origin: string, multiplexOrigin: string | undefined): { dispatcher: Dispatcher | Http2Origin; release: () => void } {
    if (multiplexOrigin === undefined) return { dispatcher: this.agent, release: () => {} };
    const count = this.inFlight.get(origin) ?? 0;
    this.inFlight.set(origin, count + 1);
    const release = () => this.inFlight.set(origin, (this.inFlight.get(origin) ?? 1) - 1);
    if (count < this.http1PerServer) return { dispatcher: this.serverAgent, release };
    let session = this.multiplexed.get(multiplexOrigin);
    if (session === undefined) {
      session = new Http2Origin(multiplexOrigin);
      this.multiplexed.set(multiplexOrigin, session);
    }
    return { dispatcher: session, release };
  }

  /** With tracing on, inside a trace: one CLIENT span for the call (retries included), its context in the headers. */
  request(url: string, options: HttpRequestOptions = {}): Promise<HttpResponse> {
    return tracedCall(options.method ?? (options.body === undefined ? 'GET' : 'POST'), url, options.headers, (headers) =>
      this.requestWithRetries(url, headers === options.headers ? options : { ...options, headers }),
    );
  }

  private async requestWithRetries(url: string, options: HttpRequestOptions): Promise<HttpResponse> {
    const connectionRetries = options.connectionRetries ?? DEFAULT_CONNECTION_RETRIES;
    const statusRetries = options.statusRetries ?? 0;
    let connectionAttempt = 0;
    let statusAttempt = 0;
    for (;;) {
      try {
        const response = await this.send(url, options);
        if (options.retryStatuses?.includes(response.status) && statusAttempt < statusRetries) {
          await sleep(backoffMs(statusAttempt++), undefined, { signal: options.signal });
          continue;
        }
        return response;
      } catch (error) {
        if (isConnectionError(error) && connectionAttempt < connectionRetries && !options.signal?.aborted) {
          await sleep(backoffMs(connectionAttempt++), undefined, { signal: options.signal });
          continue;
        }
        throw this.wrap(error, url, options, connectionAttempt);
      }
    }
  }

  private async send(url: string, options: HttpRequestOptions): Promise<HttpResponse> {
    const headers: Record<string, string> = { ...options.headers };
    let body: string | Buffer | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === 'string' || Buffer.isBuffer(options.body) ? options.body : JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const cookieHeader = options.cookies?.toHeader();
    if (cookieHeader !== undefined) headers.cookie = cookieHeader;
    const { origin, path } = splitUrl(url);
    const { dispatcher, release } = this.route(origin, options.multiplexOrigin);
    const method = options.method ?? (body === undefined ? 'GET' : 'POST');
    const timeoutMs = options.timeoutMs ?? 0;
    let raw: RawResponse;
    try {
      raw =
        dispatcher instanceof Http2Origin
          ? await dispatcher.request({ method, path, headers, body, timeoutMs, signal: options.signal })
          : await dispatchRequest(dispatcher, { origin, path, method, headers, body, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, signal: options.signal });
    } finally {
      release();
    }
    const { status, headers: responseHeaders, text } = raw;
    const setCookie = responseHeaders['set-cookie'];
    const cookies = CookieJar.fromSetCookie(setCookie === undefined ? [] : Array.isArray(setCookie) ? setCookie : [setCookie]);
    return {
      url,
      status,
      ok: status >= 200 && status < 300,
      headers: responseHeaders,
      cookies,
      text,
      json: <T>() => parseJson<T>(text, url, status),
    };
  }

  private wrap(error: unknown, url: string, options: HttpRequestOptions, attempts: number): Error {
    if (error instanceof UpstreamError) return error;
    const name = (error as Error | undefined)?.name;
    if (error instanceof undiciErrors.HeadersTimeoutError || error instanceof undiciErrors.BodyTimeoutError || error instanceof Http2TimeoutError) {
      return new UpstreamError('NGYM_UPSTREAM_TIMEOUT', `Request to ${url} timed out after ${(options.timeoutMs ?? 0) / 1000} s.`, {
        url,
        retryable: true,
        cause: error,
      });
    }
    if (name === 'AbortError') return error as Error;
    const tries = attempts > 0 ? ` after ${attempts + 1} attempts` : '';
    return new UpstreamError('NGYM_UPSTREAM_CONNECTION', `Could not reach ${url}${tries}: ${describeError(error)}`, {
      url,
      retryable: true,
      cause: error,
    });
  }

  async close(): Promise<void> {
    await Promise.all([this.agent.close(), this.serverAgent.close(), ...[...this.multiplexed.values()].map((session) => session.close())]);
  }
}

let sharedClient: HttpClient | undefined;

/** The process-wide client (one keep-alive pool per origin, shared by every caller). */
export function sharedHttpClient(): HttpClient {
  sharedClient ??= new HttpClient();
  return sharedClient;
}
