import { describe, expect, it } from 'vitest';
import { assistantMessages, assistantText, firstPartText, isMessage, messageTexts, outputText, responseOutputText } from './response-text.ts';
import type { ResponseItem } from './responses.ts';

const output: ResponseItem[] = [
  { type: 'reasoning', id: 'r1', summary: [{ type: 'summary_text', text: 'thinking' }] },
  { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'A' }, { type: 'refusal', refusal: 'no' }, { type: 'output_text', text: 'B' }] },
  { type: 'function_call', name: 'f', arguments: '{}', call_id: 'c1' },
  { type: 'function_call_output', call_id: 'c1', output: '{"x": 1}' },
  { role: 'assistant', content: 'plain' },
  { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Q' }] },
];

describe('response text helpers', () => {
  it('tells messages (typed, or a role without a type) from other items', () => {
    expect(output.map((item) => isMessage(item))).toEqual([false, true, false, false, true, true]);
    expect(isMessage(undefined)).toBe(false);
  });

  it('lists assistant messages in order and their texts, skipping parts without text', () => {
    const messages = assistantMessages(output);
    expect(messages.map(messageTexts)).toEqual([['A', 'B'], ['plain']]);
    expect(output.map(assistantText)).toEqual([undefined, 'AB', undefined, undefined, 'plain', undefined]);
  });

  it('reads output_text parts only, of list contents only, as the Responses API output_text', () => {
    expect(output.map(outputText)).toEqual(['', 'AB', '', '', '', '']);
    expect(responseOutputText({ output })).toBe('AB');
  });

  it("reads Python's content[0].text of any item, and '' where Python would raise", () => {
    expect(firstPartText(output[1])).toBe('A');
    expect(firstPartText({ type: 'reasoning', id: 'r', summary: [], content: [{ type: 'reasoning_text', text: 'R' }] })).toBe('R');
    expect(firstPartText({ type: 'message', role: 'assistant', content: [{ type: 'refusal', refusal: 'no' }] })).toBe('');
    expect(firstPartText(output[4])).toBe('');
    expect(firstPartText(output[2])).toBe('');
    expect(firstPartText(undefined)).toBe('');
  });
});
