/**
 * Upstream parity: every rollout NeMo Gym 0.7.0 recorded for equivalence_rule (the installed wheel's
 * data/example_rollouts.jsonl, long-context answers under its `exact` rule), joined to its row of the wheel's
 * data/example.jsonl by the last user message and re-verified here, gets the recorded reward and equivalence_score;
 * the same answers under seq_match and weighted_seq_match get what upstream's own `_grade` computes for them.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callServer, type InProcessGym, lastUserContent, readJsonlRows, startInProcessGym } from 'ngym/testing';

const VENV = process.env.NGYM_PYTHON_VENV ?? fileURLToPath(new URL('../../.venv', import.meta.url));
const SITE_PACKAGES = join(VENV, 'lib', 'python3.11', 'site-packages');
const WHEEL_DATA = join(SITE_PACKAGES, 'resources_servers', 'equivalence_rule', 'data');
const installed = existsSync(join(SITE_PACKAGES, 'nemo_gym')) && existsSync(join(WHEEL_DATA, 'example_rollouts.jsonl'));
const RULES = ['exact', 'seq_match', 'weighted_seq_match'] as const;

/** What upstream's own `_grade` answers for the recorded responses under its other rules (run in the venv, written down). */
const OTHER_RULES: Record<string, number[]> = {
  seq_match: [1.0, 0.9892241379310345, 0.0, 0.0, 0.0],
  weighted_seq_match: [1.0, 0.9908405172413793, 0.0, 0.0, 0.0],
};

describe.skipIf(!installed)('equivalence_rule: upstream parity', () => {
  let gym: InProcessGym;
  const server = (grading_rule: string) => ({ resources_servers: { equivalence_rule: { entrypoint: 'app.ts', domain: 'knowledge', grading_rule } } });
  beforeAll(async () => {
    gym = await startInProcessGym({ config: Object.fromEntries(RULES.map((rule) => [rule, server(rule)])) });
  });
  afterAll(async () => gym?.close());

  it("re-verifies each of upstream's recorded rollouts to its reward and equivalence_score, under every rule", async () => {
    const key = (row: Record<string, unknown>) => JSON.stringify(lastUserContent(row));
    const rows = new Map(readJsonlRows(join(WHEEL_DATA, 'example.jsonl')).map((row) => [key(row), row]));
    const recordings = readJsonlRows(join(WHEEL_DATA, 'example_rollouts.jsonl'));
    expect(recordings.map((rollout) => rollout.reward)).toEqual([1, 0, 0, 0, 0]);
    const bodies = recordings.map((recorded) => {
      const row = rows.get(key(recorded));
      expect(row, 'every recorded rollout has its example row').toBeDefined();
      return { ...row, response: recorded.response };
    });
    for (const [index, body] of bodies.entries()) {
      const result = await callServer(gym, 'exact', '/verify', body);
      const recorded = recordings[index] as Record<string, unknown>;
      expect({ reward: result.reward, equivalence_score: result.equivalence_score }).toEqual({ reward: recorded.reward, equivalence_score: recorded.equivalence_score });
    }
    for (const [rule, expected] of Object.entries(OTHER_RULES)) {
      const scores = await Promise.all(bodies.map(async (body) => (await callServer(gym, rule, '/verify', body)).reward as number));
      expect(scores, rule).toEqual(expected);
    }
  });
});

describe.skipIf(installed)('equivalence_rule: upstream parity', () => {
  it.skip(`upstream NeMo Gym 0.7.0 is not installed in ${VENV} (set NGYM_PYTHON_VENV, or run \`npm run setup:python\`); skipping`, () => {});
});
