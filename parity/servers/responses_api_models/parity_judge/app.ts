/**
 * The judge both sides of a judged parity run call: no model, a verdict that is a function of the prompt alone
 * (the SHA-256 of every text in the request, even: equal). The same prompt gets the same verdict on either side,
 * so a judged environment's answers can differ only by what it sends the judge and what it does with the verdict;
 * a prompt that differs between the two sides shows up as a different verdict or a different judge request.
 */
import { createHash } from 'node:crypto';
import { defineModelServer, type Response, type ResponseItem } from 'ngym';
import * as z from 'zod';

/**
 * What the judge model would read: the instructions and each input message's text, in order. Not the items'
 * other keys (`type`, `role`, ids), which a side may or may not write out for the same prompt.
 */
function promptTexts(params: { instructions?: string | null; input: string | ResponseItem[] }): string[] {
  const texts = params.instructions ? [params.instructions] : [];
  if (typeof params.input === 'string') return [...texts, params.input];
  for (const item of params.input as { content?: unknown }[]) {
    if (typeof item.content === 'string') texts.push(item.content);
    else if (Array.isArray(item.content)) for (const part of item.content as { text?: unknown }[]) if (typeof part.text === 'string') texts.push(part.text);
  }
  return texts;
}

export default defineModelServer({
  className: 'ParityJudgeModel',
  config: {
    equal_label: z.string().default('[[A=B]]'),
    not_equal_label: z.string().default('[[A!=B]]'),
  },
  responses: async (params, { config }) => {
    const digest = createHash('sha256').update(promptTexts(params).join('\u0000')).digest();
    const equal = ((digest[0] as number) & 1) === 0;
    const text = `Compared the two answers.\n\n${equal ? `${config.equal_label} they are equivalent` : `${config.not_equal_label} they are not equivalent`}`;
    const message = { id: 'msg_parity_judge', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] } as ResponseItem;
    return { id: 'resp_parity_judge', object: 'response', created_at: 0, model: 'parity-judge', output: [message], parallel_tool_calls: true, tool_choice: 'auto', tools: [], usage: null } satisfies Response;
  },
});
