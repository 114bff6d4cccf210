import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../../errors.ts';
import type { Response, ResponseCreateParams } from '../../protocol/responses.ts';
import { silentLogger } from '../../util/logger.ts';
import { modelRelayApp } from './model-relay.ts';
import { RolloutTokenCapture } from './token-capture.ts';

function answer(params: ResponseCreateParams): Response {
  return {
    id: 'resp_1',
    object: 'response',
    created_at: 0,
    model: String(params.model ?? 'm'),
    output: [{ type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Hi.', annotations: [] }], prompt_token_ids: [1, 2], generation_token_ids: [3], generation_log_probs: [-0.5] }],
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
  } as unknown as Response;
}

function relay(callModel: (params: ResponseCreateParams) => Promise<Response> = async (params) => answer(params)) {
  const capture = new RolloutTokenCapture('0-0');
  const seen: ResponseCreateParams[] = [];
  const app = modelRelayApp({ capture, logger: silentLogger, timeoutMs: 5_000, model: 'policy-model', callModel: (params) => (seen.push(params), callModel(params)) });
  const post = (path: string, body: unknown) => app.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { capture, seen, post };
}

const messagesBody = { model: 'claude', max_tokens: 100, messages: [{ role: 'user', content: 'Hello' }] };

describe('the harness model relay', () => {
  it('answers /v1/messages from the model server and records the call\'s token ids', async () => {
    const { capture, seen, post } = relay();
    const response = await post('/v1/messages?beta=true', messagesBody);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ type: 'message', role: 'assistant', content: [{ type: 'text', text: 'Hi.' }] });
    // The model server is asked for the configured model, without streaming.
    expect(seen[0]).toMatchObject({ model: 'policy-model', input: [{ role: 'user', content: 'Hello' }] });
    expect(seen[0]).not.toHaveProperty('stream');
    expect(capture.calls).toMatchObject([{ dialect: '/v1/messages', prompt_token_ids: [1, 2], generation_token_ids: [3], generation_log_probs: [-0.5], parent_resolution: 'root' }]);
  });

  it('streams each dialect\'s events', async () => {
    const { post } = relay();
    const messages = await (await post('/v1/messages', { ...messagesBody, stream: true })).text();
    expect(messages).toContain('event: message_stop');
    const chat = await (await post('/v1/chat/completions', { model: 'x', messages: [{ role: 'user', content: 'Hello' }], stream: true })).text();
    expect(chat).toContain('data: [DONE]');
    // Codex's own client_metadata is not model input: dropped, not refused.
    const responses = await (await post('/v1/responses', { model: 'x', input: 'Hello', stream: true, client_metadata: { session: 'a' } })).text();
    expect(responses).toContain('response.completed');
  });

  it('answers Claude Code\'s token count from the request\'s size, without a model call', async () => {
    const { seen, post } = relay();
    const response = await post('/v1/messages/count_tokens', messagesBody);
    expect(await response.json()).toEqual({ input_tokens: Math.ceil(JSON.stringify(messagesBody).length / 4) });
    expect(seen).toHaveLength(0);
  });

  it('refuses a request the dialect cannot map with a 4xx naming the field, and records no call', async () => {
    const { capture, post } = relay();
    const response = await post('/v1/messages', { ...messagesBody, tools: [{ type: 'web_search_20250305', name: 'web_search' }] });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    expect(await response.text()).toContain('tools.0.type');
    expect(capture.calls).toHaveLength(0);
  });

  it('ends a stream with the dialect\'s error when the backend answer is malformed, and records the failed call', async () => {
    const { capture, post } = relay(async () => {
      throw new UpstreamError('NGYM_UPSTREAM_BODY', 'Response from the backend (HTTP 200) is not JSON: data: {"choices": [', { url: 'http://backend', status: 502 });
    });
    const response = await post('/v1/messages', { ...messagesBody, stream: true });
    const body = await response.text();
    expect(body).toContain('event: error');
    expect(body).toContain('not JSON');
    expect(capture.failures).toMatchObject([{ dialect: '/v1/messages', status: 502 }]);
    expect(capture.deliver()).toMatchObject({ maskSample: true });
  });
});
