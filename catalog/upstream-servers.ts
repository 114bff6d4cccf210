/**
 * Upstream NeMo Gym 0.7.0's servers as its wheel ships them, and for each resources server what a run against its
 * own recording needs: its config, the agent instance pointing at it, the agent's example dataset, the recording,
 * and the model servers (judges, user simulators) the config names besides the policy model.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

export type ServerKind = 'resources_servers' | 'responses_api_agents' | 'responses_api_models' | 'environment_servers';
export const SERVER_KINDS: readonly ServerKind[] = ['resources_servers', 'responses_api_agents', 'responses_api_models', 'environment_servers'];

/** The policy model's instance name in upstream's configs (and replay_model's config). */
export const POLICY_MODEL = 'policy_model';

type ConfigTree = Record<string, unknown>;

/**
 * The server folders of a kind, by upstream 0.7.0's own discovery rules (nemo_gym's registries): a resources server
 * is a folder with a `configs/*.yaml` declaring a `resources_servers` block (so gymnasium, entrypoint base.py, and
 * sec_local_index, local_edgar_search.py, count); an agent a folder with an `app.py` or a config declaring a
 * `responses_api_agents` block; a model server a folder with a config. Environment servers have no registry
 * upstream: a folder with an `app.py`.
 */
export function serverFolders(sitePackages: string, kind: ServerKind): string[] {
  const root = join(sitePackages, kind);
  if (!existsSync(root)) return [];
  const declares = (folder: string, block: ServerKind) => configFiles(folder).some((file) => instancesOf(readConfig(file) ?? {}).some((instance) => instance.kind === block));
  const isServer = (folder: string): boolean => {
    if (kind === 'resources_servers') return declares(folder, 'resources_servers');
    if (kind === 'responses_api_agents') return existsSync(join(folder, 'app.py')) || declares(folder, 'responses_api_agents');
    if (kind === 'responses_api_models') return configFiles(folder).length > 0;
    return existsSync(join(folder, 'app.py'));
  };
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== '__pycache__' && isServer(join(root, entry.name)))
    .map((entry) => entry.name)
    .sort();
}

function configFiles(folder: string): string[] {
  const configs = join(folder, 'configs');
  if (!existsSync(configs)) return [];
  return readdirSync(configs)
    .filter((file) => file.endsWith('.yaml') || file.endsWith('.yml'))
    .sort()
    .map((file) => join(configs, file));
}

export function readConfig(file: string): ConfigTree | undefined {
  try {
    const tree = parse(readFileSync(file, 'utf8')) as unknown;
    return isTree(tree) ? tree : undefined;
  } catch {
    return undefined;
  }
}

function isTree(value: unknown): value is ConfigTree {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One server instance of a config: `<instance>: {<kind>: {<impl>: {...}}}`. */
export interface ConfigInstance {
  name: string;
  kind: ServerKind;
  impl: string;
  body: ConfigTree;
}

export function instancesOf(config: ConfigTree): ConfigInstance[] {
  const instances: ConfigInstance[] = [];
  for (const [name, value] of Object.entries(config)) {
    if (!isTree(value)) continue;
    for (const kind of SERVER_KINDS) {
      const implementations = value[kind];
      if (!isTree(implementations)) continue;
      for (const [impl, body] of Object.entries(implementations)) if (isTree(body)) instances.push({ name, kind, impl, body });
    }
  }
  return instances;
}

/** Names of the model servers a config refers to (`{type: responses_api_models, name: ...}` anywhere). */
export function modelReferences(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) modelReferences(item, found);
  else if (isTree(value)) {
    if (value.type === 'responses_api_models' && typeof value.name === 'string') found.add(value.name);
    for (const item of Object.values(value)) modelReferences(item, found);
  }
  return found;
}

