/**
 * Responses API <-> Chat Completions, for model servers whose backend speaks Chat Completions (vLLM,
 * Azure). Follows spec training-integration A1.3/A1.4: a run of consecutive model items (reasoning,
 * assistant message, function calls) becomes one assistant message; reasoning travels as
 * `<think>...</think>` blocks whose whitespace is preserved byte for byte.
 *
 * For training, the token ids of a model call ride on the last output item of that call and travel back
 * to the backend on the assistant message rebuilt from those items (the "token courier"); the backend
 * splices them in so the next prompt extends exactly what was generated. Talking to vLLM (reasoning
 * parser, token extraction) lives in the vllm_model server, which builds on these functions.
 */
import { randomBytes } from 'node:crypto';
import { NgymError } from '../errors.ts';
import type { ChatCompletion, ChatCompletionCreateParams, ChatMessage, ChatToolCall } from './chat-completions.ts';
import type { ContentPart, Response, ResponseCreateParams, ResponseItem, ResponseUsage } from './responses.ts';

export interface ResponsesToChatOptions {
  /** Rewrite `developer` messages to `system` (backends without the developer role). */
  replaceDeveloperRoleWithSystem?: boolean;
  /**
   * Training mode: each assistant message carries the token fields of the last item of its run that has
   * them (upstream HEAD: a message without its own ids never inherits older ones).
   */
  returnTokenIdInformation?: boolean;
}

/** The token fields a model call leaves on its last output item (`routed_experts` only for MoE replay). */
export const TOKEN_FIELDS = ['prompt_token_ids', 'generation_token_ids', 'generation_log_probs', 'routed_experts'] as const;

const THINK_PATTERN = /<think>([\s\S]*?)<\/think>/g;
/** The `image_url.detail` values of a Chat Completions image part (OpenAI's type). */
const CHAT_IMAGE_DETAILS: readonly string[] = ['auto', 'low', 'high'];

function unsupported(message: string): NgymError {
  return new NgymError('NGYM_INVALID_REQUEST', message, { status: 400 });
}

/** An input_image's URL (a string, or upstream's `{url}` object); one given by `file_id` only cannot be sent. */
function imageUrlOf(part: ContentPart): string {
  const given = part.image_url;
  if (given === undefined || given === null) throw unsupported('An input_image given by file_id has no Chat Completions representation: send its image_url.');
  const url = typeof given === 'object' ? (given as { url?: unknown }).url : given;
  if (typeof url !== 'string' || url === '') throw unsupported('An input_image part needs a non-empty image_url.');
  return url;
}

/**
 * Chat Completions' `image_url.detail` is `auto`, `low` or `high`; the Responses API adds `original` (full
 * resolution), which has no Chat equivalent: it is refused, as upstream 0.7.0 refuses it, rather than sent
 * for the backend to reject or silently downgraded. No detail: `auto`, as upstream sends.
 */
function imageDetailOf(part: ContentPart): string {
  const detail = part.detail ?? 'auto';
  if (typeof detail === 'string' && CHAT_IMAGE_DETAILS.includes(detail)) return detail;
  const why = detail === 'original' ? 'has no Chat Completions representation' : 'is not a Chat Completions detail';
  throw unsupported(`input_image detail ${JSON.stringify(detail)} ${why} (one of 'auto', 'low', 'high').`);
}

function inputPartToChat(part: ContentPart): Record<string, unknown> {
  switch (part.type) {
    case 'input_text':
    case 'output_text':
      return { type: 'text', text: part.text };
    case 'input_image':
      return { type: 'image_url', image_url: { url: imageUrlOf(part), detail: imageDetailOf(part) } };
    default:
      throw unsupported(`Content part type '${part.type}' cannot be sent to a Chat Completions backend.`);
  }
}

function assistantTextOf(content: string | ContentPart[]): string {
  if (typeof content === 'string') return content;
  return content.map((part) => (part.type === 'refusal' || typeof part.text !== 'string' ? '' : part.text)).join('');
}

