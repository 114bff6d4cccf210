/**
 * `gym list <type> [name]` and `gym search [type] <query>`: the components found in the working directory and
 * in the ngym package (environments/<name>/config.yaml, resources_servers/, responses_api_agents/,
 * responses_api_models/), each with the description and domain its config declares.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { checkPackagedPath, packageOfPath } from '../../config/environment-packages.ts';
import { defaultSearchRoots } from '../../config/server-instances.ts';
import { type ConfigDict, isDict } from '../../config/tree.ts';
import { readYamlConfig } from '../../config/yaml-file.ts';
import { NgymError } from '../../errors.ts';
import { didYouMean } from '../../util/did-you-mean.ts';
import { printBenchmarks } from './benchmark-catalog.ts';
import { type FacetValues, filterByFacets, manifestFacets } from './catalog-facets.ts';

export const COMPONENT_TYPES = ['benchmarks', 'environments', 'agents', 'models', 'resources-servers'] as const;
export type ComponentType = (typeof COMPONENT_TYPES)[number];

interface Component {
  name: string;
  type: ComponentType;
  path: string;
  description: string;
  domain?: string;
  configs: string[];
  datasets: { agent: string; name: string; type: string; jsonl_fpath: string }[];
  /** Where it comes from: `ngym`, `project` (the working directory) or an installed package's `name@version`. */
  source: string;
  /** Why an installed package's component cannot be used (src/config/environment-packages.ts). */
  problem?: string;
  /** An environment's catalog facets, from its manifest.yaml (`gym env init --environment` writes one). */
  modality?: string;
  licensing?: string;
  status?: string;
  lifecycle?: string;
}

const FOLDERS: Record<Exclude<ComponentType, 'benchmarks' | 'environments'>, string> = {
  'resources-servers': 'resources_servers',
  agents: 'responses_api_agents',
  models: 'responses_api_models',
};

/** The description, domain and datasets declared by the servers of a config file (the resources server's first). */
/** A config file with the files it includes (an environment package includes its servers' config); its own keys win. */
export function readWithIncludes(configFile: string, cwd = process.cwd()): ConfigDict {
  const own = readYamlConfig(configFile);
  const included = (Array.isArray(own.config_paths) ? own.config_paths : [])
    .map((path) => defaultSearchRoots(cwd).map((root) => resolve(root, String(path))).find(existsSync))
    .filter((path): path is string => path !== undefined);
  return Object.assign({}, ...included.map((path) => readYamlConfig(path)), own) as ConfigDict;
}

function describe(configFile: string, cwd: string): Pick<Component, 'description' | 'domain' | 'datasets'> {
  const servers: { instance: string; serverType: string; inner: ConfigDict }[] = [];
  for (const [instance, entry] of Object.entries(readWithIncludes(configFile, cwd))) {
    if (!isDict(entry)) continue;
    for (const [serverType, impls] of Object.entries(entry)) {
      if (isDict(impls)) for (const inner of Object.values(impls)) if (isDict(inner)) servers.push({ instance, serverType, inner });
    }
  }
  servers.sort((a, b) => Number(b.serverType === 'resources_servers') - Number(a.serverType === 'resources_servers'));
  const first = (key: string) => servers.map((server) => server.inner[key]).find((value): value is string => typeof value === 'string');
  const datasets = servers.flatMap(({ instance, inner }) =>
    (Array.isArray(inner.datasets) ? (inner.datasets.filter(isDict) as ConfigDict[]) : []).map((dataset) => ({
      agent: instance,
      name: String(dataset.name),
      type: String(dataset.type),
      jsonl_fpath: String(dataset.jsonl_fpath),
    })),
  );
  return { description: first('description') ?? '', domain: first('domain'), datasets };
}

