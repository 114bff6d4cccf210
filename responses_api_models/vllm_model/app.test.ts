/**
 * vllm_model through its HTTP surface against scripted engines: conformance cases C.2-C.6 of spec
 * training-integration, with ports of upstream's vllm_model tests named after them (C.9).
 */
import { createHash } from 'node:crypto';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CookieJar, sharedHttpClient } from 'ngym';
import {
  type FakeEndpoint,
  type InProcessGym,
  startFakeEndpoint,
  startInProcessGym,
  startVllmBackend,
  type VllmBackend,
  type VllmBackendOptions,
} from 'ngym/testing';
import { policyModelConfig } from './test-config.ts';

const http = sharedHttpClient();
const COOKIE = 'VLLMModel___policy_model';
let gym: InProcessGym | undefined;
let closers: Array<() => Promise<void>> = [];

afterEach(async () => {
  await gym?.close();
  gym = undefined;
  await Promise.all(closers.map((close) => close()));
  closers = [];
});

async function backend(options: Partial<VllmBackendOptions> = {}): Promise<VllmBackend> {
  const started = await startVllmBackend({ reply: () => ({ content: 'Hello' }), ...options });
  closers.push(started.close);
  return started;
}

async function fake(handler: Parameters<typeof startFakeEndpoint>[0]): Promise<FakeEndpoint> {
  const started = await startFakeEndpoint(handler);
  closers.push(started.close);
  return started;
}

async function startModel(baseUrl: string | string[], extra: Record<string, unknown> = {}): Promise<InProcessGym> {
  gym = await startInProcessGym({ config: policyModelConfig(baseUrl, { return_token_id_information: false, uses_reasoning_parser: false, ...extra }) });
  return gym;
}

function post(path: string, body: unknown, cookies?: CookieJar) {
  return http.request((gym as InProcessGym).url('policy_model', path), { body, cookies });
}

async function responses(body: unknown, cookies?: CookieJar): Promise<any> {
  const response = await post('/v1/responses', body, cookies);
  expect(response.status, response.text).toBe(200);
  return response.json();
}

/** The session id inside this server's signed cookie (`<base64url JSON>.<signature>`). */
function sessionIdOf(cookies: CookieJar): string {
  const value = cookies.get(COOKIE) ?? '';
  return JSON.parse(Buffer.from(value.split('.')[0] ?? '', 'base64url').toString('utf8')).session_id;
}

const ids = { prompt_token_ids: [1, 3, 4], generation_token_ids: [5, 2], generation_log_probs: [-0.1, -0.2] };

/** A bare engine answering one scripted completion and `/tokenize` with `[1, 3, 4]` (spec C.4.2's numbers). */
function chatReply(message: Record<string, unknown>, choice: Record<string, unknown> = {}, top: Record<string, unknown> = {}) {
  return (request: { path: string }) =>
    request.path === '/tokenize'
      ? { body: { tokens: [1, 3, 4] } }
      : {
          body: {
            id: 'chatcmpl-1',
            object: 'chat.completion',
            created: 7,
            model: 'toy-model',
            choices: [
              {
                index: 0,
                message: { role: 'assistant', ...message },
                logprobs: { content: [{ token: 'token_id:5', logprob: -0.1 }, { token: 'token_id:2', logprob: -0.2 }] },
                finish_reason: 'stop',
                ...choice,
              },
            ],
            ...top,
          },
        };
}