function textOfChatContent(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  return (content ?? []).map((part) => (typeof part.text === 'string' ? part.text : '')).join('');
}

/** Copies the token fields that are set from one item or message to another (the token courier's step). */
export function copyTokenFields(from: Record<string, unknown>, to: Record<string, unknown>): void {
  for (const field of TOKEN_FIELDS) if (from[field] !== undefined && from[field] !== null) to[field] = from[field];
}

/** The Chat Completions body for a Responses request (only fields that are set are sent). */
export function responsesToChatCompletion(params: ResponseCreateParams, options: ResponsesToChatOptions = {}): ChatCompletionCreateParams {
  const items: ResponseItem[] =
    typeof params.input === 'string' ? [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: params.input }] }] : params.input;
  const messages: ChatMessage[] = [];

  let content = '';
  let toolCalls: ChatToolCall[] = [];
  let assistantItems: ResponseItem[] = [];
  const flush = () => {
    if (assistantItems.length === 0) return;
    const message: ChatMessage = { role: 'assistant', content: content === '' && toolCalls.length > 0 ? null : content };
    if (toolCalls.length > 0) message.tool_calls = toolCalls;
    if (options.returnTokenIdInformation) {
      const carrier = assistantItems.findLast((item) => Array.isArray((item as { prompt_token_ids?: unknown }).prompt_token_ids));
      if (carrier !== undefined) copyTokenFields(carrier, message);
    }
    messages.push(message);
    content = '';
    toolCalls = [];
    assistantItems = [];
  };

  for (const item of items) {
    if (item.type === 'reasoning') {
      for (const summary of item.summary) if (summary.text) content += `<think>${summary.text}</think>`;
      assistantItems.push(item);
    } else if (item.type === 'function_call') {
      toolCalls.push({ id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } });
      assistantItems.push(item);
    } else if (item.type === 'function_call_output') {
      flush();
      const output = typeof item.output === 'string' ? item.output : item.output.map(inputPartToChat);
      messages.push({ role: 'tool', tool_call_id: item.call_id, content: output as ChatMessage['content'] });
    } else if (item.role === 'assistant') {
      content += assistantTextOf(item.content);
      assistantItems.push(item);
    } else {
      flush();
      const role = item.role === 'developer' && options.replaceDeveloperRoleWithSystem ? 'system' : item.role;
      messages.push({ role, content: typeof item.content === 'string' ? item.content : (item.content.map(inputPartToChat) as ChatMessage['content']) });
    }
  }
  flush();

  // Chat backends commonly admit one system message, first: `instructions` and the leading
  // system/developer messages become that one message (upstream HEAD).
  if (params.instructions) {
    const parts = [params.instructions];
    while (messages[0] !== undefined && (messages[0].role === 'system' || messages[0].role === 'developer')) {
      parts.push(textOfChatContent((messages.shift() as ChatMessage).content));
    }
    messages.unshift({ role: 'system', content: parts.join('\n\n') });
  }

  const body: ChatCompletionCreateParams = { messages };
  const copy = (from: keyof ResponseCreateParams, to: string = from) => {
    const value = params[from];
    if (value !== undefined && value !== null) (body as Record<string, unknown>)[to] = value;
  };
  copy('model');
  copy('max_output_tokens', 'max_tokens');
  copy('temperature');
  copy('top_p');
  copy('top_logprobs');
  copy('metadata');
  copy('store');
  copy('user');
  copy('service_tier');
  const effort = (params.reasoning as { effort?: unknown } | null | undefined)?.effort;
  if (typeof effort === 'string') body.reasoning_effort = effort;
  const tools = (params.tools ?? []).filter((tool) => tool.type === 'function');
  if (tools.length > 0) {
    body.tools = tools.map((tool) => ({
      type: 'function',
      function: {
        name: tool.name,
        ...(tool.description !== undefined && tool.description !== null ? { description: tool.description } : {}),
        ...(tool.parameters !== undefined && tool.parameters !== null ? { parameters: tool.parameters } : {}),
        ...(tool.strict !== undefined && tool.strict !== null ? { strict: tool.strict } : {}),
      },
    }));
    copy('tool_choice');
    copy('parallel_tool_calls');
  } else if (params.tool_choice !== undefined && params.tool_choice !== null && params.tool_choice !== 'auto' && params.tool_choice !== 'none') {
    throw unsupported(`tool_choice=${JSON.stringify(params.tool_choice)} requires at least one function tool in 'tools'.`);
  }
  return body;
}

