/** The shapes tracing.ts and the SDK behind it (loaded only when tracing is on) share. */
import type { Link, Span, Tracer } from '@opentelemetry/api';
import type { SpanGroup } from './span-groups.ts';
import type { TracingSettings } from './settings.ts';

export interface ServiceIdentity {
  /** A server's instance name, or `collector`. */
  name: string;
  /** Its server type (`resources_servers`...), or `collector`. */
  type: string;
}

/** Which task and which of its rollouts a span belongs to. */
export interface RolloutIdentity {
  taskIndex: number;
  rolloutIndex: number;
}

/**
 * W3C trace context carried where no header goes (a queued rollout job): `traceparent`, and `tracestate` when
 * there is one. Read back from elsewhere, so its values are checked where it is used.
 */
export type TraceContext = Record<string, string>;

/** Where a rollout's root span belongs besides its own trace. */
export interface RolloutTraceOptions {
  /** Spans of related traces it links to (the collection's `gym.job`). */
  links?: Link[];
  /** The trace context of the span that submitted the rollout (a queued job's): the root joins that trace as its child. */
  parent?: TraceContext;
}

/** What the server span needs to know of a request, whatever the HTTP framework. */
export interface IncomingRequest {
  method: string;
  path: string;
  header(name: string): string | undefined;
}

/** How the request ended, read once the handler is done. */
export interface RequestOutcome {
  /** The matched route (`/verify`), undefined when none matched. */
  route: string | undefined;
  status: number;
  /** The thrown error a 5xx came from, if any. */
  error?: unknown;
  /** The error code a failure was answered with (the `x-ngym-error-code` header). */
  errorType?: string;
}

/** A process's tracing once started: the span sites below, backed by the SDK. */
export interface TracingRuntime {
  readonly settings: TracingSettings;
  /** The tracer of one service of this process: a server, or the collector. */
  tracerFor(service: ServiceIdentity): Tracer;
  flush(): Promise<void>;
  shutdown(): Promise<void>;
  /** Spans that never reached the endpoint (the queue was full, or the export failed). */
  readonly droppedSpans: number;
  /** `hop`: the work is one call to another server, and this span is that call's CLIENT span. */
  traced<T>(group: SpanGroup, name: string, work: (span: Span | undefined) => Promise<T>, hop?: boolean): Promise<T>;
  tracedRollout<T>(name: string, identity: RolloutIdentity, work: (span: Span | undefined) => Promise<T>): Promise<T>;
  inRolloutTrace<T>(tracer: Tracer, name: string, identity: RolloutIdentity, work: (span: Span | undefined) => Promise<T>, options?: RolloutTraceOptions): Promise<T>;
  currentTraceContext(): TraceContext | undefined;
  startRootSpan(tracer: Tracer, group: SpanGroup, name: string): Span | undefined;
  inServerSpan(tracer: Tracer, serverName: string, request: IncomingRequest, handle: () => Promise<void>, outcome: () => RequestOutcome): Promise<void>;
  tracedCall<Answer extends { status: number }>(method: string, url: string, headers: Record<string, string> | undefined, call: (headers: Record<string, string> | undefined) => Promise<Answer>): Promise<Answer>;
}
