/**
 * The actions a step is judged by, as upstream 0.7.0's `common/verification_utils.py` declares them: a chat message,
 * one tool call, or a batch of parallel tool calls. A row carries the expected one (`expected_action`); the model's
 * is read from its response by `extractAction` (upstream's `common/response_utils.py`), so both sides of a
 * comparison have the same shape.
 */
import { isMessage, type ResponseItem } from 'ngym';
import * as z from 'zod';

// z.object drops keys it does not declare, as upstream's pydantic models ignore them (and echo the action without them).
const MessageAction = z.object({ type: z.literal('message'), content: z.string() });
export const FunctionCallAction = z.object({ type: z.literal('function_call'), name: z.string(), arguments: z.string() });
const FunctionCallBatchAction = z.object({ type: z.literal('function_call_batch'), calls: z.array(FunctionCallAction).min(1) });
export const ExpectedAction = z.discriminatedUnion('type', [MessageAction, FunctionCallAction, FunctionCallBatchAction]);

export type FunctionCallAction = z.infer<typeof FunctionCallAction>;
export type ExpectedAction = z.infer<typeof ExpectedAction>;

/** The tool calls an action stands for: none for a message, so one call and a batch are compared alike. */
export function toolCalls(action: ExpectedAction): FunctionCallAction[] {
  if (action.type === 'function_call_batch') return action.calls;
  return action.type === 'function_call' ? [action] : [];
}

/**
 * The text of a message's first `output_text` part, if it has one. A string content has no parts: upstream iterates
 * its characters and fails (500) unless it is empty, and ngym reads it as holding no part at all.
 */
function firstOutputText(content: unknown): string | undefined {
  if (!Array.isArray(content)) return undefined;
  const part: unknown = content.find((candidate: unknown) => typeof candidate === 'object' && candidate !== null && (candidate as { type?: unknown }).type === 'output_text');
  return (part as { text?: string } | undefined)?.text;
}

/**
 * The action a response takes. Tool calls win over text (a response that narrates and calls is judged on its
 * calls); several calls make a batch, matched without regard to their order; else the first `output_text` of
 * the first assistant message that has one; else nothing.
 */
export function extractAction(output: readonly ResponseItem[]): ExpectedAction | undefined {
  const calls: FunctionCallAction[] = [];
  let text: string | undefined;
  for (const item of output) {
    if (item.type === 'function_call') calls.push({ type: 'function_call', name: item.name, arguments: item.arguments });
    else if (text === undefined && isMessage(item) && item.role === 'assistant') text = firstOutputText(item.content);
  }
  const [only] = calls;
  if (calls.length === 1 && only !== undefined) return only;
  if (calls.length > 1) return { type: 'function_call_batch', calls };
  return text === undefined ? undefined : { type: 'message', content: text };
}
