import { describe, expect, it } from 'vitest';
import { assistantMessage, modelResponse } from 'ngym/testing';
import { judgeReplyText, matchLabels, parseEquivalenceVerdict } from './verdict.ts';

const LABELS = { equal: '[[A=B]]', notEqual: '[[A!=B]]' };
const reply = (text: string) => modelResponse([assistantMessage(text)]);

describe('equivalence_llm_judge verdict (NeMo Gym 0.7.0)', () => {
  it('finds the labels left to right, each match consumed, the longer one where both start at one place', () => {
    expect(matchLabels('[[A!=B]] no, [[A=B]] and [[A=B]]', LABELS)).toEqual(['[[A!=B]]', '[[A=B]]', '[[A=B]]']);
    expect(matchLabels('INCORRECT, not CORRECT', { equal: 'CORRECT', notEqual: 'INCORRECT' })).toEqual(['INCORRECT', 'CORRECT']);
    expect(matchLabels('YES!', { equal: 'YES', notEqual: 'YES!' })).toEqual(['YES!']);
    expect(matchLabels('anything', { equal: '', notEqual: '' })).toEqual([]);
  });

  it('rests on the last label', () => {
    expect(parseEquivalenceVerdict(reply('[[A!=B]] ... [[A=B]]'), LABELS)).toEqual({ equal: true, label: '[[A=B]]', issues: ['conflicting_verdicts'] });
    expect(parseEquivalenceVerdict(reply('[[A=B]] ... [[A!=B]]'), LABELS)).toEqual({ equal: false, label: '[[A!=B]]', issues: ['conflicting_verdicts'] });
  });

  it('is never "equal" when the two labels are the same', () => {
    expect(parseEquivalenceVerdict(reply('SAME'), { equal: 'SAME', notEqual: 'SAME' })).toEqual({ equal: false, label: 'SAME', issues: ['conflicting_verdicts'] });
  });

  it('reads the last content part of the last item, null when that is not a message part', () => {
    const message = assistantMessage('[[A=B]]') as any;
    message.content.push({ type: 'refusal', refusal: 'no' });
    expect(judgeReplyText(modelResponse([message]))).toBe('');
    expect(parseEquivalenceVerdict(modelResponse([message]), LABELS).issues).toEqual(['no_verdict']);
    expect(judgeReplyText(modelResponse([assistantMessage('[[A=B]]'), { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' } as any]))).toBeNull();
    expect(judgeReplyText(modelResponse([{ ...message, content: [] }]))).toBeNull();
  });
});
