/**
 * A server's admission by memory (`memory_budget`, src/util/memory-gate.ts): a request that brings work (any
 * method but GET and HEAD: `/run`, `/verify`, tools, model calls) starts only while the server's resident memory is
 * under its budget, else it waits, however long, until memory falls or its caller hangs up. Liveness checks and
 * metric scrapes are never held back. A request holds its place until its response has been sent in full (a
 * streamed body included) or its connection closed, and until its handler has ended (past request_timeout_seconds
 * the caller has its 504 while the handler may still run).
 */
import type { MiddlewareHandler } from 'hono';
import type { ServerMetrics } from '../telemetry/server-metrics.ts';
import type { Logger } from '../util/logger.ts';
import { describeBytes } from '../util/memory-budget.ts';
import { MemoryGate } from '../util/memory-gate.ts';
import { unfinishedWork } from './request-timeout.ts';

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

/** The Node response a request is answered on; absent when the app is called without a socket (`app.request`). */
function outgoingOf(environment: unknown): NodeJS.EventEmitter | undefined {
  return (environment as { outgoing?: NodeJS.EventEmitter } | undefined)?.outgoing;
}

/** An HTTP/1 response knows it closed; an HTTP/2 one knows through its stream. */
function closedAlready(outgoing: NodeJS.EventEmitter): boolean {
  const response = outgoing as { closed?: boolean; stream?: { closed?: boolean } };
  return response.closed === true || response.stream?.closed === true;
}

/** The response closing before it was answered: the caller gave up waiting. */
function callerGone(outgoing: NodeJS.EventEmitter): AbortSignal {
  const controller = new AbortController();
  outgoing.once('close', () => controller.abort());
  return controller.signal;
}

/**
 * A request's place in the gate, held by its handler and by its Node response: given back once, when the last of
 * them lets go. A streamed body (SSE, relays) is still being produced, and holds memory, after the handler returns;
 * the response's 'close' comes once, after the body was sent in full or when the connection went away.
 */
class HeldSlot {
  constructor(
    private readonly gate: MemoryGate,
    private readonly kind: string,
    private holders: number,
  ) {}

  letGo(): void {
    if (--this.holders === 0) this.gate.release(this.kind);
  }
}

export function admissionMiddleware(gate: MemoryGate): MiddlewareHandler {
  return async (context, next) => {
    const method = context.req.method;
    if (method === 'GET' || method === 'HEAD') return next();
    const outgoing = outgoingOf(context.env);
    let gone: AbortSignal | undefined;
    // Each route is its own kind of work: what a request holds depends on what it does.
    const kind = `${method} ${context.req.path}`;
    const admitted = gate.admit(() => (gone = outgoing === undefined ? undefined : callerGone(outgoing)), kind);
    // Nobody is left to read an answer.
    if (admitted !== true && !(await admitted)) return context.json({ detail: 'The caller went away while the request waited for memory.' }, 503);
    // The response may have closed already, while the request waited or before this ran: its 'close' is past.
    const responseOpen = outgoing !== undefined && gone?.aborted !== true && !closedAlready(outgoing);
    const slot = new HeldSlot(gate, kind, responseOpen ? 2 : 1);
    // An inline arrow and `on`: a named closure (the source loader names each as it is made) or `once`'s wrapper
    // would cost on every request.
    if (responseOpen) outgoing.on('close', () => slot.letGo());
    try {
      await next();
    } finally {
      // Answered 504 with the handler still running: its memory is still held, and so is its place.
      const running = unfinishedWork(context);
      if (running === undefined) slot.letGo();
      else void running.then(() => slot.letGo());
    }
  };
}
