/**
 * Anthropic Messages <-> Responses API, so that every model server answers `POST /v1/messages` through its own
 * `/v1/responses` backend (upstream NeMo Gym 0.7.0 does the same; harnesses that need an Anthropic endpoint,
 * such as Claude Code, can then point at any model server).
 *
 * The mapping is upstream's: `system` becomes `instructions`, text and image blocks become message parts,
 * `tool_use`/`tool_result`/`thinking` blocks become function_call/function_call_output/reasoning items, and
 * back. Where upstream silently drops a field, ngym refuses what would change the generation and cannot be
 * mapped (`top_k`, `stop_sequences`, server tools, document blocks...) with a 400 naming it, and drops only
 * the hints meant for Anthropic's own service.
 */
import { randomUUID } from 'node:crypto';
import { NgymError } from '../errors.ts';
import { pythonJsonDumps } from '../python-compat/python-json.ts';
import type { AnthropicContentBlock, AnthropicMessage, AnthropicMessageCreateParams, AnthropicMessageParam } from './anthropic-messages.ts';
import type { ContentPart, Response, ResponseCreateParams, ResponseItem, ToolParam } from './responses.ts';

/** Request fields mapped onto the Responses request (`stream` is the server's). */
const MAPPED_FIELDS = new Set(['model', 'max_tokens', 'messages', 'system', 'temperature', 'top_p', 'tools', 'tool_choice', 'stream']);
/** Hints for Anthropic's own service (billing, caching, server-side features, thinking budgets): accepted and dropped. */
const SERVICE_HINTS = new Set(['metadata', 'thinking', 'service_tier', 'cache_control', 'container', 'context_management', 'inference_geo', 'output_config']);

function unmappable(path: string, why: string): NgymError {
  return new NgymError('NGYM_INVALID_REQUEST', `${path}: ${why}`, { status: 400 });
}

function malformedAnswer(why: string): NgymError {
  return new NgymError('NGYM_UPSTREAM_BODY', `The model's answer has no Anthropic Messages representation: ${why}`);
}

const randomId = (prefix: string) => `${prefix}${randomUUID().replaceAll('-', '')}`;

function checkTopLevelFields(params: AnthropicMessageCreateParams): void {
  for (const [field, value] of Object.entries(params)) {
    if (MAPPED_FIELDS.has(field) || value === null || value === undefined) continue;
    if (field === 'output_config' && (value as { format?: unknown }).format != null) {
      throw unmappable('output_config.format', 'structured output has no mapping onto this model server; leave it out.');
    }
    if (SERVICE_HINTS.has(field)) continue;
    if (field === 'stop_sequences' && Array.isArray(value) && value.length === 0) continue;
    throw unmappable(field, 'the Responses API that this model server answers through has no such parameter; leave it out.');
  }
}

function textOf(block: Record<string, unknown>, path: string): string {
  if (typeof block.text !== 'string') throw unmappable(`${path}.text`, 'a text block needs a string text.');
  return block.text;
}

function imagePart(block: Record<string, any>, path: string): ContentPart {
  const source = block.source as Record<string, unknown> | undefined;
  if (source?.type === 'base64' && typeof source.media_type === 'string' && typeof source.data === 'string') {
    return { type: 'input_image', image_url: `data:${source.media_type};base64,${source.data}`, detail: 'auto' };
  }
  if (source?.type === 'url' && typeof source.url === 'string') return { type: 'input_image', image_url: source.url, detail: 'auto' };
  throw unmappable(`${path}.source`, "an image needs a 'base64' source (media_type and data) or a 'url' source.");
}

function toolResultOutput(content: unknown, path: string): string | ContentPart[] {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw unmappable(`${path}.content`, 'a tool result is a string or a list of text and image blocks.');
  const blocks = content as Array<Record<string, unknown>>;
  // Text only: one string, as upstream sends it.
  if (blocks.every((block) => block.type === 'text')) return blocks.map((block, index) => textOf(block, `${path}.content.${index}`)).join('\n');
  return blocks.map((block, index) => {
    const at = `${path}.content.${index}`;
    if (block.type === 'text') return { type: 'input_text', text: textOf(block, at) };
    if (block.type === 'image') return imagePart(block, at);
    throw unmappable(`${at}.type`, `a tool result block of type ${JSON.stringify(block.type)} cannot be sent (text and image only).`);
  });
}

