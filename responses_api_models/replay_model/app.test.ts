import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { type Logger, sharedHttpClient } from 'ngym';
import { PACKAGE_ROOT } from 'ngym/runtime';
import { type InProcessGym, readJsonlRows, simpleAgentConfig, startInProcessGym } from 'ngym/testing';

const http = sharedHttpClient();
const RECORDED = join(PACKAGE_ROOT, 'resources_servers/example_single_tool_call/data/example_rollouts.jsonl');
const recordedRows = () => readJsonlRows<any>(RECORDED);

let gym: InProcessGym | undefined;
afterEach(async () => {
  await gym?.close();
  gym = undefined;
});

function writeRollouts(rows: unknown[]): string {
  const path = join(mkdtempSync(join(tmpdir(), 'ngym-replay-')), 'rollouts.jsonl');
  writeFileSync(path, `${rows.map((row) => JSON.stringify(row)).join('\n')}\n`);
  return path;
}

async function startWeather(rollouts: string, strict: boolean, logger?: Logger) {
  gym = await startInProcessGym({
    logger,
    config: simpleAgentConfig({
      resources: { name: 'weather', implementation: 'example_single_tool_call' },
      agent: 'agent',
      model: { implementation: 'replay_model', config: { rollouts_jsonl_fpath: rollouts, strict } },
    }),
  });
  return gym;
}

const run = async (row: unknown) => {
  const response = await http.request(gym?.url('agent', '/run') as string, { body: row });
  return { status: response.status, text: response.text, body: response.status === 200 ? response.json<any>() : undefined };
};

