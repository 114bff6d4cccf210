/**
 * The shipped example data replays offline: the policy from example_rollouts.jsonl (replay_model, strict: every
 * tool output must equal the recorded one) and the simulated user from example_user_rollouts.jsonl, in process
 * and through `ngym run` + `ngym collect` as a user would run them.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { callServer, readJsonlRows, runCli, startGymProcess, startInProcessGym } from 'ngym/testing';
import { AGENT, CONFIG_PATH, exampleRows, PATHS } from './example-data.ts';

const REPLAY_CONFIG = 'resources_servers/customer_service/configs/customer_service_replay.yaml';
const toolOutputs = (rollout: Record<string, any>) => rollout.response.output.filter((item: any) => item.type === 'function_call_output').map((item: any) => item.output);
const userLines = (rollout: Record<string, any>) => rollout.response.output.filter((item: any) => item.role === 'user').map((item: any) => item.content);

describe('customer_service example data', () => {
  it('example.jsonl is what example-data.ts writes', () => {
    expect(readJsonlRows(PATHS.example)).toEqual(JSON.parse(JSON.stringify(exampleRows())));
  });

  it('replays in process with the recorded rewards, tool outputs and user turns', async () => {
    const recorded = readJsonlRows(PATHS.rollouts);
    expect(recorded.map((rollout) => rollout.reward)).toEqual([1, 1, 1, 1, 0]);
    expect(recorded.map((rollout) => rollout.episode.stop_reason)).toEqual(['goal_met', 'goal_met', 'goal_met', 'goal_met', 'user_stopped']);
    const gym = await startInProcessGym({ overrides: [`+config_paths=[${CONFIG_PATH},${REPLAY_CONFIG}]`] });
    try {
      for (const [index, row] of readJsonlRows(PATHS.example).entries()) {
        const result = await callServer(gym, AGENT, '/run', row);
        const expected = recorded[index] as Record<string, any>;
        expect(result).toMatchObject({ reward: expected.reward, episode: expected.episode, wrong_orders: expected.wrong_orders, missing_information: expected.missing_information });
        expect(toolOutputs(result)).toEqual(toolOutputs(expected));
        expect(userLines(result)).toEqual(userLines(expected));
      }
    } finally {
      await gym.close();
    }
  });

  it('runs under `ngym run` and collects with `ngym collect`, offline', { timeout: 120_000 }, async () => {
    const gym = await startGymProcess([`+config_paths=[${CONFIG_PATH},${REPLAY_CONFIG}]`]);
    try {
      const output = join(mkdtempSync(join(tmpdir(), 'ngym-customer-service-')), 'rollouts.jsonl');
      const collected = await runCli(['collect', `+head_server.port=${gym.headPort}`, `+agent_name=${AGENT}`, `+input_jsonl_fpath=${PATHS.example}`, `+output_jsonl_fpath=${output}`]);
      expect(collected.code, collected.stderr).toBe(0);
      const results = readJsonlRows(output).sort((a, b) => a.id - b.id);
      expect(results.map((result) => result.reward)).toEqual([1, 1, 1, 1, 0]);
      expect(results.map((result) => result.episode.user_turns)).toEqual([3, 3, 2, 3, 3]);
    } finally {
      await gym.stop();
    }
  });
});
