/**
 * The flags of upstream 0.7.0's `gym` command tree, each turned into the `+key=value` overrides ngym's commands
 * read (upstream does the same translation to Hydra overrides): `--config a.yaml` is `+config_paths=[a.yaml]`,
 * `--environment x` loads environments/x/config.yaml, `--model m` is `+policy_model_name=m`, and so on.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { checkPackagedPath } from '../../config/environment-packages.ts';
import { defaultSearchRoots } from '../../config/server-instances.ts';
import { upstreamRoots } from '../../config/upstream-roots.ts';
import { NgymError } from '../../errors.ts';
import { didYouMean } from '../../util/did-you-mean.ts';

export interface FlagSpec {
  /** Commander's spelling: `--config <path>`, `-o, --output <path>`, `--resume`. */
  flags: string;
  description: string;
  /** Collect every occurrence into a list (`--config a --config b`). */
  repeatable?: boolean;
  choices?: readonly string[];
  /** The overrides this flag's value stands for (nothing when the flag is absent). */
  toOverrides?: (value: never) => string[];
}

type Options = Record<string, unknown>;

/** A `--name VALUE` flag that stands for `+key=VALUE`. */
export function valueFlag(flags: string, key: string, description: string, choices?: readonly string[]): FlagSpec {
  return { flags, description, choices, toOverrides: (value: string) => [`+${key}=${value}`] };
}

/** A `--name` switch that stands for `+key=true`. */
export function boolFlag(flags: string, key: string, description: string): FlagSpec {
  return { flags, description, toOverrides: (value: boolean) => (value ? [`+${key}=true`] : []) };
}

/** A switch or value the command reads itself (no override). */
export function ownFlag(flags: string, description: string, choices?: readonly string[]): FlagSpec {
  return { flags, description, choices };
}

