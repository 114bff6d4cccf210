/**
 * codex_agent: OpenAI Codex (`codex exec --json`, the pinned npm package in harness-cli/) as the policy's
 * harness. Each rollout runs the CLI in its own sandbox box on the environment's workspace, with a config.toml
 * whose `gym` model provider points at the rollout's model relay (`wire_api = "responses"`, so Codex calls
 * `/v1/responses`); its JSON events become the response the environment verifies (src/agent/harness/).
 */
import { BOX_CLI_ROOT, defineAgent, type Harness, type HarnessAgentConfig, harnessAgentConfig, harnessState, mergeSettings, NgymError, runHarnessRollout } from 'ngym';
import { stringify as tomlDocument } from 'smol-toml';
import * as z from 'zod';
import { parseCodexEvents } from './exec-json.ts';

const config = {
  ...harnessAgentConfig,
  concurrency: z.number().int().positive().default(32),
  /** Codex's own sandbox; the box already contains the run, and Codex cannot nest its bubblewrap in it. */
  sandbox_mode: z.enum(['read-only', 'workspace-write', 'danger-full-access']).default('danger-full-access'),
  reasoning_effort: z.string().nullable().default(null),
  stream_idle_timeout_ms: z.number().int().positive().nullable().default(null),
  /** Extra config.toml content, merged over the generated config. */
  extra_config: z.record(z.string(), z.unknown()).default({}),
};

type CodexConfig = HarnessAgentConfig & {
  sandbox_mode: string;
  reasoning_effort: string | null;
  stream_idle_timeout_ms: number | null;
  extra_config: Record<string, unknown>;
};

const VENDOR = `${BOX_CLI_ROOT}/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl`;
const CODEX_HOME = '/tmp/ngym-harness/codex';

export const codex: Harness<CodexConfig> = {
  name: 'codex_agent',
  invocation: ({ instruction, systemPrompt, modelUrl, config: agentConfig }) => {
    const settings: Record<string, unknown> = {
      model: agentConfig.model ?? 'policy',
      model_provider: 'gym',
      approval_policy: 'never',
      sandbox_mode: agentConfig.sandbox_mode,
      web_search: 'disabled',
      check_for_update_on_startup: false,
      analytics: { enabled: false },
      history: { persistence: 'none' },
      features: { multi_agent: false, code_mode: false },
      model_providers: {
        gym: {
          name: 'gym',
          base_url: `${modelUrl}/v1`,
          env_key: 'OPENAI_API_KEY',
          wire_api: 'responses',
          stream_idle_timeout_ms: agentConfig.stream_idle_timeout_ms ?? agentConfig.timeout * 1000,
          // One try per call: a failed model call is the rollout's failure.
          request_max_retries: 0,
          stream_max_retries: 0,
        },
      },
      ...(agentConfig.reasoning_effort === null ? {} : { model_reasoning_effort: agentConfig.reasoning_effort }),
      ...(systemPrompt === null ? {} : { developer_instructions: systemPrompt }),
    };
    return {
      command: [`${VENDOR}/bin/codex`, 'exec', '--json', '--ephemeral', '--skip-git-repo-check', '--cd', '/work', '--', instruction],
      // Codex refuses to put its helper commands (apply_patch) under the temp dir: TMPDIR moves off /tmp, where CODEX_HOME is.
      env: { CODEX_HOME, TMPDIR: '/dev/shm', OPENAI_API_KEY: 'local', PATH: `${VENDOR}/codex-path:/usr/local/bin:/usr/bin:/bin`, RUST_LOG: 'error' },
      harnessFiles: [{ path: 'codex/config.toml', content: tomlDocument(mergeSettings(settings, agentConfig.extra_config)) }],
    };
  },
  parse: parseCodexEvents,
};

export default defineAgent({
  className: 'CodexAgent',
  config,
  setup: async ({ config: agentConfig }) => harnessState(agentConfig),
  close: async (state) => state.sandbox.close(),
  responses: async () => {
    throw new NgymError('NGYM_INVALID_REQUEST', "codex_agent runs whole tasks through /run only: the CLI needs the environment's workspace.", { status: 501 });
  },
  run: (row, context) => runHarnessRollout(row, context, codex),
});
