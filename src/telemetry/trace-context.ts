/**
 * The span sites of tracing.ts once tracing is on (loaded with the SDK): which span each makes, whose child it is,
 * and what travels to the next server (`traceparent`, and the rollout's identity as W3C `baggage`). The current
 * service's tracer and the rollout ride in the OpenTelemetry context, so library code (the agent loop, the HTTP
 * client) finds them without being handed them.
 */
import {
  type Attributes,
  type Context,
  context,
  createContextKey,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from '@opentelemetry/api';
import type { SpanGroup } from './span-groups.ts';
import type { IncomingRequest, RolloutIdentity, TracingRuntime } from './tracing-types.ts';

const ATTRIBUTE = {
  SERVER_NAME: 'nemo.gym.server.name',
  ROLLOUT_ID: 'nemo.gym.rollout.id',
  TASK_INDEX: 'nemo.gym.task.index',
  ROLLOUT_INDEX: 'nemo.gym.rollout.index',
} as const;

/** The tracer of the service whose code runs in this context (set by the server span, or the collector's root). */
const TRACER_KEY = createContextKey('ngym tracer');
/** The rollout's identity: its span attributes, and the `baggage` header that carries it to the servers called. */
const ROLLOUT_KEY = createContextKey('ngym rollout');
/** The span of a step that is one call (`tracedHop`): the HTTP client describes its call on it, not on a span of its own. */
const HOP_KEY = createContextKey('ngym hop span');

const headerGetter = {
  get: (carrier: IncomingRequest, key: string) => carrier.header(key),
  keys: () => [],
};

/** Reads a carried trace context that came from elsewhere (a job in Redis): anything but a string is absent. */
const carriedGetter = {
  get: (carrier: unknown, key: string) => {
    const value: unknown = typeof carrier === 'object' && carrier !== null ? (carrier as Record<string, unknown>)[key] : undefined;
    return typeof value === 'string' ? value : undefined;
  },
  keys: () => [],
};

type SpanSites = Pick<TracingRuntime, 'traced' | 'tracedRollout' | 'inRolloutTrace' | 'currentTraceContext' | 'startRootSpan' | 'inServerSpan' | 'tracedCall'>;

async function endingWith<T>(span: Span, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    throw error;
  } finally {
    span.end();
  }
}

interface Rollout {
  attributes: Attributes;
  baggage: string;
}

function rolloutOf(identity: RolloutIdentity): Rollout {
  return {
    attributes: {
      [ATTRIBUTE.TASK_INDEX]: identity.taskIndex,
      [ATTRIBUTE.ROLLOUT_INDEX]: identity.rolloutIndex,
      [ATTRIBUTE.ROLLOUT_ID]: `${identity.taskIndex}-${identity.rolloutIndex}`,
    },
    baggage: `${ATTRIBUTE.TASK_INDEX}=${identity.taskIndex},${ATTRIBUTE.ROLLOUT_INDEX}=${identity.rolloutIndex}`,
  };
}

const attributesOf = (parent: Context) => (parent.getValue(ROLLOUT_KEY) as Rollout | undefined)?.attributes;

/**
 * The identity in a W3C `baggage` header. Only ngym's two entries are read, by hand: the API's baggage
 * propagator parses every entry of every request, a measurable share of a traced hop.
 */
function identityFromBaggage(header: string | undefined): RolloutIdentity | undefined {
  if (header === undefined) return undefined;
  let taskIndex: number | undefined;
  let rolloutIndex: number | undefined;
  for (const entry of header.split(',')) {
    const equals = entry.indexOf('=');
    const key = entry.slice(0, equals).trim();
    // Entry properties (`;...`) and surrounding spaces are not part of the value.
    const value = Number(entry.slice(equals + 1).split(';')[0]?.trim());
    if (key === ATTRIBUTE.TASK_INDEX) taskIndex = value;
    else if (key === ATTRIBUTE.ROLLOUT_INDEX) rolloutIndex = value;
  }
  return Number.isInteger(taskIndex) && Number.isInteger(rolloutIndex) ? { taskIndex: taskIndex as number, rolloutIndex: rolloutIndex as number } : undefined;
}

/** `carried` with the trace context of `parent` and its rollout's baggage. */
function inject(parent: Context, carried: Record<string, string>): Record<string, string> {
  propagation.inject(parent, carried);
  const rollout = parent.getValue(ROLLOUT_KEY) as Rollout | undefined;
  if (rollout !== undefined) carried.baggage = carried.baggage === undefined ? rollout.baggage : `${carried.baggage},${rollout.baggage}`;
  return carried;
}

