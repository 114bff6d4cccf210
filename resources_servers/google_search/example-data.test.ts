/**
 * The example data: example.jsonl is what example-data.ts writes, every task is answerable from the shipped
 * corpus, and the recorded rollouts replay offline, in-process and as a user runs them (`ngym run` with
 * replay_model in strict mode, then `ngym collect`), with their rewards and every search result and page.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJsonlRows, replayExampleRollouts, runCli, startGymProcess } from 'ngym/testing';
import { EXAMPLE_DATA, EXAMPLE_TASKS, exampleRows } from './example-data.ts';
import { BUNDLED_CORPUS } from './app.ts';

type Row = Record<string, any>;
const toolOutputs = (rollout: Row) => rollout.response.output.filter((item: Row) => item.type === 'function_call_output').map((item: Row) => item.output);
const RECORDED_REWARDS = [1, 1, 0, 0, 1];

describe('google_search example data', () => {
  it('example.jsonl is what example-data.ts writes, in upstream row format', () => {
    const rows = readJsonlRows(EXAMPLE_DATA.examplePath);
    expect(rows).toEqual(JSON.parse(JSON.stringify(exampleRows())));
    for (const row of rows) {
      expect(Object.keys(row.responses_create_params)).toEqual(['instructions', 'input', 'tools', 'max_output_tokens', 'temperature', 'parallel_tool_calls']);
      expect(row.responses_create_params.input).toMatch(/\nA: .+\nB: .+\nC: .+\nD: .+$/);
      expect(row.expected_answer).toMatch(/^[A-D]$/);
    }
  });

  it("every expected option's text is stated in the corpus", () => {
    const corpus = readJsonlRows(BUNDLED_CORPUS).map((page) => (page.text ?? page.html) as string).join('\n');
    expect(readJsonlRows(BUNDLED_CORPUS).length).toBeGreaterThanOrEqual(30);
    for (const task of EXAMPLE_TASKS) {
      const expected = task.options['ABCD'.indexOf(task.expected)] as string;
      expect(corpus.toLowerCase(), task.question).toContain(expected.toLowerCase().replace(/^the /, ''));
    }
  });

  it('the example rollouts replay in strict mode with their recorded rewards and tool outputs', async () => {
    const replayed = await replayExampleRollouts(EXAMPLE_DATA);
    expect(replayed.map(({ recorded }) => recorded.reward)).toEqual(RECORDED_REWARDS);
    expect(replayed.map(({ recorded }) => recorded.parsed_option)).toEqual(['B', 'C', 'A', '\\\\text{A', 'B']);
    for (const { recorded, result } of replayed) {
      expect(result.reward).toBe(recorded.reward);
      expect(toolOutputs(result)).toEqual(toolOutputs(recorded));
    }
  });

  it('ngym run + ngym collect reproduce them offline from the replay', async () => {
    const gym = await startGymProcess([
      `+config_paths=[${EXAMPLE_DATA.configPath},responses_api_models/replay_model/configs/replay_model.yaml]`,
      `+policy_model.responses_api_models.replay_model.rollouts_jsonl_fpath=${EXAMPLE_DATA.rolloutsPath}`,
      '+policy_model.responses_api_models.replay_model.strict=true',
    ]);
    try {
      const output = join(mkdtempSync(join(tmpdir(), 'ngym-google-search-')), 'rollouts.jsonl');
      const collected = await runCli(['collect', `+head_server.port=${gym.headPort}`, `+agent_name=${EXAMPLE_DATA.agent}`, `+input_jsonl_fpath=${EXAMPLE_DATA.examplePath}`, `+output_jsonl_fpath=${output}`, '+ordered=true']);
      expect(collected.code, collected.stderr).toBe(0);
      const recorded = readJsonlRows(EXAMPLE_DATA.rolloutsPath);
      const results = readJsonlRows(output);
      expect(results.map((result) => result.reward)).toEqual(RECORDED_REWARDS);
      results.forEach((result, index) => expect(toolOutputs(result)).toEqual(toolOutputs(recorded[index] as Row)));
    } finally {
      expect((await gym.stop()).code).toBe(0);
    }
    // Child processes start several servers each: slow on a busy 2-core CI machine.
  }, 180_000);
});
