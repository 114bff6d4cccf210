/**
 * The `opensandbox:` block of a sandbox config, with upstream 0.7.0's keys and defaults
 * (nemo_gym/sandbox/providers/opensandbox/provider.py, configs/opensandbox.yaml), and the `provider_options` a spec
 * may give it. Keys of connection pooling (`transport_backend`, `keepalive_expiry_s`, ...) are taken (ngym's client
 * keeps its own pool); what ngym's client cannot do (`networking`, `shared_storage`, `runtime_requirements`, which
 * need operator probes of a real cluster) is refused by name when set.
 */
import { userInfo } from 'node:os';
import * as z from 'zod';
import { ConfigError } from '../../../errors.ts';
import { describeValidationError, parseReportingInput } from '../../../protocol/validation.ts';
import { currentRunId } from '../run-identity.ts';

const seconds = z.number().positive();
const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'] as const;
const KEY_PREFIX = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

const Connection = z.strictObject({
  /** host[:port][/prefix], or with its scheme (which then sets `protocol`). Default: OPENSANDBOX_DOMAIN, else localhost:8080. */
  domain: z.string().min(1).nullish(),
  api_key: z.string().nullish(),
  protocol: z.enum(['http', 'https']).nullish(),
  request_timeout_s: seconds.nullish(),
  use_server_proxy: z.boolean().default(false),
  disable_connection_pooling: z.boolean().default(false),
  keepalive_expiry_s: seconds.nullish().default(3),
  max_keepalive_connections: z.number().int().min(0).default(20),
  max_connections: z.number().int().positive().nullish().default(100),
  connect_retries: z.number().int().min(0).default(2),
  transport_backend: z.enum(['aiohttp', 'httpx']).default('aiohttp'),
  tls_verify: z.boolean().default(false),
});

const Create = z.strictObject({
  request_timeout_s: seconds.nullish(),
  timeout_s: seconds.nullish(),
  retries: z.number().int().min(0).default(2),
  retry_delay_s: z.number().min(0).default(5),
  retry_max_delay_s: z.number().min(0).default(60),
  image_pull_policy: z.enum(PULL_POLICIES).nullish().default('IfNotPresent'),
  skip_health_check: z.boolean().default(false),
  connect_attempt_timeout_s: seconds.default(30),
  connect_poll_s: seconds.default(2),
  renew_interval_s: seconds.nullish(),
});

const Probe = z.strictObject({
  command: z.string().nullish().default('printf nemo-gym-sandbox-ready'),
  expected_stdout: z.string().nullish().default('nemo-gym-sandbox-ready'),
  timeout_s: seconds.default(30),
  deadline_s: seconds.nullish(),
  stable_count: z.number().int().min(1).default(1),
  stable_delay_s: z.number().min(0).default(0),
  user: z.union([z.string(), z.number().int()]).nullish(),
});

const Operations = z.strictObject({
  retries: z.number().int().min(0).default(3),
  retry_delay_s: z.number().min(0).default(1),
  retry_max_delay_s: z.number().min(0).default(15),
  command_retries: z.number().int().min(0).default(0),
  close_timeout_s: seconds.nullish().default(30),
  pause_resume_timeout_s: seconds.default(600),
  background_exec: z.boolean().default(false),
  background_poll_initial_s: seconds.default(0.25),
  background_poll_interval_s: seconds.default(2),
  status_poll_timeout_s: seconds.nullish().default(10),
});

const Attribution = z.strictObject({
  enabled: z.boolean().default(true),
  team: z.string().nullish(),
  user: z.string().nullish(),
  workload: z.string().nullish(),
  run: z.string().nullish(),
  key_prefix: z
    .string()
    .default('nemo-gym.nvidia.com/')
    .transform((prefix) => {
      const trimmed = prefix.trim();
      return trimmed === '' || trimmed.endsWith('/') ? trimmed : `${trimmed}/`;
    })
    .refine((prefix) => prefix === '' || KEY_PREFIX.test(prefix.slice(0, -1)), "must be a lowercase DNS subdomain (a Kubernetes label-key prefix, e.g. 'nemo-gym.nvidia.com/') or ''"),
});

