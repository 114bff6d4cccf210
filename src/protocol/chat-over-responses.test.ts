/** Chat Completions served through a Responses backend: the request mapping, its refusals, the answer, and the token courier both ways. */
import { describe, expect, it } from 'vitest';
import type { ChatCompletionCreateParams } from './chat-completions.ts';
import { chatRequestToResponses, responseToChatCompletion } from './chat-over-responses.ts';
import type { Response } from './responses.ts';

const chat = (extra: Record<string, unknown>): ChatCompletionCreateParams => ({ messages: [{ role: 'user', content: 'hi' }], ...extra }) as ChatCompletionCreateParams;

const answer = (output: unknown[], extra: Record<string, unknown> = {}) =>
  ({ id: 'resp_1', object: 'response', created_at: 7, model: 'backend', output, parallel_tool_calls: true, tool_choice: 'auto', tools: [], ...extra }) as Response;

describe('Chat Completions request -> Responses request', () => {
  it('maps the sampling, output and tool fields', () => {
    const mapped = chatRequestToResponses(
      chat({
        model: 'm',
        max_completion_tokens: 20,
        max_tokens: 99,
        temperature: 0.2,
        top_p: 0.8,
        reasoning_effort: 'low',
        response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object' }, strict: true } },
        tools: [{ type: 'function', function: { name: 'f', description: 'F.', parameters: { type: 'object' }, strict: true } }],
        tool_choice: { type: 'function', function: { name: 'f' } },
        parallel_tool_calls: false,
        n: 1,
        logprobs: false,
        stop: [],
        presence_penalty: 0,
      }),
    );
    expect(mapped).toEqual({
      input: [{ type: 'message', role: 'user', content: 'hi' }],
      model: 'm',
      temperature: 0.2,
      top_p: 0.8,
      parallel_tool_calls: false,
      max_output_tokens: 20,
      reasoning: { effort: 'low' },
      text: { format: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true } },
      tools: [{ type: 'function', name: 'f', description: 'F.', parameters: { type: 'object' }, strict: true }],
      tool_choice: { type: 'function', name: 'f' },
    });
  });

  it('turns an assistant message into its run of items, its token fields riding on the last', () => {
    const mapped = chatRequestToResponses(
      chat({
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'see' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AA', detail: 'low' } }] },
          {
            role: 'assistant',
            content: 'calling',
            reasoning_content: 'think',
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
            prompt_token_ids: [1],
            generation_token_ids: [2],
            generation_log_probs: [-0.5],
          },
          { role: 'tool', tool_call_id: 'c1', content: 'done' },
        ],
      }),
    );
    expect(mapped.input).toEqual([
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'see' }, { type: 'input_image', image_url: 'data:image/png;base64,AA', detail: 'low' }] },
      { type: 'reasoning', id: expect.stringMatching(/^rs_/), summary: [{ type: 'summary_text', text: 'think' }] },
      { type: 'message', role: 'assistant', content: 'calling' },
      { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}', prompt_token_ids: [1], generation_token_ids: [2], generation_log_probs: [-0.5] },
      { type: 'function_call_output', call_id: 'c1', output: 'done' },
    ]);
  });

  it.each([
    [{ n: 2 }, 'n'],
    [{ stop: ['END'] }, 'stop'],
    [{ logprobs: true }, 'logprobs'],
    [{ seed: 1 }, 'seed'],
    [{ chat_template_kwargs: { enable_thinking: false } }, 'chat_template_kwargs'],
    [{ tools: [{ type: 'custom', custom: { name: 'x' } }] }, 'tools.0.type'],
    [{ tool_choice: { type: 'allowed_tools' } }, 'tool_choice'],
    [{ response_format: { type: 'grammar' } }, 'response_format.type'],
    [{ messages: [{ role: 'user', content: 'x', name: 'alice' }] }, 'messages.0.name'],
    [{ messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: {} }] }] }, 'messages.0.content.0.type'],
    [{ messages: [{ role: 'tool', content: 'x' }] }, 'messages.0.tool_call_id'],
  ])('refuses %j with a 400 naming %s', (extra, field) => {
    expect(() => chatRequestToResponses(chat(extra))).toThrow(expect.objectContaining({ status: 400, message: expect.stringMatching(new RegExp(`^${field.replaceAll('.', '\\.')}: `)) }));
  });
});

describe('Response -> chat completion', () => {
  it('joins text, keeps reasoning and tool calls, and brings the token fields back on the message', () => {
    const completion = responseToChatCompletion(
      answer(
        [
          { type: 'reasoning', id: 'rs', summary: [{ type: 'summary_text', text: 'a' }, { type: 'summary_text', text: 'b' }] },
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'x' }] },
          { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}', prompt_token_ids: [1], generation_token_ids: [2], generation_log_probs: [-1] },
        ],
        { usage: { input_tokens: 3, output_tokens: 4, total_tokens: 7, output_tokens_details: { reasoning_tokens: 2 } } },
      ),
    );
    expect(completion).toEqual({
      id: 'resp_1',
      object: 'chat.completion',
      created: 7,
      model: 'backend',
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          logprobs: null,
          message: {
            role: 'assistant',
            content: 'x',
            refusal: null,
            reasoning_content: 'a\nb',
            tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
            prompt_token_ids: [1],
            generation_token_ids: [2],
            generation_log_probs: [-1],
          },
        },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 2 } },
    });
  });

  it('says length for an answer cut at its limit; a refusal goes in refusal; a failed response is an error', () => {
    expect(responseToChatCompletion(answer([], { incomplete_details: { reason: 'max_output_tokens' } })).choices[0]?.finish_reason).toBe('length');
    const refused = responseToChatCompletion(answer([{ type: 'message', role: 'assistant', content: [{ type: 'refusal', refusal: 'no' }] }]));
    expect(refused.choices[0]?.message).toMatchObject({ content: null, refusal: 'no' });
    expect(() => responseToChatCompletion(answer([], { error: { message: 'down' } }))).toThrow(expect.objectContaining({ code: 'NGYM_UPSTREAM_BODY' }));
  });
});
