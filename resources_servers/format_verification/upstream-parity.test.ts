/**
 * Upstream parity: every rollout NeMo Gym 0.7.0 recorded for format_verification (the wheel's
 * data/example_rollouts.jsonl, in the venv of `npm run setup:python`), re-verified here, gets the recorded reward
 * and match_details. The rollouts keep their rows' verifier, but each is joined back to its example row by the
 * last user message all the same, as every upstream rollout is.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from 'ngym/runtime';
import { callServer, type InProcessGym, lastUserContent, readJsonlRows, startInProcessGym } from 'ngym/testing';

const VENV = process.env.NGYM_PYTHON_VENV || join(PACKAGE_ROOT, '.venv');
const SITE_PACKAGES = join(VENV, 'lib', 'python3.11', 'site-packages');
const DATA = join(SITE_PACKAGES, 'resources_servers', 'format_verification', 'data');
const skip = existsSync(join(SITE_PACKAGES, 'nemo_gym')) ? null : `upstream NeMo Gym 0.7.0 is not installed in ${VENV} (run \`npm run setup:python\`, or set NGYM_PYTHON_VENV); skipping`;

describe.skipIf(skip !== null)('format_verification: upstream parity', () => {
  let gym: InProcessGym;
  beforeAll(async () => {
    gym = await startInProcessGym({ config: { freeform_formatting: { resources_servers: { format_verification: { entrypoint: 'app.ts', domain: 'instruction_following' } } } } });
  });
  afterAll(async () => gym?.close());

  it('re-verifies every recorded rollout to its recorded reward and match_details', async () => {
    const rows = new Map(readJsonlRows(join(DATA, 'example.jsonl')).map((row) => [JSON.stringify(lastUserContent(row)), row]));
    const recordings = readJsonlRows(join(DATA, 'example_rollouts.jsonl'));
    expect(recordings).toHaveLength(5);
    for (const recorded of recordings) {
      const row = rows.get(JSON.stringify(lastUserContent(recorded)));
      expect(row, 'the rollout joins a row of example.jsonl').toBeDefined();
      const result = await callServer(gym, 'freeform_formatting', '/verify', { ...row, response: recorded.response });
      expect({ reward: result.reward, match_details: result.match_details }).toEqual({ reward: recorded.reward, match_details: recorded.match_details });
    }
  });
});

describe.skipIf(skip === null)('format_verification: upstream parity', () => {
  it.skip(skip ?? '', () => {});
});
