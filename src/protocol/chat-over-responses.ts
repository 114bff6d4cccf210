/**
 * Chat Completions served through a Responses backend: for model servers that have no Chat Completions
 * backend of their own (replay_model, the scripted models of tests), `POST /v1/chat/completions` becomes a
 * Responses request and the Response a chat completion. The inverse of chat-conversion.ts, with the same
 * token courier: an assistant message's token fields ride on the last item made from it, and the last
 * output item's fields come back on the message.
 *
 * Upstream NeMo Gym has no such path (each of its model servers has a Chat Completions backend). A field
 * that the Responses API cannot carry is refused with a 400 naming it, unless it holds its neutral value.
 */
import { randomUUID } from 'node:crypto';
import { NgymError } from '../errors.ts';
import type { ChatCompletion, ChatCompletionCreateParams, ChatMessage, ChatToolCall } from './chat-completions.ts';
import { copyTokenFields } from './chat-conversion.ts';
import type { ContentPart, Response, ResponseCreateParams, ResponseItem, ToolParam } from './responses.ts';

/** Request fields carried over as they are (the Responses API has the same name and values). */
const SAME_FIELDS = ['model', 'temperature', 'top_p', 'parallel_tool_calls', 'metadata', 'store', 'user', 'service_tier', 'prompt_cache_key', 'safety_identifier'] as const;
/** Request fields mapped below (`stream` and `stream_options` are the server's). */
const MAPPED_FIELDS = new Set<string>([...SAME_FIELDS, 'messages', 'max_tokens', 'max_completion_tokens', 'reasoning_effort', 'verbosity', 'response_format', 'tools', 'tool_choice', 'stream', 'stream_options']);
/** Fields the Responses API lacks, accepted at the value that asks for nothing. */
const NEUTRAL_VALUES: Record<string, (value: unknown) => boolean> = {
  n: (value) => value === 1,
  logprobs: (value) => value === false,
  top_logprobs: (value) => value === 0,
  frequency_penalty: (value) => value === 0,
  presence_penalty: (value) => value === 0,
  stop: (value) => Array.isArray(value) && value.length === 0,
};

function unmappable(path: string, why: string): NgymError {
  return new NgymError('NGYM_INVALID_REQUEST', `${path}: ${why}`, { status: 400 });
}

const NO_EQUIVALENT = 'the Responses API that this model server answers through has no such parameter; leave it out.';

function checkTopLevelFields(params: ChatCompletionCreateParams): void {
  for (const [field, value] of Object.entries(params)) {
    if (MAPPED_FIELDS.has(field) || value === null || value === undefined || NEUTRAL_VALUES[field]?.(value)) continue;
    throw unmappable(field, NO_EQUIVALENT);
  }
}

function checkUnset(message: ChatMessage, fields: readonly string[], path: string): void {
  for (const field of fields) {
    const value = (message as Record<string, unknown>)[field];
    if (value !== undefined && value !== null) throw unmappable(`${path}.${field}`, `a ${message.role} message's ${field} cannot be sent through the Responses API.`);
  }
}

function inputPart(part: Record<string, any>, path: string): ContentPart {
  if (part.type === 'text' && typeof part.text === 'string') return { type: 'input_text', text: part.text };
  if (part.type === 'image_url') {
    const url = typeof part.image_url === 'string' ? part.image_url : part.image_url?.url;
    if (typeof url !== 'string' || url === '') throw unmappable(`${path}.image_url.url`, 'an image_url part needs a URL.');
    return { type: 'input_image', image_url: url, detail: part.image_url?.detail ?? 'auto' };
  }
  throw unmappable(`${path}.type`, `a content part of type ${JSON.stringify(part.type)} cannot be sent through the Responses API (text and image_url can).`);
}

function inputContent(content: ChatMessage['content'], path: string): string | ContentPart[] {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) throw unmappable(`${path}.content`, 'this message needs content.');
  return content.map((part, index) => inputPart(part, `${path}.content.${index}`));
}

