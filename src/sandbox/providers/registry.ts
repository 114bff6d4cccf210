/**
 * Which providers ngym has, and how a config selects one, as upstream 0.7.0 does (nemo_gym/sandbox/config.py,
 * providers/registry.py): a server says `sandbox_provider: <name>` and the top-level block of that name holds one
 * provider key with its settings, plus an optional `default_metadata` merged into every box's metadata:
 *
 *     sandbox:
 *       default_metadata: {sandbox-api: docker-cli}
 *       docker: {create: {...}, exec: {...}, probe: {...}}
 *
 * (an inline `sandbox_provider: {docker: {...}}` works too). ngym adds one top-level key, `max_sandboxes`: the docker
 * boxes of the whole gym run at once (docker/run-box-bound.ts); other providers bound one instance's. Upstream's provider YAMLs load unchanged; a provider ngym does not have is named
 * in one error that lists those it has.
 */
import { ConfigError } from '../../errors.ts';
import type { GlobalConfig } from '../../config/global-config.ts';
import { configPathOf, type ServerInstance } from '../../config/server-instances.ts';
import type { ConfigDict } from '../../config/tree.ts';
import { ImageMap } from '../images/image-map.ts';
import type { SandboxProvider } from './contract.ts';
import { parseDockerProviderConfig } from './docker/docker-config.ts';
import { DockerSandboxProvider, type ProviderRuntimeOptions } from './docker/docker-provider.ts';
import { LocalSandboxProvider } from './local/local-provider.ts';
import { parseOpenSandboxConfig } from './opensandbox/opensandbox-config.ts';
import { OpenSandboxProvider } from './opensandbox/opensandbox-provider.ts';

/** The reserved key of a sandbox block that is not a provider. */
const DEFAULT_METADATA_KEY = 'default_metadata';
/** ngym's key beside it: the images a config names mapped to ones this engine has (src/sandbox/images/image-map.ts). */
export const IMAGE_MAP_KEY = 'image_map';
/** ngym's key beside it: spares the docker provider makes ahead of need, `{size: N}` (docker/warm-pool.ts). */
export const WARM_POOL_KEY = 'warm_pool';
/** The keys of a sandbox block that are not a provider. */
const RESERVED_KEYS = new Set([DEFAULT_METADATA_KEY, IMAGE_MAP_KEY, WARM_POOL_KEY]);
/** The top-level key that bounds the boxes of a gym run (docker) or of a provider instance (local, opensandbox). */
const MAX_SANDBOXES_KEY = 'max_sandboxes';

export interface SandboxProviderFactory {
  /** Makes the provider from its config block (the value under its name) and the runtime options. */
  create(config: unknown, options: ProviderRuntimeOptions): SandboxProvider;
  /** Checks the config block without making anything (at `ngym run`, before any server starts). */
  validate(config: unknown, where: string): void;
}

const BUILT_IN: Record<string, SandboxProviderFactory> = {
  docker: {
    create: (config, options) => new DockerSandboxProvider(config, options),
    validate: (config, where) => void parseDockerProviderConfig(config, where),
  },
  local: {
    create: (config, options) => new LocalSandboxProvider(config, options),
    validate: (config) => void new LocalSandboxProvider(config),
  },
  opensandbox: {
    create: (config, options) => new OpenSandboxProvider(config, options),
    validate: (config, where) => void parseOpenSandboxConfig(config, where),
  },
};

const registered = new Map<string, SandboxProviderFactory>();

/** Upstream's providers that ngym does not have, and what each would take; a config naming one gets this in its error. */
const NOT_IN_NGYM: Record<string, string> = {
  daytona: "a client of Daytona's hosted control plane and per-box toolbox API (an account and its API key)",
  e2b: "a client of E2B's hosted control plane and its Connect-RPC envd, with images prebuilt as E2B templates",
  apptainer: 'Apptainer/Singularity on an HPC node (.sif images, no daemon)',
  enroot: "NVIDIA enroot on an HPC node (squashfs images, Slurm's pyxis)",
  ecs_fargate: 'AWS ECS Fargate tasks (an AWS account, ECR images, ECS Exec)',
  openshell: "an OpenShell gateway's gRPC API",
};

/**
 * Makes a provider selectable by name (a client of another sandbox service, a test double of a remote one). A
 * built-in name is only replaced with `override`.
 */
export function registerSandboxProvider(name: string, factory: SandboxProviderFactory, options: { override?: boolean } = {}): void {
  if (name === '' || RESERVED_KEYS.has(name)) throw new ConfigError('NGYM_CONFIG_INVALID', `Invalid sandbox provider name ${JSON.stringify(name)}.`);
  if (!options.override && (name in BUILT_IN || registered.has(name))) throw new ConfigError('NGYM_CONFIG_INVALID', `The sandbox provider '${name}' is already registered.`);
  registered.set(name, factory);
}

