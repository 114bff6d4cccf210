/**
 * Upstream parity: re-verifies every rollout NeMo Gym recorded for instruction_following and expects the
 * recorded reward and per-instruction results. Rollouts do not carry the row's `id`; rows are joined to the
 * example data by prompt.
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

describe.skipIf(!sharedFixturesAvailable())('instruction_following: upstream recorded rollouts', () => {
  let gym: InProcessGym;
  beforeAll(async () => {
    gym = await startInProcessGym({
      config: { instruction_following: { resources_servers: { instruction_following: { entrypoint: 'app.ts', domain: 'instruction_following' } } } },
    });
  });
  afterAll(async () => gym?.close());

  it('reproduces every recorded reward and per-instruction result', async () => {
    const recordings = upstreamRollouts('instruction_following', { key: (rowOrRollout) => rowOrRollout.prompt });
    expect(recordings).toHaveLength(5);
    for (const { row, rollout } of recordings) {
      const result = await callServer(gym, 'instruction_following', '/verify', { ...row, responses_create_params: rollout.responses_create_params, response: rollout.response });
      for (const field of ['reward', 'follow_all_instructions', 'follow_instruction_list', 'kwargs', 'instruction_id_list', 'prompt']) {
        expect(result[field], `${field} of ${String(rollout.prompt).slice(0, 40)}`).toEqual(rollout[field]);
      }
    }
  });
});

describe.skipIf(sharedFixturesAvailable())('instruction_following: upstream recorded rollouts', () => {
  it.skip(SHARED_SKIP_MESSAGE, () => {});
});
