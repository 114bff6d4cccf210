/**
 * Schemas of the framework-level config: server instance entries, server references and datasets
 * (spec gym-core 1.6, 1.7, 1.11). A server's own keys are validated by the server's definition.
 */
import * as z from 'zod';
import { SERVER_TYPES, type ServerType } from '../protocol/server-types.ts';
import { parseMemoryBudget } from '../util/memory-budget.ts';

/** Upstream 0.7.0's `Domain` (nemo_gym/config_types.py), every value: an upstream config must load here. */
export const Domain = z.enum([
  'math',
  'coding',
  'agent',
  'knowledge',
  'instruction_following',
  'long_context',
  'safety',
  'games',
  'translation',
  'e2e',
  'rlhf',
  'other',
]);
export type Domain = z.infer<typeof Domain>;

/** v0.1.1 licenses plus the ones later upstream accepts. */
export const License = z.enum([
  'Apache 2.0',
  'MIT',
  'Creative Commons Attribution 4.0 International',
  'Creative Commons Attribution-ShareAlike 4.0 International',
  'NVIDIA Internal Use Only, Do Not Distribute',
  'TBD',
  'CC BY-SA 4.0',
  'CC BY-NC 3.0',
  'NVIDIA Evaluation Dataset License Agreement',
  'GNU General Public License v3.0',
]);

/** `benchmark`: data a benchmark's prepare script writes (`gym eval prepare`), run with its prompt config. */
export const DatasetType = z.enum(['train', 'validation', 'example', 'benchmark']);
export type DatasetType = z.infer<typeof DatasetType>;

/** Upstream 0.7.0 reads a `benchmark` dataset as BenchmarkDatasetConfig, which has no license and ignores one (financebench's). */
function withoutBenchmarkLicense(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || (value as { type?: unknown }).type !== 'benchmark' || !('license' in value)) return value;
  const { license: _ignored, ...rest } = value as Record<string, unknown>;
  return rest;
}

export const DatasetConfig = z.preprocess(
  withoutBenchmarkLicense,
  z
    .looseObject({
      name: z.string(),
      type: DatasetType,
      jsonl_fpath: z.string(),
      num_repeats: z.number().int().min(1, 'Input should be greater than or equal to 1').default(1),
      gitlab_identifier: z
        .looseObject({ dataset_name: z.string(), version: z.string(), artifact_fpath: z.string() })
        .nullable()
        .default(null),
      huggingface_identifier: z
        .looseObject({ repo_id: z.string(), artifact_fpath: z.string().nullable().optional() })
        .nullable()
        .default(null),
      license: License.nullable().default(null),
    })
    .superRefine((dataset, context) => {
      if ((dataset.type === 'train' || dataset.type === 'validation') && dataset.license === null) {
        context.addIssue({ code: 'custom', path: ['license'], message: `A license is required for ${dataset.name}` });
      }
    }),
);
export type DatasetConfig = z.infer<typeof DatasetConfig>;

export const ServerRef = z.looseObject({ type: z.enum(SERVER_TYPES), name: z.string() });
export type ServerRef = z.infer<typeof ServerRef>;

export const ModelServerRef = z.looseObject({ type: z.literal('responses_api_models'), name: z.string() });
export const ResourcesServerRef = z.looseObject({ type: z.literal('resources_servers'), name: z.string() });
export const AgentServerRef = z.looseObject({ type: z.literal('responses_api_agents'), name: z.string() });

/** The entry key that lets deliberate extra keys through (unknown keys are errors otherwise). */
export const ALLOW_EXTRA_KEYS = 'allow_extra_keys';

/** A `memory_budget`: an amount with a unit or a share, checked as parseMemoryBudget reads it; null for none. */
export const MemoryBudgetValue = z
  // A number is read too, to say that it lacks its unit.
  .union([z.string(), z.number()])
  .nullable()
  .superRefine((value, context) => {
    try {
      parseMemoryBudget(value, '');
    } catch (error) {
      context.addIssue({ code: 'custom', message: (error as Error).message.replace(/^: /, '') });
    }
  });

/** Keys every launched server has (host and port are filled in before launch). */
export const BaseServerConfig = z.looseObject({
  name: z.string(),
  entrypoint: z.string(),
  host: z.string(),
  port: z.number().int().min(0).max(65535),
  /** Seconds a request may take before the server answers 504; null disables the limit. */
  request_timeout_seconds: z.number().positive().nullable().optional(),
  /** Seconds a client may take to send a whole request (408 after); null disables the limit. */
  body_read_timeout_seconds: z.number().positive().nullable().optional(),
  /** Largest request body in MiB (answered 413 beyond it); null disables the limit. */
  max_request_body_mb: z.number().positive().nullable().optional(),
  /** Resident memory above which requests that bring work wait (`2GiB`, `512MiB`, `75%`; null: none); src/util/memory-budget.ts. */
  memory_budget: MemoryBudgetValue.optional(),
  /** Keys of the entry that its server's schema does not declare but code of the user reads: `true` lets any through. */
  [ALLOW_EXTRA_KEYS]: z.union([z.boolean(), z.array(z.string())]).optional(),
});
export type BaseServerConfig = z.infer<typeof BaseServerConfig>;

/** The framework-level part of an instance's inner config, checked before anything starts. */
export function instanceEntrySchema(serverType: ServerType) {
  return z.looseObject({
    entrypoint: z.string().min(1),
    host: z.string().nullable().optional(),
    port: z.number().int().min(0).max(65535).nullable().optional(),
    domain: serverType === 'resources_servers' ? Domain : z.unknown().optional(),
    datasets: z.array(DatasetConfig).nullable().optional(),
    /** Processes `ngym run` starts for this entry (each on its own ports); clients spread sessions over them. */
    replicas: z.number().int().min(1, 'Input should be greater than or equal to 1').nullable().optional(),
    memory_budget: MemoryBudgetValue.optional(),
  });
}

/**
 * The top-level `telemetry:` block, with upstream 0.7.0's keys (nemo_gym/telemetry/config.py). `enabled` switches
 * tracing on; every server serves Prometheus `/metrics` unless `metrics_enabled` is false. The `NEMO_GYM_OTEL_*`
 * and `OTEL_*` environment variables win over these (src/telemetry/settings.ts). Keys ngym does not act on
 * (`logs_enabled`, `memory_profiling`, `instrument_aiohttp`) are accepted, as upstream accepts unknown ones.
 */
export const TelemetryConfig = z.looseObject({
  enabled: z.boolean().default(false),
  service_name: z.string().min(1).default('nemo-gym'),
  service_name_per_server: z.boolean().default(true),
  /** A preset (`default`, `per_rollout`, `all`) or a comma-separated list of span groups. */
  span_groups: z.string().nullable().default(null),
  traces_enabled: z.boolean().default(true),
  metrics_enabled: z.boolean().default(true),
  exporter: z.literal('otlp', { error: 'ngym exports spans over OTLP only: set telemetry.exporter to otlp (or leave it out)' }).default('otlp'),
  otlp_endpoint: z.string().min(1).nullable().default(null),
  otlp_protocol: z.string().nullable().default(null),
  otlp_headers: z.string().nullable().default(null),
  run_id: z.string().nullable().default(null),
});
export type TelemetryConfig = z.infer<typeof TelemetryConfig>;
