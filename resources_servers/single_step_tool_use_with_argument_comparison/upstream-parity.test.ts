/**
 * Upstream parity: every rollout NeMo Gym 0.7.0 recorded for this environment (the installed wheel's
 * data/example_rollouts.jsonl), joined to its row of the wheel's data/example.jsonl by the last user message and
 * re-verified here under upstream's main config, gets the recorded reward, category and expected action.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { ConfigDict } from 'ngym';
import { callServer, type InProcessGym, startInProcessGym, upstreamRollouts, upstreamWheel } from 'ngym/testing';

const NAME = 'single_step_tool_use_with_argument_comparison';
const INSTANCE = `${NAME}_resources_server`;
const { skipReason } = upstreamWheel(NAME);

describe.skipIf(skipReason !== null)(`${NAME}: upstream parity`, () => {
  let gym: InProcessGym;
  beforeAll(async () => {
    // The resources server of the shipped main config alone (its agent would need a model).
    const config = parse(readFileSync(new URL(`./configs/${NAME}.yaml`, import.meta.url), 'utf8')) as Record<string, ConfigDict>;
    gym = await startInProcessGym({ config: { [INSTANCE]: config[INSTANCE] as ConfigDict } });
  });
  afterAll(async () => gym?.close());

  it("re-verifies each of upstream's recorded rollouts to its reward, category and expected action", async () => {
    const recordings = upstreamRollouts(NAME, { source: 'wheel' });
    expect(recordings.map(({ rollout }) => rollout.reward)).toEqual([1, 1, 0, 1, 0]);
    for (const { row, rollout: recorded } of recordings) {
      const result = await callServer(gym, INSTANCE, '/verify', { ...row, response: recorded.response });
      expect({ reward: result.reward, category: result.category, expected_action: result.expected_action }).toEqual({
        reward: recorded.reward,
        category: recorded.category,
        expected_action: recorded.expected_action,
      });
    }
  });
});

describe.skipIf(skipReason === null)(`${NAME}: upstream parity`, () => {
  it.skip(skipReason ?? '', () => {});
});