/** The providers ngym has, sorted. */
export function sandboxProviderNames(): string[] {
  return [...new Set([...Object.keys(BUILT_IN), ...registered.keys()])].sort();
}

function factoryFor(name: string, where: string): SandboxProviderFactory {
  const factory = registered.get(name) ?? BUILT_IN[name];
  if (factory !== undefined) return factory;
  const upstream = NOT_IN_NGYM[name];
  const has = sandboxProviderNames().join(', ');
  if (upstream !== undefined) {
    throw new ConfigError('NGYM_CONFIG_INVALID', `${where} selects upstream's sandbox provider '${name}', which ngym does not have (it would need ${upstream}). ngym's providers: ${has}. See docs/sandbox.md, "Sandbox providers".`);
  }
  throw new ConfigError('NGYM_CONFIG_INVALID', `${where} selects an unknown sandbox provider '${name}'. ngym's providers: ${has}.`);
}

interface ResolvedSandboxBlock {
  /** The provider's name (`docker`, `local`, ...). */
  provider: string;
  /** Its settings (the value under its name). */
  config: unknown;
  defaultMetadata: Record<string, string>;
  imageMap: ImageMap;
  warmPool: { size: number } | null;
  /** How errors name where it came from. */
  where: string;
}

const isDict = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A server's `sandbox_provider` (a top-level block's name, or an inline `{provider: settings}`) read against the config. */
function resolveSandboxBlock(reference: unknown, dict: ConfigDict): ResolvedSandboxBlock {
  let block: unknown;
  let where: string;
  if (typeof reference === 'string') {
    if (reference === '') throw new ConfigError('NGYM_CONFIG_INVALID', 'sandbox_provider must name a top-level sandbox block (e.g. sandbox), not be empty.');
    block = dict[reference];
    where = `the sandbox block '${reference}'`;
    if (block === undefined || block === null) {
      const candidates = Object.entries(dict)
        .filter(([, value]) => isDict(value) && Object.keys(value).filter((key) => !RESERVED_KEYS.has(key)).length === 1 && sandboxProviderNames().some((name) => name in value || name in NOT_IN_NGYM))
        .map(([key]) => key);
      throw new ConfigError(
        'NGYM_CONFIG_INVALID',
        `sandbox_provider: ${reference} names no top-level block of the config. Add a provider's config (e.g. nemo_gym/sandbox/providers/docker/configs/docker.yaml, which defines 'sandbox') to config_paths. Sandbox blocks in the config: ${candidates.join(', ') || '(none)'}.`,
        { key: reference },
      );
    }
  } else if (isDict(reference)) {
    block = reference;
    where = 'the inline sandbox_provider config';
  } else {
    throw new ConfigError('NGYM_CONFIG_INVALID', `sandbox_provider must be the name of a top-level sandbox block or a {provider: settings} mapping, got ${JSON.stringify(reference)}.`);
  }
  if (!isDict(block)) throw new ConfigError('NGYM_CONFIG_INVALID', `${where} must be a mapping {provider: settings}, got ${JSON.stringify(block)}.`);
  const providers = Object.keys(block).filter((key) => !RESERVED_KEYS.has(key));
  if (providers.length !== 1) throw new ConfigError('NGYM_CONFIG_INVALID', `${where} must hold exactly one provider key {provider_name: settings} (besides default_metadata, image_map and warm_pool); it holds: [${providers.join(', ')}].`);
  const metadata = block[DEFAULT_METADATA_KEY] ?? {};
  if (!isDict(metadata)) throw new ConfigError('NGYM_CONFIG_INVALID', `${where}: default_metadata must be a mapping, got ${JSON.stringify(metadata)}.`);
  const provider = providers[0] as string;
  return {
    provider,
    config: block[provider],
    defaultMetadata: Object.fromEntries(Object.entries(metadata).map(([key, value]) => [key, String(value)])),
    imageMap: imageMapOf(block[IMAGE_MAP_KEY], where),
    warmPool: warmPoolOf(block[WARM_POOL_KEY], where),
    where: `${where} (${provider})`,
  };
}