/**
 * For backends that run a reasoning parser: moves `<think>` blocks out of assistant history into
 * `reasoning_content` (and `reasoning`, its name from vLLM 0.16 on). Only the first block is sent, as
 * upstream; with `interleaved: false` history reasoning is dropped. `field` sends it under one of the two names
 * only, for frontends that alias them and refuse the pair. Mutates `messages`.
 */
export function moveThinkingToReasoningField(
  messages: ChatMessage[],
  options: { interleaved: boolean; field?: 'both' | 'reasoning_content' | 'reasoning' },
): void {
  const field = options.field ?? 'both';
  const record = (message: ChatMessage, reasoning: string[]) => {
    if (reasoning.length === 0 || !options.interleaved) return;
    if (field !== 'reasoning') message.reasoning_content = reasoning[0];
    if (field !== 'reasoning_content') message.reasoning = reasoning[0];
  };
  for (const message of messages) {
    if (message.role !== 'assistant' || !message.content) continue;
    if (typeof message.content === 'string') {
      const { reasoning, visible } = splitThinking(message.content);
      message.content = visible;
      record(message, reasoning);
      continue;
    }
    let found = false;
    for (const part of message.content) {
      if (typeof part.text !== 'string') continue;
      const { reasoning, visible } = splitThinking(part.text);
      if (reasoning.length > 0 && found) {
        throw unsupported('An assistant message has reasoning in more than one content part; only one reasoning block per message can be sent.');
      }
      found ||= reasoning.length > 0;
      part.text = visible;
      record(message, reasoning);
    }
  }
}

/**
 * Puts a parsed `reasoning_content` (or `reasoning`) back in front of the content as `<think>...</think>`,
 * so the backend's reply reads as the model generated it. Without a reasoning parser such a field means
 * the backend and the config disagree, which would silently lose reasoning: an error. Mutates `message`.
 */
export function foldReasoningIntoContent(message: ChatCompletion['choices'][number]['message'], usesReasoningParser: boolean): void {
  const parsed = message.reasoning_content || (message as { reasoning?: string | null }).reasoning;
  if (!parsed) return;
  if (!usesReasoningParser) {
    throw new NgymError(
      'NGYM_UPSTREAM_BODY',
      'The backend returned reasoning_content but uses_reasoning_parser is false. Please do not use a reasoning parser in vLLM, or set uses_reasoning_parser: true.',
    );
  }
  delete message.reasoning_content;
  delete (message as { reasoning?: unknown }).reasoning;
  message.content = `<think>${parsed}</think>${message.content ?? ''}`;
}

function randomId(prefix: string): string {
  return `${prefix}${randomBytes(16).toString('hex')}`;
}

/** Splits `<think>` blocks out of generated text; an unclosed `<think>` stays visible, as upstream. */
export function splitThinking(text: string): { reasoning: string[]; visible: string } {
  const reasoning = [...text.matchAll(THINK_PATTERN)].map((match) => match[1] ?? '');
  return { reasoning, visible: reasoning.length === 0 ? text : text.replace(THINK_PATTERN, '') };
}

