/**
 * Tracing as every hop sees it: spans for the request a server answers, the calls it makes, a rollout and its
 * steps; W3C trace context (`traceparent`, and `baggage` for the rollout's identity) on every call between
 * servers, so one rollout is one trace across the collector, agent, model, resources and environment servers.
 *
 * This module is what the rest of ngym calls, and all it holds while tracing is off is one variable: each site
 * checks it and goes on. OpenTelemetry (API, SDK, exporter) is imported only when a process turns tracing on
 * (trace-context.ts, tracing-sdk.ts). Span names and attribute keys are upstream 0.7.0's where it has them
 * (`gym.rollout`, `gym.verify`, `gym.model.responses`, `HTTP POST`, `nemo.gym.server.name`, `nemo.gym.rollout.id`).
 */
import type { Span, Tracer } from '@opentelemetry/api';
import type { SpanGroup } from './span-groups.ts';
import type { TracingSettings } from './settings.ts';
import type { IncomingRequest, RequestOutcome, RolloutIdentity, RolloutTraceOptions, ServiceIdentity, TraceContext, TracingRuntime } from './tracing-types.ts';

export type { Span, Tracer } from '@opentelemetry/api';
export type { IncomingRequest, RequestOutcome, RolloutIdentity, ServiceIdentity, TraceContext } from './tracing-types.ts';

/** `SpanStatusCode.ERROR`, without loading the API while tracing is off. */
const SPAN_STATUS_ERROR = 2;

let runtime: TracingRuntime | undefined;
let starting: Promise<void> = Promise.resolve();

/** Spans this process could not export so far (0 with tracing off). */
export function droppedSpans(): number {
  return runtime?.droppedSpans ?? 0;
}

function settingsKey(settings: TracingSettings): string {
  return JSON.stringify({ ...settings, groups: [...settings.groups].sort() });
}

/**
 * Makes this process trace as `settings` say (undefined: not at all). The SDK loads on first use; settings that
 * differ from the running ones (another endpoint, say) replace them once the old spans are flushed.
 */
export function configureTracing(settings: TracingSettings | undefined): Promise<void> {
  starting = starting
    .catch(() => {})
    .then(async () => {
      if (runtime === undefined && settings === undefined) return;
      if (runtime !== undefined && settings !== undefined && settingsKey(runtime.settings) === settingsKey(settings)) return;
      const previous = runtime;
      runtime = undefined;
      await previous?.shutdown();
      if (settings !== undefined) runtime = (await import('./tracing-sdk.ts')).startTracingRuntime(settings);
    });
  return starting;
}

/** Exports every span ended so far (at the end of a collection, when a server closes). */
export async function flushTracing(): Promise<void> {
  await runtime?.flush();
}

/** Flushes and stops tracing in this process. */
export function stopTracing(): Promise<void> {
  return configureTracing(undefined);
}

/** The tracer for one of this process's services; undefined while tracing is off. */
export function serviceTracer(service: ServiceIdentity): Tracer | undefined {
  return runtime?.tracerFor(service);
}

/**
 * Runs `work` inside a span of `group` named `name`, a child of the current one, when the group is recorded and a
 * trace is under way; otherwise just runs it (`span` is then undefined, so attributes are only built when wanted).
 */
export function traced<T>(group: SpanGroup, name: string, work: (span: Span | undefined) => Promise<T>): Promise<T> {
  return runtime === undefined ? work(undefined) : runtime.traced(group, name, work);
}

/**
 * A step that is one call to another server (an agent's model call, tool call, seed or verify): `traced`, with
 * the step's span as that call's CLIENT span, so a hop is one span on each side, not an extra `HTTP POST`.
 */
export function tracedHop<T>(group: SpanGroup, name: string, work: (span: Span | undefined) => Promise<T>): Promise<T> {
  return runtime === undefined ? work(undefined) : runtime.traced(group, name, work, true);
}

/** The identity a dataset row carries once the collector stamped it (`_ng_task_index`, `_ng_rollout_index`). */
function rolloutIdentityOf(row: Record<string, unknown>): RolloutIdentity | undefined {
  const { _ng_task_index: taskIndex, _ng_rollout_index: rolloutIndex } = row;
  return Number.isInteger(taskIndex) && Number.isInteger(rolloutIndex) ? { taskIndex: taskIndex as number, rolloutIndex: rolloutIndex as number } : undefined;
}

