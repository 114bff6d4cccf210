/**
 * The Anthropic Messages API (`POST /v1/messages`) as model servers accept it: the request is checked for the
 * shape of each field it maps (a wrong one is a 422 naming it); which fields and blocks can be mapped onto
 * the Responses API is decided in anthropic-conversion.ts. The answer is a Message.
 */
import * as z from 'zod';

const nullish = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

const Block = z.looseObject({ type: z.string() });

export const AnthropicMessageParam = z.looseObject({
  role: z.enum(['user', 'assistant']),
  content: z.union([z.string(), z.array(Block)]),
});
export type AnthropicMessageParam = z.infer<typeof AnthropicMessageParam>;

/** `model` and `max_tokens` are required by Anthropic's API but not by upstream NeMo Gym's mapping, nor here. */
export const AnthropicMessageCreateParams = z.looseObject({
  model: nullish(z.string()),
  max_tokens: nullish(z.number().int()),
  messages: z.array(AnthropicMessageParam),
  system: nullish(z.union([z.string(), z.array(Block)])),
  temperature: nullish(z.number()),
  top_p: nullish(z.number()),
  top_k: nullish(z.number().int()),
  stop_sequences: nullish(z.array(z.string())),
  stream: nullish(z.boolean()),
  tools: nullish(z.array(z.looseObject({ name: z.string(), type: nullish(z.string()) }))),
  tool_choice: nullish(z.looseObject({ type: z.string() })),
  metadata: nullish(z.looseObject({})),
  thinking: nullish(z.looseObject({ type: z.string() })),
});
export type AnthropicMessageCreateParams = z.infer<typeof AnthropicMessageCreateParams>;

export type AnthropicContentBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

/** The answer of `POST /v1/messages`. */
export interface AnthropicMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: AnthropicContentBlock[];
  stop_reason: 'end_turn' | 'max_tokens' | 'tool_use' | 'refusal';
  stop_sequence: null;
  usage: { input_tokens: number; output_tokens: number };
}
