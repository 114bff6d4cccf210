/**
 * codex_agent end to end: the real Codex CLI (harness-cli/) in a sandbox box, on coding_tasks' workspace,
 * against vllm_model in training mode over a scripted vLLM engine. The script drives Codex's own tools
 * (exec_command, and apply_patch through it); the reward is the environment's, and the rollout carries every
 * call's token ids.
 */
import { describe, expect, it } from 'vitest';
import { AGENT, bugfixRow, expectContiguousTokens, FIXING_POLICIES, harnessGymPerTest, harnessSkipReason, lastToolResult, toolResults } from '../claude_code_agent/test-helpers.ts';

const skip = harnessSkipReason('@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex');

const harness = harnessGymPerTest('codex_agent');
const start = harness.start;

describe.skipIf(skip !== null)('codex_agent', () => {
  it('fixes the bug with exec_command and apply_patch in the sandbox: reward 1, every call\'s token ids in the rollout', async () => {
    const running = await start(FIXING_POLICIES.codex_agent);
    const response = await running.client.post(AGENT, '/run', bugfixRow());
    expect(response.status, response.text).toBe(200);
    const rollout = response.json<Record<string, any>>();
    expect(rollout.reward).toBe(1);
    const calls = harness.engine().generations;
    expect(lastToolResult(calls.at(-1)?.call.body ?? {})).toContain('OK');
    expect(rollout.mask_sample).toBeUndefined();
    expect(rollout._ng_token_capture).toMatchObject({ n_calls: calls.length, failed_calls: 0, calls_without_token_ids: 0, unresolved_parent_calls: 0 });
    const bearing = rollout.response.output.filter((item: any) => Array.isArray(item.generation_token_ids));
    expect(bearing.map((item: any) => item.generation_token_ids)).toEqual(calls.map((generation) => generation.generationTokenIds));
    expectContiguousTokens(bearing);
  });

  it('records a model error mid-run as a failed rollout, never a reward', async () => {
    const running = await start((call) => (toolResults(call.body) === 0 ? { toolCalls: [{ name: 'exec_command', arguments: { cmd: 'ls' } }] } : { status: 500, body: { object: 'error', message: 'engine crashed' } }));
    const response = await running.client.post(AGENT, '/run', bugfixRow());
    expect(response.status).toBeGreaterThanOrEqual(500);
    expect(response.text).toMatch(/model call failed/);
  });
});

if (skip !== null) describe('codex_agent', () => it.skip(`skipped: ${skip}`, () => {}));
