/**
 * Upstream parity: every rollout NeMo Gym recorded for code_gen, re-verified here by running its code in
 * the sandbox, gets the recorded reward, per-test results, extracted code and failure metadata.
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

const sandboxMissing = bubblewrapUnavailableReason();
const skip = !sharedFixturesAvailable() ? SHARED_SKIP_MESSAGE : sandboxMissing;

describe.skipIf(skip !== null)('code_gen: upstream parity', () => {
  let gym: InProcessGym;
  beforeAll(async () => {
    gym = await startInProcessGym({
      overrides: ['+config_paths=[resources_servers/code_gen/configs/code_gen.yaml]', '++code_gen.resources_servers.code_gen.sandbox.pool_size=2',
        '+policy_model.responses_api_models.scripted.entrypoint=app.ts',
      ],
      definitions: { policy_model: scriptedModel(() => []).definition },
    });
  });
  afterAll(async () => gym?.close());

  it('re-verifies every recorded rollout to its reward, results, code and metadata', async () => {
    const recordings = upstreamRollouts('code_gen');
    expect(recordings).toHaveLength(5);
    const results = await Promise.all(recordings.map(({ row, rollout }) => callServer(gym, 'code_gen', '/verify', { ...row, response: rollout.response })));
    for (const [index, { rollout: recorded }] of recordings.entries()) {
      const result = results[index] as Record<string, any>;
      expect(result.reward, `rollout ${index}`).toBe(recorded.reward);
      expect(result.result, `rollout ${index}`).toEqual(recorded.result);
      expect(result.extracted_model_code).toBe(recorded.extracted_model_code);
      expect(result.extracted_model_output).toBe(recorded.extracted_model_output);
      if ('execution time' in recorded.metadata) {
        expect(Object.keys(result.metadata)).toEqual(['execution time']);
        expect(result.metadata['execution time']).toBeGreaterThan(0);
      } else {
        expect(result.metadata).toEqual(recorded.metadata);
      }
      expect(result.unit_tests_time_taken).toBeGreaterThan(0);
    }
  });
});

describe.skipIf(skip === null)('code_gen: upstream parity', () => {
  it.skip(skip ?? '', () => {});
});