describe('C.2 /v1/responses -> chat completions (not training)', () => {
  it('sends a string input as one user message and nothing else', async () => {
    const engine = await backend();
    await startModel(engine.baseUrl);
    await responses({ input: 'hello' });
    expect(engine.chatRequests()[0]?.body).toEqual({ messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }], model: 'toy-model' });
    expect(engine.chatRequests()[0]?.headers.authorization).toBe('Bearer EMPTY');
    expect(engine.tokenizeRequests()).toHaveLength(0);
  });

  it('maps max_output_tokens and tools, forwards sampling unchanged and drops `strict`', async () => {
    const engine = await backend();
    await startModel(engine.baseUrl);
    const parameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    await responses({
      input: [{ role: 'user', content: 'hi' }],
      max_output_tokens: 64,
      temperature: 0.7,
      top_p: 0.9,
      tools: [{ type: 'function', name: 'get_weather', description: '', parameters, strict: true }],
    });
    expect(engine.chatRequests()[0]?.body).toEqual({
      messages: [{ role: 'user', content: 'hi' }],
      model: 'toy-model',
      max_tokens: 64,
      temperature: 0.7,
      top_p: 0.9,
      tools: [{ type: 'function', function: { name: 'get_weather', description: '', parameters } }],
    });
  });

  it('merges a mixed history into system, user, one assistant message, tools and user', async () => {
    const engine = await backend();
    await startModel(engine.baseUrl);
    await responses({
      input: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'q' },
        { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'A' }, { type: 'summary_text', text: 'B' }] },
        { type: 'message', role: 'assistant', id: 'msg_1', status: 'completed', content: [{ type: 'output_text', text: 'C', annotations: [] }] },
        { type: 'function_call', id: 'fc_x', call_id: 'x', name: 'f', arguments: '{"a": 1}' },
        { type: 'function_call', id: 'fc_y', call_id: 'y', name: 'g', arguments: '{}' },
        { type: 'function_call_output', call_id: 'x', output: 'X' },
        { type: 'function_call_output', call_id: 'y', output: 'Y' },
        { role: 'user', content: 'next' },
      ],
    });
    expect(engine.chatRequests()[0]?.body.messages).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: '<think>A</think><think>B</think>C',
        tool_calls: [
          { id: 'x', type: 'function', function: { name: 'f', arguments: '{"a": 1}' } },
          { id: 'y', type: 'function', function: { name: 'g', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'x', content: 'X' },
      { role: 'tool', tool_call_id: 'y', content: 'Y' },
      { role: 'user', content: 'next' },
    ]);
  });

  it('answers 422 for an unknown top-level field and converts an input_image part (HEAD)', async () => {
    const engine = await backend();
    await startModel(engine.baseUrl);
    const unknown = await post('/v1/responses', { input: 'x', foo: 1 });
    expect(unknown.status).toBe(422);
    expect(unknown.json<any>().detail[0]).toMatchObject({ loc: ['body', 'foo'] });
    await responses({ input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'data:image/png;base64,AA', detail: 'auto' }] }] });
    expect(engine.chatRequests()[0]?.body.messages[0].content).toEqual([{ type: 'image_url', image_url: { url: 'data:image/png;base64,AA', detail: 'auto' } }]);
  });

  it('replaces the developer role and merges extra_body under the request', async () => {
    const engine = await backend();
    await startModel(engine.baseUrl, { replace_developer_role_with_system: true, extra_body: { top_k: 20, temperature: 0.1 } });
    await responses({ input: [{ role: 'developer', content: 'd' }, { role: 'user', content: 'u' }], temperature: 0.7 });
    expect(engine.chatRequests()[0]?.body).toMatchObject({ messages: [{ role: 'system', content: 'd' }, { role: 'user', content: 'u' }], top_k: 20, temperature: 0.7 });
  });

  it('test_responses_reasoning_parser: sends history reasoning as reasoning_content and reasoning; without a parser content is unchanged', async () => {
    const history = { input: [{ role: 'user', content: 'q' }, { role: 'assistant', content: '<think>R</think>C' }, { role: 'user', content: 'again' }] };
    const withParser = await backend();
    await startModel(withParser.baseUrl, { uses_reasoning_parser: true });
    await responses(history);
    expect(withParser.chatRequests()[0]?.body.messages[1]).toEqual({ role: 'assistant', content: 'C', reasoning_content: 'R', reasoning: 'R' });
    await gym?.close();

    const withoutParser = await backend();
    await startModel(withoutParser.baseUrl, { uses_reasoning_parser: false });
    await responses(history);
    expect(withoutParser.chatRequests()[0]?.body.messages[1]).toEqual({ role: 'assistant', content: '<think>R</think>C' });
  });

  it('test_metadata_chat_template_kwargs_override and test_metadata_extra_body_override', async () => {
    const engine = await backend();
    await startModel(engine.baseUrl, { chat_template_kwargs: { enable_thinking: true, keep: 1 }, extra_body: { top_k: 20, min_p: 0.1 } });
    const metadata = { chat_template_kwargs: '{"enable_thinking": false}', extra_body: '{"top_k": 5}' };
    await responses({ input: 'x', metadata });
    expect(engine.chatRequests()[0]?.body).toMatchObject({ chat_template_kwargs: { enable_thinking: false, keep: 1 }, top_k: 5, min_p: 0.1, metadata });
    const bad = await post('/v1/responses', { input: 'x', metadata: { extra_body: 'not json' } });
    expect(bad.status).toBe(400);
    expect(bad.json<any>().detail).toMatch(/metadata\.extra_body must be a JSON object/);
  });

  it('test_overrides_replace_what_the_client_sent: sampling_overrides win over the caller and extra_body', async () => {
    const engine = await backend();
    await startModel(engine.baseUrl, { extra_body: { temperature: 0.3 }, sampling_overrides: { temperature: 1.0, top_p: 1.0 } });
    await responses({ input: 'x', temperature: 0.2 });
    await post('/v1/chat/completions', { messages: [{ role: 'user', content: 'x' }], top_p: 0.5 });
    expect(engine.chatRequests().map((request) => [request.body.temperature, request.body.top_p])).toEqual([
      [1, 1],
      [1, 1],
    ]);
  });

  it('refuses upstream keys it does not implement, naming them', async () => {
    const engine = await backend();
    await expect(startModel(engine.baseUrl, { is_responses_native: true })).rejects.toThrow(/is_responses_native/);
    await expect(startModel(engine.baseUrl, { forward_session_id_as_conversation_id: true })).rejects.toThrow(/forward_session_id_as_conversation_id/);
  });

  it("takes upstream 0.7.0's endpoint_* keys (no effect without endpoint_file) and sends history reasoning under reasoning_field", async () => {
    const history = { input: [{ role: 'user', content: 'q' }, { role: 'assistant', content: '<think>R</think>C' }, { role: 'user', content: 'again' }] };
    const engine = await backend();
    await startModel(engine.baseUrl, {
      uses_reasoning_parser: true,
      reasoning_field: 'reasoning_content',
      endpoint_file: null,
      endpoint_stale_grace_s: 300.0,
      endpoint_connection_retries: 8,
      endpoint_check_interval_s: 10.0,
      tokenizer: null,
    });
    await responses(history);
    expect(engine.chatRequests()[0]?.body.messages[1]).toEqual({ role: 'assistant', content: 'C', reasoning_content: 'R' });
    await gym?.close();
    await startModel(engine.baseUrl, { uses_reasoning_parser: true, reasoning_field: 'reasoning' });
    await responses(history);
    expect(engine.chatRequests()[1]?.body.messages[1]).toEqual({ role: 'assistant', content: 'C', reasoning: 'R' });
    await gym?.close();
    await expect(startModel(engine.baseUrl, { reasoning_field: 'thinking' })).rejects.toThrow(/reasoning_field/);
  });

  it("drops a request's own chat_template_kwargs unless forward_request_chat_template_kwargs (config < request < metadata)", async () => {
    const engine = await backend();
    const request = { messages: [{ role: 'user', content: 'x' }], chat_template_kwargs: { enable_thinking: true, from_request: 1 } };
    await startModel(engine.baseUrl, { chat_template_kwargs: { enable_thinking: false, from_config: 1 } });
    expect((await post('/v1/chat/completions', request)).status).toBe(200);
    expect(engine.chatRequests()[0]?.body.chat_template_kwargs).toEqual({ enable_thinking: false, from_config: 1 });
    await gym?.close();
    await startModel(engine.baseUrl, { chat_template_kwargs: { enable_thinking: false, from_config: 1 }, forward_request_chat_template_kwargs: true });
    const metadata = { chat_template_kwargs: '{"from_request": 2}' };
    expect((await post('/v1/chat/completions', { ...request, metadata })).status).toBe(200);
    expect(engine.chatRequests()[1]?.body.chat_template_kwargs).toEqual({ enable_thinking: true, from_config: 1, from_request: 2 });
  });
});

