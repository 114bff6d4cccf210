/**
 * Upstream parity: the rollouts NeMo Gym recorded for math_with_code, re-verified here, get the rewards and
 * extracted answers upstream 0.7.0's verify gives them (checked against the 0.7.0 wheel: rewards
 * 1, 0, 0, 0, 1). The recordings were made by an older upstream whose extractor cut answers at the first
 * `}` (`\sqrt{2` for `\sqrt{2}`), so the last one is recorded as 0.0 although its answer is right; 0.7.0
 * extracts `\sqrt{2}` and scores it 1.0, and so do we, with and without our math verifier.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bubblewrapUnavailableReason } from 'ngym';
import {
  callServer,
  type InProcessGym,
  scriptedModel,
  SHARED_SKIP_MESSAGE,
  sharedFixturesAvailable,
  startInProcessGym,
  upstreamRollouts,
} from 'ngym/testing';

const skip = !sharedFixturesAvailable() ? SHARED_SKIP_MESSAGE : bubblewrapUnavailableReason();

const UPSTREAM_0_7_0 = [
  { reward: 1, extracted_answer: '-3' },
  { reward: 0, extracted_answer: '0' },
  { reward: 0, extracted_answer: '\\dfrac{83}{499}' },
  { reward: 0, extracted_answer: 'x_{2016} \\approx \\frac{1 + \\sqrt{3}}{2\\sqrt{3}} (2 + \\sqrt{3})^{2016}' },
  { reward: 1, extracted_answer: '\\sqrt{2}' },
];

describe.skipIf(skip !== null)('math_with_code: upstream parity', () => {
  const gyms: Record<string, InProcessGym> = {};
  beforeAll(async () => {
    for (const mathVerify of [true, false]) {
      gyms[String(mathVerify)] = await startInProcessGym({
        overrides: [
          '+config_paths=[resources_servers/math_with_code/configs/math_with_code.yaml]',
          `++math_with_code.resources_servers.math_with_code.math_verify=${mathVerify}`,
          '++math_with_code.resources_servers.math_with_code.sandbox.pool_size=1',
          '+policy_model.responses_api_models.scripted.entrypoint=app.ts',
        ],
        definitions: { policy_model: scriptedModel(() => []).definition },
      });
    }
  });
  afterAll(async () => Promise.all(Object.values(gyms).map((gym) => gym.close())));

  for (const mathVerify of [true, false]) {
    it(`re-verifies the recorded rollouts as upstream 0.7.0 does (math_verify ${mathVerify})`, async () => {
      const recordings = upstreamRollouts('math_with_code');
      expect(recordings.map(({ rollout }) => rollout.reward)).toEqual([1, 0, 0, 0, 0]);
      for (const [index, { row, rollout }] of recordings.entries()) {
        const result = await callServer(gyms[String(mathVerify)] as InProcessGym, 'math_with_code', '/verify', { ...row, response: rollout.response });
        const expected = UPSTREAM_0_7_0[index] as { reward: number; extracted_answer: string };
        expect({ reward: result.reward, extracted_answer: result.extracted_answer, accuracy: result.accuracy }, `rollout ${index}`).toEqual({ ...expected, accuracy: expected.reward === 1 });
      }
    });
  }
});

describe.skipIf(skip === null)('math_with_code: upstream parity', () => {
  it.skip(skip ?? '', () => {});
});
