/**
 * Upstream parity: every rollout NeMo Gym recorded for google_search, re-verified here, gets the recorded
 * reward and parsed_option, including the one whose `\boxed{\text{B}}` upstream parsed as `\\text{B`.
 * Rollouts drop expected_answer, so each is joined back to its example row by its question.
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

describe.skipIf(!sharedFixturesAvailable())('google_search: upstream parity', () => {
  let gym: InProcessGym;
  beforeAll(async () => {
    gym = await startInProcessGym({
      config: { google_search: { resources_servers: { google_search: { entrypoint: 'app.ts', domain: 'agent', search_backend: 'local_index' } } } },
    });
  });
  afterAll(async () => gym?.close());

  it('re-verifies every recorded rollout to its recorded reward and parsed option', async () => {
    const recordings = upstreamRollouts('google_search');
    expect(recordings).toHaveLength(5);
    expect(recordings.map(({ rollout }) => rollout.reward)).toEqual([0, 1, 0, 1, 0]);
    for (const { row, rollout: recorded } of recordings) {
      const result = await callServer(gym, 'google_search', '/verify', { ...row, response: recorded.response });
      expect({ reward: result.reward, parsed_option: result.parsed_option }).toEqual({ reward: recorded.reward, parsed_option: recorded.parsed_option });
    }
  });
});

describe.skipIf(sharedFixturesAvailable())('google_search: upstream parity', () => {
  it.skip(SHARED_SKIP_MESSAGE, () => {});
});