function assistantParts(message: ChatMessage, path: string): ContentPart[] {
  const parts: ContentPart[] = [];
  const content = message.content;
  if (typeof content === 'string') {
    if (content !== '') parts.push({ type: 'output_text', text: content, annotations: [] });
  } else {
    (content ?? []).forEach((part: Record<string, any>, index) => {
      if (part.type === 'text' && typeof part.text === 'string') parts.push({ type: 'output_text', text: part.text, annotations: [] });
      else if (part.type === 'refusal' && typeof part.refusal === 'string') parts.push({ type: 'refusal', refusal: part.refusal });
      else throw unmappable(`${path}.content.${index}.type`, `an assistant content part of type ${JSON.stringify(part.type)} cannot be sent (text and refusal can).`);
    });
  }
  const refusal = (message as { refusal?: unknown }).refusal;
  if (typeof refusal === 'string' && refusal !== '') parts.push({ type: 'refusal', refusal });
  return parts;
}

/** An assistant message as the run of model items it stands for: reasoning, message, function calls. */
function assistantItems(message: ChatMessage, path: string): ResponseItem[] {
  checkUnset(message, ['name', 'audio', 'function_call'], path);
  const items: ResponseItem[] = [];
  const reasoning = message.reasoning_content ?? message.reasoning;
  if (typeof reasoning === 'string' && reasoning !== '') {
    items.push({ type: 'reasoning', id: `rs_${randomUUID().replaceAll('-', '')}`, summary: [{ type: 'summary_text', text: reasoning }] });
  }
  const parts = assistantParts(message, path);
  const toolCalls: ChatToolCall[] = message.tool_calls ?? [];
  if (parts.length > 0 || (items.length === 0 && toolCalls.length === 0)) {
    items.push({ type: 'message', role: 'assistant', content: parts.length === 1 && parts[0]?.type === 'output_text' ? (parts[0].text as string) : parts });
  }
  for (const call of toolCalls) items.push({ type: 'function_call', call_id: call.id, name: call.function.name, arguments: call.function.arguments });
  copyTokenFields(message, items.at(-1) as Record<string, unknown>);
  return items;
}

function messageItems(message: ChatMessage, path: string): ResponseItem[] {
  switch (message.role) {
    case 'assistant':
      return assistantItems(message, path);
    case 'tool':
      if (typeof message.tool_call_id !== 'string') throw unmappable(`${path}.tool_call_id`, 'a tool message needs the id of the call it answers.');
      return [{ type: 'function_call_output', call_id: message.tool_call_id, output: inputContent(message.content, path) }];
    default:
      checkUnset(message, ['name'], path);
      return [{ type: 'message', role: message.role, content: inputContent(message.content, path) }];
  }
}

function toolsOf(tools: NonNullable<ChatCompletionCreateParams['tools']>): ToolParam[] {
  return tools.map((tool, index) => {
    const definition = tool.function as Record<string, unknown> | undefined;
    if (tool.type !== 'function' || typeof definition?.name !== 'string') {
      throw unmappable(`tools.${index}.type`, 'only function tools (type "function" with a function.name) can be sent through the Responses API.');
    }
    return {
      type: 'function',
      name: definition.name,
      ...(typeof definition.description === 'string' ? { description: definition.description } : {}),
      ...(definition.parameters !== undefined && definition.parameters !== null ? { parameters: definition.parameters } : {}),
      // Chat Completions' default; the Responses API's would be strict.
      strict: definition.strict === true,
    };
  });
}

function toolChoiceOf(choice: NonNullable<ChatCompletionCreateParams['tool_choice']>): ResponseCreateParams['tool_choice'] {
  if (typeof choice === 'string') return choice;
  const name = (choice as { function?: { name?: unknown } }).function?.name;
  if (choice.type === 'function' && typeof name === 'string') return { type: 'function', name };
  throw unmappable('tool_choice', 'only "auto", "none", "required" or {"type": "function", "function": {"name": ...}} can be sent through the Responses API.');
}

function textFormatOf(format: Record<string, any>): Record<string, unknown> {
  if (format.type === 'text' || format.type === 'json_object') return { type: format.type };
  if (format.type === 'json_schema' && format.json_schema !== null && typeof format.json_schema === 'object') return { type: 'json_schema', ...format.json_schema };
  throw unmappable('response_format.type', `${JSON.stringify(format.type)} is not one of text, json_object, json_schema.`);
}

