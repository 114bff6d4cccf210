/** What the Anthropic mapping refuses (naming the field), drops, and how it reads an answer; the common cases are in dialects-upstream-parity.test.ts. */
import { describe, expect, it } from 'vitest';
import { anthropicToResponsesRequest, responseToAnthropicMessage } from './anthropic-conversion.ts';
import type { AnthropicMessageCreateParams } from './anthropic-messages.ts';
import type { Response } from './responses.ts';

const request = (extra: Record<string, unknown>): AnthropicMessageCreateParams =>
  ({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }], ...extra }) as AnthropicMessageCreateParams;

const answer = (output: unknown[], extra: Record<string, unknown> = {}) =>
  ({ id: 'resp_1', object: 'response', created_at: 1, model: 'backend', output, parallel_tool_calls: true, tool_choice: 'auto', tools: [], ...extra }) as Response;

describe('Anthropic request -> Responses request', () => {
  it.each([
    [{ top_k: 5 }, 'top_k'],
    [{ stop_sequences: ['END'] }, 'stop_sequences'],
    [{ some_future_field: true }, 'some_future_field'],
    [{ output_config: { format: { type: 'json_schema', schema: {} } } }, 'output_config.format'],
    [{ tools: [{ type: 'web_search_20250305', name: 'web_search' }] }, 'tools.0.type'],
    [{ tool_choice: { type: 'sometimes' } }, 'tool_choice.type'],
    [{ system: [{ type: 'image', source: {} }] }, 'system.0.type'],
    [{ messages: [{ role: 'assistant', content: [{ type: 'redacted_thinking', data: 'x' }] }] }, 'messages.0.content.0.type'],
    [{ messages: [{ role: 'assistant', content: [{ type: 'image', source: { type: 'url', url: 'http://x' } }] }] }, 'messages.0.content.0.type'],
    [{ messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'file', file_id: 'f' } }] }] }, 'messages.0.content.0.source'],
    [{ messages: [{ role: 'user', content: [{ type: 'tool_result', content: 'x' }] }] }, 'messages.0.content.0.tool_use_id'],
    [{ messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'document' }, { type: 'text', text: 'x' }] }] }] }, 'messages.0.content.0.content.0.type'],
  ])('refuses %j with a 400 naming %s', (extra, field) => {
    expect(() => anthropicToResponsesRequest(request(extra))).toThrow(expect.objectContaining({ status: 400, message: expect.stringMatching(new RegExp(`^${field.replaceAll('.', '\\.')}: `)) }));
  });

  it("drops the hints meant for Anthropic's own service, and an empty stop_sequences", () => {
    const mapped = anthropicToResponsesRequest(
      request({ metadata: { user_id: 'u' }, thinking: { type: 'enabled', budget_tokens: 1024 }, service_tier: 'auto', context_management: {}, output_config: { effort: 'high' }, stop_sequences: [] }),
    );
    expect(mapped).toEqual({ input: [{ type: 'message', role: 'user', content: 'hi' }], model: 'm', max_output_tokens: 10 });
  });

  it('sends a url image and a tool result with an image as parts; a thinking signature as encrypted_content', () => {
    const mapped = anthropicToResponsesRequest(
      request({
        messages: [
          { role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } }] },
          { role: 'assistant', content: [{ type: 'thinking', thinking: 'hm', signature: 'sig' }, { type: 'tool_use', id: 't', name: 'look', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: 'seen' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }] }] },
        ],
      }),
    );
    expect(mapped.input).toEqual([
      { type: 'message', role: 'user', content: [{ type: 'input_image', image_url: 'https://example.com/a.png', detail: 'auto' }] },
      { type: 'reasoning', id: expect.stringMatching(/^rs_/), summary: [{ type: 'summary_text', text: 'hm' }], encrypted_content: 'sig' },
      { type: 'function_call', id: 't', call_id: 't', name: 'look', arguments: '{}', status: 'completed' },
      {
        type: 'function_call_output',
        call_id: 't',
        output: [{ type: 'input_text', text: 'seen' }, { type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'auto' }],
      },
    ]);
  });
});

describe('Response -> Anthropic Message', () => {
  it('says max_tokens for an answer cut at its limit, refusal for a filtered one, and 0 tokens without usage', () => {
    const cut = responseToAnthropicMessage(answer([], { incomplete_details: { reason: 'max_output_tokens' } }), undefined);
    expect(cut).toMatchObject({ model: 'backend', stop_reason: 'max_tokens', content: [], usage: { input_tokens: 0, output_tokens: 0 } });
    expect(responseToAnthropicMessage(answer([], { incomplete_details: { reason: 'content_filter' } }), 'm').stop_reason).toBe('refusal');
  });

  it('keeps a reasoning signature; refuses a failed response and tool arguments that are not an object', () => {
    const reasoning = { type: 'reasoning', id: 'rs', summary: [{ type: 'summary_text', text: 't' }], encrypted_content: 'sig' };
    expect(responseToAnthropicMessage(answer([reasoning]), 'm').content).toEqual([{ type: 'thinking', thinking: 't', signature: 'sig' }]);
    expect(() => responseToAnthropicMessage(answer([], { error: { code: 'server_error', message: 'down' } }), 'm')).toThrow(/the response failed: .*down/);
    const call = { type: 'function_call', call_id: 'c', name: 'f', arguments: 'not json' };
    expect(() => responseToAnthropicMessage(answer([call]), 'm')).toThrow(expect.objectContaining({ code: 'NGYM_UPSTREAM_BODY', message: expect.stringContaining('"f" are not a JSON object') }));
  });
});
