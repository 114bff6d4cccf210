/**
 * What the harness agents' tests share: a gym with coding_tasks (the environment), the harness agent under test
 * and vllm_model in training mode in front of a scripted vLLM engine (token ids and logprobs on every call),
 * a task whose bug is an off-by-one, and the reason to skip when the sandbox or the pinned CLIs are missing.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bubblewrapUnavailableReason, type ConfigDict } from 'ngym';
import { type InProcessGym, startInProcessGym, startVllmBackend, type VllmBackend, type VllmBackendOptions, type VllmChatCall } from 'ngym/testing';
import { afterEach, expect } from 'vitest';
import { policyModelConfig } from '../../responses_api_models/vllm_model/test-config.ts';

/** Where `npm run setup:harness-cli` installs the CLIs (the agents' default `cli_root`). */
export const CLI_ROOT = fileURLToPath(new URL('../../harness-cli', import.meta.url));

/** Why the CLI tests cannot run here, or null. */
export function harnessSkipReason(binary: string): string | null {
  const sandbox = bubblewrapUnavailableReason();
  if (sandbox !== null) return sandbox;
  return existsSync(join(CLI_ROOT, 'node_modules', binary)) ? null : `the harness CLIs are not installed (npm run setup:harness-cli): no ${binary}`;
}

export const AGENT = 'harness_agent';

export function harnessGymConfig(agent: string, engineBaseUrl: string, agentKeys: Record<string, unknown> = {}): ConfigDict {
  return {
    coding_tasks: { resources_servers: { coding_tasks: { entrypoint: 'app.ts', domain: 'coding', sandbox: { pool_size: 1 } } } },
    [AGENT]: {
      responses_api_agents: {
        [agent]: {
          entrypoint: 'app.ts',
          resources_server: { type: 'resources_servers', name: 'coding_tasks' },
          model_server: { type: 'responses_api_models', name: 'policy_model' },
          timeout: 120,
          ...agentKeys,
        },
      },
    },
    ...policyModelConfig(engineBaseUrl, { return_token_id_information: true, uses_reasoning_parser: false }),
  };
}

const BUGGY = 'def sum_to(n):\n    total = 0\n    for value in range(1, n):\n        total += value\n    return total\n';
const BUG = 'range(1, n)';
const FIX = 'range(1, n + 1)';

/** A coding_tasks row: fix sum_to so that its test passes. */
export function bugfixRow(taskIndex = 0): Record<string, unknown> {
  return {
    responses_create_params: { input: [{ role: 'user', content: 'The tests in test_sum_to.py fail. Fix the bug in sum_to.py so that `python3 -m unittest test_sum_to` passes.' }] },
    task_id: 'sum_to',
    files: [
      { path: 'sum_to.py', content: BUGGY },
      { path: 'test_sum_to.py', content: 'import unittest\nfrom sum_to import sum_to\n\nclass T(unittest.TestCase):\n    def test_sum(self):\n        self.assertEqual(sum_to(5), 15)\n\nif __name__ == "__main__":\n    unittest.main()\n' },
    ],
    test_files: ['test_sum_to.py'],
    test_command: ['python3', '-m', 'unittest', 'test_sum_to'],
    _ng_task_index: taskIndex,
    _ng_rollout_index: 0,
  };
}

type Message = { role: string; content?: unknown; tool_calls?: unknown[] };

/** How many tool results the conversation holds so far: the step of a scripted fix. */
export function toolResults(body: Record<string, any>): number {
  return ((body.messages ?? []) as Message[]).filter((message) => message.role === 'tool').length;
}

/** The last tool result's text. */
export function lastToolResult(body: Record<string, any>): string {
  const last = ((body.messages ?? []) as Message[]).findLast((message) => message.role === 'tool');
  const content = last?.content;
  return typeof content === 'string' ? content : Array.isArray(content) ? content.map((part: any) => part?.text ?? '').join('') : '';
}

const hasTools = (call: VllmChatCall) => Array.isArray(call.body.tools) && call.body.tools.length > 0;
const finalAnswer = (call: VllmChatCall) => ({ content: `Fixed the off-by-one; the tests say ${lastToolResult(call.body).includes('OK') ? 'OK' : 'FAILED'}.` });
const APPLY_PATCH = `apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: sum_to.py\n@@\n-    for value in ${BUG}:\n+    for value in ${FIX}:\n*** End Patch\nEOF`;

/**
 * Scripted policies that fix the task with each CLI's own tools: read the file, edit it, run the tests, answer.
 * A call without tools (OpenCode's session title, Claude Code's side calls) gets a short text.
 */
export const FIXING_POLICIES: Record<'claude_code_agent' | 'codex_agent' | 'opencode_agent', (call: VllmChatCall) => Record<string, unknown>> = {
  claude_code_agent: (call) => {
    if (!hasTools(call)) return { content: 'Fix sum_to' };
    const steps = [
      { name: 'Read', arguments: { file_path: '/work/sum_to.py' } },
      { name: 'Edit', arguments: { file_path: '/work/sum_to.py', old_string: BUG, new_string: FIX } },
      { name: 'Bash', arguments: { command: 'python3 -m unittest test_sum_to 2>&1', description: 'Run the tests' } },
    ];
    const step = steps[toolResults(call.body)];
    return step === undefined ? finalAnswer(call) : { toolCalls: [step] };
  },
  codex_agent: (call) => {
    const commands = ['cat sum_to.py', APPLY_PATCH, 'python3 -m unittest test_sum_to 2>&1'];
    const command = commands[toolResults(call.body)];
    return command === undefined ? finalAnswer(call) : { toolCalls: [{ name: 'exec_command', arguments: { cmd: command } }] };
  },
  opencode_agent: (call) => {
    if (!hasTools(call)) return { content: 'Fix sum_to' };
    const steps = [
      { name: 'read', arguments: { filePath: '/work/sum_to.py' } },
      { name: 'edit', arguments: { filePath: '/work/sum_to.py', oldString: BUG, newString: FIX } },
      { name: 'bash', arguments: { command: 'python3 -m unittest test_sum_to 2>&1', description: 'Run the tests' } },
    ];
    const step = steps[toolResults(call.body)];
    return step === undefined ? finalAnswer(call) : { toolCalls: [step] };
  },
};

/** A gym for `agent` in front of a scripted engine: each test starts its own, closed after it. */
export function harnessGymPerTest(agent: string) {
  let gym: InProcessGym | undefined;
  let engine: VllmBackend | undefined;
  afterEach(async () => {
    await gym?.close();
    await engine?.close();
    gym = undefined;
    engine = undefined;
  });
  return {
    async start(reply: (call: VllmChatCall) => any, agentKeys: Record<string, unknown> = {}, engineOptions: Partial<VllmBackendOptions> = {}): Promise<InProcessGym> {
      engine = await startVllmBackend({ reply, ...engineOptions });
      gym = await startInProcessGym({ config: harnessGymConfig(agent, engine.baseUrl, agentKeys) });
      return gym;
    },
    /** The engine of the test running now. */
    engine: () => engine as VllmBackend,
  };
}

/** Output items carrying token ids, each prompt extending the previous prompt and generation (the prefix rule). */
export function expectContiguousTokens(bearing: { prompt_token_ids: number[]; generation_token_ids: number[] }[]): void {
  for (let index = 1; index < bearing.length; index++) {
    const before = bearing[index - 1] as (typeof bearing)[number];
    const previous = [...before.prompt_token_ids, ...before.generation_token_ids];
    expect((bearing[index] as (typeof bearing)[number]).prompt_token_ids.slice(0, previous.length)).toEqual(previous);
  }
}
