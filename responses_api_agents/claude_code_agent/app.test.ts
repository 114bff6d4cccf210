/**
 * claude_code_agent end to end: the real Claude Code CLI (harness-cli/) in a sandbox box, on coding_tasks'
 * workspace, against vllm_model in training mode over a scripted vLLM engine. The script drives Claude Code's
 * own tools (Read, Edit, Bash); the reward is the environment's, and the rollout carries every call's token ids.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AGENT, bugfixRow, expectContiguousTokens, FIXING_POLICIES, harnessGymPerTest, harnessSkipReason, lastToolResult, toolResults } from './test-helpers.ts';

const skip = harnessSkipReason('@anthropic-ai/claude-code/bin/claude.exe');

const harness = harnessGymPerTest('claude_code_agent');
const start = harness.start;

describe.skipIf(skip !== null)('claude_code_agent', () => {
  it('fixes the bug with Read, Edit and Bash in the sandbox: reward 1, every call\'s token ids in the rollout', async () => {
    const running = await start(FIXING_POLICIES.claude_code_agent);
    const response = await running.client.post(AGENT, '/run', bugfixRow());
    expect(response.status, response.text).toBe(200);
    const rollout = response.json<Record<string, any>>();
    expect(rollout.reward).toBe(1);
    const calls = harness.engine().generations;
    expect(calls.length).toBeGreaterThanOrEqual(4);
    // The tests ran inside the box, and their output came back to the model.
    expect(lastToolResult(calls.at(-1)?.call.body ?? {})).toContain('OK');

    const capture = rollout._ng_token_capture;
    expect(rollout.mask_sample).toBeUndefined();
    expect(capture).toMatchObject({ failed_calls: 0, calls_without_token_ids: 0, unresolved_parent_calls: 0 });
    expect(capture.n_calls).toBe(calls.length);
    const bearing = rollout.response.output.filter((item: any) => Array.isArray(item.generation_token_ids));
    // The main chain: the four calls of the fix, each prompt extending the previous prompt + generation.
    expect(bearing.map((item: any) => item.generation_token_ids)).toEqual(calls.slice(-4).map((generation) => generation.generationTokenIds));
    expectContiguousTokens(bearing);
    for (const item of bearing) expect(item.generation_log_probs).toHaveLength(item.generation_token_ids.length);
    expect(rollout.response.output.map((item: any) => item.name).filter(Boolean)).toEqual(['Read', 'Edit', 'Bash']);
  });

  it('scores an unfixed workspace 0 (a real outcome, not a failure)', async () => {
    const running = await start(() => ({ content: 'I will not change anything.' }));
    const response = await running.client.post(AGENT, '/run', bugfixRow());
    expect(response.status, response.text).toBe(200);
    expect(response.json<Record<string, any>>().reward).toBe(0);
  });

  it('records a model error mid-run as a failed rollout, never a reward', async () => {
    const running = await start((call) => (toolResults(call.body) === 0 ? { toolCalls: [{ name: 'Read', arguments: { file_path: '/work/sum_to.py' } }] } : { status: 500, body: { object: 'error', message: 'engine crashed' } }));
    const response = await running.client.post(AGENT, '/run', bugfixRow());
    expect(response.status).toBeGreaterThanOrEqual(500);
    expect(response.text).toMatch(/model call failed/);
    expect(response.text).not.toMatch(/"reward"/);
  });

  it('records a malformed backend answer mid-run as a failed rollout, not a hung one', async () => {
    const running = await start(FIXING_POLICIES.claude_code_agent, {}, {
      // The second generation comes back without its choices: vllm_model cannot read it.
      transform: (completion, call) => {
        if (call.index === 1) delete completion.choices;
      },
    });
    const response = await running.client.post(AGENT, '/run', bugfixRow());
    expect(response.status).toBeGreaterThanOrEqual(500);
    expect(response.text).toMatch(/model call failed \(\/v1\/messages/);
  });

  it('records a CLI that runs past its timeout as a failed rollout', async () => {
    const running = await start(() => ({ toolCalls: [{ name: 'Bash', arguments: { command: 'sleep 600', description: 'wait', timeout: 600000 } }] }), { timeout: 5 });
    const response = await running.client.post(AGENT, '/run', bugfixRow());
    expect(response.status).toBeGreaterThanOrEqual(500);
    expect(response.text).toMatch(/did not finish within timeout \(5 s\)/);
  });

  it('contains a harness that writes outside its workspace: nothing reaches the host', async () => {
    const marker = `/tmp/ngym-escape-${process.pid}`;
    const running = await start((call) =>
      toolResults(call.body) === 0 ? { toolCalls: [{ name: 'Bash', arguments: { command: `echo escaped > ${marker}; echo x > ../outside.txt; echo done`, description: 'escape' } }] } : { content: 'done' },
    );
    const response = await running.client.post(AGENT, '/run', bugfixRow());
    expect(response.status, response.text).toBe(200);
    expect(() => readFileSync(marker)).toThrow();
  });
});

if (skip !== null) describe('claude_code_agent', () => it.skip(`skipped: ${skip}`, () => {}));
