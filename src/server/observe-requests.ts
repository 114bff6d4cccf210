/**
 * What a server records of each request it answers: Prometheus metrics (in flight, duration per route, failures
 * by kind) and, with tracing on, the request's SERVER span inside the caller's trace. Servers with neither add
 * no middleware at all. `GET /metrics` answers the metrics.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { ERROR_CODE_HEADER } from '../errors.ts';
import type { ServerMetrics } from '../telemetry/server-metrics.ts';
import { inServerSpan, type RequestOutcome, type Tracer } from '../telemetry/tracing.ts';

export const METRICS_PATH = '/metrics';

export interface RequestObservers {
  metrics?: ServerMetrics;
  /** This server's tracer, when tracing is on. */
  tracer?: Tracer;
  /** The instance name, for the spans' `nemo.gym.server.name`. */
  serverName: string;
}

/** Hono's wildcard of a middleware: what `routePath` is when no route matched. */
const NO_ROUTE = '/*';

function outcomeOf(context: Context): RequestOutcome {
  const route = context.req.routePath;
  const status = context.res.status;
  // Only a failure's headers are read: reading them makes @hono/node-server build a Headers object per response.
  const errorType = status >= 400 ? (context.res.headers.get(ERROR_CODE_HEADER) ?? undefined) : undefined;
  return { route: route === NO_ROUTE ? undefined : route, status, error: context.error, errorType };
}

export function observeRequests(observers: RequestObservers): MiddlewareHandler {
  const { metrics, tracer, serverName } = observers;
  return async (context, next) => {
    const method = context.req.method;
    const started = performance.now();
    metrics?.requestStarted(method);
    try {
      // Liveness checks and scrapes, every few seconds, would each be a trace of their own.
      if (tracer === undefined || (method === 'GET' && (context.req.path === '/' || context.req.path === METRICS_PATH))) await next();
      else await inServerSpan(tracer, serverName, { method, path: context.req.path, header: (name) => context.req.header(name) }, next, () => outcomeOf(context));
    } finally {
      if (metrics !== undefined) {
        const { route, status, errorType } = outcomeOf(context);
        metrics.requestFinished({ method, route, status, errorType, seconds: (performance.now() - started) / 1000 });
      }
    }
  };
}

/** `GET /metrics`: the Prometheus exposition of `metrics`. */
export function metricsHandler(metrics: ServerMetrics): (context: Context) => Promise<Response> {
  return async (context) => context.body(await metrics.render(), 200, { 'content-type': metrics.contentType });
}