describe('replay_model', () => {
  it('replays a recorded rollout step by step, reproducing its trajectory and usage', async () => {
    await startWeather(RECORDED, true);
    const [first] = recordedRows();
    const result = await run({ responses_create_params: first.responses_create_params });
    expect(result.status, result.text).toBe(200);
    expect(result.body.response.output).toEqual(first.response.output);
    expect(result.body.response.usage).toEqual(first.response.usage);
  });

  it('in strict mode names the first divergent tool output, file and line', async () => {
    const rows = recordedRows();
    const altered = structuredClone(rows[0]);
    altered.response.output[1].output = '{"city": "Paris", "weather_description": "Sunny."}';
    const path = writeRollouts([rows[1], altered]);
    await startWeather(path, true);
    const result = await run({ responses_create_params: altered.responses_create_params });
    expect(result.status).toBe(502);
    expect(result.text).toContain(`${path}:2, output item 1: the tool output sent differs from the recorded one`);
    expect(result.text).toContain('Sunny.');
    await gym?.close();

    // Without strict mode the recorded model outputs are replayed anyway.
    await startWeather(path, false);
    expect((await run({ responses_create_params: altered.responses_create_params })).status).toBe(200);
  });

  it('answers a clear error for an input no recording starts with, and logs it for callers that show only the status', async () => {
    const logged: string[] = [];
    await startWeather(RECORDED, false, pino({ level: 'warn' }, { write: (line: string) => logged.push(line) }));
    const response = await http.request(gym?.url('policy_model', '/v1/responses') as string, { body: { input: 'never recorded' } });
    expect(response.status).toBe(404);
    expect(response.json<any>().detail).toMatch(/No recorded rollout starts with this input .*never recorded.*holds 5 recorded rollouts/);
    expect(logged.map((line) => JSON.parse(line).msg)).toEqual([expect.stringMatching(/^No recorded rollout starts with this input .*never recorded/)]);
  });

  it('spreads repeats of one task over its recordings, each rollout sticking to one', async () => {
    const [row] = recordedRows();
    const second = structuredClone(row);
    second.response.output[2].content[0].text = 'Second recording.';
    await startWeather(writeRollouts([row, second]), true);
    const texts = [];
    for (let repeat = 0; repeat < 4; repeat++) {
      const result = await run({ responses_create_params: row.responses_create_params });
      texts.push(result.body.response.output.at(-1).content[0].text);
    }
    expect(texts).toEqual([row.response.output[2].content[0].text, 'Second recording.', row.response.output[2].content[0].text, 'Second recording.']);
  });

  it('replays through /v1/chat/completions, step by step, as it does through /v1/responses', async () => {
    await startWeather(RECORDED, false);
    const [row] = recordedRows();
    const [call, toolOutput, final] = row.response.output;
    const messages = row.responses_create_params.input.map((item: any) => ({ role: item.role, content: item.content }));
    const chat = (body: unknown) => http.request(gym?.url('policy_model', '/v1/chat/completions') as string, { body });
    const first = await chat({ messages });
    expect(first.status, first.text).toBe(200);
    expect(first.json<any>().choices[0]).toMatchObject({
      finish_reason: 'tool_calls',
      message: { content: null, tool_calls: [{ id: call.call_id, type: 'function', function: { name: call.name, arguments: call.arguments } }] },
    });
    const history = [...messages, first.json<any>().choices[0].message, { role: 'tool', tool_call_id: toolOutput.call_id, content: toolOutput.output }];
    const second = await chat({ messages: history, stream: true });
    expect(second.headers['content-type']).toContain('text/event-stream');
    expect(second.text).toContain(JSON.stringify({ content: final.content[0].text }));
    expect(second.text).toContain('data: [DONE]');
  });

  it('replays through /v1/messages, tool use then text', async () => {
    // Arguments as the Anthropic dialect writes them (Python's json.dumps): replay compares them as text.
    const row = {
      responses_create_params: { input: [{ role: 'user', content: 'Weather in Oslo?' }] },
      response: {
        output: [
          { type: 'function_call', id: 'fc_oslo', call_id: 'call_oslo', name: 'get_weather', arguments: '{"city": "Oslo"}', status: 'completed' },
          { type: 'function_call_output', call_id: 'call_oslo', output: 'cold' },
          { id: 'msg_oslo', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Cold in Oslo.', annotations: [] }] },
        ],
      },
    };
    await startWeather(writeRollouts([row]), true);
    const messagesCall = (body: unknown) => http.request(gym?.url('policy_model', '/v1/messages') as string, { body });
    const question = { role: 'user', content: 'Weather in Oslo?' };
    const first = await messagesCall({ model: 'claude', max_tokens: 100, messages: [question] });
    expect(first.status, first.text).toBe(200);
    expect(first.json<any>()).toMatchObject({ stop_reason: 'tool_use', content: [{ type: 'tool_use', id: 'call_oslo', name: 'get_weather', input: { city: 'Oslo' } }] });
    const second = await messagesCall({
      model: 'claude',
      max_tokens: 100,
      messages: [question, { role: 'assistant', content: first.json<any>().content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_oslo', content: 'cold' }] }],
    });
    expect(second.status, second.text).toBe(200);
    expect(second.json<any>()).toMatchObject({ stop_reason: 'end_turn', content: [{ type: 'text', text: 'Cold in Oslo.' }] });
  });

  it('fills the fields every Response has where a recorded reply lacks them, echoing the request', async () => {
    const row = { responses_create_params: { input: 'Hi' }, response: { id: 'resp_trace', object: 'response', status: 'completed', model: 'sdg-trace', output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Hello.' }] }] } };
    await startWeather(writeRollouts([row]), false);
    const response = await http.request(gym?.url('policy_model', '/v1/responses') as string, { body: { input: 'Hi', tool_choice: 'none' } });
    expect(response.status, response.text).toBe(200);
    expect(response.json<any>()).toMatchObject({ id: 'resp_trace', model: 'sdg-trace', parallel_tool_calls: true, tool_choice: 'none', tools: [], created_at: expect.any(Number) });
  });

  it("answers usage recorded in Chat Completions' shape in the Responses API's", async () => {
    const output = [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Hello.' }] }];
    const row = { responses_create_params: { input: 'Hi' }, response: { id: 'r', object: 'response', model: 'm', output, usage: { prompt_tokens: 112, completion_tokens: 273, total_tokens: 385, prompt_tokens_details: null } } };
    await startWeather(writeRollouts([row]), false);
    const response = await http.request(gym?.url('policy_model', '/v1/responses') as string, { body: { input: 'Hi' } });
    expect(response.json<any>().usage).toEqual({ input_tokens: 112, output_tokens: 273, total_tokens: 385, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } });
  });

  it('refuses to start on a malformed rollouts file, naming the line', async () => {
    const path = writeRollouts([]);
    writeFileSync(path, '{"responses_create_params": {"input": "x"}, "response": {"output": []}}\n{oops\n');
    await expect(startWeather(path, false)).rejects.toThrow(`${path}:2: not valid JSON`);
  });
});