export interface ChatToResponsesOptions {
  /** The backend ran a reasoning parser: `reasoning_content` is expected and folded back into `<think>`. */
  usesReasoningParser?: boolean;
  /** Split `<think>` blocks of the content into a reasoning item (default true; vllm_model: only with a reasoning parser). */
  parseThinkTags?: boolean;
  /** Put the message's token fields on the last output item (training mode). */
  returnTokenIdInformation?: boolean;
  /** The `model` to report. */
  model?: string;
}

/** Output items for one chat completion: reasoning, then the visible message, then function calls. */
export function chatMessageToOutputItems(
  message: ChatCompletion['choices'][number]['message'],
  options: ChatToResponsesOptions = {},
): ResponseItem[] {
  const folded = { ...message };
  foldReasoningIntoContent(folded, options.usesReasoningParser ?? false);
  const text = folded.content ?? '';
  const { reasoning, visible } = options.parseThinkTags === false ? { reasoning: [], visible: text } : splitThinking(text);
  const toolCalls = message.tool_calls ?? [];
  const items: ResponseItem[] = [];
  if (reasoning.length > 0) {
    items.push({
      id: randomId('rs_'),
      type: 'reasoning',
      summary: reasoning.map((entry) => ({ type: 'summary_text', text: entry })),
      status: 'completed',
    });
  }
  if (visible !== '' || (reasoning.length === 0 && toolCalls.length === 0)) {
    items.push({
      id: randomId('msg_'),
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: visible, annotations: [], logprobs: null }],
    });
  }
  for (const call of toolCalls) {
    items.push({ type: 'function_call', id: call.id, call_id: call.id, name: call.function.name, arguments: call.function.arguments, status: 'completed' });
  }
  const last = items.at(-1);
  if (options.returnTokenIdInformation && last !== undefined && Array.isArray(message.prompt_token_ids)) copyTokenFields(message, last);
  return items;
}

function usageOf(completion: ChatCompletion): ResponseUsage | null {
  const usage = completion.usage;
  if (!usage) return null;
  const details = usage as { prompt_tokens_details?: { cached_tokens?: number }; completion_tokens_details?: { reasoning_tokens?: number } };
  return {
    input_tokens: usage.prompt_tokens,
    output_tokens: usage.completion_tokens,
    total_tokens: usage.total_tokens,
    input_tokens_details: { cached_tokens: details.prompt_tokens_details?.cached_tokens ?? 0 },
    output_tokens_details: { reasoning_tokens: details.completion_tokens_details?.reasoning_tokens ?? 0 },
  };
}

/** A Responses object for a chat completion, echoing the request's parameters as OpenAI does. */
export function chatCompletionToResponse(completion: ChatCompletion, params: ResponseCreateParams, options: ChatToResponsesOptions = {}): Response {
  const choice = completion.choices[0];
  if (choice === undefined) throw new NgymError('NGYM_UPSTREAM_BODY', 'The backend returned a chat completion without choices.');
  const output = chatMessageToOutputItems(choice.message, options);
  const finish = choice.finish_reason;
  const incomplete = finish === 'length' ? { reason: 'max_output_tokens' } : finish === 'content_filter' ? { reason: 'content_filter' } : null;
  return {
    id: randomId('resp_'),
    object: 'response',
    created_at: typeof completion.created === 'number' ? completion.created : Math.floor(Date.now() / 1000),
    model: options.model ?? completion.model,
    output,
    parallel_tool_calls: params.parallel_tool_calls ?? true,
    tool_choice: params.tool_choice ?? 'auto',
    tools: params.tools ?? [],
    temperature: params.temperature ?? null,
    top_p: params.top_p ?? null,
    max_output_tokens: params.max_output_tokens ?? null,
    metadata: params.metadata ?? null,
    instructions: params.instructions ?? null,
    incomplete_details: incomplete,
    status: incomplete === null ? 'completed' : 'incomplete',
    usage: usageOf(completion),
    error: null,
  };
}