export interface ResourcesServerPlan {
  name: string;
  folder: string;
  config?: string;
  resourcesInstance?: string;
  agentInstance?: string;
  agentImpl?: string;
  examplePath: string;
  recordingPath: string;
  /** Model server instances other than the policy model that the config names (judges, user simulators). */
  otherModels: string[];
  /** Model servers the resources server itself calls (a judge; may be the policy model). */
  verifierModels: string[];
  /** Configs of the servers the chosen config's usage line says to start with it. */
  companionConfigs: string[];
  /** The config that defines the agent when it is not the server's own (an agent's or a benchmark's). */
  agentConfig?: string;
  /** `+key=value` overrides the run needs (filling an agent config's `???` with this server). */
  overrides: string[];
  /** Why no run can be planned (no config naming an agent for this server, ...). */
  problem?: string;
}

interface Candidate {
  config: string;
  resources: ConfigInstance;
  agent: ConfigInstance;
  example: string | undefined;
  /** A config besides the server's own that defines the agent (an agent's or a benchmark's). */
  agentConfig?: string;
  /** `+key=value` filling the agent's `resources_server: {name: ???}` with this server (its `allowed_agents`). */
  fill?: string;
}

function exampleDatasetOf(agent: ConfigInstance): string | undefined {
  const datasets = agent.body.datasets;
  if (!Array.isArray(datasets)) return undefined;
  const example = datasets.find((dataset) => isTree(dataset) && dataset.type === 'example') as ConfigTree | undefined;
  return typeof example?.jsonl_fpath === 'string' ? example.jsonl_fpath : undefined;
}
function agentRefOfExamples(examplePath: string): string | undefined {
  if (!existsSync(examplePath)) return undefined;
  for (const line of readFileSync(examplePath, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      const name = (JSON.parse(line) as { agent_ref?: { name?: unknown } }).agent_ref?.name;
      if (typeof name === 'string') return name;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** The YAML files that can name an agent for a resources server besides its own: agents' configs and benchmarks'. */
function otherConfigFiles(sitePackages: string): string[] {
  const files: string[] = [];
  const agents = join(sitePackages, 'responses_api_agents');
  if (existsSync(agents)) for (const agent of readdirSync(agents).sort()) files.push(...configFiles(join(agents, agent)));
  const benchmarks = join(sitePackages, 'benchmarks');
  if (existsSync(benchmarks)) {
    for (const benchmark of readdirSync(benchmarks).sort()) {
      const folder = join(benchmarks, benchmark);
      if (!existsSync(folder) || !statSync(folder).isDirectory()) continue;
      files.push(...readdirSync(folder).filter((file) => /\.ya?ml$/.test(file) && file !== 'manifest.yaml').sort().map((file) => join(folder, file)), ...configFiles(folder));
    }
  }
  return files;
}

/** The agent instance a config's resources server reference names (`resources_server: {name: ...}`). */
function referencedServer(agent: ConfigInstance): string | undefined {
  const target = agent.body.resources_server;
  return isTree(target) && typeof target.name === 'string' ? target.name : undefined;
}

/**
 * The config to run a resources server with, and the agent: every config that can name an agent for it is read:
 * its own configs (an agent whose `resources_server` is its instance, or the agent its example rows' `agent_ref`
 * names), the agents' configs under responses_api_agents/\*\/configs/ and the benchmarks' configs (an agent whose
 * `resources_server` is one of its instances), and the agents its `allowed_agents` lists (their configs' `???`
 * filled with it). The agent the example rows name wins, then one in its own config, then one whose example dataset
 * is this folder's `data/example.jsonl`.
 */
export function planResourcesServer(sitePackages: string, name: string): ResourcesServerPlan {
  const folder = join(sitePackages, 'resources_servers', name);
  const examplePath = join(folder, 'data', 'example.jsonl');
  const recordingPath = join(folder, 'data', 'example_rollouts.jsonl');
  const plan: ResourcesServerPlan = { name, folder, examplePath, recordingPath, otherModels: [], verifierModels: [], companionConfigs: [], overrides: [] };
  const files = configFiles(folder);
  const exampleAgent = agentRefOfExamples(examplePath);
  const candidates: Candidate[] = [];
  const ownResources: { config: string; instance: ConfigInstance }[] = [];
  for (const file of files) {
    const instances = instancesOf(readConfig(file) ?? {});
    for (const resources of instances.filter((instance) => instance.kind === 'resources_servers' && instance.impl === name)) {
      ownResources.push({ config: file, instance: resources });
      for (const agent of instances.filter((instance) => instance.kind === 'responses_api_agents')) {
        if (referencedServer(agent) === resources.name || (agent.name === exampleAgent && referencedServer(agent) === undefined)) {
          candidates.push({ config: file, resources, agent, example: exampleDatasetOf(agent) });
        }
      }
    }
  }
  const byInstance = new Map(ownResources.map((entry) => [entry.instance.name, entry]));
  for (const file of otherConfigFiles(sitePackages)) {
    for (const agent of instancesOf(readConfig(file) ?? {}).filter((instance) => instance.kind === 'responses_api_agents')) {
      const own = byInstance.get(referencedServer(agent) ?? '');
      if (own !== undefined) candidates.push({ config: own.config, resources: own.instance, agent, example: exampleDatasetOf(agent), agentConfig: file });
    }
  }
  for (const own of ownResources) {
    const allowed = own.instance.body.allowed_agents;
    for (const impl of Array.isArray(allowed) ? allowed.filter((item): item is string => typeof item === 'string') : []) {
      for (const file of configFiles(join(sitePackages, 'responses_api_agents', impl))) {
        for (const agent of instancesOf(readConfig(file) ?? {}).filter((instance) => instance.kind === 'responses_api_agents' && instance.impl === impl && referencedServer(instance) === '???')) {
          candidates.push({ config: own.config, resources: own.instance, agent, example: exampleDatasetOf(agent), agentConfig: file, fill: `+${agent.name}.responses_api_agents.${impl}.resources_server.name=${own.instance.name}` });
        }
      }
    }
  }
  const ownNamed = (candidate: Candidate) => candidate.config.endsWith(`/${name}.yaml`) || candidate.config.endsWith(`/${name}.yml`);
  const score = (candidate: Candidate) =>
    (candidate.agent.name === exampleAgent ? 16 : 0) +
    (candidate.agentConfig === undefined ? 8 : 0) +
    (ownNamed(candidate) ? 4 : 0) +
    (candidate.example?.endsWith(`${name}/data/example.jsonl`) ? 2 : 0) +
    (candidate.example !== undefined ? 1 : 0);
  const chosen = candidates.sort((a, b) => score(b) - score(a))[0];
  if (chosen === undefined) {
    plan.problem =
      files.length === 0
        ? 'no config in its configs/ folder'
        : ownResources.length === 0
          ? `none of its configs (${files.map((file) => file.slice(folder.length + 1)).join(', ')}) declares a resources server of it`
          : `no config names an agent for it (read: its configs ${files.map((file) => file.slice(folder.length + 1)).join(', ')}, the agents' configs under responses_api_agents/*/configs/, benchmarks/*/, and its allowed_agents)`;
    return plan;
  }
  plan.config = chosen.config;
  plan.resourcesInstance = chosen.resources.name;
  plan.agentInstance = chosen.agent.name;
  plan.agentImpl = chosen.agent.impl;
  if (chosen.agentConfig !== undefined) plan.agentConfig = chosen.agentConfig;
  if (chosen.fill !== undefined) plan.overrides.push(chosen.fill);
  const trees = [chosen.config, ...(chosen.agentConfig === undefined ? [] : [chosen.agentConfig])].map((file) => readConfig(file) ?? {});
  // A name that is not a key (`???`, an interpolation) is for the user to fill in: nothing to stand in for.
  plan.otherModels = [...new Set(trees.flatMap((tree) => [...modelReferences(tree)]))].filter((model) => model !== POLICY_MODEL && /^[A-Za-z0-9_-]+$/.test(model)).sort();
  plan.verifierModels = [...modelReferences(chosen.resources.body)].sort();
  plan.companionConfigs = [...(chosen.agentConfig === undefined ? [] : [chosen.agentConfig]), ...companionConfigs(sitePackages, chosen.config, name)];
  return plan;
}

/**
 * The own-named configs of the other resources servers a config's usage comment starts with it
 * (ns_tools: `gym env start --resources-server ns_tools --resources-server math_with_judge`), as a user following it would.
 */
export function companionConfigs(sitePackages: string, configFile: string, name: string): string[] {
  const comments = readFileSync(configFile, 'utf8')
    .split('\n')
    .filter((line) => line.trimStart().startsWith('#'))
    .join('\n');
  const names = [...comments.matchAll(/--resources-server[ =]([A-Za-z0-9_]+)(?![\w/])/g)].map((match) => match[1] as string).filter((other) => other !== name);
  return [...new Set(names)].map((other) => join(sitePackages, 'resources_servers', other, 'configs', `${other}.yaml`)).filter((file) => existsSync(file));
}

/** The config files of an agent, model server or environment server folder, its own-named one first. */
export function ownConfigFirst(sitePackages: string, kind: ServerKind, name: string): string[] {
  const files = configFiles(join(sitePackages, kind, name));
  return [...files.filter((file) => file.endsWith(`/${name}.yaml`)), ...files.filter((file) => !file.endsWith(`/${name}.yaml`))];
}

/** A config file and those its `config_paths` name (relative to site-packages), each once. */
function withIncludedConfigs(sitePackages: string, files: readonly string[]): string[] {
  const seen: string[] = [];
  const visit = (file: string) => {
    if (seen.includes(file) || !existsSync(file)) return;
    seen.push(file);
    const included = readConfig(file)?.config_paths;
    for (const path of Array.isArray(included) ? included : []) if (typeof path === 'string') visit(path.startsWith('/') ? path : join(sitePackages, path));
  };
  for (const file of files) visit(file);
  return seen;
}

/**
 * The sandbox provider a run's configs set for its servers (upstream 0.7.0's `sandbox_provider`): an inline provider
 * (`{opensandbox: {connection: {domain: ...}}}`), or the name of a top-level block a provider's own config defines
 * (`sandbox`, from nemo_gym/sandbox/providers/<provider>/configs/), as a phrase naming it; undefined when none does.
 */
export function sandboxProviderOf(sitePackages: string, files: readonly string[]): string | undefined {
  for (const file of withIncludedConfigs(sitePackages, files)) {
    const found = findKey(readConfig(file) ?? {}, 'sandbox_provider');
    if (typeof found === 'string' && found !== '') {
      const where = file.replace(`${sitePackages}/`, '');
      if (/^\$\{/.test(found)) return `a sandbox provider (${where} sets sandbox_provider: ${found})`;
      return `a sandbox provider: ${where} sets sandbox_provider: ${found}, the name of a top-level block that a provider's config defines (nemo_gym/sandbox/providers/<provider>/configs/: opensandbox, docker, apptainer, enroot, daytona, e2b, ...), and none is included`;
    }
    if (isTree(found)) {
      const [provider, body] = Object.entries(found)[0] ?? [];
      if (provider === undefined) continue;
      const domain = isTree(body) && isTree(body.connection) ? body.connection.domain : undefined;
      return `an ${provider} server (${file.replace(`${sitePackages}/`, '')} sets sandbox_provider: ${provider}${typeof domain === 'string' ? `, at ${domain}` : ''})`;
    }
  }
  return undefined;
}

function findKey(value: unknown, key: string): unknown {
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = findKey(item, key);
      if (found !== undefined) return found;
    }
  } else if (isTree(value)) {
    if (key in value && value[key] !== null) return value[key];
    for (const item of Object.values(value)) {
      const found = findKey(item, key);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