/** One Anthropic message as Responses items: runs of text and images form a message, other blocks their own items. */
function messageItems(message: AnthropicMessageParam, path: string): ResponseItem[] {
  const { role } = message;
  if (typeof message.content === 'string') return [{ type: 'message', role, content: message.content }];
  const items: ResponseItem[] = [];
  let parts: ContentPart[] = [];
  const flush = () => {
    if (parts.length === 0) return;
    const only = parts.length === 1 ? parts[0] : undefined;
    items.push({ type: 'message', role, content: only !== undefined && typeof only.text === 'string' ? only.text : parts });
    parts = [];
  };
  message.content.forEach((block: Record<string, any>, index) => {
    const at = `${path}.content.${index}`;
    switch (block.type) {
      case 'text':
        parts.push({ type: role === 'assistant' ? 'output_text' : 'input_text', text: textOf(block, at) });
        return;
      case 'image':
        if (role === 'assistant') throw unmappable(`${at}.type`, 'an assistant message cannot hold an image.');
        parts.push(imagePart(block, at));
        return;
      case 'tool_use': {
        if (typeof block.id !== 'string' || typeof block.name !== 'string') throw unmappable(at, 'a tool_use block needs a string id and name.');
        flush();
        // Python's json.dumps, as upstream writes the arguments: the text the chat template renders stays the same.
        items.push({ type: 'function_call', id: block.id, call_id: block.id, name: block.name, arguments: pythonJsonDumps(block.input ?? {}), status: 'completed' });
        return;
      }
      case 'tool_result':
        if (typeof block.tool_use_id !== 'string') throw unmappable(`${at}.tool_use_id`, 'a tool_result block needs the string id of its tool_use.');
        flush();
        items.push({ type: 'function_call_output', call_id: block.tool_use_id, output: toolResultOutput(block.content, at) });
        return;
      case 'thinking': {
        if (typeof block.thinking !== 'string') throw unmappable(`${at}.thinking`, 'a thinking block needs a string thinking.');
        flush();
        const signature = typeof block.signature === 'string' && block.signature !== '' ? { encrypted_content: block.signature } : {};
        items.push({ type: 'reasoning', id: randomId('rs_'), summary: [{ type: 'summary_text', text: block.thinking }], ...signature });
        return;
      }
      default:
        throw unmappable(`${at}.type`, `a block of type ${JSON.stringify(block.type)} cannot be sent to this model server (text, image, tool_use, tool_result and thinking can).`);
    }
  });
  flush();
  return items;
}

function instructionsOf(system: AnthropicMessageCreateParams['system']): string | undefined {
  if (system === null || system === undefined) return undefined;
  if (typeof system === 'string') return system === '' ? undefined : system;
  const texts = system.map((block, index) => {
    if (block.type !== 'text') throw unmappable(`system.${index}.type`, 'system blocks must be text.');
    return textOf(block, `system.${index}`);
  });
  return texts.filter((text) => text !== '').join('\n') || undefined;
}

function toolsOf(tools: NonNullable<AnthropicMessageCreateParams['tools']>): ToolParam[] {
  return tools.map((tool, index) => {
    // Anthropic's server tools (bash, text editor, web search) are typed and run by Anthropic.
    if (tool.type !== undefined && tool.type !== null && tool.type !== 'custom') {
      throw unmappable(`tools.${index}.type`, `${JSON.stringify(tool.type)} is one of Anthropic's server tools; only custom tools (name, description, input_schema) can be served.`);
    }
    return {
      type: 'function',
      name: tool.name,
      ...(typeof tool.description === 'string' ? { description: tool.description } : {}),
      parameters: (tool.input_schema as Record<string, unknown> | undefined) ?? { type: 'object', properties: {} },
      strict: tool.strict === true,
    };
  });
}

