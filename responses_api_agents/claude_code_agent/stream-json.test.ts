import { describe, expect, it } from 'vitest';
import { parseClaudeStream } from './stream-json.ts';

const lines = (...events: unknown[]) => events.map((event) => JSON.stringify(event)).join('\n');

describe('parseClaudeStream', () => {
  it('turns text, thinking, tool uses and their results into output items, and sums the usage', () => {
    const output = parseClaudeStream(
      lines(
        { type: 'system', subtype: 'init' },
        { type: 'assistant', message: { content: [{ type: 'thinking', thinking: 'Read it first.' }, { type: 'text', text: 'Reading.' }, { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: '/work/a.py' } }] } },
        { type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'x = 1' }] }] } },
        { type: 'assistant', message: { content: [{ type: 'text', text: 'Done.' }] } },
        { type: 'result', subtype: 'success', is_error: false, usage: { input_tokens: 120, output_tokens: 30 } },
      ),
    );
    expect(output.failure).toBeNull();
    expect(output.items).toEqual([
      expect.objectContaining({ type: 'message', content: [expect.objectContaining({ text: '<think>\nRead it first.\n</think>\n\nReading.' })] }),
      expect.objectContaining({ type: 'function_call', call_id: 'toolu_1', name: 'Read', arguments: '{"file_path":"/work/a.py"}' }),
      expect.objectContaining({ type: 'function_call_output', call_id: 'toolu_1', output: 'x = 1' }),
      expect.objectContaining({ type: 'message', content: [expect.objectContaining({ text: 'Done.' })] }),
    ]);
    expect([output.inputTokens, output.outputTokens]).toEqual([120, 30]);
  });

  it('is a failure when the CLI printed nothing, or its result is an error; running out of turns is not', () => {
    expect(parseClaudeStream('').failure).toBe('the CLI printed no result event');
    expect(parseClaudeStream(lines({ type: 'result', subtype: 'error_during_execution', is_error: true, result: 'API Error: 502' })).failure).toMatch(/error_during_execution.*API Error: 502/);
    expect(parseClaudeStream(lines({ type: 'result', subtype: 'error_max_turns', is_error: true })).failure).toBeNull();
  });
});