const Networking = z.strictObject({ enabled: z.boolean().default(false), loopback_forwarding: z.boolean().default(false), python_executable: z.string().default('python3'), setup_command: z.string().nullish() });
const SharedStorage = z.strictObject({ host_path: z.string().nullish(), metadata: z.record(z.string(), z.string()).default({}) });
const RuntimeRequirements = z.strictObject({
  capability_probes: z.record(z.string(), z.string()).default({}),
  capability_metadata: z.record(z.string(), z.record(z.string(), z.string())).default({}),
  shm_size_metadata_key: z.string().nullish(),
});

const OpenSandboxProviderConfig = z.strictObject({
  connection: Connection.nullish().transform((value) => value ?? Connection.parse({})),
  create: Create.nullish().transform((value) => value ?? Create.parse({})),
  probe: Probe.nullish().transform((value) => value ?? Probe.parse({})),
  operations: Operations.nullish().transform((value) => value ?? Operations.parse({})),
  attribution: Attribution.nullish().transform((value) => value ?? Attribution.parse({})),
  networking: Networking.nullish(),
  shared_storage: SharedStorage.nullish(),
  runtime_requirements: RuntimeRequirements.nullish(),
});
export type OpenSandboxProviderConfig = z.infer<typeof OpenSandboxProviderConfig>;

/** Where the server is, read from `connection` (a scheme in the domain wins over `protocol`, as upstream). */
export interface ServerAddress {
  /** `http(s)://host[:port][/prefix]`, without a trailing slash; the lifecycle API is under `/v1` of it. */
  baseUrl: string;
  protocol: 'http' | 'https';
}

export function serverAddressOf(connection: OpenSandboxProviderConfig['connection'], where = 'opensandbox'): ServerAddress {
  let domain = (connection.domain ?? process.env.OPENSANDBOX_DOMAIN ?? 'localhost:8080').trim();
  let protocol = connection.protocol ?? 'http';
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(domain);
  if (scheme) {
    const url = new URL(domain);
    const name = (scheme[1] as string).toLowerCase();
    if (name !== 'http' && name !== 'https') throw new ConfigError('NGYM_CONFIG_INVALID', `${where}.connection.domain ${JSON.stringify(domain)} has the scheme '${name}'; use http or https.`);
    if (url.search || url.hash) throw new ConfigError('NGYM_CONFIG_INVALID', `${where}.connection.domain ${JSON.stringify(domain)} must not carry a query string or fragment; use scheme://host[:port][/path-prefix].`);
    protocol = name;
    domain = `${url.host}${url.pathname}`;
  }
  return { baseUrl: `${protocol}://${domain.replace(/\/+$/, '')}`, protocol };
}

/** Checks the block; every problem named, unsupported sections refused by name. */
export function parseOpenSandboxConfig(input: unknown, where = 'opensandbox'): OpenSandboxProviderConfig {
  const parsed = parseReportingInput(OpenSandboxProviderConfig, input ?? {});
  if (!parsed.success) throw new ConfigError('NGYM_CONFIG_INVALID', `Invalid ${where} sandbox provider config: ${describeValidationError(parsed.error)}`);
  const config = parsed.data;
  const refuse = (what: string) => new ConfigError('NGYM_CONFIG_INVALID', `${where}: ngym's opensandbox provider does not support ${what} (docs/sandbox.md, "OpenSandbox").`);
  if (config.networking?.enabled) throw refuse('networking.enabled (box-to-box addresses, set_hosts, port forwarding); use one box per task, or the docker provider');
  if (config.shared_storage?.host_path) throw refuse('shared_storage (a host folder mounted into boxes); pass provider_options.volumes per spec');
  const requirements = config.runtime_requirements;
  if (requirements && (Object.keys(requirements.capability_probes).length > 0 || Object.keys(requirements.capability_metadata).length > 0 || requirements.shm_size_metadata_key)) {
    throw refuse('runtime_requirements (cap_add / shm_size probes of the cluster)');
  }
  if (config.create.renew_interval_s !== null && config.create.renew_interval_s !== undefined && !Number.isFinite(config.create.renew_interval_s)) throw refuse('a renew_interval_s that is not finite');
  serverAddressOf(config.connection, where);
  return config;
}

