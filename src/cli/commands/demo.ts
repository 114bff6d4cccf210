/**
 * `ngym demo`: the whole system, offline. Starts the head server, the three example environments,
 * simple_agent and replay_model (which replays recorded model outputs), collects rollouts for each
 * environment's example tasks, prints the metrics and stops everything.
 */
import { join, resolve } from 'node:path';
import * as z from 'zod';
import { ServerClient } from '../../client/server-client.ts';
import { loadGlobalConfig } from '../../config/global-config.ts';
import { collectRollouts } from '../../rollouts/collect.ts';
import { createProgressReporter } from '../../rollouts/progress.ts';
import { launch } from '../../gym/launcher.ts';
import { PACKAGE_ROOT } from '../../util/package-root.ts';
import { NgymError } from '../../errors.ts';
import { type CliCommand, readParameters } from '../command.ts';
import { printInstancesTable } from '../output.ts';

export const DEMO_ENVIRONMENTS = [
  { env: 'example_single_tool_call', agent: 'example_single_tool_call_simple_agent' },
  { env: 'example_multi_step', agent: 'example_multi_step_simple_agent' },
  { env: 'example_session_state_mgmt', agent: 'example_session_state_mgmt_simple_agent' },
] as const;

const Parameters = z.object({ output_dirpath: z.string().min(1).default('results/demo').describe('Where the rollouts are written.') });

function demoOverrides(): string[] {
  const configPaths = [
    ...DEMO_ENVIRONMENTS.map(({ env }) => `resources_servers/${env}/configs/${env}.yaml`),
    'responses_api_models/replay_model/configs/replay_model.yaml',
  ];
  const recordings = DEMO_ENVIRONMENTS.map(({ env }) => join(PACKAGE_ROOT, 'resources_servers', env, 'data', 'example_rollouts.jsonl'));
  return [
    `+config_paths=[${configPaths.join(',')}]`,
    `+policy_model.responses_api_models.replay_model.rollouts_jsonl_fpath=[${recordings.map((path) => `'${path}'`).join(',')}]`,
    '+policy_model.responses_api_models.replay_model.strict=true',
    '++head_server={host: 127.0.0.1, port: 0}',
  ];
}

export const demoCommand: CliCommand = {
  name: 'demo',
  summary: 'Run the whole system offline: start servers, collect scored rollouts of the example environments, stop.',
  description: `
No model is called: replay_model replays model outputs recorded in each environment's
data/example_rollouts.jsonl, while the environments, tools, sessions and verification run for real.

To use a real model instead, write env.yaml at the project root:
  policy_base_url: https://api.openai.com/v1
  policy_api_key: sk-...
  policy_model_name: gpt-4.1-mini
then start the servers and collect:
  ngym run "+config_paths=[resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml,responses_api_models/openai_model/configs/openai_model.yaml]"
  ngym collect +agent_name=example_single_tool_call_simple_agent +input_jsonl_fpath=resources_servers/example_single_tool_call/data/example.jsonl +output_jsonl_fpath=results/rollouts.jsonl`,
  parameters: Parameters,
  async run(args) {
    const parameterConfig = loadGlobalConfig({ overrides: args, envYamlPath: null });
    const { output_dirpath: outputDir } = readParameters(parameterConfig, Parameters);
    process.stdout.write('ngym demo: replaying recorded model outputs (replay_model); no LLM is called.\n');
    const globalConfig = loadGlobalConfig({ overrides: demoOverrides(), cwd: PACKAGE_ROOT, envYamlPath: null });
    const gym = await launch({ globalConfig, output: () => {} });
    try {
      printInstancesTable(gym.headUrl, gym.instances);
      const client = new ServerClient(globalConfig);
      const summaries = [];
      for (const { env, agent } of DEMO_ENVIRONMENTS) {
        const outputPath = resolve(outputDir, `${env}_rollouts.jsonl`);
        const summary = await collectRollouts({
          client,
          agentName: agent,
          input: join(PACKAGE_ROOT, 'resources_servers', env, 'data', 'example.jsonl'),
          outputPath,
          overwrite: true,
          progress: createProgressReporter(`Collecting ${env}`, { intervalMs: 60_000 }),
        }).done();
        if (summary.failed > 0 || summary.invalidInputs.length > 0) {
          throw new NgymError('NGYM_ROLLOUT_FAILED', `The demo's ${env} rollouts failed; see ${summary.paths?.failures}.`);
        }
        summaries.push({ env, outputPath, rollouts: summary.completed, metrics: summary.metrics.metrics });
      }
      process.stdout.write('\nResults\n');
      for (const summary of summaries) {
        const metrics = Object.entries(summary.metrics).map(([key, value]) => `${key}=${Number(value.toFixed(4))}`).join(' ');
        process.stdout.write(`  ${summary.env}: ${summary.rollouts} rollouts, ${metrics}\n    written to ${summary.outputPath}\n`);
      }
      process.stdout.write(
        '\nThese rollouts replay recorded model outputs. To use a real model, put policy_base_url, policy_api_key and\n' +
          'policy_model_name in env.yaml and use responses_api_models/openai_model/configs/openai_model.yaml (see `ngym demo --help`).\n',
      );
      return 0;
    } finally {
      await gym.stop();
    }
  },
};
