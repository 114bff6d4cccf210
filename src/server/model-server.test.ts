/**
 * The three model dialects through the official clients' own parsing (openai, @anthropic-ai/sdk), with and
 * without streaming, against a model server in-process on port 0: a scripted model (answering Chat
 * Completions and Messages through its /v1/responses) and vllm_model over a scripted engine (its own Chat
 * Completions backend, and a malformed engine answer).
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NgymError } from '../errors.ts';
import { type InProcessGym, startInProcessGym } from '../gym/in-process.ts';
import type { ResponseItem } from '../protocol/responses.ts';
import { startVllmBackend, type VllmBackend } from '../testing/vllm-backend.ts';
import { assistantMessage, functionCall, type ScriptedCall, scriptedModel, usage } from './scripted-model.ts';

const REASONING: ResponseItem = { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'The weather tool knows.' }] };
const REPLIES: Record<string, ResponseItem[]> = {
  text: [assistantMessage('Hello there!', { id: 'msg_text' })],
  tools: [REASONING, assistantMessage('Let me check.', { id: 'msg_tools' }), functionCall('get_weather', { city: 'Paris' }, 'call_1')],
  // Arguments that are JSON but not an object: a tool_use block cannot carry them.
  'bad-arguments': [functionCall('get_weather', '[1, 2]', 'call_2')],
};

function lastUserText(call: ScriptedCall): string {
  const last = call.input.findLast((item) => item.type === 'message' || (item.type === undefined && 'role' in item));
  const content = (last as { content: unknown }).content;
  return typeof content === 'string' ? content : (content as Array<{ text?: string }>).map((part) => part.text ?? '').join('');
}

const model = scriptedModel((call) => {
  const key = lastUserText(call);
  if (key === 'explode') throw new Error('the backend exploded');
  const output = REPLIES[key];
  if (output === undefined) throw new NgymError('NGYM_INVALID_REQUEST', `no scripted reply for ${key}`, { status: 400 });
  return { output, usage: usage(12, 5), model: 'scripted-model' };
});

let gym: InProcessGym;
let engine: VllmBackend;
let openai: OpenAI;
let anthropic: Anthropic;
let vllmOpenai: OpenAI;
let vllmAnthropic: Anthropic;

beforeAll(async () => {
  // An engine whose every answer is a 200 that is no chat completion.
  engine = await startVllmBackend({ reply: () => ({ status: 200, body: { object: 'not.a.completion' } }) });
  gym = await startInProcessGym({
    config: {
      policy_model: { responses_api_models: { scripted: { entrypoint: 'app.ts' } } },
      vllm: {
        responses_api_models: {
          vllm_model: { entrypoint: 'app.ts', base_url: engine.baseUrl, api_key: 'k', model: 'toy', return_token_id_information: false, uses_reasoning_parser: false },
        },
      },
    },
    definitions: { policy_model: model.definition },
  });
  openai = new OpenAI({ baseURL: gym.url('policy_model', '/v1'), apiKey: 'unused', maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: gym.url('policy_model'), apiKey: 'unused', maxRetries: 0 });
  vllmOpenai = new OpenAI({ baseURL: gym.url('vllm', '/v1'), apiKey: 'unused', maxRetries: 0 });
  vllmAnthropic = new Anthropic({ baseURL: gym.url('vllm'), apiKey: 'unused', maxRetries: 0 });
});

afterAll(async () => {
  await gym?.close();
  await engine?.close();
});

/** What a client rebuilt, without what differs between two calls (ids, timestamps). */
const withoutCallIds = ({ id: _id, created_at: _created, created: _c, ...rest }: Record<string, any>) => rest;
/** The openai stream helper adds its parse results (`parsed`, `parsed_arguments`, `output_parsed`) to what it rebuilt. */
const withoutParsed = <T>(value: T): T => JSON.parse(JSON.stringify(value, (key, inner) => (['parsed', 'parsed_arguments', 'output_parsed'].includes(key) ? undefined : inner)));

