/**
 * Upstream 0.7.0's tool-call mode (`response_mode: tool_call`): the answer is the arguments of the response's
 * one function call, optionally of a named tool (`tool_name`) and under one key of them (`tool_payload_key`,
 * for schemas wrapped in an envelope). Each way of not giving that payload has its own `error_type`.
 */
import { type ResponseItem } from 'ngym';
import { pythonJsonLoads } from 'ngym/python-compat';
import { failure, type SchemaCheck } from './schema-validation.ts';

export type ToolCallErrorType = 'api_error' | 'missing_tool_call' | 'multiple_tool_calls' | 'wrong_tool_name' | 'tool_arguments_parse_error' | 'missing_tool_payload_key';

export interface ToolCallRequest {
  response: { output: ResponseItem[]; error?: unknown };
  tool_name?: string | null;
  tool_payload_key?: string | null;
}

/** The payload to validate, or the failure upstream reports before validating. */
export function toolCallPayload(request: ToolCallRequest): { payload: unknown } | SchemaCheck<ToolCallErrorType> {
  const { response } = request;
  if (response.error !== null && response.error !== undefined) return failure('api_error', JSON.stringify(response.error).slice(0, 200));
  const calls = response.output.filter((item) => item.type === 'function_call');
  const names = calls.map((call) => call.name).join(', ');
  if (calls.length === 0) return failure('missing_tool_call', 'No function_call item found in assistant response');
  if (calls.length > 1) return failure('multiple_tool_calls', `Expected exactly one function_call, got: ${names}`);
  const [call] = calls;
  // An empty tool_name or payload key means none, as Python's truthiness test reads it.
  if (request.tool_name && call!.name !== request.tool_name) return failure('wrong_tool_name', `Expected tool '${request.tool_name}', got: ${names}`);
  let parsed: unknown;
  try {
    parsed = pythonJsonLoads(call!.arguments);
  } catch (error) {
    return failure('tool_arguments_parse_error', error instanceof Error ? `${error.name}: ${error.message}` : String(error));
  }
  const key = request.tool_payload_key;
  if (!key) return { payload: parsed };
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || !Object.hasOwn(parsed, key)) {
    return failure('missing_tool_payload_key', `Missing tool payload key: ${key}`);
  }
  return { payload: (parsed as Record<string, unknown>)[key] };
}
