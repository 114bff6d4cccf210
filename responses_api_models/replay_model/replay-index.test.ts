import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ResponseItem } from 'ngym';
import { ReplayIndex } from './replay-index.ts';

function indexOf(rows: unknown[]): ReplayIndex {
  const path = join(mkdtempSync(join(tmpdir(), 'ngym-replay-index-')), 'rollouts.jsonl');
  writeFileSync(path, `${rows.map((row) => JSON.stringify(row)).join('\n')}\n`);
  return ReplayIndex.fromFiles([path]);
}

const answer = (text: string) => ({ type: 'message', role: 'assistant', id: `msg_${text}`, status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] });
const textOf = (reply: { output: unknown[] }) => ((reply.output[0] as any).content[0] as { text: string }).text;
const user = (text: string): ResponseItem => ({ type: 'message', role: 'user', content: text }) as ResponseItem;
const lenient = { strict: false };

describe('ReplayIndex', () => {
  it("pairs an image part whatever its fields' order, and with detail absent as OpenAI's default (auto)", () => {
    const recorded = [{ detail: 'auto', type: 'input_image', image_url: 'data:image/png;base64,AAAA' }, { text: 'How many circles?', type: 'input_text' }];
    const index = indexOf([{ responses_create_params: { input: [{ role: 'user', content: recorded }] }, response: { output: [answer('Three.')] } }]);
    const reordered = [{ type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'auto' }, { type: 'input_text', text: 'How many circles?' }];
    expect(textOf(index.reply([{ type: 'message', role: 'user', content: reordered } as ResponseItem], 's1', lenient))).toBe('Three.');
    const withoutDetail = [{ type: 'input_image', image_url: 'data:image/png;base64,AAAA' }, { type: 'input_text', text: 'How many circles?' }];
    expect(textOf(index.reply([{ type: 'message', role: 'user', content: withoutDetail } as ResponseItem], 's2', lenient))).toBe('Three.');
    const otherDetail = [{ type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'high' }, { type: 'input_text', text: 'How many circles?' }];
    expect(() => index.reply([{ type: 'message', role: 'user', content: otherDetail } as ResponseItem], 's3', lenient)).toThrow(/No recorded rollout starts with this input/);
  });

  it("answers identical requests in the recording's task order, whatever the file order, and prefers equal metadata", () => {
    const row = (task: number, text: string, metadata?: Record<string, string>) => ({
      _ng_task_index: task,
      _ng_rollout_index: 0,
      responses_create_params: { input: 'Transcribe the audio.', ...(metadata === undefined ? {} : { metadata }) },
      response: { output: [answer(text)] },
    });
    // Recorded as the rollouts finished: tasks 2, 0, 1.
    const index = indexOf([row(2, 'task two'), row(0, 'task zero'), row(1, 'task one')]);
    const replies = ['a', 'b', 'c', 'd'].map((session) => textOf(index.reply([user('Transcribe the audio.')], session, lenient)));
    expect(replies).toEqual(['task zero', 'task one', 'task two', 'task zero']);

    const byMetadata = indexOf([row(0, 'first clip', { clip: '1' }), row(1, 'second clip', { clip: '2' })]);
    expect(textOf(byMetadata.reply([user('Transcribe the audio.')], 'x', { strict: false, metadata: { clip: '2' } }))).toBe('second clip');
    expect(textOf(byMetadata.reply([user('Transcribe the audio.')], 'y', { strict: false, metadata: { clip: '1' } }))).toBe('first clip');
  });

  it('with fallback nearest answers a request no recording agrees with from one recording per rollout, turn by turn', () => {
    const game = (task: number, moves: string[]) => ({
      _ng_task_index: 0,
      _ng_rollout_index: task,
      responses_create_params: { input: [user(`Your hand: ${task}`)] },
      response: { output: moves.flatMap((move, turn) => [answer(move), ...(turn < moves.length - 1 ? [user(`after ${move}`)] : [])]) },
    });
    const rows = [game(0, ['hit', 'stand']), game(1, ['stand'])];
    expect(() => indexOf(rows).reply([user('Your hand: 17')], 's', lenient)).toThrow(/No recorded rollout starts with this input/);

    const index = indexOf(rows);
    const fallback = { strict: false, fallback: 'nearest' as const };
    const first = [user('Your hand: 17')];
    expect(textOf(index.reply(first, 'rollout-a', fallback))).toBe('hit');
    const second = [...first, answer('hit') as ResponseItem, user('Your hand: 22')];
    expect(textOf(index.reply(second, 'rollout-a', fallback))).toBe('stand');
    // Past the recording's last turn, its last turn again; another rollout takes the next recording.
    expect(textOf(index.reply([...second, answer('stand') as ResponseItem, user('again')], 'rollout-a', fallback))).toBe('stand');
    expect(textOf(index.reply([user('Your hand: 9')], 'rollout-b', fallback))).toBe('stand');
    // A request that matches a recording is still answered from it.
    expect(textOf(index.reply([user('Your hand: 0')], 'rollout-c', fallback))).toBe('hit');
  });

  it('answers a request no recorded input matches from the keyed row whose keys it quotes most of, in recorded order', () => {
    const keyed = (keys: string[], texts: string[], order?: string[]) => ({ keyed_replies: { keys, ...(order === undefined ? {} : { order }), responses: texts.map((text) => ({ output: [answer(text)] })) } });
    const index = indexOf([
      { responses_create_params: { input: 'What is 2+2?' }, response: { output: [answer('4')] } },
      keyed(['What is 2+2?', 'The answer is four.'], ['first verdict', 'second verdict']),
      keyed(['What is 2+2?'], ['verdict of a less specific row']),
    ]);
    expect(index.keyedSize).toBe(2);
    const judge = [user('Question: What is 2+2?\nAnswer: The answer is four.\nIs it right?')];
    expect(textOf(index.reply(judge, 'j1', lenient))).toBe('first verdict');
    expect(textOf(index.reply(judge, 'j2', lenient))).toBe('second verdict');
    // Used up: a call more than the recording holds is a divergence naming the row, not another task's reply.
    expect(() => index.reply(judge, 'j3', lenient)).toThrow(/this request is call 3 for its task, and the recording holds 2 replies/);
    expect(textOf(index.reply([user('Grade: What is 2+2?')], 'j4', lenient))).toBe('verdict of a less specific row');
    expect(() => index.reply([user('Something else entirely')], 'j5', lenient)).toThrow(/No recorded rollout starts with this input.*Nor does it quote the keys of any of the 2 replies/s);
    // A matching recorded input still answers first.
    expect(textOf(index.reply([user('What is 2+2?')], 'p', { strict: true }))).toBe('4');
  });

  it('gives each of two swapped-order requests the keyed reply recorded for its order', () => {
    const index = indexOf([
      { keyed_replies: { keys: ['Which is better?'], order: ['answer one', 'answer two'], responses: [{ output: [answer('A>B')] }] } },
      { keyed_replies: { keys: ['Which is better?'], order: ['answer two', 'answer one'], responses: [{ output: [answer('B>A')] }] } },
    ]);
    expect(textOf(index.reply([user('Which is better? A: answer two B: answer one')], 'a', lenient))).toBe('B>A');
    expect(textOf(index.reply([user('Which is better? A: answer one B: answer two')], 'b', lenient))).toBe('A>B');
  });

  it('refuses a keyed row without keys or responses, naming the line', () => {
    expect(() => indexOf([{ keyed_replies: { keys: [], responses: [] } }])).toThrow(/rollouts\.jsonl:1: keyed_replies needs keys/);
  });
});