describe('C.3 chat completion -> Responses output', () => {
  it('splits inline <think> into a reasoning item before the message', async () => {
    const engine = await backend({ reply: () => ({ reasoning: 'R', content: 'Hello' }) });
    await startModel(engine.baseUrl, { uses_reasoning_parser: true });
    const body = await responses({ input: 'q' });
    expect(body.output).toMatchObject([
      { type: 'reasoning', summary: [{ type: 'summary_text', text: 'R' }], status: 'completed' },
      { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Hello', annotations: [], logprobs: null }] },
    ]);
    expect(body.output[0].id).toMatch(/^rs_[0-9a-f]{32}$/);
    expect(body.output[1].id).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(body).toMatchObject({ object: 'response', model: 'toy-model', status: 'completed', incomplete_details: null, tool_choice: 'auto' });
    expect(body.id).toMatch(/^resp_/);
  });

  it('test_responses_reasoning_parser_reasoning: folds reasoning_content back; without a parser it is a 500', async () => {
    const engine = await backend({ reasoningParser: 'reasoning_content', reply: () => ({ reasoning: 'R', content: 'Hi' }) });
    await startModel(engine.baseUrl, { uses_reasoning_parser: true });
    expect((await responses({ input: 'q' })).output).toMatchObject([{ type: 'reasoning', summary: [{ text: 'R' }] }, { type: 'message', content: [{ text: 'Hi' }] }]);
    await gym?.close();

    const newer = await backend({ reasoningParser: 'reasoning', reply: () => ({ reasoning: 'R', content: 'Hi' }) });
    await startModel(newer.baseUrl, { uses_reasoning_parser: true });
    expect((await responses({ input: 'q' })).output).toMatchObject([{ type: 'reasoning', summary: [{ text: 'R' }] }, { type: 'message' }]);
    await gym?.close();

    await startModel(engine.baseUrl, { uses_reasoning_parser: false });
    const refused = await post('/v1/responses', { input: 'q' });
    expect(refused.status).toBe(500);
    expect(refused.json<string>()).toMatch(/uses_reasoning_parser/);
  });

  it('turns tool calls into function_call items whose id is the call id', async () => {
    const engine = await backend({
      reply: () => ({ toolCalls: [{ id: 'call_1', name: 'f', arguments: { a: 1 } }, { id: 'call_2', name: 'g', arguments: '{}' }] }),
    });
    await startModel(engine.baseUrl);
    const body = await responses({ input: 'q', tools: [{ type: 'function', name: 'f', parameters: {} }, { type: 'function', name: 'g', parameters: {} }] });
    expect(body.output).toEqual([
      { type: 'function_call', id: 'call_1', call_id: 'call_1', name: 'f', arguments: '{"a":1}', status: 'completed' },
      { type: 'function_call', id: 'call_2', call_id: 'call_2', name: 'g', arguments: '{}', status: 'completed' },
    ]);
  });

  it('answers an empty generation with one empty message', async () => {
    const engine = await backend({ reply: () => ({ content: '' }) });
    await startModel(engine.baseUrl);
    expect((await responses({ input: 'q' })).output).toMatchObject([{ type: 'message', content: [{ type: 'output_text', text: '' }] }]);
  });

  it('maps finish_reason length to incomplete_details max_output_tokens', async () => {
    const engine = await backend({ reply: () => ({ content: 'trunc', finishReason: 'length' }) });
    await startModel(engine.baseUrl);
    expect(await responses({ input: 'q' })).toMatchObject({ incomplete_details: { reason: 'max_output_tokens' }, status: 'incomplete' });
  });

  it('test_whitespace_round_trip_chat_completions: reasoning and content whitespace survive byte for byte', async () => {
    const reasoning = ' \n \n R \n \n ';
    const content = ' \n \n C \n \n ';
    const inline = `<think>${reasoning}</think>${content}`;
    for (const parser of [false, 'reasoning_content'] as const) {
      const engine = await backend({ reasoningParser: parser, reply: () => ({ reasoning, content }) });
      await startModel(engine.baseUrl, { uses_reasoning_parser: parser !== false });
      const first = await responses({ input: 'q' });
      if (parser) expect(first.output).toMatchObject([{ summary: [{ text: reasoning }] }, { content: [{ text: content }] }]);
      else expect(first.output).toMatchObject([{ content: [{ text: inline }] }]);
      await responses({ input: [{ role: 'user', content: 'q' }, ...first.output, { role: 'user', content: 'again' }] });
      const sent = engine.chatRequests()[1]?.body.messages[1];
      if (parser) expect(sent).toEqual({ role: 'assistant', content, reasoning_content: reasoning, reasoning });
      else expect(sent).toEqual({ role: 'assistant', content: inline });
      // The same bytes through /v1/chat/completions.
      const chat = await post('/v1/chat/completions', { messages: [{ role: 'user', content: 'q' }] });
      expect(chat.json<any>().choices[0].message.content).toBe(inline);
      await gym?.close();
    }
  });
});

describe('C.4 training mode (return_token_id_information)', () => {
  const training = { return_token_id_information: true, uses_reasoning_parser: true };

  it('test_capture_path_pins_top_logprobs_to_zero, then tokenizes the same messages on the same engine', async () => {
    const engine = await backend();
    await startModel(engine.baseUrl, training);
    const tools = [{ type: 'function', name: 'f', parameters: { type: 'object' }, strict: true }];
    await responses({ input: 'q', tools, top_logprobs: 5, temperature: 1, top_p: 1 });
    const chat = engine.chatRequests()[0]?.body;
    expect(chat).toMatchObject({ logprobs: true, top_logprobs: 0, return_tokens_as_token_ids: true, temperature: 1, top_p: 1 });
    expect(engine.tokenizeRequests()).toHaveLength(1);
    expect(engine.tokenizeRequests()[0]?.body).toEqual({ model: 'toy-model', messages: chat.messages, tools: chat.tools });
  });

  it('test_capture_path_forwards_prompt_affecting_fields_to_tokenize: chat_template_kwargs from extra_body reach /tokenize', async () => {
    const engine = await backend();
    await startModel(engine.baseUrl, { ...training, extra_body: { chat_template_kwargs: { enable_thinking: false } } });
    const body = await responses({ input: 'q' });
    expect(engine.tokenizeRequests()[0]?.body.chat_template_kwargs).toEqual({ enable_thinking: false });
    // The toy template renders enable_thinking, so only a complete /tokenize body gives the generation's prompt.
    expect(body.output[0].prompt_token_ids).toEqual(engine.generations[0]?.call.promptTokenIds);
  });

  it('puts the three fields on the function call only when the call ends with one', async () => {
    const engine = await fake(chatReply({ content: '<think>R</think>', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }] }));
    await startModel(`${engine.url}/v1`, training);
    const body = await responses({ input: 'q', tools: [{ type: 'function', name: 'f', parameters: {} }] });
    expect(body.output.map((item: any) => item.type)).toEqual(['reasoning', 'function_call']);
    expect(body.output[0]).not.toHaveProperty('prompt_token_ids');
    expect(body.output[1]).toMatchObject(ids);
    expect(engine.requests.map((request) => request.path)).toEqual(['/v1/chat/completions', '/tokenize']);
  });

  it('puts them on the message when it is last, and on the reasoning item of a reasoning-only reply', async () => {
    const message = await fake(chatReply({ content: '<think>R</think>Hello' }));
    await startModel(`${message.url}/v1`, training);
    const withMessage = await responses({ input: 'q' });
    expect(withMessage.output[0]).not.toHaveProperty('generation_token_ids');
    expect(withMessage.output[1]).toMatchObject({ type: 'message', ...ids });
    await gym?.close();

    const reasoningOnly = await fake(chatReply({ content: '<think>R</think>' }));
    await startModel(`${reasoningOnly.url}/v1`, training);
    expect((await responses({ input: 'q' })).output).toMatchObject([{ type: 'reasoning', ...ids }]);
  });

  it('serves the fields on choices[0].message through /v1/chat/completions, without logprobs', async () => {
    const engine = await fake(chatReply({ content: 'Hi' }));
    await startModel(`${engine.url}/v1`, training);
    const response = await post('/v1/chat/completions', { messages: [{ role: 'user', content: 'q' }] });
    const body = response.json<any>();
    expect(body.choices[0].message).toEqual({ role: 'assistant', content: 'Hi', ...ids });
    expect(body.choices[0]).not.toHaveProperty('logprobs');
  });

  it('accepts TRL 0.28 bare token ids', async () => {
    const engine = await backend({ tokenFormat: 'bare', reply: () => ({ content: 'ok' }) });
    await startModel(engine.baseUrl, training);
    const item = (await responses({ input: 'q' })).output[0];
    expect(item.generation_token_ids).toEqual(engine.generations[0]?.generationTokenIds);
    expect(engine.chatRequests()[0]?.body).toMatchObject({ return_tokens_as_token_ids: true });
  });

  it('test_capture_path_accepts_framework_message_bundle: a NeMo RL bundle is used without /tokenize', async () => {
    const engine = await backend({ tokenDelivery: 'bundle' });
    await startModel(engine.baseUrl, training);
    const item = (await responses({ input: 'q' })).output[0];
    expect(item).toMatchObject({ prompt_token_ids: engine.generations[0]?.call.promptTokenIds, generation_token_ids: engine.generations[0]?.generationTokenIds });
    expect(engine.tokenizeRequests()).toHaveLength(0);
  });

  it('test_capture_path_prefers_vllm_response_token_ids: inline return_token_ids are used and cross-checked', async () => {
    const engine = await backend();
    await startModel(engine.baseUrl, { ...training, request_prompt_and_generation_token_ids: true });
    const response = await post('/v1/chat/completions', { messages: [{ role: 'user', content: 'q' }] });
    const body = response.json<any>();
    expect(engine.chatRequests()[0]?.body.return_token_ids).toBe(true);
    expect(engine.tokenizeRequests()).toHaveLength(0);
    expect(body.choices[0].message.prompt_token_ids).toEqual(engine.generations[0]?.call.promptTokenIds);
    expect(body).not.toHaveProperty('prompt_token_ids');
    expect(body.choices[0]).not.toHaveProperty('token_ids');
  });

  const broken: Array<[string, Partial<VllmBackendOptions>, Record<string, unknown>, RegExp]> = [
    [
      'test_capture_path_rejects_disagreeing_duplicate_ids',
      { tokenDelivery: 'bundle', transform: (completion) => (completion.choices[0].token_ids = [9]) },
      { request_prompt_and_generation_token_ids: true },
      /disagrees/,
    ],
    ['test_capture_path_rejects_partial_message_bundle', { tokenDelivery: 'bundle', transform: (completion) => delete completion.choices[0].message.generation_log_probs }, {}, /partial token metadata; missing: generation_log_probs/],
    ['test_capture_path_rejects_mismatched_generation_lengths', { tokenDelivery: 'bundle', transform: (completion) => completion.choices[0].message.generation_log_probs.pop() }, {}, /mismatched/],
    ['inline ids that disagree with the logprobs', { transform: (completion) => completion.choices[0].token_ids.reverse() }, { request_prompt_and_generation_token_ids: true }, /disagree with the choice logprob/],
    ['a partial inline pair', { transform: (completion) => (completion.prompt_token_ids = [1]) }, {}, /missing: choice\.token_ids/],
    ['logprob tokens that are not ids', { transform: (completion) => (completion.choices[0].logprobs.content[0].token = 'Hel') }, {}, /token_id:<int>/],
    ['a reply without logprobs that has content', { transform: (completion) => (completion.choices[0].logprobs = null) }, {}, /returned none/],
  ];
  for (const [name, options, extra, message] of broken) {
    it(`fails with 500 on ${name}`, async () => {
      const engine = await backend(options);
      await startModel(engine.baseUrl, { ...training, ...extra });
      const response = await post('/v1/responses', { input: 'q' });
      expect(response.status).toBe(500);
      expect(response.json<string>()).toMatch(message);
    });
  }

  it('test_responses_multistep: the next call sends the previous ids back on the assistant message, and a later message does not inherit them', async () => {
    const engine = await backend({
      reply: ({ index }) => (index === 0 ? { reasoning: 'R', toolCalls: [{ id: 'call_1', name: 'f', arguments: {} }] } : { content: 'done' }),
    });
    await startModel(engine.baseUrl, training);
    const cookies = new CookieJar();
    const first = await post('/v1/responses', { input: [{ role: 'user', content: 'q' }] });
    cookies.merge(first.cookies);
    const output = first.json<any>().output;
    const second = await responses({ input: [{ role: 'user', content: 'q' }, ...output, { type: 'function_call_output', call_id: 'call_1', output: 'X' }] }, cookies);
    const carried = { prompt_token_ids: output[1].prompt_token_ids, generation_token_ids: output[1].generation_token_ids, generation_log_probs: output[1].generation_log_probs };
    const sent = engine.chatRequests()[1]?.body.messages[1];
    expect(sent).toEqual({ role: 'assistant', content: '', reasoning_content: 'R', reasoning: 'R', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }], ...carried });
    expect(engine.tokenizeRequests()[1]?.body.messages[1]).toEqual(sent);
    // The engine spliced the ids in: the second prompt extends the first prompt and generation.
    const prefix = [...carried.prompt_token_ids, ...carried.generation_token_ids];
    expect(second.output[0].prompt_token_ids.slice(0, prefix.length)).toEqual(prefix);

    await responses({ input: [{ role: 'user', content: 'q' }, ...output, { type: 'function_call_output', call_id: 'call_1', output: 'X' }, { role: 'assistant', content: 'edited' }, { role: 'user', content: 'more' }] }, cookies);
    expect(engine.chatRequests()[2]?.body.messages[3]).toEqual({ role: 'assistant', content: 'edited' });
  });

  it('maps a context-length 400 to an empty message without token fields (HEAD: incomplete, max_output_tokens)', async () => {
    const engine = await backend({ maxModelLen: 8 });
    await startModel(engine.baseUrl, training);
    const body = await responses({ input: 'a question that is far too long for a context of eight tokens' });
    expect(body.output).toHaveLength(1);
    expect(body.output[0]).toEqual({ id: expect.stringMatching(/^msg_/), type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: '', annotations: [], logprobs: null }] });
    expect(body.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(engine.tokenizeRequests()).toHaveLength(0);
  });

  it("treats TRL's overflow reply (200, empty content, no logprobs) the same way", async () => {
    const engine = await backend({ maxModelLen: 8, overflowStyle: 'trl' });
    await startModel(engine.baseUrl, training);
    const body = await responses({ input: 'a question that is far too long for a context of eight tokens' });
    expect(body.output).toMatchObject([{ type: 'message', content: [{ text: '' }] }]);
    expect(body.output[0]).not.toHaveProperty('prompt_token_ids');
    expect(body.incomplete_details).toEqual({ reason: 'max_output_tokens' });
  });

  it('refuses n > 1, which token capture cannot represent', async () => {
    const engine = await backend();
    await startModel(engine.baseUrl, training);
    const response = await post('/v1/chat/completions', { messages: [{ role: 'user', content: 'q' }], n: 2 });
    expect(response.status).toBe(400);
    expect(response.json<any>().detail).toMatch(/n=1/);
    expect(engine.chatRequests()).toHaveLength(0);
  });
});

