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
import { EXAMPLE_DATA as MINI_SWE_EXAMPLES } from '../../responses_api_agents/mini_swe_agent/example-data.ts';
import { type ExampleData, exampleData, readJsonlRows, runCli, startGymProcess } from '../testing/index.ts';

const unavailable = bubblewrapUnavailableReason();
const ENVIRONMENTS: [string, ExampleData][] = [
  ['code_gen', exampleData('code_gen')],
  ['math_with_code', exampleData('math_with_code')],
  ['mini_swe_agent', MINI_SWE_EXAMPLES],
];
/** What the environment answered the model: tool outputs, or the observations a bash agent sends. */
const answers = (rollout: Record<string, any>) =>
  rollout.response.output.filter((item: any) => item.type === 'function_call_output' || item.role === 'user').map((item: any) => item.output ?? item.content);
/** A row's identity in both files (a SWE instance has no user message in its row). */
const taskKey = (row: Record<string, any>) => JSON.stringify(row.instance_id ?? row.responses_create_params.input.findLast((item: any) => item.role === 'user')?.content);

describe.skipIf(unavailable !== null)('sandboxed environments: ngym run + collect with strict replay', () => {
  for (const [environment, data] of ENVIRONMENTS) {
    it(`collects ${environment}'s example rollouts as recorded`, async () => {
      const gym = await startGymProcess([
        `+config_paths=[${data.configPath},responses_api_models/replay_model/configs/replay_model.yaml]`,
        `+policy_model.responses_api_models.replay_model.rollouts_jsonl_fpath=${data.rolloutsPath}`,
        '+policy_model.responses_api_models.replay_model.strict=true',
      ]);
      try {
        const output = join(mkdtempSync(join(tmpdir(), 'ngym-sandboxed-')), 'rollouts.jsonl');
        const collected = await runCli(['collect', `+head_server.port=${gym.headPort}`, `+agent_name=${data.agent}`, `+input_jsonl_fpath=${data.examplePath}`, `+output_jsonl_fpath=${output}`]);
        expect(collected.code, collected.stderr).toBe(0);
        const recorded = new Map(readJsonlRows(data.rolloutsPath).map((row) => [taskKey(row), row]));
        const results = readJsonlRows(output);
        expect(results).toHaveLength(recorded.size);
        for (const result of results) {
          const expected = recorded.get(taskKey(result)) as Record<string, any>;
          expect(result.reward).toBe(expected.reward);
          expect(answers(result)).toEqual(answers(expected));
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