describe('/v1/responses', () => {
  it.each(['text', 'tools'])('streams the same %s answer the client gets without streaming', async (key) => {
    const plain = await openai.responses.create({ model: 'scripted-model', input: key });
    expect(plain.output).toEqual(REPLIES[key]);

    const deltas: string[] = [];
    const stream = openai.responses.stream({ model: 'scripted-model', input: key });
    stream.on('response.output_text.delta', (event) => deltas.push(event.delta));
    const streamed = withoutParsed(await stream.finalResponse());
    expect(streamed.output).toEqual(plain.output);
    expect(streamed.output_text).toBe(plain.output_text);
    expect(withoutCallIds(streamed)).toEqual(withoutCallIds(plain));
    expect(deltas.join('')).toBe(plain.output_text);
  });

  it('sends the Responses API events in order, each numbered', async () => {
    const events = [];
    for await (const event of await openai.responses.create({ model: 'scripted-model', input: 'tools', stream: true })) events.push(event);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_event, index) => index));
    const types = events.map((event) => event.type);
    expect(types.slice(0, 2)).toEqual(['response.created', 'response.in_progress']);
    expect(types.at(-1)).toBe('response.completed');
    expect(types.filter((type) => type === 'response.output_item.done')).toHaveLength(3);
    expect(types).toContain('response.reasoning_summary_text.delta');
    expect(types).toContain('response.function_call_arguments.done');
  });

  it('a backend failure during a stream is a response.failed event carrying the reason', async () => {
    const events = [];
    for await (const event of await openai.responses.create({ model: 'scripted-model', input: 'explode', stream: true })) events.push(event);
    const failed = events.at(-1);
    expect(failed?.type).toBe('response.failed');
    expect(failed?.type === 'response.failed' && failed.response.error?.message).toContain('the backend exploded');
  });

  it('a request it cannot take is a 4xx naming the field, streaming or not', async () => {
    for (const stream of [false, true]) {
      const refused = openai.responses.create({ model: 'scripted-model', input: 'text', stream, seed: 3 } as never);
      await expect(refused).rejects.toMatchObject({ status: 422, message: expect.stringContaining('seed') });
    }
    await expect(openai.responses.create({ model: 'scripted-model', input: 'nothing-scripted', stream: true })).rejects.toMatchObject({ status: 400 });
  });
});

describe('/v1/chat/completions', () => {
  it('serves a text answer through the Responses backend, streamed or not, with the same message and usage', async () => {
    const request = { model: 'scripted-model', messages: [{ role: 'user' as const, content: 'text' }] };
    const plain = await openai.chat.completions.create(request);
    expect(plain.choices[0]).toMatchObject({ finish_reason: 'stop', message: { role: 'assistant', content: 'Hello there!' } });
    expect(plain.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 });

    const streamed = await openai.chat.completions.stream({ ...request, stream_options: { include_usage: true } }).finalChatCompletion();
    expect(streamed.choices[0]?.message.content).toBe(plain.choices[0]?.message.content);
    expect(streamed.choices[0]?.finish_reason).toBe('stop');
    expect(streamed.usage).toEqual(plain.usage);
  });

  it('carries tool calls and reasoning, streamed or not', async () => {
    const request = { model: 'scripted-model', messages: [{ role: 'user' as const, content: 'tools' }] };
    const plain = await openai.chat.completions.create(request);
    const message = plain.choices[0]?.message as OpenAI.ChatCompletionMessage & { reasoning_content?: string };
    expect(plain.choices[0]?.finish_reason).toBe('tool_calls');
    expect(message.content).toBe('Let me check.');
    expect(message.reasoning_content).toBe('The weather tool knows.');
    expect(message.tool_calls).toEqual([{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }]);

    const streamed = await openai.chat.completions.stream(request).finalChatCompletion();
    expect(streamed.choices[0]?.finish_reason).toBe('tool_calls');
    expect(streamed.choices[0]?.message).toMatchObject({ content: message.content, tool_calls: message.tool_calls });
  });

  it('sends a tool-call history back to the backend as Responses items', async () => {
    const before = model.calls.length;
    await openai.chat.completions.create({
      model: 'scripted-model',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'weather?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'get_weather', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'call_9', content: 'sunny' },
        { role: 'user', content: 'text' },
      ],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } }],
      max_tokens: 50,
    });
    const call = model.calls[before];
    expect(call?.input).toEqual([
      { type: 'message', role: 'system', content: 'Be brief.' },
      { type: 'message', role: 'user', content: 'weather?' },
      { type: 'function_call', call_id: 'call_9', name: 'get_weather', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_9', output: 'sunny' },
      { type: 'message', role: 'user', content: 'text' },
    ]);
    expect(call?.params).toMatchObject({ max_output_tokens: 50, tools: [{ type: 'function', name: 'get_weather', strict: false }] });
  });

  it('a field the Responses backend cannot carry is a 400 naming it, streaming or not', async () => {
    for (const stream of [false, true]) {
      const refused = openai.chat.completions.create({ model: 'scripted-model', messages: [{ role: 'user', content: 'text' }], n: 2, stream } as never);
      await expect(refused).rejects.toMatchObject({ status: 400, message: expect.stringContaining('n: the Responses API') });
    }
  });

  it('a backend failure during a stream is an error event the client raises', async () => {
    const stream = await openai.chat.completions.create({ model: 'scripted-model', messages: [{ role: 'user', content: 'explode' }], stream: true });
    await expect(
      (async () => {
        for await (const _chunk of stream);
      })(),
    ).rejects.toMatchObject({ message: expect.stringContaining('the backend exploded') });
  });
});