describe('C.5 backend affinity', () => {
  it('test_client_session_routing: sha256(session id) picks the engine; a session sticks, /tokenize included', async () => {
    const engines = [await backend(), await backend()];
    await startModel(
      engines.map((engine) => engine.baseUrl),
      { return_token_id_information: true },
    );
    const expected: number[] = [];
    const jars: CookieJar[] = [];
    for (let client = 0; client < 16; client++) {
      const response = await post('/v1/responses', { input: `client ${client}` });
      expect(response.status).toBe(200);
      const digest = createHash('sha256').update(sessionIdOf(response.cookies)).digest();
      expected.push(Number(digest.readBigUInt64BE(0) % 2n));
      jars.push(response.cookies);
    }
    const engineOf = (text: string) => engines.findIndex((engine) => engine.chatRequests().some((request) => JSON.stringify(request.body.messages).includes(text)));
    expect(expected.map((_, client) => engineOf(`client ${client}"`))).toEqual(expected);
    expect(new Set(expected).size).toBe(2);

    for (let repeat = 0; repeat < 3; repeat++) {
      const response = await post('/v1/responses', { input: `sticky ${repeat}` }, jars[0]);
      expect(sessionIdOf(response.cookies)).toBe(sessionIdOf(jars[0] as CookieJar));
    }
    const home = engines[expected[0] as number] as VllmBackend;
    const away = engines[1 - (expected[0] as number)] as VllmBackend;
    expect(home.chatRequests().filter((request) => JSON.stringify(request.body).includes('sticky'))).toHaveLength(3);
    expect(home.tokenizeRequests().filter((request) => JSON.stringify(request.body).includes('sticky'))).toHaveLength(3);
    expect(away.requests.filter((request) => JSON.stringify(request.body).includes('sticky'))).toHaveLength(0);
  });
});