const OPTION_NAMES = ['image_auth', 'network_policy', 'platform', 'snapshot_id', 'volumes', 'skip_health_check', 'extensions', 'resource_requests'] as const;

const ProviderOptions = z.strictObject({
  image_auth: z.record(z.string(), z.unknown()).nullish(),
  network_policy: z.record(z.string(), z.unknown()).nullish(),
  platform: z.record(z.string(), z.unknown()).nullish(),
  snapshot_id: z.string().nullish(),
  volumes: z.array(z.record(z.string(), z.unknown())).nullish(),
  skip_health_check: z.boolean().nullish(),
  extensions: z.record(z.string(), z.unknown()).nullish(),
  resource_requests: z.union([z.literal('limits'), z.record(z.string(), z.unknown())]).nullish(),
});
export type OpenSandboxProviderOptions = z.infer<typeof ProviderOptions>;

/** A spec's `provider_options` for OpenSandbox (upstream's OpenSandboxProviderOptions); an unknown key is named with those supported. */
export function parseOpenSandboxProviderOptions(options: Record<string, unknown>): OpenSandboxProviderOptions {
  const unknown = Object.keys(options).filter((key) => !(OPTION_NAMES as readonly string[]).includes(key));
  if (unknown.length > 0) throw new ConfigError('NGYM_CONFIG_INVALID', `Unknown OpenSandbox provider option(s): ${unknown.sort().join(', ')}. Supported: ${[...OPTION_NAMES].sort().join(', ')}.`);
  const parsed = parseReportingInput(ProviderOptions, options);
  if (!parsed.success) throw new ConfigError('NGYM_CONFIG_INVALID', `Invalid OpenSandbox provider_options: ${describeValidationError(parsed.error)}`);
  return parsed.data;
}

/** snake_case keys (as upstream's YAML and the SDK's models take them) as the API's camelCase, at every depth. */
export function camelCaseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelCaseKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase()), camelCaseKeys(inner)]));
}

const first = (...values: (string | null | undefined)[]) => values.map((value) => value?.trim()).find((value) => value) ?? null;

function loginName(): string | null {
  try {
    const name = userInfo().username.trim();
    return name === '' || name.toLowerCase() === 'root' ? null : name;
  } catch {
    return null;
  }
}

/** A metadata value as a Kubernetes label value (upstream's sanitizing): other characters become `_`, at most 63. */
export function labelValue(value: string): string {
  const cleaned = value.replace(/[^A-Za-z0-9_.-]+/g, '_').replace(/^[._-]+|[._-]+$/g, '');
  return cleaned.slice(0, 63).replace(/^[._-]+|[._-]+$/g, '') || 'metadata';
}

/** Upstream's job attribution: team, user, workload, run under the key prefix (a spec's own metadata wins over it). */
export function attributionMetadata(attribution: OpenSandboxProviderConfig['attribution'], environment: NodeJS.ProcessEnv = process.env): Record<string, string> {
  if (!attribution.enabled) return {};
  const fields: Record<string, string | null> = {
    team: first(attribution.team, environment.NEMO_GYM_TEAM, environment.SLURM_JOB_ACCOUNT),
    user: first(attribution.user, environment.NEMO_GYM_USER, environment.SLURM_JOB_USER) ?? loginName(),
    workload: first(attribution.workload, environment.NEMO_GYM_WORKLOAD, environment.SLURM_JOB_NAME, environment.NEMO_GYM_CONFIG_PATH),
    run: first(attribution.run, environment.NEMO_GYM_RUN_ID) ?? currentRunId(),
  };
  return Object.fromEntries(Object.entries(fields).flatMap(([key, value]) => (value === null ? [] : [[`${attribution.key_prefix}${key}`, value]])));
}
