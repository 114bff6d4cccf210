/**
 * Upstream parity: every rollout NeMo Gym 0.7.0 ships for nvarc (the wheel's data/example_rollouts.jsonl), joined
 * back to its row of data/example.jsonl by the last user message and re-verified here, gets the recorded reward,
 * predicted grid, extraction flag, mode and expected grid. Three are transductive (two boxed grids, one of plain rows
 * ending in a stray `}`), two inductive: their programs (one with numpy and scipy.ndimage) run in the sandbox, so those need
 * bubblewrap and the box's python3 with numpy and scipy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bubblewrapUnavailableReason } from 'ngym';
import { callServer, type InProcessGym, scriptedModel, startInProcessGym, upstreamRollouts, upstreamWheel } from 'ngym/testing';

const skip = upstreamWheel('nvarc').skipReason ?? bubblewrapUnavailableReason();

const FIELDS = ['reward', 'predicted_output', 'extraction_successful', 'agent_mode', 'expected_output'] as const;
const pick = (body: Record<string, unknown>) => Object.fromEntries(FIELDS.map((field) => [field, body[field]]));

describe.skipIf(skip !== null)('nvarc: upstream parity', () => {
  let gym: InProcessGym;
  beforeAll(async () => {
    gym = await startInProcessGym({
      overrides: ['+config_paths=[resources_servers/nvarc/configs/transductive.yaml]', '+policy_model.responses_api_models.scripted.entrypoint=app.ts'],
      definitions: { policy_model: scriptedModel(() => []).definition },
    });
  });
  afterAll(async () => gym?.close());

  it('re-verifies every recorded rollout to its recorded reward, grid, extraction flag and mode', async () => {
    const recorded = upstreamRollouts('nvarc', { source: 'wheel' });
    expect(recorded.map(({ rollout }) => [rollout.agent_mode, rollout.reward])).toEqual([
      ['transductive', 1],
      ['transductive', 1],
      ['transductive', 1],
      ['inductive', 1],
      ['inductive', 1],
    ]);
    for (const [index, { row, rollout }] of recorded.entries()) {
      const result = await callServer(gym, 'nvarc_transductive_resources_server', '/verify', { ...row, response: rollout.response });
      expect(pick(result), `rollout ${index}`).toEqual(pick(rollout));
      expect(result.exact_match).toBe(rollout.reward === 1);
    }
  });
});

describe.skipIf(skip === null)('nvarc: upstream parity', () => {
  it.skip(skip ?? '', () => {});
});