describe('C.6 retries and errors', () => {
  it('retries rate limits past three attempts (HEAD) and succeeds', async () => {
    const engine = await backend({ reply: ({ index }) => (index < 3 ? { status: 429, body: { error: 'slow down' } } : { content: 'ok' }) });
    await startModel(engine.baseUrl);
    expect((await responses({ input: 'q' })).output[0].content[0].text).toBe('ok');
    expect(engine.chatRequests()).toHaveLength(4);
  });

  it('gives up on 500 after exactly three attempts, answering 500 with a JSON string', async () => {
    const engine = await backend({ reply: () => ({ status: 500, body: { error: 'engine died' } }) });
    await startModel(engine.baseUrl);
    const response = await post('/v1/responses', { input: 'q' });
    expect(response.status).toBe(500);
    expect(response.json<string>()).toMatch(/HTTP 500.*engine died/);
    expect(engine.chatRequests()).toHaveLength(3);
  });

  it('does not retry a 400 that is not a context overflow', async () => {
    const engine = await backend({ reply: () => ({ status: 400, body: { object: 'error', message: 'bad tool schema', code: 400 } }) });
    await startModel(engine.baseUrl);
    const response = await post('/v1/responses', { input: 'q' });
    // vLLM refused the request: a 502 naming the backend and its message (upstream answers a bare 500).
    expect(response.status).toBe(502);
    expect(response.json<{ detail: string }>().detail).toMatch(/answered HTTP 400: .*bad tool schema/);
    expect(engine.chatRequests()).toHaveLength(1);
  });

  it('gives up on a refused connection after three attempts', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await startModel(`http://127.0.0.1:${port}/v1`);
    const response = await post('/v1/responses', { input: 'q' });
    expect(response.status).toBe(500);
    expect(response.json<string>()).toMatch(/after 3 attempts/);
  });
});