/** The Responses request for a Chat Completions request; what cannot be carried is a 400 naming the field. */
export function chatRequestToResponses(params: ChatCompletionCreateParams): ResponseCreateParams {
  checkTopLevelFields(params);
  const request: ResponseCreateParams = { input: params.messages.flatMap((message, index) => messageItems(message, `messages.${index}`)) };
  for (const field of SAME_FIELDS) {
    const value = params[field as keyof ChatCompletionCreateParams];
    if (value !== undefined && value !== null) (request as Record<string, unknown>)[field] = value;
  }
  const maxTokens = params.max_completion_tokens ?? params.max_tokens;
  if (typeof maxTokens === 'number') request.max_output_tokens = maxTokens;
  if (typeof params.reasoning_effort === 'string') request.reasoning = { effort: params.reasoning_effort };
  const text: Record<string, unknown> = {};
  if (params.response_format !== undefined && params.response_format !== null) text.format = textFormatOf(params.response_format as Record<string, any>);
  if (typeof params.verbosity === 'string') text.verbosity = params.verbosity;
  if (Object.keys(text).length > 0) request.text = text;
  if (params.tools && params.tools.length > 0) request.tools = toolsOf(params.tools);
  if (params.tool_choice !== undefined && params.tool_choice !== null) request.tool_choice = toolChoiceOf(params.tool_choice);
  return request;
}

function malformedAnswer(why: string): NgymError {
  return new NgymError('NGYM_UPSTREAM_BODY', `The model's answer has no Chat Completions representation: ${why}`);
}

function finishReasonOf(response: Response, hasToolCalls: boolean): string {
  const reason = response.incomplete_details?.reason;
  if (reason === 'max_output_tokens') return 'length';
  if (reason === 'content_filter') return 'content_filter';
  return hasToolCalls ? 'tool_calls' : 'stop';
}

/** The chat completion for a Response: visible text, reasoning, refusal and tool calls on one assistant message. */
export function responseToChatCompletion(response: Response): ChatCompletion {
  if (response.error) throw malformedAnswer(`the response failed: ${JSON.stringify(response.error)}`);
  const texts: string[] = [];
  const refusals: string[] = [];
  const reasoning: string[] = [];
  const toolCalls: ChatToolCall[] = [];
  for (const item of response.output) {
    if (item.type === 'function_call') toolCalls.push({ id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } });
    else if (item.type === 'reasoning') reasoning.push(...item.summary.map((part) => part.text));
    else if (item.type === 'function_call_output') throw malformedAnswer('its output holds a function_call_output item.');
    else if (typeof item.content === 'string') texts.push(item.content);
    else {
      for (const part of item.content) {
        if (part.type === 'output_text') texts.push(part.text as string);
        else if (part.type === 'refusal') refusals.push(part.refusal as string);
        else throw malformedAnswer(`its message holds a content part of type ${JSON.stringify(part.type)}.`);
      }
    }
  }
  const message: ChatCompletion['choices'][number]['message'] = {
    role: 'assistant',
    content: texts.length === 0 && (toolCalls.length > 0 || refusals.length > 0) ? null : texts.join(''),
    refusal: refusals.length === 0 ? null : refusals.join(''),
  };
  if (reasoning.length > 0) message.reasoning_content = reasoning.join('\n');
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  const carrier = response.output.findLast((item) => Array.isArray((item as { prompt_token_ids?: unknown }).prompt_token_ids));
  if (carrier !== undefined) copyTokenFields(carrier, message);
  const usage = response.usage;
  return {
    id: response.id,
    object: 'chat.completion',
    created: response.created_at,
    model: response.model,
    choices: [{ index: 0, message, finish_reason: finishReasonOf(response, toolCalls.length > 0), logprobs: null }],
    ...(usage
      ? {
          usage: {
            prompt_tokens: usage.input_tokens,
            completion_tokens: usage.output_tokens,
            total_tokens: usage.total_tokens,
            prompt_tokens_details: { cached_tokens: usage.input_tokens_details?.cached_tokens ?? 0 },
            completion_tokens_details: { reasoning_tokens: usage.output_tokens_details?.reasoning_tokens ?? 0 },
          },
        }
      : {}),
  };
}
