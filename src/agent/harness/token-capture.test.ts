import { describe, expect, it } from 'vitest';
import type { Response } from '../../protocol/responses.ts';
import { applyTokenDelivery, MASK_SAMPLE_KEY, RolloutTokenCapture, TOKEN_CAPTURE_KEY } from './token-capture.ts';

let counter = 0;
/** A model server answer carrying token ids the way vllm_model's do (on every item of the call). */
function answer(prompt: number[], generation: number[], items: Record<string, unknown>[]): Response {
  const tokens = { prompt_token_ids: prompt, generation_token_ids: generation, generation_log_probs: generation.map((id) => -id / 100) };
  return { id: `resp_${++counter}`, object: 'response', created_at: 0, model: 'm', output: items.map((item) => ({ ...item, ...tokens })), parallel_tool_calls: true, tool_choice: 'auto', tools: [] } as unknown as Response;
}
const call = (id: string) => ({ type: 'function_call', call_id: id, name: 'Read', arguments: '{}', status: 'completed' });
const text = (value: string) => ({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: value, annotations: [] }] });

describe('RolloutTokenCapture', () => {
  it('joins calls whose prompts extend the previous prompt + generation into one chain, and rebuilds the output from it', () => {
    const capture = new RolloutTokenCapture('0-0');
    capture.record(answer([1, 2], [3, 4], [text('I will read.'), call('c1')]), '/v1/messages', 0);
    capture.record(answer([1, 2, 3, 4, 9, 9], [5], [text('Done.')]), '/v1/messages', 1);
    expect(capture.calls.map((entry) => [entry.parent_resolution, entry.parent_call_id])).toEqual([['root', null], ['resolved', capture.calls[0]?.model_call_id]]);
    const delivery = capture.deliver();
    expect(delivery.maskSample).toBe(false);
    expect(delivery.metrics).toMatchObject({ n_calls: 2, chains: 1, roots: 1, unresolved_parent_calls: 0, generated_tokens_captured: 3, generated_tokens_delivered: 3, delivered_fraction: 1 });
    // The ids sit on one item per call (the first), not repeated on every item.
    const bearing = (delivery.output ?? []).filter((item) => item.generation_token_ids !== undefined);
    expect(bearing.map((item) => item.generation_token_ids)).toEqual([[3, 4], [5]]);
    expect(bearing.map((item) => item.generation_log_probs)).toEqual([[-0.03, -0.04], [-0.05]]);
    expect(delivery.output).toHaveLength(3);
  });

  it('marks a call whose history was rewritten as unresolved and leaves it off the delivered chain', () => {
    const capture = new RolloutTokenCapture('0-0');
    capture.record(answer([1, 2], [3], [call('c1')]), '/v1/messages', 0);
    capture.record(answer([1, 2, 3, 7], [4], [call('c2')]), '/v1/messages', 1);
    capture.record(answer([1, 2, 3, 7, 4, 8], [5], [call('c3')]), '/v1/messages', 2);
    // Compaction: the history is a summary now, so the prompt extends no earlier call.
    capture.record(answer([1, 50], [6], [text('Summary-based answer.')]), '/v1/messages', 1);
    expect(capture.calls.at(-1)).toMatchObject({ parent_resolution: 'unresolved', parent_call_id: null });
    const delivery = capture.deliver();
    expect(delivery.metrics).toMatchObject({ chains: 2, roots: 1, unresolved_parent_calls: 1, generated_tokens_captured: 4, generated_tokens_delivered: 3, delivered_fraction: 0.75 });
    expect((delivery.output ?? []).map((item) => item.generation_token_ids).filter(Boolean)).toEqual([[3], [4], [5]]);
  });

  it('counts a request without assistant turns (a side call) as a root of its own', () => {
    const capture = new RolloutTokenCapture('0-0');
    capture.record(answer([1, 2], [3], [call('c1')]), '/v1/chat/completions', 0);
    capture.record(answer([40, 41], [42], [text('Session title')]), '/v1/chat/completions', 0);
    capture.record(answer([1, 2, 3, 5], [6], [text('Done.')]), '/v1/chat/completions', 1);
    expect(capture.calls.map((entry) => entry.parent_resolution)).toEqual(['root', 'root', 'resolved']);
    expect(capture.deliver().metrics).toMatchObject({ roots: 2, unresolved_parent_calls: 0, generated_tokens_delivered: 2 });
  });

  it('masks a rollout with a failed call, a call without token ids, or nothing recorded, saying why', () => {
    const failed = new RolloutTokenCapture('0-0');
    failed.record(answer([1], [2], [call('c1')]), '/v1/messages', 0);
    failed.recordFailure({ dialect: '/v1/messages', status: 502, message: 'malformed backend answer' });
    expect(failed.deliver()).toMatchObject({ maskSample: true, output: null, metrics: { failed_calls: 1, error: '1 model call(s) failed' } });

    const tokenless = new RolloutTokenCapture('0-1');
    tokenless.record({ ...answer([], [], []), output: [text('no ids')] } as unknown as Response, '/v1/messages', 0);
    expect(tokenless.deliver()).toMatchObject({ maskSample: true, metrics: { calls_without_token_ids: 1, error: '1 model call(s) returned no token ids' } });

    expect(new RolloutTokenCapture('0-2').deliver()).toMatchObject({ maskSample: true, metrics: { n_calls: 0, error: 'nothing recorded' } });
  });

  it('puts captured token ids back on the assistant turns a CLI sends again (by call id, else by text)', () => {
    const capture = new RolloutTokenCapture('0-0');
    capture.record(answer([1], [2], [call('toolu_1')]), '/v1/messages', 0);
    capture.record(answer([1, 2, 3], [4], [text('Plain answer.')]), '/v1/messages', 1);
    const input: Record<string, unknown>[] = [
      { type: 'message', role: 'user', content: 'task' },
      { type: 'function_call', call_id: 'toolu_1', name: 'Read', arguments: '{"file_path":"/work/a.py"}' },
      { type: 'function_call_output', call_id: 'toolu_1', output: 'file' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Plain answer.' }] },
      { type: 'message', role: 'user', content: 'more' },
      { type: 'message', role: 'assistant', content: 'A turn the harness wrote itself.' },
    ];
    expect(capture.restoreTokenIds(input)).toEqual({ turns: 3, matched: 2 });
    expect(input[1]).toMatchObject({ prompt_token_ids: [1], generation_token_ids: [2] });
    expect(input[3]).toMatchObject({ prompt_token_ids: [1, 2, 3], generation_token_ids: [4] });
    expect(input[5]).not.toHaveProperty('generation_token_ids');
  });

  it('writes the delivery into the rollout as upstream does', () => {
    const capture = new RolloutTokenCapture('0-0');
    capture.record(answer([1], [2], [text('Done.')]), '/v1/messages', 0);
    const rollout = applyTokenDelivery({ reward: 1, response: { id: 'r', output: [text('Done.')] } }, capture.deliver());
    expect(rollout.reward).toBe(1);
    expect(rollout[TOKEN_CAPTURE_KEY]).toMatchObject({ n_calls: 1 });
    expect(rollout).not.toHaveProperty(MASK_SAMPLE_KEY);
    expect((rollout.response as { output: Record<string, unknown>[] }).output[0]).toMatchObject({ generation_token_ids: [2] });
    expect(applyTokenDelivery({ reward: 0, response: { output: [] } }, new RolloutTokenCapture('x').deliver())).toMatchObject({ [MASK_SAMPLE_KEY]: true, response: { output: [] } });
  });
});