/**
 * One rollout's work under `name` (group `rollout`), with the row's identity on every span below it and, as
 * baggage, on every call it makes: an agent's `/run`.
 */
export function tracedRollout<T>(name: string, row: Record<string, unknown>, work: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (runtime === undefined) return work(undefined);
  const identity = rolloutIdentityOf(row);
  return identity === undefined ? runtime.traced('rollout', name, work) : runtime.tracedRollout(name, identity, work);
}

/**
 * The root of one rollout's spans, made by `tracer`'s service (the collector, a queue worker): every call `work`
 * makes joins it. A new trace, unless `options.parent` carries the trace context of the span that submitted the
 * rollout (a queued job's); a malformed one is ignored and a new trace starts. `options.links` point at related
 * traces (the collection's `gym.job`).
 */
export function inRolloutTrace<T>(tracer: Tracer | undefined, name: string, identity: RolloutIdentity, work: (span: Span | undefined) => Promise<T>, options?: RolloutTraceOptions): Promise<T> {
  return runtime === undefined || tracer === undefined ? work(undefined) : runtime.inRolloutTrace(tracer, name, identity, work, options);
}

/**
 * The W3C trace context of the current span, for a hop that is no HTTP call (a rollout job put on a queue);
 * undefined with tracing off or outside a recorded span.
 */
export function currentTraceContext(): TraceContext | undefined {
  return runtime?.currentTraceContext();
}

/** A span of `group` with no parent that the caller ends (the collection's `gym.job`); undefined when not recorded. */
export function startRootSpan(tracer: Tracer | undefined, group: SpanGroup, name: string): Span | undefined {
  return runtime === undefined || tracer === undefined ? undefined : runtime.startRootSpan(tracer, group, name);
}

/**
 * Answers one request inside the caller's trace: the `traceparent` it sent (a malformed one is ignored and a new
 * trace starts), its baggage (the rollout's identity), and this server's tracer for the spans and calls below.
 * The SERVER span itself (`POST /verify`) is recorded when the `server` group is.
 */
export function inServerSpan(tracer: Tracer, serverName: string, request: IncomingRequest, handle: () => Promise<void>, outcome: () => RequestOutcome): Promise<void> {
  return runtime === undefined ? handle() : runtime.inServerSpan(tracer, serverName, request, handle, outcome);
}

/**
 * One call to another server or endpoint, inside the current trace: a CLIENT span (`HTTP POST`, when the
 * `http_client` group is recorded) and the trace context in `headers`, so the callee's spans are its children.
 * Outside a trace (health checks, discovery) the call goes out as it is.
 */
export function tracedCall<Answer extends { status: number }>(
  method: string,
  url: string,
  headers: Record<string, string> | undefined,
  call: (headers: Record<string, string> | undefined) => Promise<Answer>,
): Promise<Answer> {
  return runtime === undefined ? call(headers) : runtime.tracedCall(method, url, headers, call);
}

/** Marks `span` as failed, with the reason (a span is otherwise OK when its work did not throw). */
export function markSpanFailed(span: Span, message: string): void {
  span.setStatus({ code: SPAN_STATUS_ERROR, message });
}

interface TokenUsage {
  input_tokens?: number;
  output_tokens?: number;
  prompt_tokens?: number;
  completion_tokens?: number;
}

/**
 * Puts a model answer's token counts on `span` (OpenTelemetry's GenAI names), from a Responses API `usage` or a
 * Chat Completions one, and returns the answer.
 */
export function withTokenUsage<Answer extends { usage?: TokenUsage | null; model?: string }>(span: Span | undefined, answer: Answer): Answer {
  if (span === undefined) return answer;
  const usage = answer.usage;
  const input = usage?.input_tokens ?? usage?.prompt_tokens;
  const output = usage?.output_tokens ?? usage?.completion_tokens;
  if (typeof answer.model === 'string') span.setAttribute('gen_ai.response.model', answer.model);
  if (typeof input === 'number') span.setAttribute('gen_ai.usage.input_tokens', input);
  if (typeof output === 'number') span.setAttribute('gen_ai.usage.output_tokens', output);
  return answer;
}
