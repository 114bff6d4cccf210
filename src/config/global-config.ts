/**
 * The global config: one dict composed from YAML files, env.yaml, a programmatic initial dict and
 * command-line overrides (lowest to highest precedence, spec gym-core 1.2), which every server and
 * client reads. It is also the registry: servers find each other by instance name in it.
 *
 * A child server process gets the composed dict through `NEMO_GYM_CONFIG_DICT` (YAML) and learns which
 * entry it is from `NEMO_GYM_CONFIG_PATH`, exactly as upstream, so Python NeMo Gym servers can be mixed in.
 */
import { existsSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { isAbsolute, relative, resolve } from 'node:path';
import { ConfigError } from '../errors.ts';
import { applyInheritance } from './inheritance.ts';
import { resolveAt } from './interpolation.ts';
import { parseOverride } from './overrides.ts';
import {
  checkServerReferences,
  configPathOf,
  defaultSearchRoots,
  findServerInstances,
  type ServerInstance,
} from './server-instances.ts';
import { type ConfigDict, ConfigSources, type ConfigValue, getAt, isDict, mergeInto, setAt } from './tree.ts';
import { upstreamRoots } from './upstream-roots.ts';
import { dumpYaml, keyLinesOf, parseYamlConfig, readYamlConfig } from './yaml-file.ts';

export const DEFAULT_HEAD_SERVER_PORT = 11000;
export const CONFIG_DICT_ENV = 'NEMO_GYM_CONFIG_DICT';
export const CONFIG_PATH_ENV = 'NEMO_GYM_CONFIG_PATH';
export const COMMAND_LINE = 'the command line';

export interface LoadConfigOptions {
  /** Hydra-style overrides, e.g. `+config_paths=[a.yaml]`. */
  overrides?: readonly string[];
  /** Programmatic config between env.yaml and the command line (upstream's `initial_global_config_dict`). */
  initialConfig?: ConfigDict;
  cwd?: string;
  /** Path of env.yaml; `null` to read none. Default: the first `env.yaml` over the search roots. */
  envYamlPath?: string | null;
  /** Where relative config paths and server folders are looked up. Default: cwd, then the ngym package. */
  searchRoots?: readonly string[];
  /** Where warnings go (default stderr). */
  warn?: (message: string) => void;
}

export class GlobalConfig {
  constructor(
    readonly dict: ConfigDict,
    readonly sources: ConfigSources,
    readonly servers: ServerInstance[],
    readonly searchRoots: readonly string[],
  ) {}

  get headServer(): { host: string; port: number } {
    const head = this.dict.head_server as ConfigDict;
    return { host: String(head.host), port: Number(head.port) };
  }

  server(name: string): ServerInstance | undefined {
    return this.servers.find((instance) => instance.name === name);
  }

  /** `http://host:port` of an instance, read from the first value at each of two levels, as upstream. */
  serverUrl(name: string): string {
    const instance = this.server(name);
    if (instance === undefined) {
      throw new ConfigError(
        'NGYM_SERVER_NOT_FOUND',
        `No server named '${name}' in the global config. Available: ${this.servers.map((server) => server.name).join(', ') || '(none)'}.`,
        { key: name },
      );
    }
    const host = resolveAt({ root: this.dict, sources: this.sources }, [...configPathOf(instance), 'host']);
    const port = resolveAt({ root: this.dict, sources: this.sources }, [...configPathOf(instance), 'port']);
    return `http://${formatHost(String(host))}:${Number(port)}`;
  }

  /** An instance's inner config with every interpolation resolved, plus its `name`. */
  resolvedServerConfig(name: string): ConfigDict {
    const instance = this.server(name);
    if (instance === undefined) throw new ConfigError('NGYM_SERVER_NOT_FOUND', `No server named '${name}' in the global config.`);
    const resolved = resolveAt({ root: this.dict, sources: this.sources }, configPathOf(instance));
    return { ...(resolved as ConfigDict), name };
  }

  /** A top-level value with interpolations resolved (CLI parameters are top-level keys). */
  resolvedValue(path: readonly string[]): ConfigValue | undefined {
    if (getAt(this.dict, path) === undefined) return undefined;
    return resolveAt({ root: this.dict, sources: this.sources }, path);
  }

  toYaml(): string {
    return dumpYaml(this.dict);
  }
}

export function formatHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

function firstExternalAddress(): string {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) if (address.family === 'IPv4' && !address.internal) return address.address;
  }
  return '127.0.0.1';
}