export function spanSites(groups: ReadonlySet<SpanGroup>): SpanSites {
  /** The current service's tracer when `group` is recorded and a trace is under way. */
  const recording = (group: SpanGroup): Tracer | undefined => (groups.has(group) ? (context.active().getValue(TRACER_KEY) as Tracer | undefined) : undefined);

  const traced: SpanSites['traced'] = (group, name, work, hop = false) => {
    const tracer = recording(group);
    if (tracer === undefined) return work(undefined);
    const parent = context.active();
    const span = tracer.startSpan(name, { kind: hop ? SpanKind.CLIENT : SpanKind.INTERNAL, attributes: attributesOf(parent) }, parent);
    const inside = trace.setSpan(parent, span);
    return context.with(hop ? inside.setValue(HOP_KEY, span) : inside, () => endingWith(span, () => work(span)));
  };

  return {
    traced,

    tracedRollout: (name, identity, work) => context.with(context.active().setValue(ROLLOUT_KEY, rolloutOf(identity)), () => traced('rollout', name, work)),

    inRolloutTrace(tracer, name, identity, work, options = {}) {
      const rollout = rolloutOf(identity);
      // A malformed or absent parent extracts to nothing: the rollout starts a trace of its own.
      const caller = options.parent === undefined ? ROOT_CONTEXT : propagation.extract(ROOT_CONTEXT, options.parent, carriedGetter);
      const parent = caller.setValue(TRACER_KEY, tracer).setValue(ROLLOUT_KEY, rollout);
      if (!groups.has('rollout')) return context.with(parent, () => work(undefined));
      const span = tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes: rollout.attributes, links: options.links }, parent);
      return context.with(trace.setSpan(parent, span), () => endingWith(span, () => work(span)));
    },

    currentTraceContext() {
      const carried: Record<string, string> = {};
      propagation.inject(context.active(), carried);
      return carried.traceparent === undefined ? undefined : carried;
    },

    startRootSpan: (tracer, group, name) => (groups.has(group) ? tracer.startSpan(name, { root: true, kind: SpanKind.INTERNAL }) : undefined),

    inServerSpan(tracer, serverName, request, handle, outcome) {
      // An invalid traceparent extracts to nothing: the request starts a trace of its own.
      let parent = propagation.extract(ROOT_CONTEXT, request, headerGetter).setValue(TRACER_KEY, tracer);
      const identity = identityFromBaggage(request.header('baggage'));
      if (identity !== undefined) parent = parent.setValue(ROLLOUT_KEY, rolloutOf(identity));
      if (!groups.has('server')) return context.with(parent, handle);
      const attributes: Attributes = { 'http.request.method': request.method, 'url.path': request.path, [ATTRIBUTE.SERVER_NAME]: serverName, ...attributesOf(parent) };
      const span = tracer.startSpan(request.method, { kind: SpanKind.SERVER, attributes }, parent);
      return context.with(trace.setSpan(parent, span), async () => {
        try {
          await handle();
        } finally {
          const { route, status, error, errorType } = outcome();
          if (route !== undefined) span.updateName(`${request.method} ${route}`).setAttribute('http.route', route);
          span.setAttribute('http.response.status_code', status);
          if (status >= 500) {
            if (error !== undefined) span.recordException(error instanceof Error ? error : String(error));
            span.setAttribute('error.type', errorType ?? String(status)).setStatus({ code: SpanStatusCode.ERROR });
          }
          span.end();
        }
      });
    },

    tracedCall(method, url, headers, call) {
      const current = context.active();
      if (current.getValue(TRACER_KEY) === undefined) return call(headers);
      const carried = { ...headers };
      const hop = current.getValue(HOP_KEY) as Span | undefined;
      const ownSpan = hop === undefined || trace.getSpan(current) !== hop;
      const span = ownSpan ? recording('http_client')?.startSpan(`HTTP ${method}`, { kind: SpanKind.CLIENT, attributes: attributesOf(current) }, current) : hop;
      if (span === undefined) return call(inject(current, carried));
      const query = url.indexOf('?');
      // The path is what helps; a query string can carry keys.
      span.setAttributes({ 'http.request.method': method, 'url.full': query < 0 ? url : url.slice(0, query) });
      inject(trace.setSpan(current, span), carried);
      const described = async () => {
        const answer = await call(carried);
        span.setAttribute('http.response.status_code', answer.status);
        if (answer.status >= 400) span.setAttribute('error.type', String(answer.status)).setStatus({ code: SpanStatusCode.ERROR });
        return answer;
      };
      // A hop's span is ended by its step.
      return ownSpan ? endingWith(span, described) : described();
    },
  };
}
