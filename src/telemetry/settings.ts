/**
 * What a process records and where it sends it: the `telemetry:` block of the global config, under the
 * environment variables upstream 0.7.0 reads (nemo_gym/telemetry/setup.py), which always win over the block:
 * `NEMO_GYM_OTEL_<KEY>` (then `NEMO_LENS_<KEY>`) for `enabled`, `span_groups`, `traces_enabled`,
 * `metrics_enabled`, `exporter`, `run_id`, `service_name_per_server`; the standard `OTEL_SERVICE_NAME` and
 * `OTEL_EXPORTER_OTLP_[TRACES_]{ENDPOINT,HEADERS,PROTOCOL}` for the rest.
 */
import { TelemetryConfig } from '../config/schemas.ts';
import { ConfigError } from '../errors.ts';
import { parseReportingInput, validationDetails } from '../protocol/validation.ts';
import { DEFAULT_SPAN_GROUPS, resolveSpanGroups, type SpanGroup } from './span-groups.ts';

export const TELEMETRY_KEY = 'telemetry';
const PREFIXES = ['NEMO_GYM_OTEL', 'NEMO_LENS'];
const TRUTHY = new Set(['1', 'true', 'yes', 'on']);
/** The OTLP/HTTP receiver's usual address (Jaeger all-in-one, the OpenTelemetry Collector). */
const DEFAULT_OTLP_ENDPOINT = 'http://localhost:4318';
/** The one encoding ngym's exporter sends. */
export const OTLP_PROTOCOL = 'http/json';

export interface TracingSettings {
  /** `service.name` of every process, before the per-server suffix. */
  serviceName: string;
  /** Suffix `serviceName` with each server's name (`nemo-gym/policy_model`). */
  serviceNamePerServer: boolean;
  groups: ReadonlySet<SpanGroup>;
  /** Names in the span-group spec that select nothing (reported once, then ignored, as upstream). */
  unknownGroups: string[];
  /** Where spans are POSTed: the full `/v1/traces` URL. */
  endpoint: string;
  headers: Record<string, string>;
  /** The protocol asked for, when it is not the one ngym sends (reported once). */
  unsupportedProtocol: string | undefined;
  runId: string | undefined;
}

export interface TelemetrySettings {
  /** Undefined when tracing is off: no span is made and nothing is loaded. */
  tracing: TracingSettings | undefined;
  /** Whether servers serve Prometheus `GET /metrics`. */
  metrics: boolean;
}

type Env = Record<string, string | undefined>;

function prefixed(env: Env, key: string): string | undefined {
  for (const prefix of PREFIXES) {
    const value = env[`${prefix}_${key}`]?.trim();
    if (value) return value;
  }
  return undefined;
}

function flag(env: Env, key: string, configured: boolean): boolean {
  const value = prefixed(env, key);
  return value === undefined ? configured : TRUTHY.has(value.toLowerCase());
}

function plain(env: Env, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  return undefined;
}

function parsedBlock(block: unknown): TelemetryConfig {
  const parsed = parseReportingInput(TelemetryConfig, block ?? {});
  if (parsed.success) return parsed.data;
  const problems = validationDetails(parsed.error, []).map((detail) => `  - ${[TELEMETRY_KEY, ...detail.loc].join('.')}: ${detail.msg}`);
  const first = validationDetails(parsed.error, [])[0]?.loc.join('.');
  throw new ConfigError('NGYM_CONFIG_INVALID', `Invalid ${TELEMETRY_KEY} block:\n${problems.join('\n')}`, { key: first ? `${TELEMETRY_KEY}.${first}` : TELEMETRY_KEY });
}

/** `key=value,key=value` (values URL-encoded), the format of `OTEL_EXPORTER_OTLP_HEADERS`. */
function parseHeaders(text: string | null | undefined, source: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (text ?? '').split(',')) {
    if (pair.trim() === '') continue;
    const equals = pair.indexOf('=');
    const name = pair.slice(0, equals).trim();
    if (equals < 1 || name === '') throw new ConfigError('NGYM_CONFIG_INVALID', `${source} must be key=value pairs separated by commas; got '${pair.trim()}'.`, { key: source });
    headers[name.toLowerCase()] = decodeURIComponent(pair.slice(equals + 1).trim());
  }
  return headers;
}

function tracesUrl(base: string, source: string, appendPath: boolean): string {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new ConfigError('NGYM_CONFIG_INVALID', `${source} must be an http(s) URL such as ${DEFAULT_OTLP_ENDPOINT}; got '${base}'.`, { key: source });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError('NGYM_CONFIG_INVALID', `${source} must be an http(s) URL (ngym sends OTLP over HTTP); got '${base}'.`, { key: source });
  }
  return appendPath ? `${base.replace(/\/+$/, '')}/v1/traces` : base;
}

function tracingSettings(config: TelemetryConfig, env: Env): TracingSettings {
  const spec = prefixed(env, 'SPAN_GROUPS') ?? config.span_groups ?? DEFAULT_SPAN_GROUPS;
  const { groups, unknown } = resolveSpanGroups(spec);
  const tracesEndpoint = plain(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const baseEndpoint = plain(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  const endpoint =
    tracesEndpoint !== undefined
      ? tracesUrl(tracesEndpoint, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', false)
      : baseEndpoint !== undefined
        ? tracesUrl(baseEndpoint, 'OTEL_EXPORTER_OTLP_ENDPOINT', true)
        : tracesUrl(config.otlp_endpoint ?? DEFAULT_OTLP_ENDPOINT, `${TELEMETRY_KEY}.otlp_endpoint`, true);
  const headersFromEnv = plain(env, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS', 'OTEL_EXPORTER_OTLP_HEADERS');
  const protocol = plain(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL') ?? config.otlp_protocol ?? OTLP_PROTOCOL;
  return {
    serviceName: plain(env, 'OTEL_SERVICE_NAME') ?? config.service_name,
    serviceNamePerServer: flag(env, 'SERVICE_NAME_PER_SERVER', config.service_name_per_server),
    groups,
    unknownGroups: unknown,
    endpoint,
    headers: headersFromEnv !== undefined ? parseHeaders(headersFromEnv, 'OTEL_EXPORTER_OTLP_HEADERS') : parseHeaders(config.otlp_headers, `${TELEMETRY_KEY}.otlp_headers`),
    unsupportedProtocol: protocol === OTLP_PROTOCOL ? undefined : protocol,
    runId: prefixed(env, 'RUN_ID') ?? config.run_id ?? undefined,
  };
}

/** The settings of a process whose global config has `block` as its `telemetry:` (undefined when it has none). */
export function telemetrySettings(block: unknown, env: Env = process.env): TelemetrySettings {
  const config = parsedBlock(block);
  const exporter = prefixed(env, 'EXPORTER');
  if (exporter !== undefined && exporter !== 'otlp') {
    throw new ConfigError('NGYM_CONFIG_INVALID', `NEMO_GYM_OTEL_EXPORTER is '${exporter}': ngym exports spans over OTLP only (otlp).`, { key: 'NEMO_GYM_OTEL_EXPORTER' });
  }
  const tracing = flag(env, 'ENABLED', config.enabled) && flag(env, 'TRACES_ENABLED', config.traces_enabled);
  return { tracing: tracing ? tracingSettings(config, env) : undefined, metrics: flag(env, 'METRICS_ENABLED', config.metrics_enabled) };
}