export function imageMapOf(value: unknown, where: string): ImageMap {
  if (value === undefined || value === null) return {};
  const parsed = ImageMap.safeParse(value);
  if (!parsed.success) throw new ConfigError('NGYM_CONFIG_INVALID', `${where}: image_map: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || '(the map)'}: ${issue.message}`).join('; ')}.`);
  return parsed.data;
}

/** A block's `warm_pool`: `{size: N}` with N >= 0, or absent/null for none. */
function warmPoolOf(value: unknown, where: string): { size: number } | null {
  if (value === undefined || value === null) return null;
  const size = isDict(value) ? value.size : undefined;
  if (!isDict(value) || Object.keys(value).some((key) => key !== 'size') || typeof size !== 'number' || !Number.isInteger(size) || size < 0) {
    throw new ConfigError('NGYM_CONFIG_INVALID', `${where}: warm_pool must be {size: N} with N a whole number >= 0 (spares made ahead of need; 0 or null for none), got ${JSON.stringify(value)}.`);
  }
  return { size };
}

/** Checks a block's provider and settings as a TypeScript server would use them: the provider exists in ngym and takes them. */
function validateSandboxBlock(resolved: ResolvedSandboxBlock): void {
  factoryFor(resolved.provider, resolved.where).validate(resolved.config, resolved.where);
}

/** Makes a provider from a single-key config `{provider: settings}` (upstream's create_provider). */
export function createSandboxProvider(config: Record<string, unknown>, options: ProviderRuntimeOptions = {}): SandboxProvider {
  const names = Object.keys(config);
  if (names.length !== 1) throw new ConfigError('NGYM_CONFIG_INVALID', `A sandbox provider config holds exactly one provider name; got [${names.join(', ')}].`);
  const name = names[0] as string;
  return factoryFor(name, `The sandbox provider config`).create(config[name] ?? {}, options);
}

/** `max_sandboxes` of the config: a positive integer or null (no bound). */
function maxSandboxesOf(globalConfig: GlobalConfig): number | null {
  const value = globalConfig.resolvedValue([MAX_SANDBOXES_KEY]);
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw new ConfigError('NGYM_CONFIG_INVALID', `max_sandboxes must be a positive integer (or null for no bound), got ${JSON.stringify(value)}.`, { key: MAX_SANDBOXES_KEY });
  return value;
}

/** A block's settings and default_metadata with interpolations resolved (only that block: another's unset env var is no error here). */
function resolvedBlock(reference: unknown, globalConfig: GlobalConfig): ResolvedSandboxBlock {
  const block = resolveSandboxBlock(reference, globalConfig.dict);
  // Whether ngym has the provider is said before its settings are read (they may need variables only it uses).
  factoryFor(block.provider, block.where);
  if (typeof reference !== 'string') return block;
  const metadata = globalConfig.resolvedValue([reference, DEFAULT_METADATA_KEY]) ?? {};
  return {
    ...block,
    imageMap: imageMapOf(globalConfig.resolvedValue([reference, IMAGE_MAP_KEY]), block.where),
    warmPool: warmPoolOf(globalConfig.resolvedValue([reference, WARM_POOL_KEY]), block.where),
    config: globalConfig.resolvedValue([reference, block.provider]) ?? {},
    defaultMetadata: isDict(metadata) ? Object.fromEntries(Object.entries(metadata).map(([key, value]) => [key, String(value)])) : {},
  };
}

export interface ConfiguredSandboxProvider {
  provider: SandboxProvider;
  /** The block's default_metadata, for the spec's metadata (a spec's own keys win). */
  defaultMetadata: Record<string, string>;
}

/**
 * The provider a server's `sandbox_provider:` selects, made: what a TypeScript environment or agent calls at setup
 * (`sandboxProviderFor(config.sandbox_provider, globalConfig)`). The server closes it (`aclose`) when it stops, which
 * removes the boxes it still holds.
 */
export function sandboxProviderFor(reference: unknown, globalConfig: GlobalConfig, options: ProviderRuntimeOptions = {}): ConfiguredSandboxProvider {
  const resolved = resolvedBlock(reference, globalConfig);
  const provider = factoryFor(resolved.provider, resolved.where).create(resolved.config, { maxSandboxes: maxSandboxesOf(globalConfig), imageMap: resolved.imageMap, warmPool: resolved.warmPool, ...options });
  return { provider, defaultMetadata: resolved.defaultMetadata };
}

/**
 * Checks every server's `sandbox_provider:` before anything starts (`ngym run`): the block exists and holds one
 * provider; for a server ngym runs in TypeScript, the provider is one ngym has and takes the block's settings.
 * (A Python server runs upstream's own providers, so a provider ngym lacks is its business.) Returns the problems.
 */
export function sandboxReferenceProblems(globalConfig: GlobalConfig, runsInTypeScript: (instance: ServerInstance) => boolean): string[] {
  const problems: string[] = [];
  for (const instance of globalConfig.servers) {
    if (!('sandbox_provider' in instance.config)) continue;
    try {
      const reference = globalConfig.resolvedValue([...configPathOf(instance), 'sandbox_provider']);
      if (reference === null) continue;
      if (!runsInTypeScript(instance)) {
        resolveSandboxBlock(reference, globalConfig.dict);
        continue;
      }
      validateSandboxBlock(resolvedBlock(reference, globalConfig));
      maxSandboxesOf(globalConfig);
    } catch (error) {
      problems.push(`Server '${instance.name}': ${(error as Error).message}`);
    }
  }
  return problems;
}