/** Why an installed package's component cannot be used (its own problem, or a second package providing it). */
function packageProblem(path: string, cwd: string): string | undefined {
  try {
    checkPackagedPath(path, cwd);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

function componentsIn(root: string, type: Exclude<ComponentType, 'benchmarks'>, cwd: string): Component[] {
  const folder = type === 'environments' ? 'environments' : FOLDERS[type];
  const directory = join(root, folder);
  if (!existsSync(directory)) return [];
  const out: Component[] = [];
  for (const name of readdirSync(directory).sort()) {
    const path = join(directory, name);
    const configs =
      type === 'environments'
        ? [join(path, 'config.yaml')].filter(existsSync)
        : existsSync(join(path, 'configs')) && existsSync(join(path, 'app.ts'))
          ? readdirSync(join(path, 'configs')).filter((file) => file.endsWith('.yaml')).sort().map((file) => join(path, 'configs', file))
          : [];
    if (configs.length === 0) continue;
    const own = configs.find((file) => file.endsWith(`${name}.yaml`)) ?? (configs[0] as string);
    const owner = packageOfPath(path, cwd);
    const source = owner !== undefined ? `${owner.name}@${owner.version}` : root === resolve(cwd) ? 'project' : 'ngym';
    const problem = owner === undefined ? undefined : packageProblem(path, cwd);
    const facets = type === 'environments' ? manifestFacets(readManifest(join(path, 'manifest.yaml'))) : {};
    out.push({ name, type, path, configs, source, ...(problem === undefined ? describe(own, cwd) : { description: '', datasets: [] }), ...(problem === undefined ? {} : { problem }), ...facets });
  }
  return out;
}

const readManifest = (path: string) => (existsSync(path) ? readYamlConfig(path) : undefined);

/** Every component of a type; a name in the working directory hides the same name in the package. */
function listComponents(type: Exclude<ComponentType, 'benchmarks'>, cwd = process.cwd()): Component[] {
  const seen = new Map<string, Component>();
  for (const root of defaultSearchRoots(cwd)) for (const component of componentsIn(root, type, cwd)) if (!seen.has(component.name)) seen.set(component.name, component);
  return [...seen.values()];
}

function matches(component: Component, query: string): boolean {
  const needle = query.toLowerCase();
  return [component.name, component.description, component.domain ?? ''].some((text) => text.toLowerCase().includes(needle));
}

function printTable(components: Component[], write: (text: string) => void): void {
  const width = Math.max(4, ...components.map((component) => component.name.length));
  const domainWidth = Math.max(6, ...components.map((component) => (component.domain ?? '').length));
  const sourceWidth = Math.max(4, ...components.map((component) => component.source.length));
  write(`${'name'.padEnd(width)}  ${'domain'.padEnd(domainWidth)}  ${'from'.padEnd(sourceWidth)}  description\n`);
  for (const component of components) {
    write(`${component.name.padEnd(width)}  ${(component.domain ?? '').padEnd(domainWidth)}  ${component.source.padEnd(sourceWidth)}  ${component.problem === undefined ? component.description : `UNUSABLE: ${component.problem}`}\n`);
  }
}

function printDetail(component: Component, cwd: string, write: (text: string) => void): void {
  write(`${component.name} (${component.type})\n  from: ${component.source}\n  path: ${relative(cwd, component.path) || '.'}\n`);
  if (component.problem !== undefined) write(`  unusable: ${component.problem}\n`);
  if (component.domain) write(`  domain: ${component.domain}\n`);
  if (component.description) write(`  description: ${component.description}\n`);
  write(`  configs:\n${component.configs.map((file) => `    - ${relative(cwd, file)}\n`).join('')}`);
  if (component.datasets.length > 0) {
    write(`  datasets:\n${component.datasets.map((dataset) => `    - ${dataset.agent}: ${dataset.name} (${dataset.type}) ${dataset.jsonl_fpath}\n`).join('')}`);
  }
}

const serialize = (component: Component, cwd: string) => ({ ...component, path: relative(cwd, component.path), configs: component.configs.map((file) => relative(cwd, file)) });

export interface CatalogRequest {
  type: ComponentType;
  name?: string;
  query?: string;
  domain?: string;
  json: boolean;
  /** `--search-dir` folders (benchmarks are looked for there first). */
  searchDirs?: string[];
  /** Upstream's manifest facets to match (environments and benchmarks). */
  facets?: FacetValues;
}

/** Prints a listing, one component, or the matches of a query; resolves to the exit code. */
export function printCatalog(request: CatalogRequest, write: (text: string) => void = (text) => process.stdout.write(text), cwd = process.cwd()): number {
  if (request.type === 'benchmarks') return printBenchmarks(request, write, cwd);
  const all = listComponents(request.type, cwd);
  if (request.name !== undefined) {
    const component = all.find((candidate) => candidate.name === request.name);
    if (component === undefined) {
      throw new NgymError('NGYM_USAGE', `No ${request.type.replace(/s$/, '')} named '${request.name}'${didYouMean(request.name, all.map((candidate) => candidate.name))}. Run \`gym list ${request.type}\` for the list.`);
    }
    if (request.json) write(`${JSON.stringify(serialize(component, cwd), null, 2)}\n`);
    else printDetail(component, cwd, write);
    return 0;
  }
  const shown = filterByFacets(
    all.filter((component) => (request.query === undefined || matches(component, request.query)) && (request.domain === undefined || component.domain === request.domain)),
    request.facets ?? {},
  );
  if (request.json) {
    write(`${JSON.stringify(shown.map((component) => serialize(component, cwd)), null, 2)}\n`);
  } else if (shown.length === 0) {
    write(request.query === undefined ? `No ${request.type} found.\n` : `No ${request.type} match '${request.query}'.\n`);
  } else {
    printTable(shown, write);
  }
  return 0;
}
