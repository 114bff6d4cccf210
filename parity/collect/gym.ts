/**
 * The gym both collectors collect from in `npm run parity:collect`: one `ngym run` with two agents, `alpha` and
 * `beta` (simple_agent, each over its own equivalence_rule server and behind its own legacy_agent environment
 * server, as upstream's collector wants one per agent), `omega` (collect_parity_agent over collect_parity_judge: a
 * terminal timeout and an invalid judge reply on a first attempt, for the resume cases), and `policy_model`, the
 * deterministic collect_parity_model (parity/collect/servers).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startGymProcess } from '../../src/testing/cli-process.ts';
import { PACKAGE_ROOT } from '../../src/util/package-root.ts';

const AGENTS = ['alpha', 'beta'] as const;
/** The agent of the resume cases, with its own agent and resources server (parity/collect/servers). */
const RESUME_AGENT = 'omega';

/** An agent over its own resources server (`<agent>_env`) and the policy model. */
function agentBlock(implementation: string, agent: string): Record<string, unknown> {
  return {
    responses_api_agents: {
      [implementation]: {
        entrypoint: 'app.ts',
        resources_server: { type: 'resources_servers', name: `${agent}_env` },
        model_server: { type: 'responses_api_models', name: 'policy_model' },
      },
    },
  };
}

function gymConfig(withResumeAgent: boolean): Record<string, unknown> {
  const config: Record<string, unknown> = {
    // The harness's own model server is found in this root after ngym's own folders.
    python_server_roots: [join(PACKAGE_ROOT, 'parity', 'collect', 'servers')],
    policy_model: { responses_api_models: { collect_parity_model: { entrypoint: 'app.ts' } } },
  };
  for (const agent of AGENTS) {
    config[`${agent}_env`] = { resources_servers: { equivalence_rule: { entrypoint: 'app.ts', domain: 'other' } } };
    config[agent] = agentBlock('simple_agent', agent);
  }
  if (withResumeAgent) {
    config[`${RESUME_AGENT}_env`] = { resources_servers: { collect_parity_judge: { entrypoint: 'app.ts', domain: 'other' } } };
    config[RESUME_AGENT] = agentBlock('collect_parity_agent', RESUME_AGENT);
  }
  for (const agent of withResumeAgent ? [...AGENTS, RESUME_AGENT] : AGENTS) {
    // Upstream's collector sends a row to the environment server fronting its agent; ngym's goes to the agent.
    config[`${agent}_environment_server`] = { environment_servers: { legacy_agent: { entrypoint: 'app.ts', agent_server: { type: 'responses_api_agents', name: agent } } } };
  }
  return config;
}

export interface CollectGym {
  headPort: number;
  stop(): Promise<void>;
}

/** `withResumeAgent`: with agent omega too (its three servers start only for the cases that use it). */
export async function startCollectGym(withResumeAgent: boolean): Promise<CollectGym> {
  const path = join(mkdtempSync(join(tmpdir(), 'ngym-parity-collect-')), 'gym.yaml');
  writeFileSync(path, stringify(gymConfig(withResumeAgent)));
  const gym = await startGymProcess([`+config_paths=[${path}]`]);
  return {
    headPort: gym.headPort,
    stop: async () => {
      await gym.stop();
    },
  };
}
