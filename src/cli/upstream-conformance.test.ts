/**
 * Conformance with upstream NeMo Gym: for each environment, `ngym run` (environment config plus
 * replay_model in strict mode over upstream's recorded rollouts), then `ngym collect` over upstream's
 * example.jsonl, must reproduce every recorded reward, and every tool output byte for byte (strict).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { responseOutputText } from '../protocol/response-text.ts';
import { bubblewrapUnavailableReason } from '../sandbox/availability.ts';
import { lastUserContent, readJsonlRows, runCli, SHARED_SKIP_MESSAGE, sharedFixture, sharedFixturesAvailable, startGymProcess } from '../testing/index.ts';

/** A task's identity: its last user message. */
const taskKey = (row: Record<string, any>): string => JSON.stringify(lastUserContent(row));

/**
 * Every environment whose upstream recordings are of its example.jsonl and need no judge model.
 * workplace_assistant's and math_advanced_calculations' recordings are of other rows and keep no
 * ground truth; their own parity tests check tools and verify against them instead.
 */
const ENVIRONMENTS: { env: string; agent: string; config?: string; rewardOf?: (recorded: any) => number }[] = [
  // The recordings are v0.1.1's, which rewarded every response 1.0; ngym follows 0.7.0: 1.0 only for a get_weather call.
  {
    env: 'example_single_tool_call',
    agent: 'example_single_tool_call_simple_agent',
    rewardOf: (recorded) => (recorded.response.output.some((item: any) => item.type === 'function_call' && item.name === 'get_weather') ? 1 : 0),
  },
  { env: 'example_multi_step', agent: 'example_multi_step_simple_agent' },
  { env: 'example_session_state_mgmt', agent: 'example_session_state_mgmt_simple_agent' },
  { env: 'calendar', agent: 'calendar_simple_agent' },
  { env: 'reasoning_gym', agent: 'reasoning_gym_simple_agent' },
  { env: 'instruction_following', agent: 'instruction_following_simple_agent' },
  { env: 'structured_outputs', agent: 'structured_outputs_simple_agent', config: 'structured_outputs_json' },
  // One recording predates 0.7.0's box labels: `\boxed{C: ...}` recorded as no answer, which 0.7.0 (and ngym) read as C,
  // that row's gold (resources_servers/mcqa/upstream-parity.test.ts pins the same).
  {
    env: 'mcqa',
    agent: 'mcqa_simple_agent',
    rewardOf: (recorded) => (recorded.extracted_answer === null && /\\boxed\{\s*C: /.test(responseOutputText(recorded.response)) ? 1 : recorded.reward),
  },
  // Runs the recorded solutions in the sandbox.
  ...(bubblewrapUnavailableReason() === null ? [{ env: 'code_gen', agent: 'code_gen_simple_agent' }] : []),
];

describe.skipIf(!sharedFixturesAvailable())('upstream conformance: run + collect with strict replay', () => {
  for (const { env, agent, config = env, rewardOf = (recorded: any) => recorded.reward } of ENVIRONMENTS) {
    it(`reproduces every recorded reward of ${env}`, async () => {
      const recordings = sharedFixture(env, 'example_rollouts.jsonl');
      const gym = await startGymProcess([
        `+config_paths=[resources_servers/${env}/configs/${config}.yaml,responses_api_models/replay_model/configs/replay_model.yaml]`,
        `+policy_model.responses_api_models.replay_model.rollouts_jsonl_fpath=${recordings}`,
        '+policy_model.responses_api_models.replay_model.strict=true',
      ]);
      try {
        const output = join(mkdtempSync(join(tmpdir(), 'ngym-conformance-')), 'rollouts.jsonl');
        const collected = await runCli([
          'collect',
          `+head_server.port=${gym.headPort}`,
          `+agent_name=${agent}`,
          `+input_jsonl_fpath=${sharedFixture(env, 'example.jsonl')}`,
          `+output_jsonl_fpath=${output}`,
        ]);
        expect(collected.code, collected.stderr).toBe(0);
        const expected = new Map(readJsonlRows(recordings).map((row) => [taskKey(row), row]));
        const results = readJsonlRows(output);
        expect(results).toHaveLength(5);
        for (const result of results) {
          const recorded = expected.get(taskKey(result));
          expect(recorded, taskKey(result)).toBeDefined();
          expect(result.reward).toBe(rewardOf(recorded));
          const toolOutputs = (items: any[]) => items.filter((item) => item.type === 'function_call_output').map((item) => item.output);
          expect(toolOutputs(result.response.output)).toEqual(toolOutputs(recorded?.response.output));
        }
      } finally {
        const stopped = await gym.stop();
        expect(stopped.code).toBe(0);
      }
    });
  }
});

describe.skipIf(sharedFixturesAvailable())('upstream conformance', () => {
  it.skip(SHARED_SKIP_MESSAGE, () => {});
});
