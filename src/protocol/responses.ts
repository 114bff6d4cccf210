/**
 * The OpenAI Responses API subset that NeMo Gym speaks (spec gym-core 4.4).
 *
 * These schemas validate; they never transform. Handlers keep using the object they received, so every
 * field, including ones this version does not know and the training fields `prompt_token_ids`,
 * `generation_token_ids` and `generation_log_probs`, passes through each hop byte for byte.
 * `ResponseCreateParams` is the one strict object: an unknown top-level key there is a 422, as upstream.
 */
import * as z from 'zod';
import { IMAGE_DETAILS, isValidResponse, isValidResponseCreateParams } from './fast-checks.ts';
import { registerFastCheck } from './validation.ts';

const nullish = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

/**
 * An array of numbers (integers when `integers`), checked in place: token arrays reach 65k entries per
 * item, and zod's element-by-element copy would cost as much as parsing the JSON.
 */
function numberArray(integers: boolean) {
  return z.custom<number[]>(
    (value) => {
      if (!Array.isArray(value)) return false;
      const length = value.length;
      if (integers) {
        for (let index = 0; index < length; index++) if (!Number.isInteger(value[index])) return false;
      } else {
        for (let index = 0; index < length; index++) if (typeof value[index] !== 'number') return false;
      }
      return true;
    },
    { message: integers ? 'Expected an array of integers' : 'Expected an array of numbers' },
  );
}

/** Token ids and log-probabilities that ride on model output items for RL training. */
export const TrainingFields = {
  prompt_token_ids: numberArray(true).optional(),
  generation_token_ids: numberArray(true).optional(),
  generation_log_probs: numberArray(false).optional(),
};

/**
 * An `input_image` part of a message must name its `detail`: OpenAI's message content type requires it, and
 * upstream's request model refuses a part without it (422). A tool output's image part may leave it out.
 */
function contentPart(imageDetailRequired: boolean) {
  return z.looseObject({ type: z.string() }).superRefine((part, context) => {
    if ((part.type === 'input_text' || part.type === 'output_text') && typeof part.text !== 'string') {
      context.addIssue({ code: 'custom', path: ['text'], message: `Field required for a ${part.type} part` });
    }
    if (part.type === 'refusal' && typeof part.refusal !== 'string') {
      context.addIssue({ code: 'custom', path: ['refusal'], message: 'Field required for a refusal part' });
    }
    if (imageDetailRequired && part.type === 'input_image' && !IMAGE_DETAILS.includes(part.detail as string)) {
      const expected = IMAGE_DETAILS.map((detail) => `'${detail}'`).join(', ');
      const message = part.detail === undefined ? `Field required for an input_image part of a message (one of ${expected})` : `Input should be one of ${expected}`;
      context.addIssue({ code: 'custom', path: ['detail'], message, input: part.detail });
    }
  });
}

/** A part of a message's content. */
export const ContentPart = contentPart(true);
export type ContentPart = z.infer<typeof ContentPart>;
const ToolOutputPart = contentPart(false);

export const MessageRole = z.enum(['user', 'assistant', 'system', 'developer']);
export type MessageRole = z.infer<typeof MessageRole>;

export const MessageItem = z.looseObject({
  type: z.literal('message').optional(),
  role: MessageRole,
  content: z.union([z.string(), z.array(ContentPart)]),
  id: nullish(z.string()),
  status: nullish(z.string()),
  ...TrainingFields,
});
export type MessageItem = z.infer<typeof MessageItem>;

export const FunctionCallItem = z.looseObject({
  type: z.literal('function_call'),
  arguments: z.string(),
  call_id: z.string(),
  name: z.string(),
  id: nullish(z.string()),
  status: nullish(z.string()),
  ...TrainingFields,
});
export type FunctionCallItem = z.infer<typeof FunctionCallItem>;

export const FunctionCallOutputItem = z.looseObject({
  type: z.literal('function_call_output'),
  call_id: z.string(),
  output: z.union([z.string(), z.array(ToolOutputPart)]),
  id: nullish(z.string()),
  status: nullish(z.string()),
});
export type FunctionCallOutputItem = z.infer<typeof FunctionCallOutputItem>;

export const ReasoningItem = z.looseObject({
  type: z.literal('reasoning'),
  id: z.string(),
  summary: z.array(z.looseObject({ text: z.string(), type: z.string() })),
  encrypted_content: nullish(z.string()),
  ...TrainingFields,
});
export type ReasoningItem = z.infer<typeof ReasoningItem>;

const itemSchemas: Record<string, z.ZodType> = {
  message: MessageItem,
  function_call: FunctionCallItem,
  function_call_output: FunctionCallOutputItem,
  reasoning: ReasoningItem,
};

/**
 * One input or output item. Dispatches on `type` (an item with a `role` and no `type` is a message, as
 * OpenAI's EasyInputMessage) so a validation error names the field of the right item kind.
 */
export type ResponseItem = MessageItem | FunctionCallItem | FunctionCallOutputItem | ReasoningItem;
// `z.unknown()` first, so each item is parsed once, by the schema of its kind.
export const ResponseItem = z.unknown().superRefine((value, context) => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    context.addIssue({ code: 'custom', message: 'Expected an object (an input or output item)', input: value });
    return;
  }
  const item = value as { type?: unknown };
  const type = typeof item.type === 'string' ? item.type : item.type === undefined && 'role' in item ? 'message' : undefined;
  const schema = type === undefined ? undefined : itemSchemas[type];
  if (schema === undefined) {
    context.addIssue({
      code: 'custom',
      path: ['type'],
      message: `Unsupported item type ${JSON.stringify(item.type ?? null)}; expected one of: ${Object.keys(itemSchemas).join(', ')}`,
    });
    return;
  }
  // The item's own issues pass on as they are (keeping their input), so a wrong type stays told from a missing field.
  const result = schema.safeParse(item, { reportInput: true });
  if (!result.success) for (const issue of result.error.issues) context.addIssue({ ...issue });
}) as unknown as z.ZodType<ResponseItem>;

