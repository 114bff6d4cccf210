import { describe, expect, it } from 'vitest';
import { NgymError } from '../errors.ts';
import type { ChatMessage } from './chat-completions.ts';
import { chatCompletionToResponse, chatMessageToOutputItems, foldReasoningIntoContent, moveThinkingToReasoningField, responsesToChatCompletion } from './chat-conversion.ts';
import { ResponseCreateParams } from './responses.ts';

describe('Responses -> Chat Completions', () => {
  it('turns a string input into one user message with a text part', () => {
    expect(responsesToChatCompletion({ input: 'hello', model: 'm' })).toEqual({ messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }], model: 'm' });
  });

  it('merges a run of model items into one assistant message', () => {
    const body = responsesToChatCompletion({
      input: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'q' },
        { type: 'reasoning', id: 'rs', summary: [{ type: 'summary_text', text: 'A' }, { type: 'summary_text', text: 'B' }] },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'C', annotations: [] }] },
        { type: 'function_call', call_id: 'x', name: 'f', arguments: '{}' },
        { type: 'function_call', call_id: 'y', name: 'g', arguments: '{"a":1}' },
        { type: 'function_call_output', call_id: 'x', output: 'X' },
        { type: 'function_call_output', call_id: 'y', output: 'Y' },
        { role: 'user', content: 'next' },
      ],
    });
    expect(body.messages).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: '<think>A</think><think>B</think>C',
        tool_calls: [
          { id: 'x', type: 'function', function: { name: 'f', arguments: '{}' } },
          { id: 'y', type: 'function', function: { name: 'g', arguments: '{"a":1}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'x', content: 'X' },
      { role: 'tool', tool_call_id: 'y', content: 'Y' },
      { role: 'user', content: 'next' },
    ]);
  });

  it('maps parameters and rewrites the developer role on request', () => {
    const body = responsesToChatCompletion(
      { input: [{ role: 'developer', content: 'd' }, { role: 'assistant', content: '<think>R</think>C' }], max_output_tokens: 64, temperature: 0.7, top_p: 0.9 },
      { replaceDeveloperRoleWithSystem: true },
    );
    expect(body).toEqual({ messages: [{ role: 'system', content: 'd' }, { role: 'assistant', content: '<think>R</think>C' }], max_tokens: 64, temperature: 0.7, top_p: 0.9 });
  });

  it('folds instructions and the leading system/developer messages into one system message', () => {
    const body = responsesToChatCompletion({
      instructions: 'I',
      input: [{ role: 'system', content: 'S' }, { role: 'developer', content: [{ type: 'input_text', text: 'D' }] }, { role: 'user', content: 'U' }, { role: 'system', content: 'late' }],
    });
    expect(body.messages).toEqual([{ role: 'system', content: 'I\n\nS\n\nD' }, { role: 'user', content: 'U' }, { role: 'system', content: 'late' }]);
  });

  it('drops tool_choice without tools, and refuses a tool_choice that needs a tool', () => {
    expect(responsesToChatCompletion({ input: 'x', tool_choice: 'auto', parallel_tool_calls: false })).toEqual({ messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }] });
    expect(() => responsesToChatCompletion({ input: 'x', tool_choice: 'required' })).toThrow(/tool_choice="required" requires at least one function tool/);
  });

  it("sends an input_image's detail as Chat Completions accepts it (auto, low, high; auto when absent) and refuses 'original', as upstream 0.7.0 does", () => {
    const url = 'data:image/png;base64,AAAA';
    const converted = (part: Record<string, unknown>) => {
      const body = responsesToChatCompletion({ input: [{ role: 'user', content: [{ type: 'input_text', text: 'What is shown?' }, { type: 'input_image', ...part }] }] });
      return (body.messages[0]?.content as Record<string, unknown>[])[1];
    };
    for (const detail of ['auto', 'low', 'high']) expect(converted({ image_url: url, detail })).toEqual({ type: 'image_url', image_url: { url, detail } });
    expect(converted({ image_url: { url }, detail: 'low' })).toEqual({ type: 'image_url', image_url: { url, detail: 'low' } });
    // A tool output's image may leave detail out; Chat gets upstream's default.
    const tool = responsesToChatCompletion({ input: [{ type: 'function_call_output', call_id: 'c', output: [{ type: 'input_image', image_url: url }] }] });
    expect(tool.messages[0]?.content).toEqual([{ type: 'image_url', image_url: { url, detail: 'auto' } }]);

    const refusal = (part: Record<string, unknown>) => {
      try {
        converted(part);
      } catch (error) {
        return error as NgymError;
      }
      throw new Error('converted');
    };
    const original = refusal({ image_url: url, detail: 'original' });
    expect(original).toBeInstanceOf(NgymError);
    expect(original.status).toBe(400);
    expect(original.message).toBe(`input_image detail "original" has no Chat Completions representation (one of 'auto', 'low', 'high').`);
    expect(refusal({ image_url: url, detail: 'medium' }).message).toMatch(/^input_image detail "medium" is not a Chat Completions detail/);
    expect(refusal({ file_id: 'file_1', detail: 'auto' }).message).toMatch(/given by file_id has no Chat Completions representation/);
    expect(refusal({ image_url: '', detail: 'auto' }).message).toMatch(/needs a non-empty image_url/);
  });

  it('carries token ids on the assistant message of their run, and never lets a later message inherit them', () => {
    const ids = { prompt_token_ids: [1, 2], generation_token_ids: [3, 2], generation_log_probs: [-0.5, -0.25] };
    const input = [
      { role: 'user' as const, content: 'q' },
      { type: 'reasoning' as const, id: 'rs', summary: [{ type: 'summary_text', text: 'R' }] },
      { type: 'function_call' as const, call_id: 'x', name: 'f', arguments: '{}', ...ids },
      { type: 'function_call_output' as const, call_id: 'x', output: 'X' },
      { role: 'assistant' as const, content: 'no ids' },
      { role: 'user' as const, content: 'again' },
      { role: 'assistant' as const, content: [{ type: 'output_text', text: 'A' }], prompt_token_ids: [9], generation_token_ids: [8], generation_log_probs: [-1], routed_experts: 'nrlre1:x' },
    ];
    const messages = responsesToChatCompletion({ input }, { returnTokenIdInformation: true }).messages;
    expect(messages[1]).toEqual({ role: 'assistant', content: '<think>R</think>', tool_calls: [{ id: 'x', type: 'function', function: { name: 'f', arguments: '{}' } }], ...ids });
    expect(messages[3]).toEqual({ role: 'assistant', content: 'no ids' });
    expect(messages[5]).toEqual({ role: 'assistant', content: 'A', prompt_token_ids: [9], generation_token_ids: [8], generation_log_probs: [-1], routed_experts: 'nrlre1:x' });
    expect(responsesToChatCompletion({ input }).messages[1]).not.toHaveProperty('prompt_token_ids');
  });
});

