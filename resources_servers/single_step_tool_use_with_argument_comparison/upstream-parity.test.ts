/**
 * Upstream parity: every rollout NeMo Gym 0.7.0 recorded for this environment (the installed wheel's
 * data/example_rollouts.jsonl), joined to its row of the wheel's data/example.jsonl by the last user message and
 * re-verified here under upstream's main config, gets the recorded reward, category and expected action.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { ConfigDict } from 'ngym';
import { callServer, type InProcessGym, lastUserContent, readJsonlRows, startInProcessGym } from 'ngym/testing';

const NAME = 'single_step_tool_use_with_argument_comparison';
const INSTANCE = `${NAME}_resources_server`;
const VENV = process.env.NGYM_PYTHON_VENV ?? fileURLToPath(new URL('../../.venv', import.meta.url));
const SITE_PACKAGES = join(VENV, 'lib', 'python3.11', 'site-packages');
const WHEEL_DATA = join(SITE_PACKAGES, 'resources_servers', NAME, 'data');
const installed = existsSync(join(SITE_PACKAGES, 'nemo_gym')) && existsSync(join(WHEEL_DATA, 'example_rollouts.jsonl'));

describe.skipIf(!installed)(`${NAME}: upstream parity`, () => {
  let gym: InProcessGym;
  beforeAll(async () => {
    // The resources server of the shipped main config alone (its agent would need a model).
    const config = parse(readFileSync(new URL(`./configs/${NAME}.yaml`, import.meta.url), 'utf8')) as Record<string, ConfigDict>;
    gym = await startInProcessGym({ config: { [INSTANCE]: config[INSTANCE] as ConfigDict } });
  });
  afterAll(async () => gym?.close());

  it("re-verifies each of upstream's recorded rollouts to its reward, category and expected action", async () => {
    const key = (row: Record<string, unknown>) => JSON.stringify(lastUserContent(row));
    const rows = new Map(readJsonlRows(join(WHEEL_DATA, 'example.jsonl')).map((row) => [key(row), row]));
    const recordings = readJsonlRows(join(WHEEL_DATA, 'example_rollouts.jsonl'));
    expect(recordings.map((rollout) => rollout.reward)).toEqual([1, 1, 0, 1, 0]);
    for (const recorded of recordings) {
      const row = rows.get(key(recorded));
      expect(row, 'every recorded rollout has its example row').toBeDefined();
      const result = await callServer(gym, INSTANCE, '/verify', { ...row, response: recorded.response });
      expect({ reward: result.reward, category: result.category, expected_action: result.expected_action }).toEqual({
        reward: recorded.reward,
        category: recorded.category,
        expected_action: recorded.expected_action,
      });
    }
  });
});

describe.skipIf(installed)(`${NAME}: upstream parity`, () => {
  it.skip(`upstream NeMo Gym 0.7.0 is not installed in ${VENV} (set NGYM_PYTHON_VENV, or run \`npm run setup:python\`); skipping`, () => {});
});