function toolChoiceOf(choice: NonNullable<AnthropicMessageCreateParams['tool_choice']>): ResponseCreateParams['tool_choice'] {
  switch (choice.type) {
    case 'auto':
    case 'none':
      return choice.type;
    case 'any':
      return 'required';
    case 'tool':
      if (typeof choice.name !== 'string') throw unmappable('tool_choice.name', "a tool_choice of type 'tool' needs the tool's name.");
      return { type: 'function', name: choice.name };
    default:
      throw unmappable('tool_choice.type', `${JSON.stringify(choice.type)} is not one of auto, any, tool, none.`);
  }
}

/** The Responses request for an Anthropic Messages request; a field that cannot be mapped is a 400 naming it. */
export function anthropicToResponsesRequest(params: AnthropicMessageCreateParams): ResponseCreateParams {
  checkTopLevelFields(params);
  const request: ResponseCreateParams = { input: params.messages.flatMap((message, index) => messageItems(message, `messages.${index}`)) };
  const instructions = instructionsOf(params.system);
  if (instructions !== undefined) request.instructions = instructions;
  if (typeof params.model === 'string') request.model = params.model;
  if (typeof params.max_tokens === 'number') request.max_output_tokens = params.max_tokens;
  if (typeof params.temperature === 'number') request.temperature = params.temperature;
  if (typeof params.top_p === 'number') request.top_p = params.top_p;
  if (params.tools && params.tools.length > 0) request.tools = toolsOf(params.tools);
  if (params.tool_choice) {
    request.tool_choice = toolChoiceOf(params.tool_choice);
    if (params.tool_choice.disable_parallel_tool_use === true) request.parallel_tool_calls = false;
  }
  return request;
}

function toolInputOf(item: Record<string, any>): Record<string, unknown> {
  let input: unknown;
  try {
    input = JSON.parse(item.arguments === '' ? '{}' : item.arguments);
  } catch {
    input = undefined;
  }
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw malformedAnswer(`the arguments of function call ${JSON.stringify(item.name)} are not a JSON object: ${String(item.arguments).slice(0, 200)}`);
  }
  return input as Record<string, unknown>;
}

function contentBlocksOf(item: ResponseItem): AnthropicContentBlock[] {
  switch (item.type) {
    case 'function_call':
      return [{ type: 'tool_use', id: item.call_id, name: item.name, input: toolInputOf(item) }];
    case 'reasoning':
      return item.summary.map((part) => ({ type: 'thinking', thinking: part.text, signature: item.encrypted_content ?? '' }));
    case 'function_call_output':
      throw malformedAnswer('its output holds a function_call_output item.');
    default: {
      if (typeof item.content === 'string') return [{ type: 'text', text: item.content }];
      return item.content.map((part) => {
        if (part.type === 'output_text') return { type: 'text', text: part.text as string };
        if (part.type === 'refusal') return { type: 'text', text: part.refusal as string };
        throw malformedAnswer(`its message holds a content part of type ${JSON.stringify(part.type)}.`);
      });
    }
  }
}

function stopReasonOf(response: Response, content: AnthropicContentBlock[]): AnthropicMessage['stop_reason'] {
  const reason = response.incomplete_details?.reason;
  if (reason === 'max_output_tokens') return 'max_tokens';
  if (reason === 'content_filter') return 'refusal';
  return content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn';
}

/** The Anthropic Message for a Response; token ids do not travel in this dialect (as upstream). */
export function responseToAnthropicMessage(response: Response, model: string | null | undefined): AnthropicMessage {
  if (response.error) throw malformedAnswer(`the response failed: ${JSON.stringify(response.error)}`);
  const content = response.output.flatMap(contentBlocksOf);
  return {
    // The Response's id, so a Message can be traced to the call that produced it (upstream does the same).
    id: response.id,
    type: 'message',
    role: 'assistant',
    model: model ?? response.model,
    content,
    stop_reason: stopReasonOf(response, content),
    stop_sequence: null,
    usage: { input_tokens: response.usage?.input_tokens ?? 0, output_tokens: response.usage?.output_tokens ?? 0 },
  };
}
