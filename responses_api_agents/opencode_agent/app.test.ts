/**
 * opencode_agent end to end: the real OpenCode CLI (harness-cli/) in a sandbox box, on coding_tasks' workspace,
 * against vllm_model in training mode over a scripted vLLM engine. The script drives OpenCode's own tools
 * (read, edit, bash); the reward is the environment's, and the rollout carries every
 * call's token ids.
 */
import { describe, expect, it } from 'vitest';
import { AGENT, bugfixRow, expectContiguousTokens, FIXING_POLICIES, harnessGymPerTest, harnessSkipReason, lastToolResult, toolResults } from '../claude_code_agent/test-helpers.ts';

const skip = harnessSkipReason('opencode-linux-x64/bin/opencode');

const harness = harnessGymPerTest('opencode_agent');
const start = harness.start;

describe.skipIf(skip !== null)('opencode_agent', () => {
  it('fixes the bug with read, edit and bash in the sandbox: reward 1, every call\'s token ids in the rollout', async () => {
    const running = await start(FIXING_POLICIES.opencode_agent);
    const response = await running.client.post(AGENT, '/run', bugfixRow());
    expect(response.status, response.text).toBe(200);
    const rollout = response.json<Record<string, any>>();
    expect(rollout.reward).toBe(1);
    const calls = harness.engine().generations;
    expect(lastToolResult(calls.at(-1)?.call.body ?? {})).toContain('OK');
    expect(rollout.mask_sample).toBeUndefined();
    expect(rollout._ng_token_capture).toMatchObject({ n_calls: calls.length, failed_calls: 0, calls_without_token_ids: 0, unresolved_parent_calls: 0 });
    const bearing = rollout.response.output.filter((item: any) => Array.isArray(item.generation_token_ids));
    // OpenCode also asks the model for a session title (no tools): a root of its own, not on the task's chain.
    const taskCalls = calls.filter((generation) => Array.isArray(generation.call.body.tools) && generation.call.body.tools.length > 0);
    expect(rollout._ng_token_capture.roots).toBe(calls.length - taskCalls.length + 1);
    expect(bearing.map((item: any) => item.generation_token_ids)).toEqual(taskCalls.map((generation) => generation.generationTokenIds));
    expectContiguousTokens(bearing);
  });

  it('records a model error mid-run as a failed rollout, never a reward', async () => {
    const running = await start((call) => (toolResults(call.body) === 0 ? { toolCalls: [{ name: 'bash', arguments: { command: 'ls', description: 'list' } }] } : { status: 500, body: { object: 'error', message: 'engine crashed' } }));
    const response = await running.client.post(AGENT, '/run', bugfixRow());
    expect(response.status).toBeGreaterThanOrEqual(500);
    expect(response.text).toMatch(/model call failed/);
  });
});

if (skip !== null) describe('opencode_agent', () => it.skip(`skipped: ${skip}`, () => {}));