describe('/v1/messages', () => {
  it('answers text, streamed or not, with the same content and stop reason', async () => {
    const request = { model: 'claude-test', max_tokens: 100, messages: [{ role: 'user' as const, content: 'text' }] };
    const plain = await anthropic.messages.create(request);
    expect(plain).toMatchObject({ type: 'message', role: 'assistant', model: 'claude-test', stop_reason: 'end_turn', content: [{ type: 'text', text: 'Hello there!' }] });
    expect(plain.usage).toMatchObject({ input_tokens: 12, output_tokens: 5 });

    const texts: string[] = [];
    const stream = anthropic.messages.stream(request).on('text', (text) => texts.push(text));
    const streamed = await stream.finalMessage();
    expect(streamed.content).toEqual(plain.content);
    expect(streamed.stop_reason).toBe(plain.stop_reason);
    expect(streamed.usage.output_tokens).toBe(5);
    expect(texts.join('')).toBe('Hello there!');
  });

  it('answers thinking and tool use, streamed or not', async () => {
    const request = { model: 'claude-test', max_tokens: 100, messages: [{ role: 'user' as const, content: 'tools' }] };
    const plain = await anthropic.messages.create(request);
    expect(plain.stop_reason).toBe('tool_use');
    expect(plain.content).toEqual([
      { type: 'thinking', thinking: 'The weather tool knows.', signature: '' },
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } },
    ]);
    const streamed = await anthropic.messages.stream(request).finalMessage();
    expect(streamed.content).toEqual(plain.content);
    expect(streamed.stop_reason).toBe('tool_use');
  });

  it('sends system, tool use and tool results to the backend as instructions and Responses items', async () => {
    const before = model.calls.length;
    await anthropic.messages.create({
      model: 'claude-test',
      max_tokens: 64,
      system: [{ type: 'text', text: 'Be brief.' }],
      tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      messages: [
        { role: 'user', content: 'weather?' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'cold' }] }, { type: 'text', text: 'text' }] },
      ],
    });
    const call = model.calls[before];
    expect(call?.params).toMatchObject({ instructions: 'Be brief.', max_output_tokens: 64, tool_choice: 'required', parallel_tool_calls: false });
    expect(call?.input).toEqual([
      { type: 'message', role: 'user', content: 'weather?' },
      { type: 'function_call', id: 'toolu_1', call_id: 'toolu_1', name: 'get_weather', arguments: '{"city": "Oslo"}', status: 'completed' },
      { type: 'function_call_output', call_id: 'toolu_1', output: 'cold' },
      { type: 'message', role: 'user', content: 'text' },
    ]);
  });

  it('a request it cannot map is a 4xx naming the field, streaming or not', async () => {
    const base = { model: 'claude-test', max_tokens: 10, messages: [{ role: 'user' as const, content: 'text' }] };
    for (const stream of [false, true]) {
      await expect(anthropic.messages.create({ ...base, top_k: 5, stream } as never)).rejects.toMatchObject({ status: 400, message: expect.stringContaining('top_k') });
      const document = { role: 'user' as const, content: [{ type: 'document' as const, source: { type: 'text' as const, media_type: 'text/plain' as const, data: 'x' } }] };
      await expect(anthropic.messages.create({ ...base, messages: [document], stream })).rejects.toMatchObject({
        status: 400,
        message: expect.stringContaining('messages.0.content.0.type'),
      });
      await expect(anthropic.messages.create({ ...base, messages: [{ role: 'system', content: 'x' }], stream } as never)).rejects.toMatchObject({
        status: 422,
        message: expect.stringContaining('messages'),
      });
    }
  });

  it('an answer it cannot map fails the call: a 500 without streaming, an error event the client raises with', async () => {
    const request = { model: 'claude-test', max_tokens: 10, messages: [{ role: 'user' as const, content: 'bad-arguments' }] };
    await expect(anthropic.messages.create(request)).rejects.toMatchObject({ status: 500, message: expect.stringContaining('not a JSON object') });
    await expect(anthropic.messages.stream(request).finalMessage()).rejects.toMatchObject({ message: expect.stringContaining('not a JSON object') });
  });
});

describe('a malformed engine answer during a stream (vllm_model)', () => {
  it('fails each dialect with its error event, never a hung stream', async () => {
    const events = [];
    for await (const event of await vllmOpenai.responses.create({ model: 'toy', input: 'hi', stream: true })) events.push(event);
    expect(events.map((event) => event.type)).toEqual(['response.created', 'response.failed']);
    expect(events[1]?.type === 'response.failed' && events[1].response.error?.message).toContain('invalid chat completion');

    const chat = await vllmOpenai.chat.completions.create({ model: 'toy', messages: [{ role: 'user', content: 'hi' }], stream: true });
    await expect(
      (async () => {
        for await (const _chunk of chat);
      })(),
    ).rejects.toMatchObject({ message: expect.stringContaining('invalid chat completion') });

    const messages = vllmAnthropic.messages.stream({ model: 'toy', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
    await expect(messages.finalMessage()).rejects.toMatchObject({ message: expect.stringContaining('invalid chat completion') });
  });
});
