/**
 * The datasets a composed config declares for `gym eval prepare` and `gym eval run`: every `type: benchmark`
 * dataset (and, for preparing, any other dataset with a `prepare_script`), with the agent that runs its rows.
 * A dataset may sit on an agent (that agent runs it) or on a resources server (the one agent using that server
 * runs it; a dataset's `agent:` key picks one when several do), as upstream's `resolve_dataset_agent`.
 */
import type { GlobalConfig } from '../config/global-config.ts';
import { resolveAt } from '../config/interpolation.ts';
import { configPathOf, type ServerInstance } from '../config/server-instances.ts';
import { isDict } from '../config/tree.ts';
import { NgymError } from '../errors.ts';

export interface DeclaredDataset {
  /** The server instance whose `datasets:` lists it. */
  instance: string;
  /** The agent instance its rows go to. */
  agent: string;
  name: string;
  type: string;
  jsonl_fpath: string;
  prepare_script?: string;
  prompt_config?: string;
  num_repeats: number;
  /** Packages the prepare script needs, installed into its interpreter first. */
  prepare_dependencies: string[];
}

const optionalText = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

function referencedResourcesServer(globalConfig: GlobalConfig, agent: ServerInstance): string | undefined {
  const reference = resolveAt({ root: globalConfig.dict, sources: globalConfig.sources }, [...configPathOf(agent), 'resources_server']);
  return isDict(reference) && typeof reference.name === 'string' ? reference.name : undefined;
}

function agentFor(globalConfig: GlobalConfig, declaring: ServerInstance, dataset: string, pin: string | undefined): string {
  const agents = globalConfig.servers.filter((server) => server.serverType === 'responses_api_agents');
  if (declaring.serverType === 'responses_api_agents') {
    if (pin !== undefined && pin !== declaring.name) {
      throw new NgymError('NGYM_CONFIG_INVALID', `Dataset '${dataset}' of agent '${declaring.name}' pins agent '${pin}': a dataset declared on an agent runs on that agent.`);
    }
    return declaring.name;
  }
  const using = agents.filter((agent) => referencedResourcesServer(globalConfig, agent) === declaring.name).map((agent) => agent.name);
  if (pin !== undefined) {
    if (!using.includes(pin)) throw new NgymError('NGYM_CONFIG_INVALID', `Dataset '${dataset}' of '${declaring.name}' pins agent '${pin}', which does not use that resources server (agents that do: ${using.join(', ') || 'none'}).`);
    return pin;
  }
  if (using.length !== 1) {
    throw new NgymError(
      'NGYM_CONFIG_INVALID',
      `Dataset '${dataset}' is declared on resources server '${declaring.name}', which ${using.length === 0 ? 'no agent uses' : `several agents use (${using.join(', ')}); pin one with the dataset's \`agent:\` key`}.`,
    );
  }
  return using[0] as string;
}

/** The datasets of agents and resources servers that `keep` accepts (by its raw entry), in config order. */
export function declaredDatasets(globalConfig: GlobalConfig, keep: (entry: Record<string, unknown>) => boolean): DeclaredDataset[] {
  const out: DeclaredDataset[] = [];
  for (const instance of globalConfig.servers) {
    if ((instance.serverType !== 'responses_api_agents' && instance.serverType !== 'resources_servers') || !('datasets' in instance.config)) continue;
    const raw = resolveAt({ root: globalConfig.dict, sources: globalConfig.sources }, [...configPathOf(instance), 'datasets']);
    if (!Array.isArray(raw)) continue;
    for (const entry of raw) {
      if (!isDict(entry) || !keep(entry)) continue;
      const name = String(entry.name);
      const numRepeats = entry.num_repeats ?? 1;
      if (typeof numRepeats !== 'number' || !Number.isInteger(numRepeats) || numRepeats < 1) {
        throw new NgymError('NGYM_CONFIG_INVALID', `Dataset '${name}' of '${instance.name}': num_repeats must be an integer >= 1, got ${JSON.stringify(numRepeats)}.`);
      }
      const jsonlPath = optionalText(entry.jsonl_fpath);
      if (jsonlPath === undefined) throw new NgymError('NGYM_CONFIG_INVALID', `Dataset '${name}' of '${instance.name}' has no jsonl_fpath.`);
      const dataset: DeclaredDataset = {
        instance: instance.name,
        agent: agentFor(globalConfig, instance, name, optionalText(entry.agent)),
        name,
        type: String(entry.type),
        jsonl_fpath: jsonlPath,
        num_repeats: numRepeats,
        prepare_dependencies: Array.isArray(entry.prepare_dependencies) ? entry.prepare_dependencies.map(String) : [],
      };
      const prepareScript = optionalText(entry.prepare_script);
      if (prepareScript !== undefined) dataset.prepare_script = prepareScript;
      const promptConfig = optionalText(entry.prompt_config);
      if (promptConfig !== undefined) dataset.prompt_config = promptConfig;
      out.push(dataset);
    }
  }
  return out;
}

export const isBenchmarkDataset = (entry: Record<string, unknown>) => entry.type === 'benchmark';
/** What `gym eval prepare` prepares: benchmark datasets and any other with a prepare script. */
export const isPreparableDataset = (entry: Record<string, unknown>) => entry.type === 'benchmark' || optionalText(entry.prepare_script) !== undefined;
