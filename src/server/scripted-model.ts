/**
 * A deterministic model server for tests and offline recordings (`ngym init`): each `/v1/responses` call is answered by a script from the
 * request (and the call count), and every request is recorded for assertions.
 */
import { randomUUID } from 'node:crypto';
import type { Response, ResponseCreateParams, ResponseItem, ResponseUsage } from '../protocol/responses.ts';
import { normalizeInput } from '../protocol/responses.ts';
import { defineModelServer, type ModelServerDefinition } from './model-server.ts';

export interface ScriptedCall {
  params: ResponseCreateParams;
  input: ResponseItem[];
  sessionId: string;
  index: number;
}

export type ModelScript = (call: ScriptedCall) => ResponseItem[] | Partial<Response> | Promise<ResponseItem[] | Partial<Response>>;

export interface ScriptedModel {
  definition: ModelServerDefinition;
  calls: ScriptedCall[];
}

export function modelResponse(output: ResponseItem[], overrides: Partial<Response> = {}): Response {
  return {
    id: `resp_${randomUUID().replaceAll('-', '')}`,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    model: 'scripted-model',
    output,
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    incomplete_details: null,
    usage: null,
    ...overrides,
  };
}

export function assistantMessage(text: string, extra: Partial<ResponseItem> = {}): ResponseItem {
  return {
    id: `msg_${randomUUID().replaceAll('-', '')}`,
    type: 'message',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text, annotations: [] }],
    ...extra,
  } as ResponseItem;
}

export function functionCall(name: string, args: unknown, callId = `call_${randomUUID().slice(0, 8)}`, extra: Partial<ResponseItem> = {}): ResponseItem {
  return {
    type: 'function_call',
    id: `fc_${callId}`,
    call_id: callId,
    name,
    arguments: typeof args === 'string' ? args : JSON.stringify(args),
    status: 'completed',
    ...extra,
  } as ResponseItem;
}

export function usage(input: number, output: number): ResponseUsage {
  return {
    input_tokens: input,
    output_tokens: output,
    total_tokens: input + output,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens_details: { reasoning_tokens: 0 },
  };
}

export function scriptedModel(script: ModelScript): ScriptedModel {
  const calls: ScriptedCall[] = [];
  const definition = defineModelServer({
    className: 'ScriptedModel',
    responses: async (params, { sessionId }) => {
      const call: ScriptedCall = { params: structuredClone(params), input: normalizeInput(params.input), sessionId, index: calls.length };
      calls.push(call);
      const result = await script(call);
      return Array.isArray(result) ? modelResponse(result) : modelResponse(result.output ?? [], result);
    },
  });
  return { definition, calls };
}
