/**
 * opencode_agent: OpenCode (`opencode run --format json`, the pinned npm package in harness-cli/) as the
 * policy's harness. Each rollout runs the CLI in its own sandbox box on the environment's workspace, with an
 * OpenAI-compatible `nemo` provider pointed at the rollout's model relay (OpenCode calls `/v1/chat/completions`);
 * its JSON events become the response the environment verifies (src/agent/harness/).
 */
import { BOX_CLI_ROOT, defineAgent, type Harness, type HarnessAgentConfig, harnessAgentConfig, harnessState, mergeSettings, NgymError, runHarnessRollout } from 'ngym';
import * as z from 'zod';
import { parseOpencodeEvents } from './run-json.ts';

const config = {
  ...harnessAgentConfig,
  timeout: z.number().positive().default(900),
  thinking: z.boolean().default(false),
  context_window: z.number().int().positive().default(131072),
  max_output_tokens: z.number().int().positive().default(32768),
  /** Merged over the generated opencode.json (permissions, providers...). */
  opencode_config: z.record(z.string(), z.unknown()).default({}),
  extra_args: z.array(z.string()).default([]),
};

type OpencodeConfig = HarnessAgentConfig & {
  thinking: boolean;
  context_window: number;
  max_output_tokens: number;
  opencode_config: Record<string, unknown>;
  extra_args: string[];
};

const OPENCODE = `${BOX_CLI_ROOT}/node_modules/opencode-linux-x64/bin/opencode`;
const HOME = '/tmp/ngym-harness';
/** Offline: no update check, models.dev fetch, LSP downloads, sharing, default plugins or Claude Code imports. */
const OFFLINE_ENV = {
  OPENCODE_DISABLE_AUTOUPDATE: '1',
  OPENCODE_DISABLE_MODELS_FETCH: '1',
  OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
  OPENCODE_DISABLE_SHARE: '1',
  OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
  OPENCODE_DISABLE_CLAUDE_CODE: '1',
  OPENCODE_DISABLE_EXTERNAL_SKILLS: '1',
};

export const opencode: Harness<OpencodeConfig> = {
  name: 'opencode_agent',
  invocation: ({ instruction, systemPrompt, modelUrl, config: agentConfig }) => {
    const model = agentConfig.model ?? 'policy';
    const settings = mergeSettings(
      {
        $schema: 'https://opencode.ai/config.json',
        autoupdate: false,
        share: 'disabled',
        permission: { bash: 'allow', edit: 'allow', webfetch: 'deny' },
        provider: {
          nemo: {
            npm: '@ai-sdk/openai-compatible',
            options: { baseURL: `${modelUrl}/v1`, apiKey: 'EMPTY' },
            models: { [model]: { name: model, limit: { context: agentConfig.context_window, output: agentConfig.max_output_tokens } } },
          },
        },
      },
      agentConfig.opencode_config,
    );
    const command = [OPENCODE, 'run', '--format', 'json', '-m', `nemo/${model}`, '--dir', '/work'];
    if (agentConfig.thinking) command.push('--thinking');
    command.push(...agentConfig.extra_args, systemPrompt === null ? instruction : `${systemPrompt}\n\n${instruction}`);
    return {
      command,
      env: {
        ...OFFLINE_ENV,
        OPENCODE_CONFIG_CONTENT: JSON.stringify(settings),
        XDG_DATA_HOME: `${HOME}/data`,
        XDG_CONFIG_HOME: `${HOME}/config`,
        XDG_CACHE_HOME: `${HOME}/cache`,
        XDG_STATE_HOME: `${HOME}/state`,
      },
    };
  },
  parse: parseOpencodeEvents,
};

export default defineAgent({
  className: 'OpencodeAgent',
  config,
  setup: async ({ config: agentConfig }) => harnessState(agentConfig),
  close: async (state) => state.sandbox.close(),
  responses: async () => {
    throw new NgymError('NGYM_INVALID_REQUEST', "opencode_agent runs whole tasks through /run only: the CLI needs the environment's workspace.", { status: 501 });
  },
  run: (row, context) => runHarnessRollout(row, context, opencode),
});
