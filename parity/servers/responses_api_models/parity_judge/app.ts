/**
 * The judge both sides of a judged parity run call: no model, a reply that is a function of the prompt alone
 * (the SHA-256 of its texts picks the verdict and the reply's shape: one clean label mostly, sometimes two
 * conflicting labels, a repeated one, none, or a reply cut off at max_output_tokens). The same prompt gets the same verdict on either side,
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
    const [first, other] = ((digest[0] as number) & 1) === 0 ? [config.equal_label, config.not_equal_label] : [config.not_equal_label, config.equal_label];
    // Mostly one clean label; some replies as real judges write them, to exercise each side's verdict rule.
    const shapes: [string, string][] = [
      ['clean', `Compared the two answers.\n\n${first} that is my verdict`],
      ['clean', `Compared the two answers.\n\n${first} that is my verdict`],
      ['clean', `Compared the two answers.\n\n${first} that is my verdict`],
      ['clean', `Compared the two answers.\n\n${first} that is my verdict`],
      ['conflicting', `At first ${other}, but on reflection ${first}`],
      ['repeated', `${first} ... so, once more: ${first}`],
      ['no_label', 'The answers look alike in places and differ in others.'],
      ['incomplete', `Comparing the two answers: ${first}`],
    ];
    const [shape, text] = shapes[(digest[1] as number) % shapes.length] as [string, string];
    const message = { id: 'msg_parity_judge', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] } as ResponseItem;
    const incomplete = shape === 'incomplete' ? { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } } : {};
    return { id: 'resp_parity_judge', object: 'response', created_at: 0, model: 'parity-judge', output: [message], parallel_tool_calls: true, tool_choice: 'auto', tools: [], usage: null, ...incomplete } as Response;
  },
});