describe('reasoning for engines with a reasoning parser', () => {
  it('moves the first think block of assistant history into reasoning_content and reasoning', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: '<think>user text stays</think>' },
      { role: 'assistant', content: '<think>R1</think>C<think>R2</think>' },
      { role: 'assistant', content: [{ type: 'text', text: '<think> R </think>T' }] },
      { role: 'assistant', content: null, tool_calls: [] },
    ];
    moveThinkingToReasoningField(messages, { interleaved: true });
    expect(messages).toEqual([
      { role: 'user', content: '<think>user text stays</think>' },
      { role: 'assistant', content: 'C', reasoning_content: 'R1', reasoning: 'R1' },
      { role: 'assistant', content: [{ type: 'text', text: 'T' }], reasoning_content: ' R ', reasoning: ' R ' },
      { role: 'assistant', content: null, tool_calls: [] },
    ]);
    const dropped: ChatMessage[] = [{ role: 'assistant', content: '<think>R</think>C' }];
    moveThinkingToReasoningField(dropped, { interleaved: false });
    expect(dropped).toEqual([{ role: 'assistant', content: 'C' }]);
    expect(() => moveThinkingToReasoningField([{ role: 'assistant', content: [{ type: 'text', text: '<think>a</think>' }, { type: 'text', text: '<think>b</think>' }] }], { interleaved: true })).toThrow(
      /more than one content part/,
    );
  });

  it('folds parsed reasoning back in front of the content, and refuses it without a parser', () => {
    const message = { role: 'assistant' as const, content: 'Hi', reasoning_content: 'R' };
    foldReasoningIntoContent(message, true);
    expect(message).toEqual({ role: 'assistant', content: '<think>R</think>Hi' });
    const newer = { role: 'assistant' as const, content: null, reasoning: 'R' };
    foldReasoningIntoContent(newer, true);
    expect(newer).toEqual({ role: 'assistant', content: '<think>R</think>' });
    expect(() => foldReasoningIntoContent({ role: 'assistant', content: 'x', reasoning_content: 'r' }, false)).toThrow(/uses_reasoning_parser is false/);
  });
});

