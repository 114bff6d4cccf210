/**
 * A server's admission by memory (`memory_budget`, src/util/memory-gate.ts): a request that brings work (any
 * method but GET and HEAD: `/run`, `/verify`, tools, model calls) starts only while the server's resident memory is
 * under its budget, else it waits, however long, until memory falls or its caller hangs up. Liveness checks and
 * metric scrapes are never held back.
 */
import type { MiddlewareHandler } from 'hono';
import type { ServerMetrics } from '../telemetry/server-metrics.ts';
import type { Logger } from '../util/logger.ts';
import { describeBytes } from '../util/memory-budget.ts';
import { MemoryGate } from '../util/memory-gate.ts';

/** The gate of server `serverName` for a budget of `budgetBytes` (null: none); a budget it is already over is a config error. */
export function serverMemoryGate(serverName: string, budgetBytes: number | null, logger: Logger, metrics: ServerMetrics | undefined): MemoryGate | undefined {
  if (budgetBytes === null) return undefined;
  const gate = new MemoryGate({
    budgetBytes,
    onWait: () => metrics?.admissionWaited(),
    onHold: (holding, resident) =>
      holding
        ? logger.warn(`Over its memory budget (${describeBytes(resident)} resident, memory_budget ${describeBytes(budgetBytes)}): new requests wait until memory falls.`)
        : logger.info(`Back under its memory budget (${describeBytes(resident)} resident): admitting requests again.`),
  });
  gate.checkReachable(`server '${serverName}'`);
  metrics?.watchAdmission(() => gate.waiting);
  return gate;
}

/** The response closing before it was answered: the caller gave up waiting. */
function callerGone(environment: unknown): AbortSignal | undefined {
  const outgoing = (environment as { outgoing?: NodeJS.EventEmitter } | undefined)?.outgoing;
  if (outgoing === undefined) return undefined;
  const controller = new AbortController();
  outgoing.once('close', () => controller.abort());
  return controller.signal;
}

export function admissionMiddleware(gate: MemoryGate): MiddlewareHandler {
  return async (context, next) => {
    const method = context.req.method;
    if (method === 'GET' || method === 'HEAD') return next();
    const admitted = gate.admit(() => callerGone(context.env));
    // Nobody is left to read an answer.
    if (admitted !== true && !(await admitted)) return context.json({ detail: 'The caller went away while the request waited for memory.' }, 503);
    try {
      await next();
    } finally {
      gate.release();
    }
  };
}
