/**
 * A scripted vLLM-compatible backend for tests of vllm_model and of the trainer contract (spec
 * training-integration C, component 1). It serves `POST /v1/chat/completions` and `POST /tokenize` the
 * way the trainers' inference servers do:
 *
 * - a toy chat template and tokenizer (eos = 2) render every prompt to token ids;
 * - the "model" emits long words as two pieces, so re-tokenizing generated text gives different ids,
 *   exactly the problem the on-policy splice exists for;
 * - with `splice` (the default) assistant messages carrying `prompt_token_ids` + `generation_token_ids`
 *   replace the template's prefix (NeMo RL's `_replace_prefix_tokens`, also copied by TRL 0.28 and VeRL),
 *   in both chat and `/tokenize`, so consecutive calls of one rollout are contiguous;
 * - token ids come back as logprob tokens (`token_id:N` as vLLM, bare `N` as TRL 0.28), as a message-level
 *   bundle (NeMo RL HEAD) or inline (`return_token_ids`), and reasoning as `<think>` text or a parsed field.
 *
 * Every request is recorded; replies are scripted per call, including error statuses.
 */
import { randomBytes } from 'node:crypto';
import { type FakeEndpoint, type FakeRequest, startFakeEndpoint } from './fake-endpoint.ts';

/** The toy tokenizer's end-of-sequence id (`<|im_end|>`), the id the splice cuts at. */
export const TOY_EOS = 2;
const IM_START = 3;
const WORD_IDS_FROM = 1_000;
const WORD_ID_SPAN = 1_000_000;
const PIECES = /<\|im_start\|>|<\|im_end\|>|\s+|[^\s<]+|</g;

interface ToyMessage {
  role: string;
  content?: unknown;
  reasoning_content?: string | null;
  reasoning?: string | null;
  tool_calls?: Array<{ id?: string; function: { name: string; arguments: string } }> | null;
  prompt_token_ids?: number[];
  generation_token_ids?: number[];
  [key: string]: unknown;
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

function pieceId(piece: string): number {
  if (piece === '<|im_end|>') return TOY_EOS;
  if (piece === '<|im_start|>') return IM_START;
  return WORD_IDS_FROM + (fnv1a(piece) % WORD_ID_SPAN);
}

/** Word-level tokenization of rendered template text: special tokens, whitespace runs and words. */
export function toyTokenize(text: string): number[] {
  return (text.match(PIECES) ?? []).map(pieceId);
}

/**
 * How the toy model emits text: words longer than four characters come out as two pieces ("Ski" +
 * "nny"), which re-tokenizing the text merges into one, so re-tokenized history differs from what was
 * generated (spec A2.1, problem 1) while staying about as long.
 */
function toyGenerationPieces(text: string): string[] {
  return (text.match(PIECES) ?? []).flatMap((piece) => (piece.length > 4 && !piece.startsWith('<|') && piece.trim() !== '' ? [piece.slice(0, 3), piece.slice(3)] : [piece]));
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part?.text === 'string' ? part.text : '')).join('');
  return '';
}

function renderToolCall(call: { function: { name: string; arguments: string } }): string {
  return `<tool_call>{"name": ${JSON.stringify(call.function.name)}, "arguments": ${call.function.arguments}}</tool_call>`;
}

interface ToyTemplateOptions {
  tools?: unknown[] | null;
  addGenerationPrompt?: boolean;
  chatTemplateKwargs?: Record<string, unknown> | null;
}

/** A Qwen-like chat template: `<|im_start|>role\n...<|im_end|>\n` per message. */
export function toyChatTemplate(messages: ToyMessage[], options: ToyTemplateOptions = {}): string {
  let text = options.tools && options.tools.length > 0 ? `<|im_start|>system\n# Tools\n${JSON.stringify(options.tools)}<|im_end|>\n` : '';
  for (const message of messages) {
    let body = textOf(message.content);
    if (message.role === 'assistant') {
      const reasoning = message.reasoning_content ?? message.reasoning;
      if (reasoning) body = `<think>${reasoning}</think>${body}`;
      for (const call of message.tool_calls ?? []) body += renderToolCall(call);
    }
    text += `<|im_start|>${message.role}\n${body}<|im_end|>\n`;
  }
  if (options.addGenerationPrompt !== false) {
    text += '<|im_start|>assistant\n';
    if (options.chatTemplateKwargs?.enable_thinking === false) text += '<think>\n\n</think>\n\n';
  }
  return text;
}

/**
 * The on-policy splice (spec training-integration A2.3, v1): the model's own prefix ids, minus a trailing
 * eos, then the template from its last eos inside the templated prefix onwards.
 */
export function replacePrefixTokens(modelPrefix: number[], templatePrefix: number[], template: number[], eos: number = TOY_EOS): number[] {
  if (modelPrefix.length === 0) return template;
  const cutModel = modelPrefix.length - (modelPrefix.at(-1) === eos ? 1 : 0);
  let cutTemplate = -1;
  for (let position = Math.min(templatePrefix.length, template.length) - 1; position >= 0; position--) {
    if (template[position] === eos) {
      cutTemplate = position;
      break;
    }
  }
  if (cutTemplate < 0) throw new Error('No EOS token found in the templated prefix; cannot splice the model prefix in.');
  return [...modelPrefix.slice(0, cutModel), ...template.slice(cutTemplate)];
}

