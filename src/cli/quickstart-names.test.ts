/**
 * NeMo Gym's README quickstart as written: `ng_run` with the old example names (simple_weather,
 * stateful_counter), the client step (`ngym client` and `python responses_api_agents/simple_agent/client.py`)
 * and `ng_collect_rollouts` with the old agent names. replay_model answers from recordings, so no LLM is needed.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assistantMessage, functionCall, modelResponse } from '../server/scripted-model.ts';
import { type GymProcess, readJsonlRows, runCli, startGymProcess } from '../testing/index.ts';
import { PACKAGE_ROOT } from '../util/package-root.ts';
import { quickstartRequest } from './commands/client.ts';

const WEATHER = 'resources_servers/example_simple_weather/configs/simple_weather.yaml';
const COUNTER = 'resources_servers/example_stateful_counter/configs/stateful_counter.yaml';
const PYTHON = join(PACKAGE_ROOT, '.venv', 'bin', 'python');

const dir = mkdtempSync(join(tmpdir(), 'ngym-quickstart-'));
/** The upstream script names, linked as npm links them. */
const bin = (name: string) => {
  const link = join(dir, name);
  if (!existsSync(link)) symlinkSync(join(PACKAGE_ROOT, 'bin', 'ngym.js'), link);
  return link;
};
let gym: GymProcess;

beforeAll(async () => {
  // The quickstart question, answered as a model would: call get_weather, then answer from its output.
  const recording = join(dir, 'quickstart_rollouts.jsonl');
  const output = [
    functionCall('get_weather', { city: 'San Francisco' }, 'call_sf'),
    { type: 'function_call_output', call_id: 'call_sf', output: '{"city": "San Francisco", "weather_description": "The weather in San Francisco is cold."}' },
    assistantMessage('It is cold in San Francisco tonight: bring a jacket.'),
  ];
  writeFileSync(recording, `${JSON.stringify({ responses_create_params: quickstartRequest('going out in sf tn'), response: modelResponse(output as never) })}\n`);
  const recordings = [recording, 'resources_servers/example_single_tool_call/data/example_rollouts.jsonl', 'resources_servers/example_session_state_mgmt/data/example_rollouts.jsonl'];
  gym = await startGymProcess(
    [`+config_paths=[${WEATHER},${COUNTER},responses_api_models/replay_model/configs/replay_model.yaml]`, `+policy_model.responses_api_models.replay_model.rollouts_jsonl_fpath=[${recordings.join(',')}]`],
    { bin: bin('ng_run'), command: [] },
  );
}, 60_000);
afterAll(async () => {
  const stopped = await gym?.stop();
  expect(stopped?.code).toBe(0);
});

function expectQuickstartOutput(stdout: string): void {
  const items = JSON.parse(stdout) as { type?: string; output?: string; content?: { text: string }[] }[];
  expect(items.map((item) => item.type)).toEqual(['function_call', 'function_call_output', 'message']);
  // The tool output comes from the real example_single_tool_call code behind the old instance name.
  expect(items[1]?.output).toBe('{"city": "San Francisco", "weather_description": "The weather in San Francisco is cold."}');
  expect(items[2]?.content?.[0]?.text).toContain('cold in San Francisco');
}

describe('the README quickstart under upstream\'s old example names', () => {
  it('ngym client sends the quickstart request to simple_weather_simple_agent and prints the output', async () => {
    const result = await runCli(['client', `+head_server.port=${gym.headPort}`]);
    expect(result.code, result.stderr).toBe(0);
    expectQuickstartOutput(result.stdout);
  });

  it('ngym client names the running agents when asked for one that is not', async () => {
    const result = await runCli(['client', `+head_server.port=${gym.headPort}`, '+agent_name=nope']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("No agent named 'nope' is running");
    expect(result.stderr).toContain('simple_weather_simple_agent');
  });

  it.skipIf(!existsSync(PYTHON))('python responses_api_agents/simple_agent/client.py prints the same (project venv)', async () => {
    const child = spawn(PYTHON, ['responses_api_agents/simple_agent/client.py', `+head_server={host: 127.0.0.1, port: ${gym.headPort}}`], { cwd: PACKAGE_ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code, stderr).toBe(0);
    expectQuickstartOutput(stdout);
  }, 60_000);

  it('ng_collect_rollouts scores simple_weather_simple_agent and stateful_counter_simple_agent with the environments\' rules', async () => {
    for (const [agent, data, recorded] of [
      ['simple_weather_simple_agent', 'resources_servers/example_simple_weather/data/example.jsonl', 'resources_servers/example_single_tool_call/data/example_rollouts.jsonl'],
      ['stateful_counter_simple_agent', 'resources_servers/example_stateful_counter/data/example.jsonl', 'resources_servers/example_session_state_mgmt/data/example_rollouts.jsonl'],
    ] as const) {
      const output = join(dir, `${agent}.jsonl`);
      const result = await runCli([`+head_server.port=${gym.headPort}`, `+agent_name=${agent}`, `+input_jsonl_fpath=${data}`, `+output_jsonl_fpath=${output}`, '+ordered=true'], { bin: bin('ng_collect_rollouts') });
      expect(result.code, result.stderr).toBe(0);
      const rewards = readJsonlRows(output).map((row) => row.reward);
      expect(rewards).toHaveLength(5);
      expect(rewards).toEqual(readJsonlRows(recorded).map((row) => row.reward));
    }
  }, 60_000);
});