describe('Chat Completions -> Responses', () => {
  it('splits think blocks byte-exactly, keeps unclosed ones visible, and emits tool calls', () => {
    const whitespace = '<think> \n \n R \n \n </think> \n \n C \n \n ';
    const [reasoning, message] = chatMessageToOutputItems({ role: 'assistant', content: whitespace });
    expect(reasoning).toMatchObject({ type: 'reasoning', summary: [{ type: 'summary_text', text: ' \n \n R \n \n ' }] });
    expect(message).toMatchObject({ type: 'message', content: [{ type: 'output_text', text: ' \n \n C \n \n ' }] });
    expect(chatMessageToOutputItems({ role: 'assistant', content: '<think>cut off' })).toMatchObject([{ type: 'message', content: [{ text: '<think>cut off' }] }]);
    expect(chatMessageToOutputItems({ role: 'assistant', content: '' })).toMatchObject([{ type: 'message', content: [{ text: '' }] }]);
    expect(() => chatMessageToOutputItems({ role: 'assistant', content: 'x', reasoning_content: 'r' })).toThrow(/uses_reasoning_parser/);
  });

  it('puts the token fields on the last item of the call only: function call, else message, else reasoning', () => {
    const ids = { prompt_token_ids: [1, 3, 4], generation_token_ids: [5, 2], generation_log_probs: [-0.1, -0.2] };
    const call = { id: 'call_1', type: 'function' as const, function: { name: 'f', arguments: '{}' } };
    const options = { returnTokenIdInformation: true };
    const withCall = chatMessageToOutputItems({ role: 'assistant', content: '<think>R</think>', tool_calls: [call], ...ids }, options);
    expect(withCall.map((item) => item.type)).toEqual(['reasoning', 'function_call']);
    expect(withCall[0]).not.toHaveProperty('prompt_token_ids');
    expect(withCall[1]).toMatchObject({ id: 'call_1', call_id: 'call_1', ...ids });
    const withMessage = chatMessageToOutputItems({ role: 'assistant', content: '<think>R</think>Hello', ...ids }, options);
    expect(withMessage[0]).not.toHaveProperty('generation_token_ids');
    expect(withMessage[1]).toMatchObject({ type: 'message', content: [{ text: 'Hello' }], ...ids });
    const reasoningOnly = chatMessageToOutputItems({ role: 'assistant', content: '<think>R</think>', ...ids }, options);
    expect(reasoningOnly).toHaveLength(1);
    expect(reasoningOnly[0]).toMatchObject({ type: 'reasoning', status: 'completed', ...ids });
    expect(chatMessageToOutputItems({ role: 'assistant', content: 'x', ...ids })[0]).not.toHaveProperty('prompt_token_ids');
  });

  it('keeps think tags visible when asked not to parse them', () => {
    expect(chatMessageToOutputItems({ role: 'assistant', content: '<think>R</think>C' }, { parseThinkTags: false })).toMatchObject([
      { type: 'message', content: [{ text: '<think>R</think>C' }] },
    ]);
  });

  it('round-trips whitespace byte-exactly: chat content -> output items -> chat content', () => {
    const whitespace = '<think> \n \n R \n \n </think> \n \n C \n \n ';
    const items = chatMessageToOutputItems({ role: 'assistant', content: whitespace });
    const back = responsesToChatCompletion({ input: [{ role: 'user', content: 'q' }, ...items] }).messages[1];
    expect(back?.content).toBe(whitespace);
  });

  it('builds a valid Response with incomplete_details on length', () => {
    const response = chatCompletionToResponse(
      { id: 'c', object: 'chat.completion', created: 5, model: 'm', choices: [{ index: 0, finish_reason: 'length', message: { role: 'assistant', content: 'trunc' } }] },
      { input: 'x', tools: [] },
    );
    expect(response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(ResponseCreateParams.safeParse({ input: 'x' }).success).toBe(true);
  });
});