/** Prompt ids for a chat request: the template, with the last token-carrying message's ids spliced in. */
export function toyPromptTokens(messages: ToyMessage[], options: ToyTemplateOptions & { splice?: boolean } = {}): number[] {
  const template = toyTokenize(toyChatTemplate(messages, options));
  if (options.splice === false) return template;
  const carrierIndex = messages.findLastIndex((message) => Array.isArray(message.prompt_token_ids) && Array.isArray(message.generation_token_ids));
  const carrier = messages[carrierIndex];
  if (carrier === undefined) return template;
  const templatePrefix = toyTokenize(toyChatTemplate(messages.slice(0, carrierIndex + 1), { ...options, addGenerationPrompt: false }));
  return replacePrefixTokens([...(carrier.prompt_token_ids ?? []), ...(carrier.generation_token_ids ?? [])], templatePrefix, template);
}

export interface ScriptedGeneration {
  /** Visible text (`null` or absent: none). */
  content?: string | null;
  /** What the model thought; emitted as `<think>...</think>` before the content. */
  reasoning?: string;
  toolCalls?: Array<{ name: string; arguments: string | Record<string, unknown>; id?: string }>;
  /** Default `tool_calls` with tool calls, else `stop`; `length` means no eos was generated. */
  finishReason?: string;
}

/** A raw HTTP answer instead of a generation (rate limits, errors, context overflow...). */
export interface ScriptedHttpReply {
  status: number;
  body: unknown;
}

export interface VllmChatCall {
  index: number;
  body: Record<string, any>;
  /** The prompt ids this call generated from (after the splice). */
  promptTokenIds: number[];
}

export interface VllmBackendOptions {
  reply: (call: VllmChatCall) => ScriptedGeneration | ScriptedHttpReply | Promise<ScriptedGeneration | ScriptedHttpReply>;
  /** `token_id` (vLLM: `token_id:N` when `return_tokens_as_token_ids`) or `bare` (TRL 0.28: `N` always). */
  tokenFormat?: 'token_id' | 'bare';
  /** `logprobs` (ids only in logprobs; prompt via /tokenize), `bundle` (NeMo RL HEAD: the three fields on the message). */
  tokenDelivery?: 'logprobs' | 'bundle';
  /** Reply reasoning in this field (a vLLM reasoning parser) instead of inline `<think>` text. */
  reasoningParser?: false | 'reasoning_content' | 'reasoning';
  /** Splice message-level token ids into prompts (default true); false shows what happens without the fix. */
  splice?: boolean;
  /** Prompts longer than this get vLLM's 400 context-length error (or TRL's empty 200 with `overflowStyle: 'trl'`). */
  maxModelLen?: number;
  overflowStyle?: 'vllm' | 'trl';
  /** A returned message makes the call fail with 500, as NeMo RL's sampling assertions do. */
  guard?: (body: Record<string, any>) => string | undefined;
  /** Last-moment changes to a generated completion (to build inconsistent replies). */
  transform?: (completion: Record<string, any>, call: VllmChatCall) => void;
}

export interface VllmBackend {
  url: string;
  /** The base URL to configure in vllm_model (`<url>/v1`). */
  baseUrl: string;
  requests: FakeRequest[];
  chatRequests(): FakeRequest[];
  tokenizeRequests(): FakeRequest[];
  /** Successful generations in order, with the prompt ids each one used. */
  generations: Array<{ call: VllmChatCall; generationTokenIds: number[] }>;
  close(): Promise<void>;
}

/** Deterministic, distinct log-probabilities. */
function toyLogprob(id: number, position: number): number {
  return -(((id * 31 + position) % 97) + 1) / 128;
}

function isHttpReply(reply: ScriptedGeneration | ScriptedHttpReply): reply is ScriptedHttpReply {
  return typeof (reply as ScriptedHttpReply).status === 'number';
}

function contextOverflow(maxModelLen: number, requested: number): ScriptedHttpReply {
  return {
    status: 400,
    body: {
      object: 'error',
      message: `This model's maximum context length is ${maxModelLen} tokens. However, you requested ${requested} tokens in the messages, Please reduce the length of the messages. None`,
      type: 'BadRequestError',
      param: null,
      code: 400,
    },
  };
}

