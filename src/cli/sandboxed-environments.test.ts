/**
 * The environments that run model-written code, end to end as a user runs them offline: `ngym run` (the
 * environment's config plus replay_model in strict mode over its own example rollouts), then `ngym collect`
 * over its example.jsonl. Every reward and every tool output must come out as recorded, with the code
 * really running in the sandbox.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bubblewrapUnavailableReason } from '../sandbox/availability.ts';
import { exampleData, lastUserContent, readJsonlRows, runCli, startGymProcess } from '../testing/index.ts';

const unavailable = bubblewrapUnavailableReason();
const ENVIRONMENTS = ['code_gen', 'math_with_code'];
const toolOutputs = (rollout: Record<string, any>) => rollout.response.output.filter((item: any) => item.type === 'function_call_output').map((item: any) => item.output);

describe.skipIf(unavailable !== null)('sandboxed environments: ngym run + collect with strict replay', () => {
  for (const environment of ENVIRONMENTS) {
    it(`collects ${environment}'s example rollouts as recorded`, async () => {
      const data = exampleData(environment);
      const gym = await startGymProcess([
        `+config_paths=[${data.configPath},responses_api_models/replay_model/configs/replay_model.yaml]`,
        `+policy_model.responses_api_models.replay_model.rollouts_jsonl_fpath=${data.rolloutsPath}`,
        '+policy_model.responses_api_models.replay_model.strict=true',
      ]);
      try {
        const output = join(mkdtempSync(join(tmpdir(), 'ngym-sandboxed-')), 'rollouts.jsonl');
        const collected = await runCli(['collect', `+head_server.port=${gym.headPort}`, `+agent_name=${data.agent}`, `+input_jsonl_fpath=${data.examplePath}`, `+output_jsonl_fpath=${output}`]);
        expect(collected.code, collected.stderr).toBe(0);
        const recorded = new Map(readJsonlRows(data.rolloutsPath).map((row) => [JSON.stringify(lastUserContent(row)), row]));
        const results = readJsonlRows(output);
        expect(results).toHaveLength(5);
        for (const result of results) {
          const expected = recorded.get(JSON.stringify(lastUserContent(result))) as Record<string, any>;
          expect(result.reward).toBe(expected.reward);
          expect(toolOutputs(result)).toEqual(toolOutputs(expected));
        }
      } finally {
        expect((await gym.stop()).code).toBe(0);
      }
    });
  }
});

describe.skipIf(unavailable === null)('sandboxed environments: ngym run + collect with strict replay', () => {
  it.skip(`skipped: ${unavailable ?? ''}`, () => {});
});
