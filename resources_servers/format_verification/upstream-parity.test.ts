/**
 * Upstream parity: every rollout NeMo Gym 0.7.0 recorded for format_verification (the wheel's
 * data/example_rollouts.jsonl, in the venv of `npm run setup:python`), re-verified here, gets the recorded reward
 * and match_details. The rollouts keep their rows' verifier, but each is joined back to its example row by the
 * last user message all the same, as every upstream rollout is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callServer, type InProcessGym, startInProcessGym, upstreamRollouts, upstreamWheel } from 'ngym/testing';

const skip = upstreamWheel('format_verification').skipReason;

describe.skipIf(skip !== null)('format_verification: upstream parity', () => {
  let gym: InProcessGym;
  beforeAll(async () => {
    gym = await startInProcessGym({ config: { freeform_formatting: { resources_servers: { format_verification: { entrypoint: 'app.ts', domain: 'instruction_following' } } } } });
  });
  afterAll(async () => gym?.close());

  it('re-verifies every recorded rollout to its recorded reward and match_details', async () => {
    const recordings = upstreamRollouts('format_verification', { source: 'wheel' });
    expect(recordings).toHaveLength(5);
    for (const { row, rollout: recorded } of recordings) {
      const result = await callServer(gym, 'freeform_formatting', '/verify', { ...row, response: recorded.response });
      expect({ reward: result.reward, match_details: result.match_details }).toEqual({ reward: recorded.reward, match_details: recorded.match_details });
    }
  });
});

describe.skipIf(skip === null)('format_verification: upstream parity', () => {
  it.skip(skip ?? '', () => {});
});