export async function startVllmBackend(options: VllmBackendOptions): Promise<VllmBackend> {
  const splice = options.splice !== false;
  const generations: VllmBackend['generations'] = [];
  let chatIndex = 0;

  const promptOf = (body: Record<string, any>) =>
    toyPromptTokens(body.messages ?? [], { tools: body.tools, chatTemplateKwargs: body.chat_template_kwargs, splice });

  const chat = async (body: Record<string, any>): Promise<ScriptedHttpReply> => {
    const call: VllmChatCall = { index: chatIndex++, body, promptTokenIds: promptOf(body) };
    const guarded = options.guard?.(body);
    if (guarded !== undefined) return { status: 500, body: { object: 'error', message: guarded, type: 'InternalServerError', code: 500 } };
    const maxTokens = Number(body.max_tokens ?? body.max_completion_tokens ?? 0);
    if (options.maxModelLen !== undefined && call.promptTokenIds.length + maxTokens > options.maxModelLen) {
      if (options.overflowStyle !== 'trl') return contextOverflow(options.maxModelLen, call.promptTokenIds.length + maxTokens);
      const created = Math.floor(Date.now() / 1000);
      const message = { role: 'assistant', content: '', tool_calls: null };
      return { status: 200, body: { id: 'chatcmpl-overflow', object: 'chat.completion', created, model: body.model, choices: [{ index: 0, message, logprobs: null, finish_reason: 'length' }] } };
    }
    const reply = await options.reply(call);
    if (isHttpReply(reply)) return reply;

    const toolCalls = (reply.toolCalls ?? []).map((tool) => ({
      id: tool.id ?? `chatcmpl-tool-${randomBytes(16).toString('hex')}`,
      type: 'function' as const,
      function: { name: tool.name, arguments: typeof tool.arguments === 'string' ? tool.arguments : JSON.stringify(tool.arguments) },
    }));
    const finishReason = reply.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop');
    const raw = `${reply.reasoning === undefined ? '' : `<think>${reply.reasoning}</think>`}${reply.content ?? ''}${toolCalls.map(renderToolCall).join('')}`;
    const pieces = [...toyGenerationPieces(raw), ...(finishReason === 'length' ? [] : ['<|im_end|>'])];
    const generationTokenIds = pieces.map(pieceId);
    const logprobs = generationTokenIds.map((id, position) => toyLogprob(id, position));

    const message: Record<string, unknown> = { role: 'assistant', content: reply.content ?? (toolCalls.length > 0 ? null : '') };
    if (reply.reasoning !== undefined) {
      if (options.reasoningParser) message[options.reasoningParser] = reply.reasoning;
      else message.content = `<think>${reply.reasoning}</think>${reply.content ?? ''}`;
    }
    message.tool_calls = toolCalls.length > 0 ? toolCalls : [];

    // vLLM: `logprobs = top_logprobs if logprobs else None`, so an explicit null top_logprobs means none.
    const wantsLogprobs = body.logprobs === true && body.top_logprobs !== null;
    const tokenText = (id: number, position: number) =>
      options.tokenFormat === 'bare' ? String(id) : body.return_tokens_as_token_ids ? `token_id:${id}` : (pieces[position] ?? '');
    const choice: Record<string, unknown> = {
      index: 0,
      message,
      logprobs: wantsLogprobs
        ? { content: generationTokenIds.map((id, position) => ({ token: tokenText(id, position), logprob: logprobs[position], bytes: null, top_logprobs: [] })) }
        : null,
      finish_reason: finishReason,
      stop_reason: null,
    };
    if (options.tokenDelivery === 'bundle' && body.logprobs === true) {
      Object.assign(message, { prompt_token_ids: call.promptTokenIds, generation_token_ids: generationTokenIds, generation_log_probs: logprobs });
    }
    const completion: Record<string, any> = {
      id: `chatcmpl-${randomBytes(12).toString('hex')}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [choice],
      usage: { prompt_tokens: call.promptTokenIds.length, completion_tokens: generationTokenIds.length, total_tokens: call.promptTokenIds.length + generationTokenIds.length },
      prompt_token_ids: null,
    };
    if (body.return_token_ids === true) {
      completion.prompt_token_ids = call.promptTokenIds;
      choice.token_ids = generationTokenIds;
    }
    options.transform?.(completion, call);
    generations.push({ call, generationTokenIds });
    return { status: 200, body: completion };
  };

  const endpoint: FakeEndpoint = await startFakeEndpoint(async (request) => {
    try {
      if (request.path === '/v1/chat/completions') return await chat(request.body ?? {});
      if (request.path === '/tokenize') {
        const tokens = promptOf(request.body ?? {});
        return { body: { count: tokens.length, max_model_len: options.maxModelLen ?? 32_768, tokens, token_strs: null } };
      }
      return { status: 404, body: { detail: 'Not Found' } };
    } catch (error) {
      // What the trainers' servers answer when a splice is impossible (no eos in the templated prefix...).
      return { status: 500, body: { object: 'error', message: (error as Error).message, type: 'InternalServerError', code: 500 } };
    }
  });
  return {
    url: endpoint.url,
    baseUrl: `${endpoint.url}/v1`,
    requests: endpoint.requests,
    chatRequests: () => endpoint.requests.filter((request) => request.path === '/v1/chat/completions'),
    tokenizeRequests: () => endpoint.requests.filter((request) => request.path === '/tokenize'),
    generations,
    close: endpoint.close,
  };
}
