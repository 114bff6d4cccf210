/**
 * The model both collectors' rollouts call in `npm run parity:collect`: no model, a reply that is a function of
 * the prompt and of the seed a collector put in `metadata.extra_body` (num_repeats_add_seed), so the two
 * collectors get the same rollouts for the same requests. The prompt's words steer it:
 *   `answer=<text>`  the right answer; the reply is it, or `wrong` when the SHA-256 of prompt and seed says so
 *                    (about one in three), so repeats and seeds change rewards;
 *   `delay=<ms>`     answer after that long (a slow server, for dispatch budgets);
 *   `fail`           answer 500 (a failed rollout, for failure routing).
 */
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { defineModelServer, type Response, type ResponseItem } from 'ngym';

function promptText(input: string | ResponseItem[]): string {
  if (typeof input === 'string') return input;
  return (input as { content?: unknown }[]).map((item) => (typeof item.content === 'string' ? item.content : JSON.stringify(item.content ?? ''))).join('\n');
}

function seedOf(metadata: unknown): string {
  const extraBody = (metadata as { extra_body?: unknown } | null | undefined)?.extra_body;
  if (typeof extraBody !== 'string') return '';
  return String((JSON.parse(extraBody) as { seed?: unknown }).seed ?? '');
}

export default defineModelServer({
  className: 'CollectParityModel',
  responses: async (params) => {
    const prompt = promptText(params.input);
    if (/\bfail\b/.test(prompt)) throw new Error(`collect_parity_model fails the prompt ${JSON.stringify(prompt)} as asked`);
    const delay = /\bdelay=(\d+)/.exec(prompt)?.[1];
    if (delay !== undefined) await sleep(Number(delay));
    const answer = /\banswer=(\S+)/.exec(prompt)?.[1] ?? '';
    const digest = createHash('sha256').update(`${prompt}\u0000${seedOf((params as { metadata?: unknown }).metadata)}`).digest();
    const text = (digest[0] as number) % 3 === 0 ? 'wrong' : answer;
    const message = { id: 'msg_collect_parity', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] } as ResponseItem;
    return { id: 'resp_collect_parity', object: 'response', created_at: 0, model: 'collect-parity', output: [message], parallel_tool_calls: true, tool_choice: 'auto', tools: [], usage: null } as Response;
  },
});
