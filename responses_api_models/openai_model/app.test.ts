import { afterEach, describe, expect, it } from 'vitest';
import { sharedHttpClient } from 'ngym';
import {
  type FakeEndpoint,
  type InProcessGym,
  modelResponse,
  startFakeEndpoint,
  startInProcessGym,
} from 'ngym/testing';

const http = sharedHttpClient();
let gym: InProcessGym | undefined;
let endpoint: FakeEndpoint | undefined;
afterEach(async () => {
  await gym?.close();
  await endpoint?.close();
  gym = undefined;
  endpoint = undefined;
});

const modelConfig = (url: string, extra: Record<string, unknown> = {}) => ({
  policy_model: { responses_api_models: { openai_model: { entrypoint: 'app.ts', openai_base_url: `${url}/v1`, openai_api_key: 'sk-test', openai_model: 'gpt-test', ...extra } } },
});

describe('openai_model', () => {
  it('forwards /v1/responses with the configured model and key, and returns token fields unchanged', async () => {
    const item = { type: 'message', role: 'assistant', id: 'msg_1', status: 'completed', content: [{ type: 'output_text', text: 'hi', annotations: [] }], prompt_token_ids: [1, 2], generation_token_ids: [3], generation_log_probs: [-0.25] };
    endpoint = await startFakeEndpoint(() => ({ body: modelResponse([item] as never, { model: 'gpt-test' }) }));
    gym = await startInProcessGym({ config: modelConfig(endpoint.url) });
    const response = await http.request(gym.url('policy_model', '/v1/responses'), { body: { input: 'hello', model: 'ignored', temperature: 0.5 } });
    expect(response.status, response.text).toBe(200);
    expect(response.json<any>().output[0]).toEqual(item);
    expect(endpoint.requests[0]).toMatchObject({ path: '/v1/responses', body: { input: 'hello', model: 'gpt-test', temperature: 0.5 } });
    expect(endpoint.requests[0]?.headers.authorization).toBe('Bearer sk-test');
  });

  it('retries 429 and 5xx; answers a refusal (400) as a 502 carrying the backend error', async () => {
    endpoint = await startFakeEndpoint((_request, index) => (index < 2 ? { status: 429, body: { error: 'slow down' } } : { body: modelResponse([]) }));
    gym = await startInProcessGym({ config: modelConfig(endpoint.url) });
    expect((await http.request(gym.url('policy_model', '/v1/responses'), { body: { input: 'x' } })).status).toBe(200);
    expect(endpoint.requests).toHaveLength(3);
    await gym.close();
    await endpoint.close();

    endpoint = await startFakeEndpoint(() => ({ status: 400, body: { error: { message: 'bad model' } } }));
    gym = await startInProcessGym({ config: modelConfig(endpoint.url) });
    const failed = await http.request(gym.url('policy_model', '/v1/responses'), { body: { input: 'x' } });
    expect(failed.status).toBe(502);
    expect(failed.json<{ detail: string }>().detail).toMatch(/answered HTTP 400: .*bad model/);
    expect(endpoint.requests).toHaveLength(1);
  });

  it('streams both dialects from a non-streaming backend call, sending the backend no stream fields', async () => {
    const item = { type: 'message', role: 'assistant', id: 'msg_1', status: 'completed', content: [{ type: 'output_text', text: 'hi', annotations: [] }] };
    const completion = { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'gpt-test', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'ok' } }] };
    endpoint = await startFakeEndpoint((request) => ({ body: request.path === '/v1/responses' ? modelResponse([item] as never, { model: 'gpt-test' }) : completion }));
    gym = await startInProcessGym({ config: modelConfig(endpoint.url) });
    const responses = await http.request(gym.url('policy_model', '/v1/responses'), { body: { input: 'hello', stream: true, stream_options: { include_obfuscation: false } } });
    expect(responses.status, responses.text).toBe(200);
    expect(responses.headers['content-type']).toContain('text/event-stream');
    expect(responses.text).toContain('event: response.output_text.delta\ndata: ');
    expect(responses.text).toContain('event: response.completed');
    const chat = await http.request(gym.url('policy_model', '/v1/chat/completions'), { body: { messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } } });
    expect(chat.text).toContain('"delta":{"content":"ok"}');
    expect(chat.text.endsWith('data: [DONE]\n\n')).toBe(true);
    for (const request of endpoint.requests) {
      expect(request.body).not.toHaveProperty('stream');
      expect(request.body).not.toHaveProperty('stream_options');
    }
    expect(endpoint.requests.map((request) => request.path)).toEqual(['/v1/responses', '/v1/chat/completions']);
  });

  it('forwards /v1/chat/completions with message-level token fields', async () => {
    const completion = {
      id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'gpt-test',
      choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'ok', prompt_token_ids: [5], generation_token_ids: [6], generation_log_probs: [-1] } }],
    };
    endpoint = await startFakeEndpoint(() => ({ body: completion }));
    gym = await startInProcessGym({ config: modelConfig(endpoint.url) });
    const response = await http.request(gym.url('policy_model', '/v1/chat/completions'), {
      body: { messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'prev', prompt_token_ids: [1], generation_token_ids: [2], generation_log_probs: [-0.1] }] },
    });
    expect(response.json()).toEqual(completion);
    expect(endpoint.requests[0]?.body.messages[1]).toEqual({ role: 'assistant', content: 'prev', prompt_token_ids: [1], generation_token_ids: [2], generation_log_probs: [-0.1] });
  });
  it("takes upstream 0.7.0's keys: default headers, max_http_attempts, drop_input_reasoning_items (as text from oc.env too)", async () => {
    endpoint = await startFakeEndpoint((_request, index) => (index === 0 ? { status: 429, body: { error: 'slow down' } } : { body: modelResponse([]) }));
    const input = [{ type: 'reasoning', id: 'rs_1', summary: [] }, { role: 'user', content: 'hi' }];
    gym = await startInProcessGym({
      config: modelConfig(endpoint.url, { openai_default_headers: { 'x-route': 'blue' }, max_http_attempts: 1, drop_input_reasoning_items: true, max_concurrent_requests: 2 }),
    });
    // One attempt only: the 429 is not retried.
    const refused = await http.request(gym.url('policy_model', '/v1/responses'), { body: { input } });
    expect(refused.status).toBe(500);
    expect(refused.text).toContain('answered HTTP 429');
    expect((await http.request(gym.url('policy_model', '/v1/responses'), { body: { input } })).status).toBe(200);
    expect(endpoint.requests).toHaveLength(2);
    expect(endpoint.requests[1]?.headers['x-route']).toBe('blue');
    expect(endpoint.requests[1]?.headers.authorization).toBe('Bearer sk-test');
    expect(endpoint.requests[1]?.body.input).toEqual([{ role: 'user', content: 'hi' }]);
    await gym.close();

    gym = await startInProcessGym({ config: modelConfig(endpoint.url, { drop_input_reasoning_items: 'false' }) });
    expect((await http.request(gym.url('policy_model', '/v1/responses'), { body: { input } })).status).toBe(200);
    expect(endpoint.requests[2]?.body.input).toEqual(input);
  });
});
