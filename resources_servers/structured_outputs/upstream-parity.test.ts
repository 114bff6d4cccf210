/**
 * Upstream parity: re-verifies every rollout NeMo Gym recorded for structured_outputs and expects the recorded
 * reward. Rollouts do not carry the schema; they are joined to the example rows by their last user message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callServer,
  type InProcessGym,
  SHARED_SKIP_MESSAGE,
  sharedFixturesAvailable,
  startInProcessGym,
  upstreamRollouts,
} from 'ngym/testing';

describe.skipIf(!sharedFixturesAvailable())('structured_outputs: upstream recorded rollouts', () => {
  let gym: InProcessGym;
  beforeAll(async () => {
    gym = await startInProcessGym({
      config: { structured_outputs: { resources_servers: { structured_outputs: { entrypoint: 'app.ts', domain: 'instruction_following' } } } },
    });
  });
  afterAll(async () => gym?.close());

  it('reproduces every recorded reward', async () => {
    const recordings = upstreamRollouts('structured_outputs');
    expect(recordings).toHaveLength(5);
    const rewards: number[] = [];
    for (const { row, rollout } of recordings) {
      const result = await callServer(gym, 'structured_outputs', '/verify', { ...row, responses_create_params: rollout.responses_create_params, response: rollout.response });
      expect(result.reward).toBe(rollout.reward);
      rewards.push(result.reward);
    }
    expect(rewards).toEqual([0, 0, 1, 0, 0]);
  });
});

describe.skipIf(sharedFixturesAvailable())('structured_outputs: upstream recorded rollouts', () => {
  it.skip(SHARED_SKIP_MESSAGE, () => {});
});
