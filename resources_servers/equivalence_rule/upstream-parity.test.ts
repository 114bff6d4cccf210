/**
 * Upstream parity: every rollout NeMo Gym 0.7.0 recorded for equivalence_rule (the installed wheel's
 * data/example_rollouts.jsonl, long-context answers under its `exact` rule), joined to its row of the wheel's
 * data/example.jsonl by the last user message and re-verified here, gets the recorded reward and equivalence_score;
 * the same answers under seq_match and weighted_seq_match get what upstream's own `_grade` computes for them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callServer, type InProcessGym, startInProcessGym, upstreamRollouts, upstreamWheel } from 'ngym/testing';

const { skipReason } = upstreamWheel('equivalence_rule');
const RULES = ['exact', 'seq_match', 'weighted_seq_match'] as const;

/** What upstream's own `_grade` answers for the recorded responses under its other rules (run in the venv, written down). */
const OTHER_RULES: Record<string, number[]> = {
  seq_match: [1.0, 0.9892241379310345, 0.0, 0.0, 0.0],
  weighted_seq_match: [1.0, 0.9908405172413793, 0.0, 0.0, 0.0],
};

describe.skipIf(skipReason !== null)('equivalence_rule: upstream parity', () => {
  let gym: InProcessGym;
  const server = (grading_rule: string) => ({ resources_servers: { equivalence_rule: { entrypoint: 'app.ts', domain: 'knowledge', grading_rule } } });
  beforeAll(async () => {
    gym = await startInProcessGym({ config: Object.fromEntries(RULES.map((rule) => [rule, server(rule)])) });
  });
  afterAll(async () => gym?.close());

  it("re-verifies each of upstream's recorded rollouts to its reward and equivalence_score, under every rule", async () => {
    const recordings = upstreamRollouts('equivalence_rule', { source: 'wheel' });
    expect(recordings.map(({ rollout }) => rollout.reward)).toEqual([1, 0, 0, 0, 0]);
    const bodies = recordings.map(({ row, rollout }) => ({ ...row, response: rollout.response }));
    for (const [index, body] of bodies.entries()) {
      const result = await callServer(gym, 'exact', '/verify', body);
      const recorded = recordings[index]?.rollout as Record<string, unknown>;
      expect({ reward: result.reward, equivalence_score: result.equivalence_score }).toEqual({ reward: recorded.reward, equivalence_score: recorded.equivalence_score });
    }
    for (const [rule, expected] of Object.entries(OTHER_RULES)) {
      const scores = await Promise.all(bodies.map(async (body) => (await callServer(gym, rule, '/verify', body)).reward as number));
      expect(scores, rule).toEqual(expected);
    }
  });
});

describe.skipIf(skipReason === null)('equivalence_rule: upstream parity', () => {
  it.skip(skipReason ?? '', () => {});
});