export const FunctionTool = z.looseObject({
  type: z.literal('function'),
  name: z.string(),
  parameters: nullish(z.record(z.string(), z.unknown())),
  strict: nullish(z.boolean()),
  description: nullish(z.string()),
});
export type FunctionTool = z.infer<typeof FunctionTool>;

export const ToolParam = z.looseObject({ type: z.string() }).superRefine((tool, context) => {
  if (tool.type !== 'function') return;
  const result = FunctionTool.safeParse(tool, { reportInput: true });
  if (!result.success) for (const issue of result.error.issues) context.addIssue({ ...issue });
});
export type ToolParam = z.infer<typeof ToolParam>;

/** `NeMoGymResponseCreateParamsNonStreaming`: unknown top-level keys are rejected, `seed` included. */
export const ResponseCreateParams = z.strictObject({
  background: nullish(z.boolean()),
  // Newer OpenAI fields, which upstream 0.7.0's agents send (as null) on every model call.
  context_management: nullish(z.array(z.looseObject({}))),
  conversation: nullish(z.union([z.string(), z.looseObject({ id: z.string() })])),
  moderation: nullish(z.looseObject({})),
  prompt_cache_key: nullish(z.string()),
  prompt_cache_retention: nullish(z.enum(['in_memory', '24h'])),
  safety_identifier: nullish(z.string()),
  stream_options: nullish(z.looseObject({})),
  include: nullish(z.array(z.string())),
  input: z.union([z.string(), z.array(ResponseItem)]),
  instructions: nullish(z.string()),
  max_output_tokens: nullish(z.number().int()),
  max_tool_calls: nullish(z.number().int()),
  metadata: nullish(z.record(z.string(), z.string())),
  model: nullish(z.string()),
  parallel_tool_calls: nullish(z.boolean()),
  previous_response_id: nullish(z.string()),
  prompt: nullish(z.record(z.string(), z.unknown())),
  reasoning: nullish(z.looseObject({})),
  service_tier: nullish(z.enum(['auto', 'default', 'flex', 'scale', 'priority'])),
  store: nullish(z.boolean()),
  temperature: nullish(z.number()),
  text: nullish(z.looseObject({})),
  tool_choice: nullish(z.union([z.string(), z.looseObject({})])),
  tools: nullish(z.array(ToolParam)),
  top_logprobs: nullish(z.number().int()),
  top_p: nullish(z.number()),
  truncation: nullish(z.enum(['auto', 'disabled'])),
  user: nullish(z.string()),
  stream: nullish(z.literal(false)),
});
export type ResponseCreateParams = z.infer<typeof ResponseCreateParams>;

export const ResponseUsage = z.looseObject({
  input_tokens: z.number(),
  output_tokens: z.number(),
  total_tokens: z.number(),
  input_tokens_details: nullish(z.looseObject({ cached_tokens: nullish(z.number()) })),
  output_tokens_details: nullish(z.looseObject({ reasoning_tokens: nullish(z.number()) })),
});
export type ResponseUsage = z.infer<typeof ResponseUsage>;

/** `NeMoGymResponse`: the OpenAI Response object; extra keys allowed. */
export const Response = z.looseObject({
  id: z.string(),
  created_at: z.number(),
  model: z.string(),
  object: z.literal('response'),
  output: z.array(ResponseItem),
  parallel_tool_calls: z.boolean(),
  tool_choice: z.union([z.string(), z.looseObject({})]),
  tools: z.array(ToolParam),
  incomplete_details: nullish(z.looseObject({ reason: nullish(z.string()) })),
  usage: nullish(ResponseUsage),
  error: nullish(z.unknown()),
});
export type Response = z.infer<typeof Response>;

/** Items of `input` after turning a bare string into one user message, as every agent does first. */
export function normalizeInput(input: string | ResponseItem[]): ResponseItem[] {
  return typeof input === 'string' ? [{ role: 'user', content: input, type: 'message' }] : input;
}

/** Adds usage of several model calls (upstream v0.1.1 kept only the last call's usage). */
export function sumUsage(total: ResponseUsage | null | undefined, next: ResponseUsage | null | undefined): ResponseUsage | null {
  if (next === null || next === undefined) return total ?? null;
  if (total === null || total === undefined) return structuredClone(next);
  return {
    ...total,
    input_tokens: total.input_tokens + next.input_tokens,
    output_tokens: total.output_tokens + next.output_tokens,
    total_tokens: total.total_tokens + next.total_tokens,
    input_tokens_details: {
      cached_tokens: (total.input_tokens_details?.cached_tokens ?? 0) + (next.input_tokens_details?.cached_tokens ?? 0),
    },
    output_tokens_details: {
      reasoning_tokens: (total.output_tokens_details?.reasoning_tokens ?? 0) + (next.output_tokens_details?.reasoning_tokens ?? 0),
    },
  };
}

registerFastCheck(ResponseCreateParams, isValidResponseCreateParams);
registerFastCheck(Response, isValidResponse);
