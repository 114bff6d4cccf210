import { describe, expect, it } from 'vitest';
import { parseOpencodeEvents } from './run-json.ts';

const lines = (...events: unknown[]) => events.map((event) => JSON.stringify(event)).join('\n');

describe('parseOpencodeEvents', () => {
  it('turns text and tool parts into output items, and sums the steps\' usage', () => {
    const output = parseOpencodeEvents(
      lines(
        { type: 'step_start', part: { type: 'step-start' } },
        { type: 'tool_use', part: { type: 'tool', tool: 'bash', callID: 'call_1', state: { status: 'completed', input: { command: 'ls' }, output: 'a.py\n' } } },
        { type: 'tool_use', part: { type: 'tool', tool: 'edit', callID: 'call_2', state: { status: 'error', input: { filePath: '/work/a.py' }, error: 'oldString not found' } } },
        { type: 'step_finish', part: { type: 'step-finish', tokens: { input: 100, output: 10 } } },
        { type: 'text', part: { type: 'text', text: 'Done.' } },
        { type: 'step_finish', part: { type: 'step-finish', tokens: { input: 120, output: 2 } } },
      ),
    );
    expect(output.failure).toBeNull();
    expect(output.items).toEqual([
      expect.objectContaining({ type: 'function_call', call_id: 'call_1', name: 'bash', arguments: '{"command":"ls"}', status: 'completed' }),
      expect.objectContaining({ type: 'function_call_output', call_id: 'call_1', output: 'a.py\n' }),
      expect.objectContaining({ type: 'function_call', call_id: 'call_2', name: 'edit', status: 'incomplete' }),
      expect.objectContaining({ type: 'function_call_output', call_id: 'call_2', output: 'oldString not found' }),
      expect.objectContaining({ type: 'message', content: [expect.objectContaining({ text: 'Done.' })] }),
    ]);
    expect([output.inputTokens, output.outputTokens]).toEqual([220, 12]);
  });

  it('is a failure on an error event, or with no finished step', () => {
    expect(parseOpencodeEvents(lines({ type: 'error', error: { name: 'APIError', data: { message: 'Bad Gateway' } } })).failure).toMatch(/Bad Gateway/);
    expect(parseOpencodeEvents('').failure).toBe('the CLI finished no step');
  });
});
