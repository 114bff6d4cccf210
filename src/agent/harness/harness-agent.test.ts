import { describe, expect, it } from 'vitest';
import { harnessInstruction } from './harness-agent.ts';

describe('harnessInstruction', () => {
  it('takes the last user message as the task, and joins the configured prompt, instructions and system messages', () => {
    const params = {
      instructions: 'Work carefully.',
      input: [
        { role: 'system', content: 'You fix bugs.' },
        { role: 'user', content: 'first' },
        { role: 'user', content: [{ type: 'input_text', text: 'Fix ' }, { type: 'input_text', text: 'sum_to.py.' }] },
      ],
    };
    expect(harnessInstruction(params as never, 'Be brief.')).toEqual({ instruction: 'Fix sum_to.py.', systemPrompt: 'Be brief.\n\nWork carefully.\n\nYou fix bugs.' });
    expect(harnessInstruction({ input: 'Just this.' } as never, null)).toEqual({ instruction: 'Just this.', systemPrompt: null });
  });

  it('refuses a row without a user message with a 422 that says so', () => {
    expect(() => harnessInstruction({ input: [{ role: 'system', content: 'x' }] } as never, null)).toThrow(/has no user message/);
  });
});
