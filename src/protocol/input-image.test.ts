/**
 * A message's `input_image` part must name its `detail` (low, high, auto or original), as OpenAI's message
 * content type and upstream 0.7.0's request model require (upstream answers 422 without it); a tool output's
 * image part may leave it out, as OpenAI's tool-output type allows.
 */
import { describe, expect, it } from 'vitest';
import { isValidResponseCreateParams } from './fast-checks.ts';
import { ResponseCreateParams } from './responses.ts';
import { RequestValidationError, validateBody } from './validation.ts';

const image = (extra: Record<string, unknown>) => ({ type: 'input_image', image_url: 'data:image/png;base64,AAAA', ...extra });
const asMessage = (part: unknown) => ({ input: [{ role: 'user', content: [{ type: 'input_text', text: 'What is shown?' }, part] }] });
const asToolOutput = (part: unknown) => ({ input: [{ type: 'function_call', call_id: 'c1', name: 'look', arguments: '{}' }, { type: 'function_call_output', call_id: 'c1', output: [part] }] });

function refusal(body: unknown): RequestValidationError {
  try {
    validateBody(ResponseCreateParams, body);
  } catch (error) {
    if (error instanceof RequestValidationError) return error;
    throw error;
  }
  throw new Error('accepted');
}

describe('input_image parts', () => {
  it('are accepted in a message with each detail level, by the fast check and by zod alike', () => {
    for (const detail of ['low', 'high', 'auto', 'original']) {
      const body = asMessage(image({ detail }));
      expect(isValidResponseCreateParams(body)).toBe(true);
      expect(ResponseCreateParams.safeParse(body).success).toBe(true);
      expect(validateBody(ResponseCreateParams, body)).toBe(body);
    }
    expect(validateBody(ResponseCreateParams, asMessage({ type: 'input_image', file_id: 'file_1', detail: 'auto' }))).toBeDefined();
  });

  it('are refused in a message without detail (422 naming the field), or with a detail upstream does not know', () => {
    const missing = refusal(asMessage(image({})));
    expect(missing.status).toBe(422);
    expect(missing.details).toEqual([expect.objectContaining({ loc: ['body', 'input', 0, 'content', 1, 'detail'], msg: expect.stringMatching(/^Field required for an input_image part/) })]);
    for (const detail of [null, 'medium', 1]) {
      const body = asMessage(image({ detail }));
      expect(isValidResponseCreateParams(body)).toBe(false);
      expect(refusal(body).details[0]).toMatchObject({ loc: ['body', 'input', 0, 'content', 1, 'detail'], msg: "Input should be one of 'low', 'high', 'auto', 'original'" });
    }
    // A message without `type` (an easy input message) is held to the same rule.
    expect(refusal({ input: [{ role: 'user', content: [image({})] }] }).details[0]?.loc).toEqual(['body', 'input', 0, 'content', 0, 'detail']);
  });

  it('may leave detail out in a tool output', () => {
    const body = asToolOutput(image({}));
    expect(isValidResponseCreateParams(body)).toBe(true);
    expect(validateBody(ResponseCreateParams, body)).toBe(body);
  });
});
