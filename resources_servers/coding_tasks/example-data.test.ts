/**
 * The example data, and the environment end to end as a user runs it offline: `ngym run` (its config with
 * simple_agent, and replay_model in strict mode over the scripted recording) then `ngym collect` over
 * example.jsonl. The scripted model fixes four tasks and games the fifth by editing its test.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bubblewrapUnavailableReason } from 'ngym';
import { readJsonlRows, runCli, startGymProcess } from 'ngym/testing';
import { EXAMPLE_DATA, exampleRows } from './example-data.ts';

const unavailable = bubblewrapUnavailableReason();
const scratch = mkdtempSync(join(tmpdir(), 'ngym-coding-tasks-e2e-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const toolOutputs = (rollout: Record<string, any>) => rollout.response.output.filter((item: any) => item.type === 'function_call_output').map((item: any) => item.output);

describe('coding_tasks example data', () => {
  it('example.jsonl is what example-data.ts writes', () => {
    expect(readJsonlRows(EXAMPLE_DATA.examplePath)).toEqual(JSON.parse(JSON.stringify(exampleRows())));
  });

  it.skipIf(unavailable !== null)('ngym run + ngym collect with simple_agent: reward 1 where the model fixed the code, 0 where it edited the test', async () => {
    const workspaces = join(scratch, 'workspaces');
    const gym = await startGymProcess([
      `+config_paths=[${EXAMPLE_DATA.configPath},responses_api_models/replay_model/configs/replay_model.yaml]`,
      `+policy_model.responses_api_models.replay_model.rollouts_jsonl_fpath=${EXAMPLE_DATA.rolloutsPath}`,
      '+policy_model.responses_api_models.replay_model.strict=true',
      `+coding_tasks.resources_servers.coding_tasks.workspaces_dir=${workspaces}`,
    ]);
    try {
      const output = join(scratch, 'rollouts.jsonl');
      const collected = await runCli(['collect', `+head_server.port=${gym.headPort}`, `+agent_name=${EXAMPLE_DATA.agent}`, `+input_jsonl_fpath=${EXAMPLE_DATA.examplePath}`, `+output_jsonl_fpath=${output}`]);
      expect(collected.code, collected.stderr).toBe(0);
      const recorded = new Map(readJsonlRows(EXAMPLE_DATA.rolloutsPath).map((rollout) => [rollout.task_id, rollout]));
      const results = readJsonlRows(output);
      expect(Object.fromEntries(results.map((rollout) => [rollout.task_id, rollout.reward]))).toEqual({
        sum_to_off_by_one: 1,
        leap_year_operator: 1,
        average_empty_list: 1,
        last_items_off_by_one: 1,
        clamp_swapped_bounds: 0,
      });
      for (const result of results) {
        const expected = recorded.get(result.task_id) as Record<string, any>;
        expect(result.reward).toBe(expected.reward);
        expect(result.restored_test_files).toEqual(expected.restored_test_files);
        expect(toolOutputs(result)).toEqual(toolOutputs(expected));
      }
      // Every workspace was removed once scored.
      expect(readdirSync(workspaces)).toEqual([]);
    } finally {
      expect((await gym.stop()).code).toBe(0);
    }
  });
});
