/**
 * Upstream NeMo Gym 0.7.0's servers as its wheel ships them, and for each resources server what a run against its
 * own recording needs: its config, the agent instance pointing at it, the agent's example dataset, the recording,
 * and the model servers (judges, user simulators) the config names besides the policy model.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

export type ServerKind = 'resources_servers' | 'responses_api_agents' | 'responses_api_models' | 'environment_servers';
export const SERVER_KINDS: readonly ServerKind[] = ['resources_servers', 'responses_api_agents', 'responses_api_models', 'environment_servers'];

/** The policy model's instance name in upstream's configs (and replay_model's config). */
export const POLICY_MODEL = 'policy_model';

type ConfigTree = Record<string, unknown>;

/** The real server folders of a kind: an `app.py` inside (no `__pycache__`, no shared library folder). */
export function serverFolders(sitePackages: string, kind: ServerKind): string[] {
  const root = join(sitePackages, kind);
  if (!existsSync(root)) return [];
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== '__pycache__' && existsSync(join(root, entry.name, 'app.py')))
    .map((entry) => entry.name)
    .sort();
}

export function configFiles(folder: string): string[] {
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
  /** Why no run can be planned (no config naming an agent for this server, ...). */
  problem?: string;
}

interface Candidate {
  config: string;
  resources: ConfigInstance;
  agent: ConfigInstance;
  example: string | undefined;
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

/**
 * The config to run a resources server with: `configs/<name>.yaml`, else the one config naming an agent that points
 * at this server (preferring one whose example dataset is this folder's `data/example.jsonl`). The agent is the one
 * the example rows name (`agent_ref`), else the one pointing at the server with an example dataset.
 */
export function planResourcesServer(sitePackages: string, name: string): ResourcesServerPlan {
  const folder = join(sitePackages, 'resources_servers', name);
  const examplePath = join(folder, 'data', 'example.jsonl');
  const recordingPath = join(folder, 'data', 'example_rollouts.jsonl');
  const plan: ResourcesServerPlan = { name, folder, examplePath, recordingPath, otherModels: [], verifierModels: [], companionConfigs: [] };
  const own = configFiles(folder).filter((file) => /[/\\]([^/\\]+)\.ya?ml$/.exec(file)?.[1] === name);
  const files = own.length > 0 ? own : configFiles(folder);
  const exampleAgent = agentRefOfExamples(examplePath);
  const candidates: Candidate[] = [];
  for (const file of files) {
    const config = readConfig(file);
    if (config === undefined) continue;
    const instances = instancesOf(config);
    for (const resources of instances.filter((instance) => instance.kind === 'resources_servers' && instance.impl === name)) {
      for (const agent of instances.filter((instance) => instance.kind === 'responses_api_agents')) {
        const target = agent.body.resources_server;
        if (isTree(target) && target.name === resources.name) candidates.push({ config: file, resources, agent, example: exampleDatasetOf(agent) });
      }
    }
  }
  const score = (candidate: Candidate) =>
    (candidate.agent.name === exampleAgent ? 4 : 0) + (candidate.example?.endsWith(`${name}/data/example.jsonl`) ? 2 : 0) + (candidate.example !== undefined ? 1 : 0);
  const chosen = candidates.sort((a, b) => score(b) - score(a))[0];
  if (chosen === undefined) {
    plan.problem = files.length === 0 ? 'no config in its configs/ folder' : `none of its configs (${files.map((file) => file.slice(folder.length + 1)).join(', ')}) names an agent pointing at it`;
    return plan;
  }
  plan.config = chosen.config;
  plan.resourcesInstance = chosen.resources.name;
  plan.agentInstance = chosen.agent.name;
  plan.agentImpl = chosen.agent.impl;
  const config = readConfig(chosen.config) as ConfigTree;
  // A name that is not a key (`???`, an interpolation) is for the user to fill in: nothing to stand in for.
  plan.otherModels = [...modelReferences(config)].filter((model) => model !== POLICY_MODEL && /^[A-Za-z0-9_-]+$/.test(model)).sort();
  plan.verifierModels = [...modelReferences(chosen.resources.body)].sort();
  plan.companionConfigs = companionConfigs(sitePackages, chosen.config, name);
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
