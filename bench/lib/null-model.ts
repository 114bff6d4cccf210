/** The null model's answers, shared by the ngym implementation and the hand-written baseline. */

let cachedPayload: { tokens: number; fields: Record<string, number[]> } | undefined;

function tokenFields(tokens: number): Record<string, number[]> {
  if (cachedPayload?.tokens !== tokens) {
    cachedPayload = {
      tokens,
      fields: {
        prompt_token_ids: Array.from({ length: 64 }, (_, index) => 1000 + index),
        generation_token_ids: Array.from({ length: tokens }, (_, index) => 100_000 + ((index * 7919) % 50_000)),
        generation_log_probs: Array.from({ length: tokens }, (_, index) => -((index % 97) + 1) / 131),
      },
    };
  }
  return cachedPayload.fields;
}

interface Tool {
  name?: string;
  parameters?: { properties?: Record<string, { type?: string }> };
}

/** Arguments of the right JSON types for a tool's parameters: strings "x", numbers 1, arrays [1]. */
function argumentsFor(tool: Tool): string {
  const values: Record<string, unknown> = { string: 'x', integer: 1, number: 1, boolean: true, array: [1], object: {} };
  return JSON.stringify(Object.fromEntries(Object.entries(tool.parameters?.properties ?? {}).map(([key, schema]) => [key, values[schema.type ?? 'string'] ?? 'x'])));
}

const PING: Tool[] = [{ name: 'ping' }];

/**
 * One call of each of the request's tools in turn (one per model call; `ping` when it names none), then a final
 * message; only the message when `callTool` is false.
 */
export function nullModelOutput(input: { type?: string }[], payloadTokens: number, callTool = true, tools: Tool[] = []): Record<string, unknown>[] {
  const calls = (tools.length > 0 ? tools : PING).filter((tool) => tool.name !== undefined);
  const done = input.filter((item) => item.type === 'function_call_output').length;
  const tool = calls[done];
  if (callTool && tool !== undefined) {
    return [{ type: 'function_call', id: `fc_${done + 1}`, call_id: `call_${done + 1}`, name: tool.name, arguments: argumentsFor(tool), status: 'completed' }];
  }
  return [
    {
      type: 'message',
      id: 'msg_1',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'done', annotations: [] }],
      ...(payloadTokens > 0 ? tokenFields(payloadTokens) : {}),
    },
  ];
}
