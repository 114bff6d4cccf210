/**
 * claude_code_agent: Claude Code (`claude -p`, the pinned npm package in harness-cli/) as the policy's harness.
 * Each rollout runs the CLI in its own sandbox box on the environment's workspace, pointed at the gym's model
 * server through ANTHROPIC_BASE_URL (the rollout's model relay, which records every call's token ids); its
 * stream-json output becomes the response the environment verifies (src/agent/harness/).
 */
import { BOX_CLI_ROOT, defineAgent, type Harness, type HarnessAgentConfig, harnessAgentConfig, harnessState, NgymError, runHarnessRollout } from 'ngym';
import * as z from 'zod';
import { parseClaudeStream } from './stream-json.ts';

const config = {
  ...harnessAgentConfig,
  concurrency: z.number().int().positive().default(32),
  timeout: z.number().positive().default(300),
  max_turns: z.number().int().positive().nullable().default(30),
  allowed_tools: z.string().nullable().default(null),
  disallowed_tools: z.string().nullable().default(null),
  thinking: z.string().nullable().default(null),
  max_thinking_tokens: z.number().int().positive().nullable().default(null),
  bare: z.boolean().default(true),
};

type ClaudeConfig = HarnessAgentConfig & {
  max_turns: number | null;
  allowed_tools: string | null;
  disallowed_tools: string | null;
  thinking: string | null;
  max_thinking_tokens: number | null;
  bare: boolean;
};

const CLAUDE = `${BOX_CLI_ROOT}/node_modules/@anthropic-ai/claude-code/bin/claude.exe`;
const CONFIG_DIR = '/tmp/ngym-harness/claude';
/** Offline: no telemetry, error reports, auto-update or other traffic; one try per model call (a failure is the rollout's). */
const OFFLINE_ENV = {
  CLAUDE_CODE_ATTRIBUTION_HEADER: '0',
  CLAUDE_CODE_ENABLE_TELEMETRY: '0',
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
  DISABLE_AUTOUPDATER: '1',
  CLAUDE_CODE_MAX_RETRIES: '0',
};

export const claudeCode: Harness<ClaudeConfig> = {
  name: 'claude_code_agent',
  invocation: ({ instruction, systemPrompt, modelUrl, config: agentConfig }) => {
    const model = agentConfig.model ?? 'policy';
    const command = [CLAUDE, '-p', '--output-format', 'stream-json', '--verbose', '--dangerously-skip-permissions'];
    if (agentConfig.bare) command.push('--bare');
    command.push('--model', model);
    if (systemPrompt !== null) command.push('--append-system-prompt', systemPrompt);
    if (agentConfig.allowed_tools !== null) command.push('--allowedTools', agentConfig.allowed_tools);
    if (agentConfig.disallowed_tools !== null) command.push('--disallowedTools', agentConfig.disallowed_tools);
    if (agentConfig.thinking !== null) command.push('--thinking', agentConfig.thinking);
    if (agentConfig.max_thinking_tokens !== null) command.push('--max-thinking-tokens', String(agentConfig.max_thinking_tokens));
    if (agentConfig.max_turns !== null) command.push('--max-turns', String(agentConfig.max_turns));
    command.push('--', instruction);
    return {
      command,
      env: {
        ...OFFLINE_ENV,
        ANTHROPIC_BASE_URL: modelUrl,
        ANTHROPIC_API_KEY: 'local',
        ANTHROPIC_AUTH_TOKEN: 'local',
        ANTHROPIC_MODEL: model,
        ANTHROPIC_DEFAULT_HAIKU_MODEL: model,
        ANTHROPIC_DEFAULT_SONNET_MODEL: model,
        ANTHROPIC_DEFAULT_OPUS_MODEL: model,
        CLAUDE_CODE_SUBAGENT_MODEL: model,
        IS_SANDBOX: '1',
        CLAUDE_CONFIG_DIR: CONFIG_DIR,
      },
      harnessFiles: [{ path: 'claude/settings.json', content: JSON.stringify({ env: OFFLINE_ENV }) }],
    };
  },
  parse: parseClaudeStream,
};

export default defineAgent({
  className: 'ClaudeCodeAgent',
  config,
  setup: async ({ config: agentConfig }) => harnessState(agentConfig),
  close: async (state) => state.sandbox.close(),
  responses: async () => {
    throw new NgymError('NGYM_INVALID_REQUEST', 'claude_code_agent runs whole tasks through /run only: the CLI needs the environment\'s workspace.', { status: 501 });
  },
  run: (row, context) => runHarnessRollout(row, context, claudeCode),
});
