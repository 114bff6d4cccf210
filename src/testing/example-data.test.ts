import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ExampleData, exampleData, readJsonlRows, recordExampleRollouts, replayExampleRollouts, writeExampleData } from './index.ts';
import { assistantMessage, functionCall, scriptedModel } from '../server/scripted-model.ts';

const weather = exampleData('example_single_tool_call');
const toolOutputs = (rollout: Record<string, any>) => rollout.response.output.filter((item: any) => item.type === 'function_call_output').map((item: any) => item.output);

/** The same environment with its example files copied to a temporary folder (optionally edited). */
function copyOf(edit: (rows: Record<string, any>[], rollouts: Record<string, any>[]) => void = () => {}): ExampleData {
  const folder = mkdtempSync(join(tmpdir(), 'ngym-example-data-'));
  const rows = readJsonlRows(weather.examplePath);
  const rollouts = readJsonlRows(weather.rolloutsPath);
  edit(rows, rollouts);
  const data = { ...weather, examplePath: join(folder, 'example.jsonl'), rolloutsPath: join(folder, 'example_rollouts.jsonl') };
  writeFileSync(data.examplePath, rows.map((row) => JSON.stringify(row) + '\n').join(''));
  writeFileSync(data.rolloutsPath, rollouts.map((row) => JSON.stringify(row) + '\n').join(''));
  return data;
}

describe('exampleData', () => {
  it('names the environment config, its simple_agent and its data files', () => {
    expect(weather.configPath).toBe('resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml');
    expect(weather.agent).toBe('example_single_tool_call_simple_agent');
    expect(weather.examplePath).toMatch(/resources_servers\/example_single_tool_call\/data\/example\.jsonl$/);
    expect(weather.rolloutsPath).toMatch(/resources_servers\/example_single_tool_call\/data\/example_rollouts\.jsonl$/);
  });
});

describe('replayExampleRollouts', () => {
  it('pairs each row with its recorded rollout and the replayed /run answer', async () => {
    const replayed = await replayExampleRollouts(weather);
    expect(replayed.map(({ row }) => row)).toEqual(readJsonlRows(weather.examplePath));
    expect(replayed.map(({ recorded }) => recorded)).toEqual(readJsonlRows(weather.rolloutsPath));
    for (const { recorded, result } of replayed) {
      expect(result.reward).toBe(recorded.reward);
      expect(toolOutputs(result)).toEqual(toolOutputs(recorded));
    }
    expect(replayed.flatMap(({ result }) => toolOutputs(result)).length).toBeGreaterThan(0);
  });

  it('fails on a row the recording does not hold (strict replay)', async () => {
    const data = copyOf((rows) => {
      rows[1]!.responses_create_params.input.at(-1).content = 'A question nobody recorded.';
    });
    await expect(replayExampleRollouts(data)).rejects.toThrow(/example_single_tool_call_simple_agent \/run answered HTTP 5\d\d: .*No recorded rollout/);
  });

  it('fails when the files hold different numbers of lines', async () => {
    const data = copyOf((_rows, rollouts) => rollouts.pop());
    await expect(replayExampleRollouts(data)).rejects.toThrow(/holds 4 rollouts for the 5 rows/);
  });
});

describe('writeExampleData', () => {
  it('writes the rows and the rollouts recorded with the policy model, which then replay', async () => {
    const data = copyOf();
    const rows = readJsonlRows(weather.examplePath).slice(0, 2);
    const model = scriptedModel(({ input }) =>
      input.some((item) => item.type === 'function_call_output') ? [assistantMessage('Take a coat.')] : [functionCall('get_weather', { city: 'Oslo' })],
    );
    await writeExampleData(data, rows, model.definition);
    expect(readJsonlRows(data.examplePath)).toEqual(rows);
    const written = readJsonlRows(data.rolloutsPath);
    expect(written).toHaveLength(2);
    expect(written.map(toolOutputs)).toEqual([
      ['{"city": "Oslo", "weather_description": "The weather in Oslo is cold."}'],
      ['{"city": "Oslo", "weather_description": "The weather in Oslo is cold."}'],
    ]);
    expect(readFileSync(data.rolloutsPath, 'utf8').endsWith('}\n')).toBe(true);
    expect((await replayExampleRollouts(data)).map(({ result }) => result.response.output.at(-1).content[0].text)).toEqual(['Take a coat.', 'Take a coat.']);
  });

  it('records rollouts in row order', async () => {
    const rows = readJsonlRows(weather.examplePath);
    const model = scriptedModel(({ input }) => [assistantMessage(`answer to: ${input.findLast((item) => 'role' in item && item.role === 'user')?.content}`)]);
    const rollouts = await recordExampleRollouts(weather, rows, model.definition);
    expect(rollouts.map((rollout) => rollout.response.output.at(-1).content[0].text)).toEqual(
      rows.map((row) => `answer to: ${row.responses_create_params.input.at(-1).content}`),
    );
  });
});