function displayPath(filePath: string, cwd: string): string {
  const relativePath = relative(cwd, filePath);
  return relativePath.startsWith('..') || isAbsolute(relativePath) ? filePath : relativePath;
}

function findFile(path: string, searchRoots: readonly string[]): string | undefined {
  if (isAbsolute(path)) return existsSync(path) ? path : undefined;
  for (const root of searchRoots) {
    const candidate = resolve(root, path);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

function overridesToDict(overrides: readonly string[]): ConfigDict {
  const dict: ConfigDict = {};
  const seen = new Set<string>();
  for (const text of overrides) {
    const override = parseOverride(text);
    const key = override.path.join('.');
    if (override.operation === 'add' && seen.has(key)) {
      throw new ConfigError('NGYM_CONFIG_OVERRIDE_SYNTAX', `\`${key}\` is given twice on the command line; use \`++${key}=...\` to replace.`, {
        key,
        source: COMMAND_LINE,
      });
    }
    seen.add(key);
    setAt(dict, override.path, override.value);
  }
  return dict;
}

/** Reads `config_paths` (possibly an interpolation into env.yaml) as a list of strings. */
function readConfigPaths(dict: ConfigDict, sources: ConfigSources): string[] {
  if (!('config_paths' in dict) || dict.config_paths === null) return [];
  const value = resolveAt({ root: dict, sources }, ['config_paths']);
  if (typeof value === 'string') return [value];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw new ConfigError('NGYM_CONFIG_INVALID', `${sources.describe(['config_paths'])} must be a list of file paths, e.g. +config_paths=[a.yaml,b.yaml].`, {
      key: 'config_paths',
    });
  }
  return value as string[];
}

/**
 * The order in which config files merge (upstream 0.7.0's `load_extra_config_paths`): a file merges after the files
 * it pulled in, so the including file wins over its includes, and listed files keep their order, each one's includes
 * kept next to it, so a later file and what it pulled in win over an earlier one. A post-order walk of the include tree.
 */
function includeMergeOrder(rootCount: number, includes: readonly (readonly number[])[]): number[] {
  const order: number[] = [];
  const visit = (index: number) => {
    for (const child of includes[index] ?? []) visit(child);
    order.push(index);
  };
  for (let root = 0; root < rootCount; root++) visit(root);
  return order;
}

/** Parses the full config the way `ngym run` and every CLI command do. */
export function loadGlobalConfig(options: LoadConfigOptions = {}): GlobalConfig {
  const cwd = resolve(options.cwd ?? process.cwd());
  const searchRoots = options.searchRoots ?? defaultSearchRoots(cwd);
  const warn = options.warn ?? ((message: string) => process.stderr.write(`${message}\n`));

  const sources = new ConfigSources();
  const commandLine = overridesToDict(options.overrides ?? []);
  const initial = options.initialConfig ?? {};

  const envYamlPath = options.envYamlPath === undefined ? findFile('env.yaml', searchRoots) : (options.envYamlPath ?? undefined);
  const envYaml = envYamlPath !== undefined && existsSync(envYamlPath) ? readYamlConfig(envYamlPath, displayPath(envYamlPath, cwd)) : {};
  const envLabel = envYamlPath === undefined ? 'env.yaml' : displayPath(envYamlPath, cwd);

  // config_paths may interpolate into env.yaml, so it is read from env.yaml + initial + command line first.
  const pathSources = new ConfigSources();
  const forPaths: ConfigDict = {};
  mergeInto(forPaths, envYaml, envLabel, pathSources);
  mergeInto(forPaths, initial, 'the initial config', pathSources);
  mergeInto(forPaths, commandLine, COMMAND_LINE, pathSources);
  const requested = readConfigPaths(forPaths, pathSources);

  // Breadth-first include expansion with de-duplication by exact string: `config_paths` lists files in this order.
  const expanded = [...requested];
  const files: { label: string; dict: ConfigDict }[] = [];
  // The files each file pulled in, by index into `expanded`, in listed order.
  const includes: number[][] = requested.map(() => []);
  const referencedBy = new Map<string, string>(requested.map((path) => [path, COMMAND_LINE]));
  // Then an installed upstream NeMo Gym's folders (asked for only when a path is not ngym's), or those first with prefer_upstream.
  const upstream = () => upstreamRoots(forPaths, cwd);
  const configRoots = () => (forPaths.prefer_upstream === true ? [...upstream(), ...searchRoots] : [...searchRoots, ...upstream()]);
  for (let index = 0; index < expanded.length; index++) {
    const path = expanded[index] as string;
    const found = (forPaths.prefer_upstream === true ? undefined : findFile(path, searchRoots)) ?? findFile(path, configRoots());
    if (found === undefined) {
      throw new ConfigError(
        'NGYM_CONFIG_FILE',
        `Config file not found: ${path} (listed in config_paths by ${referencedBy.get(path)}). Looked in: ${configRoots().join(', ')}.`,
        { key: 'config_paths', source: referencedBy.get(path) },
      );
    }
    const label = displayPath(found, cwd);
    const dict = readYamlConfig(found, label);
    files.push({ label, dict });
    const nested = dict.config_paths;
    if (Array.isArray(nested)) {
      for (const child of nested) {
        if (typeof child === 'string' && !expanded.includes(child)) {
          expanded.push(child);
          includes.push([]);
          includes[index]?.push(expanded.length - 1);
          referencedBy.set(child, label);
        }
      }
    }
  }

  const dict: ConfigDict = {};
  const inMergeOrder = includeMergeOrder(requested.length, includes).map((index) => files[index] as { label: string; dict: ConfigDict });
  for (const file of [...inMergeOrder, { label: envLabel, dict: envYaml }]) {
    mergeInto(dict, file.dict, file.label, sources);
    const lines = keyLinesOf(file.dict);
    if (lines !== undefined) sources.recordLines(file.label, lines);
  }
  mergeInto(dict, initial, 'the initial config', sources);
  mergeInto(dict, commandLine, COMMAND_LINE, sources);
  if (expanded.length > 0) dict.config_paths = expanded;
  applyInheritance(dict, sources);

  return finishGlobalConfig(dict, sources, searchRoots, warn);
}

/** Fills defaults (head server, hosts), finds the servers and checks the references between them. */
function finishGlobalConfig(
  dict: ConfigDict,
  sources: ConfigSources,
  searchRoots: readonly string[],
  warn: (message: string) => void,
): GlobalConfig {
  const resolveTop = (key: string) => (key in dict ? resolveAt({ root: dict, sources }, [key]) : undefined);
  const defaultHost = resolveTop('use_absolute_ip') ? firstExternalAddress() : String(resolveTop('default_host') ?? '127.0.0.1');

  const head = isDict(dict.head_server) ? dict.head_server : {};
  dict.head_server = {
    host: (head.host as ConfigValue) || defaultHost,
    port: head.port === undefined || head.port === null ? DEFAULT_HEAD_SERVER_PORT : head.port,
    ...Object.fromEntries(Object.entries(head).filter(([key]) => key !== 'host' && key !== 'port')),
  };

  const errorOnAlmostServers = resolveTop('error_on_almost_servers');
  const servers = findServerInstances(dict, sources, { errorOnAlmostServers: errorOnAlmostServers !== false, warn });
  checkServerReferences(dict, sources, servers);
  for (const server of servers) {
    if (!server.config.host) server.config.host = defaultHost;
    if (!server.config.port) server.config.port = 0;
  }
  return new GlobalConfig(dict, sources, servers, searchRoots);
}

/** The config a child server process was started with (no further processing, as upstream). */
export function globalConfigFromYaml(yamlText: string, searchRoots: readonly string[] = defaultSearchRoots()): GlobalConfig {
  const dict = parseYamlConfig(yamlText, CONFIG_DICT_ENV);
  const sources = new ConfigSources();
  sources.recordTree([], dict, CONFIG_DICT_ENV);
  const servers = findServerInstances(dict, sources, { errorOnAlmostServers: false, warn: () => {} });
  return new GlobalConfig(dict, sources, servers, searchRoots);
}

/** Builds a GlobalConfig around an already composed dict (tests, the demo, programmatic use). */
export function globalConfigFromDict(dict: ConfigDict, options: { searchRoots?: readonly string[]; label?: string } = {}): GlobalConfig {
  const sources = new ConfigSources();
  sources.recordTree([], dict, options.label ?? 'the initial config');
  return finishGlobalConfig(structuredClone(dict), sources, options.searchRoots ?? defaultSearchRoots(), (message) =>
    process.stderr.write(`${message}\n`),
  );
}