/** The option key commander stores a flag under: `--model-url <u>` is `modelUrl`, `--no-health-check` is `healthCheck` (false when given). */
function optionKey(flags: string): string {
  const long = /--([a-z0-9-]+)/.exec(flags)?.[1] ?? '';
  return long.replace(/^no-/, '').replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

/** Every override the given options stand for. */
export function overridesOf(specs: readonly FlagSpec[], options: Options): string[] {
  return specs.flatMap((spec) => {
    const value = options[optionKey(spec.flags)];
    return value === undefined || spec.toOverrides === undefined ? [] : (spec.toOverrides as (value: unknown) => string[])(value);
  });
}

/** The `+config_paths=[...]` tokens merged into one list, first, in order (upstream does the same). */
export function mergeConfigPaths(overrides: readonly string[]): string[] {
  const configPaths: string[] = [];
  const rest: string[] = [];
  for (const override of overrides) {
    const paths = /^\+config_paths=\[(.*)\]$/.exec(override)?.[1];
    if (paths === undefined) rest.push(override);
    else configPaths.push(...paths.split(',').filter((path) => path !== ''));
  }
  return configPaths.length > 0 ? [`+config_paths=[${configPaths.join(',')}]`, ...rest] : rest;
}

/** Where each named asset's config lives, as upstream: `name` or `name/flavor`. */
const ASSETS = {
  environment: { parent: 'environments', configs: '', defaultFlavor: 'config' },
  'resources-server': { parent: 'resources_servers', configs: 'configs', defaultFlavor: undefined },
  'model-type': { parent: 'responses_api_models', configs: 'configs', defaultFlavor: undefined },
  'agent-type': { parent: 'responses_api_agents', configs: 'configs', defaultFlavor: undefined },
} as const;

export type AssetKind = keyof typeof ASSETS;

/** The config file a `--<kind> NAME` selector loads, searched in the working directory, then ngym's own folders. */
export function assetConfigPath(kind: AssetKind, value: string, cwd = process.cwd()): string {
  const { parent, configs, defaultFlavor } = ASSETS[kind];
  const [name = '', flavor] = value.split('/', 2);
  const relative = join(parent, name, configs, `${flavor ?? defaultFlavor ?? name}.yaml`);
  const own = defaultSearchRoots(cwd);
  const found = own.map((root) => join(root, relative)).find(existsSync);
  if (found !== undefined) {
    checkPackagedPath(found, cwd);
    return found;
  }
  // Then an installed upstream NeMo Gym's (src/config/upstream-roots.ts): its environments run Python-hosted.
  const roots = [...own, ...upstreamRoots({}, cwd)];
  for (const root of roots) if (existsSync(join(root, relative))) return join(root, relative);
  const names = roots.flatMap((root) => (existsSync(join(root, parent)) ? readdirSync(join(root, parent)) : []));
  const hint = didYouMean(name, names);
  const upstreamHint = roots.length > own.length ? '' : ' (no upstream NeMo Gym found either: install nemo-gym in ./.venv or the python3 on PATH, or set +python_server_roots=[<folder holding nemo_gym>])';
  throw new NgymError('NGYM_USAGE', `--${kind} ${value}: no config ${relative} in ${roots.join(' or ')}${hint}${upstreamHint}.`);
}

function assetFlag(kind: AssetKind, repeatable: boolean): FlagSpec {
  return {
    flags: `--${kind} <name>`,
    description: `Load the named ${kind} config (${ASSETS[kind].parent}/<name>/${ASSETS[kind].configs ? `${ASSETS[kind].configs}/<name>` : 'config'}.yaml).${repeatable ? ' Repeatable.' : ''}`,
    repeatable,
    toOverrides: (value: string | string[]) => [`+config_paths=[${(Array.isArray(value) ? value : [value]).map((name) => assetConfigPath(kind, name)).join(',')}]`],
  };
}

export const CONFIG: FlagSpec = {
  flags: '--config <path>',
  description: 'Config file to load; repeatable. Maps to +config_paths=[...].',
  repeatable: true,
  toOverrides: (value: string[]) => [`+config_paths=[${value.join(',')}]`],
};
export const ENVIRONMENT = assetFlag('environment', true);
export const RESOURCES_SERVER_CONFIG = assetFlag('resources-server', true);
export const MODEL_TYPE = assetFlag('model-type', false);
const AGENT_TYPE = assetFlag('agent-type', false);
export const MODEL_FLAGS: FlagSpec[] = [
  valueFlag('-m, --model <name>', 'policy_model_name', 'Model name, HF id, or local checkpoint path.'),
  valueFlag('--model-url <url>', 'policy_base_url', 'Model server base URL.'),
  valueFlag('--model-api-key <key>', 'policy_api_key', 'Model server API key.'),
];
/** `--resources-server NAME` where it names a server folder (env test, env init, env packages). */
export const RESOURCES_SERVER_FOLDER: FlagSpec = {
  flags: '--resources-server <name>',
  description: 'Name of the resources server.',
  toOverrides: (value: string) => [`+entrypoint=resources_servers/${value}`],
};
export const JSON_OUTPUT = boolFlag('--json', 'json', 'Output as machine-readable JSON.');
/** The rollout health check after collecting or aggregating (`gym eval health-check` runs it alone). */
export const HEALTH_CHECK_FLAGS: FlagSpec[] = [
  { flags: '--no-health-check', description: 'Skip the rollout health checks of the output.', toOverrides: (value: boolean) => (value === false ? ['+disable_health_check=true'] : []) },
  ownFlag('--health-check-workers <n>', 'Accepted (ngym checks in one streaming pass).'),
  valueFlag('--health-check-ignore <checks>', 'health_check_ignored_checks', 'Comma-separated health check ids to leave out.'),
];
export const SEARCH_DIR: FlagSpec = {
  flags: '--search-dir <path>',
  description: 'Also look for components here, first; repeatable (ngym: benchmarks; the working directory and the ngym package are always searched).',
  repeatable: true,
};
/** `--benchmark NAME`: read by the commands that load benchmarks (src/cli/gym/benchmark.ts), which need the other flags to find it. */
export const BENCHMARK: FlagSpec = {
  flags: '--benchmark <name>',
  description: 'Load the named benchmark config (benchmarks/<name>/config.yaml of an installed NeMo Gym; `gym list benchmarks`). Repeatable.',
  repeatable: true,
};
/** The flags that compose a gym (env start, env prefetch, env validate, eval run). */
export const SERVER_SELECTION: FlagSpec[] = [
  CONFIG,
  BENCHMARK,
  ENVIRONMENT,
  RESOURCES_SERVER_CONFIG,
  MODEL_TYPE,
  AGENT_TYPE,
  ownFlag('--allow-unsupported-pairing', 'Accepted for upstream compatibility (ngym does not check agent/environment pairings).'),
  SEARCH_DIR,
];
