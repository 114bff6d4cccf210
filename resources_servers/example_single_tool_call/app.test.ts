import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedHttpClient } from 'ngym';
import { PACKAGE_ROOT } from 'ngym/runtime';
import { type InProcessGym, startInProcessGym } from 'ngym/testing';
import definition from './app.ts';

const http = sharedHttpClient();
let gym: InProcessGym;
beforeAll(async () => {
  gym = await startInProcessGym({ config: { weather: { resources_servers: { example_single_tool_call: { entrypoint: 'app.ts', domain: 'agent' } } } } });
});
afterAll(() => gym.close());

describe('example_single_tool_call', () => {
  it('answers get_weather with upstream bytes and rejects a missing city', async () => {
    const answer = await http.request(gym.url('weather', '/get_weather'), { body: { city: 'San Francisco' } });
    expect(answer.text).toBe('{"city": "San Francisco", "weather_description": "The weather in San Francisco is cold."}');
    const missing = await http.request(gym.url('weather', '/get_weather'), { body: {} });
    expect(missing.status).toBe(422);
    expect(missing.json()).toMatchObject({ detail: [{ loc: ['body', 'city'], type: 'missing' }] });
  });

  it('rewards 1.0 only a response that calls get_weather (upstream 0.7.0), and keeps the row fields', async () => {
    const response = (output: unknown[]) => ({ id: 'r', created_at: 0, model: 'm', object: 'response', output, parallel_tool_calls: true, tool_choice: 'auto', tools: [] });
    const call = (name: string, args: string) => ({ type: 'function_call', call_id: 'c', name, arguments: args, id: 'f', status: 'completed' });
    const text = { type: 'message', id: 'm', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Sunny.', annotations: [] }] };
    const rewardOf = async (output: unknown[]) => {
      const verified = await http.request(gym.url('weather', '/verify'), { body: { responses_create_params: { input: 'hi' }, response: response(output), note: 'kept' } });
      expect(verified.json()).toMatchObject({ note: 'kept' });
      return (verified.json() as { reward: number }).reward;
    };
    expect(await rewardOf([call('get_weather', '{"city": "Paris"}'), text])).toBe(1);
    expect(await rewardOf([call('get_weather', 'not json')])).toBe(1);
    expect(await rewardOf([text])).toBe(0);
    expect(await rewardOf([call('get_time', '{}')])).toBe(0);
    expect(await rewardOf([])).toBe(0);
  });

  it('declares the tool the example data offers', () => {
    const row = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'resources_servers/example_single_tool_call/data/example.jsonl'), 'utf8').split('\n')[0] as string);
    expect(definition.toolDefinitions()).toEqual(row.responses_create_params.tools);
  });
});
