/**
 * The sandbox provider contract, as upstream NeMo Gym 0.7.0 defines it (nemo_gym/sandbox/providers/base.py): a
 * long-lived box made from a spec, commands run in it as one shell string, files moved in and out, its status, its
 * end. Every provider (docker, local, and whatever registers itself) serves this, so an environment or an agent
 * names a provider in its config and never its code. Field names are upstream's (snake_case), so a spec or a handle
 * descriptor crosses between ngym's TypeScript servers and upstream's Python ones unchanged.
 */
import { posix } from 'node:path';
import * as z from 'zod';
import { ConfigError, NgymError } from '../../errors.ts';
import { describeValidationError, parseReportingInput } from '../../protocol/validation.ts';

/** The return code of an exec the sandbox could not run to its end (timeout, box gone, engine failure), as upstream. */
export const SANDBOX_RUNTIME_RETURN_CODE = 125;

/** What a provider requests for a box; unknown keys are rejected (upstream's SandboxResources). */
export const SandboxResources = z.strictObject({
  cpu: z.number().positive().nullish(),
  memory_mib: z.number().int().positive().nullish(),
  disk_gib: z.number().int().positive().nullish(),
  gpu: z.number().int().min(0).nullish(),
  gpu_type: z.string().nullish(),
});
export type SandboxResources = z.infer<typeof SandboxResources>;

const PORT_RANGE = 'Sandbox TCP port must be between 1 and 65535';
/** A TCP port, as a number or a string of digits (upstream accepts both). */
const Port = z
  .union([z.number(), z.string().regex(/^\d+$/, 'Invalid sandbox TCP port')])
  .transform(Number)
  .pipe(z.number().int().min(1, PORT_RANGE).max(65535, PORT_RANGE));

/** A box to create (upstream's SandboxSpec). */
export const SandboxSpec = z.strictObject({
  /** The image (container providers); `docker://` is tolerated. The local provider has none. */
  image: z.string().min(1).nullish(),
  /** Lifetime in seconds: the box ends by itself after it (docker: the keep-alive sleeps it, then the box is removed). */
  ttl_s: z.number().positive().nullish(),
  ready_timeout_s: z.number().positive().nullish(),
  /** Where commands run unless they say otherwise; unset: the image's own WORKDIR. */
  workdir: z.string().min(1).nullish(),
  env: z.record(z.string(), z.string()).default({}),
  /** Text files written into the box when it starts (path in the box -> content). */
  files: z.record(z.string(), z.string()).default({}),
  metadata: z.record(z.string(), z.string()).default({}),
  resources: SandboxResources.nullish().transform((value) => value ?? {}),
  /** Replaces the provider's keep-alive: argv of the box's main process. */
  entrypoint: z.array(z.string()).min(1).nullish(),
  /** Provider-specific (docker: `volumes`, `run_args`). */
  provider_options: z.record(z.string(), z.unknown()).default({}),
  /** TCP ports of services in the box that callers reach through `endpoint(port)`. */
  ports: z.array(Port).default([]).refine((ports) => new Set(ports).size === ports.length, 'Duplicate sandbox TCP port'),
});
/** A parsed spec (defaults filled in). */
export type SandboxSpec = z.infer<typeof SandboxSpec>;
/** A spec as a caller writes it (every field but those it needs optional). */
export type SandboxSpecInput = z.input<typeof SandboxSpec>;

/** Checks a spec (from a config, a request, a caller) and fills its defaults; throws a ConfigError naming every problem. */
export function parseSandboxSpec(input: SandboxSpecInput | SandboxSpec): SandboxSpec {
  const result = parseReportingInput(SandboxSpec, input);
  if (!result.success) throw new ConfigError('NGYM_CONFIG_INVALID', `Invalid sandbox spec: ${describeValidationError(result.error)}`);
  return result.data;
}

/** A created box (upstream's SandboxHandle): `sandbox_id` is what another process adopts it by; `raw` is the provider's. */
export interface SandboxHandle<Raw = unknown> {
  sandbox_id: string;
  provider_name: string;
  raw: Raw;
}

/**
 * The result of one command. `return_code` is the command's exit status when it ran to its end; when it did not, it
 * is 125 with `error_type` `timeout` (its time was up; the command was killed) or `sandbox` (the box or its engine
 * failed). ngym adds `oom`: the command was killed (137) by the out-of-memory killer of the box's memory limit.
 */
export interface SandboxExecResult {
  stdout: string | null;
  stderr: string | null;
  return_code: number;
  error_type: SandboxExecErrorType | null;
}

export type SandboxExecErrorType = 'timeout' | 'sandbox' | 'oom';

export function runtimeFailure(errorType: 'timeout' | 'sandbox', message: string, stdout: string | null = null): SandboxExecResult {
  return { stdout, stderr: message, return_code: SANDBOX_RUNTIME_RETURN_CODE, error_type: errorType };
}

