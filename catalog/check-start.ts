/**
 * Whether an upstream agent, model server or environment server starts under `ngym run` with its own config (the
 * first of its configs/, its own-named one first), replay_model standing in for the models it names; or why not.
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { PACKAGE_ROOT } from '../src/util/package-root.ts';
import { type RunOptions, type ServerResult, venvFolderOf } from './check-resources-server.ts';
import { startGym } from './gym-session.ts';
import { startFailureReason } from './reasons.ts';
import { replayArguments } from './replay-setup.ts';
import { instancesOf, modelReferences, ownConfigFirst, POLICY_MODEL, readConfig, type ServerKind } from './upstream-servers.ts';

/** The values upstream's model server configs interpolate (`${policy_base_url}`, ...): where a model would be. */
const PLACEHOLDER_ENDPOINT = ['+policy_base_url=http://127.0.0.1:1/v1', '+policy_api_key=catalog', '+policy_model_name=catalog'];

const DOCKER_PROVIDER_CONFIG = (sitePackages: string) => join(sitePackages, 'nemo_gym', 'sandbox', 'providers', 'docker', 'configs', 'docker.yaml');

interface TemplateHole {
  path: string[];
  kind: 'resources_server' | 'agent_server';
}

/** `???` where a config names the resources server or agent it serves. */
function templateHoles(value: unknown, path: string[] = []): TemplateHole[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  const holes: TemplateHole[] = [];
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    const reference = child as Record<string, unknown> | null;
    if ((key === 'resources_server' || key === 'agent_server') && typeof reference === 'object' && reference !== null && reference.name === '???') {
      holes.push({ path: [...path, key, 'name'], kind: key });
    } else holes.push(...templateHoles(child, [...path, key]));
  }
  return holes;
}

/** The `sandbox_provider: <name>` references of a config whose `<name>` block it does not define itself. */
function unboundSandboxProviders(tree: Record<string, unknown>): string[] {
  const names = new Set<string>();
  const visit = (value: unknown): void => {
    if (typeof value !== 'object' || value === null) return;
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      if (key === 'sandbox_provider' && typeof child === 'string') names.add(child);
      else visit(child);
    }
  };
  visit(tree);
  return [...names].filter((name) => !(name in tree));
}

export async function checkStart(kind: Exclude<ServerKind, 'resources_servers'>, name: string, replayFile: string, options: RunOptions): Promise<ServerResult> {
  const { sitePackages, workFolder } = options;
  rmSync(workFolder, { recursive: true, force: true });
  mkdirSync(workFolder, { recursive: true });
  const logPath = join(workFolder, 'ngym.log');
  const log = relative(PACKAGE_ROOT, logPath);
  const result: ServerResult = { name, kind, status: 'failed', log };
  const config = ownConfigFirst(sitePackages, kind, name)[0];
  const tree = config === undefined ? undefined : readConfig(config);
  if (config === undefined || tree === undefined) {
    result.reason = { category: 'no-config', text: config === undefined ? 'no config in its configs/ folder' : `${relative(sitePackages, config)} is not a YAML mapping` };
    return result;
  }
  result.config = relative(sitePackages, config);
  const instances = instancesOf(tree);
  const own = instances.find((instance) => instance.kind === kind && instance.impl === name);
  if (options.cold) rmSync(venvFolderOf(kind, name), { recursive: true, force: true });
  // An agent's or environment server's config is a template: the resources server (or agent) it serves is `???`.
  // It is given upstream's example_single_tool_call, whose config comes along.
  const companion = join(sitePackages, 'resources_servers', 'example_single_tool_call', 'configs', 'example_single_tool_call.yaml');
  const holes = templateHoles(tree);
  const fill = holes.map((hole) => `+${hole.path.join('.')}=${hole.kind === 'resources_server' ? 'example_single_tool_call' : 'example_single_tool_call_simple_agent'}`);
  const endpoint = kind === 'responses_api_models' ? PLACEHOLDER_ENDPOINT : [];
  if (holes.length > 0 || endpoint.length > 0) result.note = [holes.length > 0 ? "example_single_tool_call's resources server as the one it serves" : '', endpoint.length > 0 ? 'a placeholder endpoint (127.0.0.1:1)' : ''].filter(Boolean).join('; ');
  const args = replayArguments({
    config,
    // A model server's config defines `policy_model` itself: that is the server checked.
    replayPolicy: !(POLICY_MODEL in tree),
    policyRecordings: [replayFile],
    otherModels: [...modelReferences(tree)]
      .filter((model) => model !== POLICY_MODEL && /^[A-Za-z0-9_-]+$/.test(model) && !instances.some((instance) => instance.name === model && instance.kind === kind))
      .sort(),
    otherRecordings: [replayFile],
    workFolder,
  });
  if (holes.length > 0) args[0] = (args[0] as string).replace('+config_paths=[', `+config_paths=[${companion},`);
  // A sandboxed agent names the provider block (`sandbox`) that upstream's provider configs define: it comes with
  // upstream's docker provider config, unchanged, as upstream's own docs run it (ngym's engine serves it).
  if (unboundSandboxProviders(tree).includes('sandbox')) {
    args[0] = (args[0] as string).replace('+config_paths=[', `+config_paths=[${DOCKER_PROVIDER_CONFIG(sitePackages)},`);
    result.note = [result.note, "upstream's docker provider config (nemo_gym/sandbox/providers/docker/configs/docker.yaml)"].filter(Boolean).join('; ');
  }
  const gym = await startGym([...args, ...fill, ...endpoint], { logPath, timeoutMs: options.startTimeoutMs });
  result.builds = Object.fromEntries(gym.builds.map((build) => [build.folder, build.seconds]));
  if (!gym.ready) {
    result.reason = startFailureReason(gym.output, { ending: gym.ending, logPath: log });
    return result;
  }
  try {
    result.status = 'started';
    result.readySeconds = Math.round(gym.readySeconds * 10) / 10;
    result.runs = Object.fromEntries(gym.servers.map((row) => [row.instance, row.runs]));
    const row = gym.servers.find((server) => server.instance === own?.name) ?? gym.servers.find((server) => server.type === kind && server.impl === name);
    if (row !== undefined) result.hosting = row.runs === 'TypeScript' ? 'TypeScript' : 'Python';
    if (result.hosting === 'Python') result.environment = existsSync(join(venvFolderOf(kind, name), '.venv')) ? 'venv' : 'base';
    return result;
  } finally {
    await gym.stop();
  }
}