/** Upstream's provider-neutral lifecycle states. */
export const SANDBOX_STATUSES = ['starting', 'running', 'paused', 'stopped', 'error', 'unknown'] as const;
export type SandboxStatus = (typeof SANDBOX_STATUSES)[number];

/** How a caller reaches a service port of a box: an absolute URL and the headers it needs. */
export interface SandboxEndpoint {
  endpoint: string;
  headers: Record<string, string>;
}

export interface SandboxExecOptions {
  /** Absolute in the box (unset: the box's workdir, else the image's). */
  cwd?: string | null;
  /** Added to the spec's env for this command. */
  env?: Record<string, string> | null;
  /** Seconds before the command is killed and 125/`timeout` returned (unset: the provider's default). */
  timeout_s?: number | null;
  /** `root` or 0 run as uid 0; any other user name or id as that user (unset: the image's user). */
  user?: string | number | null;
}

/** What `serialize_handle` gives and `connect` takes: JSON another process rebuilds a handle from. */
export type SandboxDescriptor = { sandbox_id: string } & Record<string, unknown>;

/**
 * A sandbox provider (upstream's SandboxProvider protocol plus the optional endpoint and connect capabilities).
 * Methods keep upstream's names so that code written against either reads the same.
 */
export interface SandboxProvider<Raw = unknown> {
  readonly name: string;
  /** Makes a box; resolves only once commands and file transfer work in it (the provider's probe passed). */
  create(spec: SandboxSpecInput | SandboxSpec): Promise<SandboxHandle<Raw>>;
  /** Runs `<shell> -c command` in the box. Never throws for a failed command, a timeout or a gone box: see SandboxExecResult. */
  exec(handle: SandboxHandle<Raw>, command: string, options?: SandboxExecOptions): Promise<SandboxExecResult>;
  /** Copies a host file into the box (parent directories made); a relative remote path is relative to the box's workdir. */
  upload_file(handle: SandboxHandle<Raw>, localPath: string, remotePath: string): Promise<void>;
  /** Copies one file of the box to the host (parent directories made). */
  download_file(handle: SandboxHandle<Raw>, remotePath: string, localPath: string): Promise<void>;
  status(handle: SandboxHandle<Raw>): Promise<SandboxStatus>;
  /** Ends the box; a box already gone is not an error. */
  close(handle: SandboxHandle<Raw>): Promise<void>;
  /** Releases the provider's own resources (clients, sockets) and ends the boxes it created that are still open. */
  aclose(): Promise<void>;
  /** Where a caller reaches `port` (declared in the spec's `ports`) of the box. */
  endpoint?(handle: SandboxHandle<Raw>, port: number): Promise<SandboxEndpoint>;
  /** A descriptor `connect` in another process (or another provider instance) rebuilds the handle from. */
  serialize_handle?(handle: SandboxHandle<Raw>): Promise<SandboxDescriptor>;
  /** Adopts a running box by its descriptor (at least `sandbox_id`); throws SandboxProviderError `not_found` when it is gone. */
  connect?(descriptor: { sandbox_id: string } & Record<string, unknown>): Promise<SandboxHandle<Raw>>;
}

/** Why a provider operation failed, for records and for callers deciding whether to retry. */
export type SandboxFailureReason =
  /** The engine (its socket) cannot be reached. */
  | 'engine_unreachable'
  /** The image is not on the engine (and could not be pulled). */
  | 'image_missing'
  /** The engine refused or failed to make the box. */
  | 'create_failed'
  /** The box did not become ready (start or probe) in time. */
  | 'create_timeout'
  /** The box is gone (closed, killed, never existed). */
  | 'not_found'
  /** An upload or download failed (missing file, bad path). */
  | 'transfer_failed'
  /** The operation is not something this provider can do. */
  | 'unsupported';

const RETRYABLE_REASONS: ReadonlySet<SandboxFailureReason> = new Set(['engine_unreachable', 'create_failed', 'create_timeout']);

/** A provider could not do what was asked; `reason` says which kind of failure, the message names the box, image or socket. */
export class SandboxProviderError extends NgymError {
  constructor(
    readonly reason: SandboxFailureReason,
    message: string,
    cause?: unknown,
  ) {
    super('NGYM_SANDBOX', message, { status: 503, retryable: RETRYABLE_REASONS.has(reason), cause });
  }
}

/**
 * A path in a box: an absolute one as given (normalized; upstream lets uploads go anywhere in the box), a relative
 * one under the box's work directory, refused when it climbs out of it with `..`.
 */
export function boxPath(remotePath: string, workdir: string): string {
  if (remotePath === '' || remotePath.includes('\0')) throw new SandboxProviderError('transfer_failed', `Invalid path in the sandbox: ${JSON.stringify(remotePath)}.`);
  if (posix.isAbsolute(remotePath)) return posix.normalize(remotePath);
  if (remotePath.split('/').includes('..')) {
    throw new SandboxProviderError('transfer_failed', `The path ${JSON.stringify(remotePath)} leaves the sandbox's work directory (${workdir}) with '..'; give a path under it or an absolute one.`);
  }
  return posix.join(workdir, remotePath);
}
