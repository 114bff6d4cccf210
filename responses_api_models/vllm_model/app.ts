/**
 * vllm_model: a model server in front of one or more vLLM engines (or any server speaking vLLM's
 * OpenAI-compatible API, such as the trainers' own: NeMo RL, TRL `vllm-serve`, VeRL). `/v1/responses` is
 * converted to Chat Completions and back (spec training-integration A1.3/A1.4); `/v1/chat/completions` is
 * served too. In training mode (`return_token_id_information`) every call returns its exact prompt and
 * generated token ids with log-probabilities, and sends the previous call's ids back on the assistant
 * message, so the trainer's server can splice them in and consecutive calls stay contiguous (A1.5, A2).
 * All turns of a rollout reach the same engine (the agent forwards this server's session cookie).
 */
import {
  type ChatCompletion,
  ChatCompletion as ChatCompletionSchema,
  type ChatCompletionCreateParams,
  chatCompletionToResponse,
  type ChatMessage,
  defineModelServer,
  describeValidationError,
  foldReasoningIntoContent,
  type ModelRequestContext,
  moveThinkingToReasoningField,
  NgymError,
  raiseForStatus,
  responsesToChatCompletion,
  type ServerConfigOf,
} from 'ngym';
import * as z from 'zod';
import { backendIndexForSession, VllmEngine } from './backends.ts';
import { attachTokenInformation } from './token-information.ts';

const jsonObject = z.record(z.string(), z.unknown());

/** Upstream keys this server does not implement: refused at startup rather than silently ignored. */
const notSupported = (key: string) =>
  z
    .unknown()
    .optional()
    .refine((value) => value === undefined || value === null || value === false, { message: `\`${key}\` is not supported by ngym's vllm_model; remove it or set it to false.` });

const REASONING_FIELDS = ['both', 'reasoning_content', 'reasoning'] as const;

const config = {
  /** OpenAI-style base URL(s) ending in `/v1`; one engine per entry. */
  base_url: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
  api_key: z.string(),
  /** Replaces `model` in every request to the engine and in every returned Response. */
  model: z.string().min(1),
  /** Training mode: token ids and log-probabilities on every call (vllm_model_for_training.yaml). */
  return_token_id_information: z.boolean(),
  /** The engine runs a reasoning parser (`--reasoning-parser`): reasoning arrives in `reasoning_content`. */
  uses_reasoning_parser: z.boolean(),
  replace_developer_role_with_system: z.boolean().default(false),
  /** Merged under every outbound body (request keys win), e.g. `top_k` or `chat_template_kwargs`. */
  extra_body: jsonObject.nullable().optional(),
  /** vLLM >= 0.10.2: ask for prompt and generated ids inline (`return_token_ids`) instead of calling /tokenize. */
  request_prompt_and_generation_token_ids: z.boolean().default(false),
  /** Send history reasoning back to the engine (as `reasoning_content` and `reasoning`) rather than dropping it. */
  uses_interleaved_reasoning: z.boolean().default(true),
  /** Keep `<think>` blocks in history content byte for byte instead of moving them to `reasoning_content`. */
  preserve_reasoning_in_assistant_content: z.boolean().default(false),
  /** When false, a request ending in an empty assistant message gets an empty `content_filter` completion. */
  sequential_reasoning_allowed: z.boolean().default(true),
  /** Passed to the chat template (and to /tokenize); per request also `metadata.chat_template_kwargs` (a JSON string). */
  chat_template_kwargs: jsonObject.nullable().optional(),
  /** Merge a request's own top-level `chat_template_kwargs` over the config's (metadata's still win); off: dropped, with a warning. */
  forward_request_chat_template_kwargs: z.boolean().default(false),
  /** Forced onto every outbound body, over the caller and `extra_body` (pins sampling for on-policy training). */
  sampling_overrides: jsonObject.nullable().optional(),
  default_headers: z.record(z.string(), z.string()).default({}),
  /** ngym: retries after a 500 from the engine (attempts = retries + 1), as upstream. */
  max_retries: z.number().int().min(0).default(2),
  /** ngym: retries after 429/502/503/504/520. Upstream HEAD retries these forever; we stop eventually. */
  rate_limit_retries: z.number().int().min(0).default(200),
  /** ngym: retries after a refused or reset connection. */
  connection_retries: z.number().int().min(0).default(2),
  /** ngym: limit for one call to the engine; null for none. */
  backend_timeout_seconds: z.number().positive().nullable().default(10_800),
  is_responses_native: notSupported('is_responses_native'),
  use_completions_api: notSupported('use_completions_api'),
  render_chat_template: notSupported('render_chat_template'),
  supply_prefix_token_ids: notSupported('supply_prefix_token_ids'),
  continue_final_assistant_message: notSupported('continue_final_assistant_message'),
  propagate_context_overflow_errors: notSupported('propagate_context_overflow_errors'),
  endpoint_file: notSupported('endpoint_file'),
  forward_session_id_as_conversation_id: notSupported('forward_session_id_as_conversation_id'),
  audio_root: notSupported('audio_root'),
  /** Which key carries history reasoning to the engine: both (vLLM < 0.16 reads `reasoning_content`, later `reasoning`) or one. */
  reasoning_field: z.enum(REASONING_FIELDS).optional(),
  // Upstream 0.7.0 reads these only with `endpoint_file` (refused above) or `render_chat_template` (refused above):
  // accepted so its configs load, with no effect.
  endpoint_stale_grace_s: z.number().nonnegative().default(300),
  endpoint_check_interval_s: z.number().nonnegative().default(10),
  endpoint_connection_retries: z.number().int().min(0).nullable().default(8),
  tokenizer: z.string().nullable().optional(),
};
type Config = ServerConfigOf<typeof config>;
type Context = ModelRequestContext<Config, { engines: VllmEngine[]; warnedDroppedTemplateKwargs: boolean }>;

/** Fields of the chat body that change the prompt: /tokenize must see them all (upstream HEAD). */
const TOKENIZE_FIELDS = ['model', 'messages', 'tools', 'chat_template_kwargs', 'mm_processor_kwargs', 'required_prefix_token_ids'];

function invalid(message: string): NgymError {
  return new NgymError('NGYM_INVALID_REQUEST', message, { status: 400 });
}

/** `metadata.<key>`: a per-request override sent as a JSON object string (metadata values are strings). */
function metadataObject(metadata: unknown, key: string): Record<string, unknown> {
  const value = (metadata as Record<string, unknown> | null | undefined)?.[key];
  if (value === undefined || value === null || value === '') return {};
  let parsed: unknown;
  try {
    parsed = typeof value === 'string' ? JSON.parse(value) : undefined;
  } catch {
    parsed = undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw invalid(`metadata.${key} must be a JSON object encoded as a string, e.g. "{\\"enable_thinking\\": false}".`);
  }
  return parsed as Record<string, unknown>;
}

/** `reasoning_field`, else NEMO_GYM_REASONING_FIELD (for launchers that set it without a config override), else both. */
function reasoningFieldOf(config: Config): (typeof REASONING_FIELDS)[number] {
  if (config.reasoning_field !== undefined) return config.reasoning_field;
  const fromEnv = process.env.NEMO_GYM_REASONING_FIELD?.trim() || 'both';
  const field = REASONING_FIELDS.find((name) => name === fromEnv);
  if (field === undefined) throw new NgymError('NGYM_CONFIG_INVALID', `NEMO_GYM_REASONING_FIELD must be one of ${REASONING_FIELDS.join(', ')}; got ${JSON.stringify(fromEnv)}.`);
  return field;
}

/** The body for the engine: config-driven rewrites in upstream HEAD's order. */
function outboundBody(params: ChatCompletionCreateParams, config: Config, onDroppedTemplateKwargs: () => void): Record<string, any> {
  let body: Record<string, any> = { ...params, messages: params.messages.map((message) => ({ ...message })) };
  // vLLM does not implement OpenAI's `strict`, and templates that render unknown keys would put it in the prompt.
  if (Array.isArray(body.tools)) {
    body.tools = body.tools.map((tool: Record<string, any>) => {
      if (tool.type !== 'function' || tool.function === null || typeof tool.function !== 'object' || !('strict' in tool.function)) return tool;
      const { strict: _strict, ...definition } = tool.function;
      return { ...tool, function: definition };
    });
  }
  if (config.replace_developer_role_with_system) {
    for (const message of body.messages as ChatMessage[]) if (message.role === 'developer') message.role = 'system';
  }
  body.model = config.model;

  // Upstream 0.7.0's precedence: config, then the request's own field (only when forwarding), then metadata.
  const requestKwargs = body.chat_template_kwargs as Record<string, unknown> | null | undefined;
  delete body.chat_template_kwargs;
  const hasRequestKwargs = requestKwargs !== null && requestKwargs !== undefined && Object.keys(requestKwargs).length > 0;
  if (hasRequestKwargs && !config.forward_request_chat_template_kwargs) onDroppedTemplateKwargs();
  const templateKwargs = {
    ...config.chat_template_kwargs,
    ...(config.forward_request_chat_template_kwargs ? requestKwargs : undefined),
    ...metadataObject(body.metadata, 'chat_template_kwargs'),
  };
  if (Object.keys(templateKwargs).length > 0) body.chat_template_kwargs = templateKwargs;
  const extraBody = { ...config.extra_body, ...metadataObject(body.metadata, 'extra_body') };

  if (config.return_token_id_information) {
    // top_logprobs is pinned: vLLM returns no logprobs at all for `top_logprobs: null`.
    Object.assign(body, { logprobs: true, top_logprobs: 0, return_tokens_as_token_ids: true });
    if (config.request_prompt_and_generation_token_ids) body.return_token_ids = true;
  }
  if (config.uses_reasoning_parser && !config.preserve_reasoning_in_assistant_content) {
    moveThinkingToReasoningField(body.messages, { interleaved: config.uses_interleaved_reasoning, field: reasoningFieldOf(config) });
  }
  if (body.top_logprobs === null) delete body.top_logprobs;
  body = { ...extraBody, ...body };
  Object.assign(body, config.sampling_overrides);
  if (config.return_token_id_information && body.n !== undefined && body.n !== null && body.n !== 1) {
    throw invalid(`Training mode (return_token_id_information) needs n=1; got n=${JSON.stringify(body.n)}.`);
  }
  return body;
}

/** What upstream answers without generating: an empty assistant message. */
function emptyCompletion(model: string, finishReason: string): ChatCompletion {
  return {
    id: 'chtcmpl-123',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, finish_reason: finishReason, message: { role: 'assistant', content: null, tool_calls: null } }],
  };
}

/** vLLM's 400 for a prompt plus max_tokens beyond the context window. */
function isContextOverflow(status: number, text: string): boolean {
  return status === 400 && (text.includes('context length') || text.includes('max_tokens'));
}

async function generate(params: ChatCompletionCreateParams, context: Context): Promise<ChatCompletion> {
  const { config, state } = context;
  const body = outboundBody(params, config, () => {
    if (state.warnedDroppedTemplateKwargs) return;
    state.warnedDroppedTemplateKwargs = true;
    context.logger.warn('Dropped the request\'s chat_template_kwargs: forward_request_chat_template_kwargs is false (warned once).');
  });
  const engine = state.engines[backendIndexForSession(context.sessionId, state.engines.length)] as VllmEngine;
  const signal = context.http.req.raw.signal;

  const last = (body.messages as ChatMessage[]).at(-1);
  if (!config.sequential_reasoning_allowed && last?.role === 'assistant' && !last.content && !(last.tool_calls ?? []).length) {
    return emptyCompletion(config.model, 'content_filter');
  }

  const response = await engine.chatCompletions(body, signal);
  // A prompt that no longer fits ends the rollout like a length stop (upstream HEAD), not as an error.
  if (isContextOverflow(response.status, response.text)) return emptyCompletion(config.model, 'length');
  raiseForStatus(response);
  const completion = response.json<ChatCompletion>();
  const parsed = ChatCompletionSchema.safeParse(completion);
  if (!parsed.success) {
    throw new NgymError('NGYM_UPSTREAM_BODY', `The vLLM engine at ${engine.baseUrl} returned an invalid chat completion: ${describeValidationError(parsed.error)}`);
  }
  const choice = completion.choices[0];
  if (choice === undefined) throw new NgymError('NGYM_UPSTREAM_BODY', `The vLLM engine at ${engine.baseUrl} returned a chat completion without choices.`);
  try {
    foldReasoningIntoContent(choice.message, config.uses_reasoning_parser);
  } catch (error) {
    throw new NgymError('NGYM_UPSTREAM_BODY', `NeMo Gym server \`${config.name}\`: ${(error as Error).message}`);
  }
  if (config.return_token_id_information) {
    const tokenizeBody = Object.fromEntries(TOKENIZE_FIELDS.filter((field) => body[field] !== undefined).map((field) => [field, body[field]]));
    await attachTokenInformation(completion, () => engine.tokenize(tokenizeBody, signal));
  }
  return completion;
}

export default defineModelServer({
  className: 'VLLMModel',
  config,
  setup: ({ config }) => {
    reasoningFieldOf(config); // a bad NEMO_GYM_REASONING_FIELD fails the start, as upstream's config validation does
    const urls = typeof config.base_url === 'string' ? [config.base_url] : config.base_url;
    const policy = {
      serverErrorRetries: config.max_retries,
      rateLimitRetries: config.rate_limit_retries,
      connectionRetries: config.connection_retries,
      timeoutMs: config.backend_timeout_seconds === null ? null : config.backend_timeout_seconds * 1000,
    };
    return { engines: urls.map((url) => new VllmEngine(url, config.api_key, config.default_headers, policy)), warnedDroppedTemplateKwargs: false };
  },
  responses: async (params, context) => {
    const { config } = context;
    const training = config.return_token_id_information;
    const completion = await generate(responsesToChatCompletion(params, { returnTokenIdInformation: training }), context);
    return chatCompletionToResponse(completion, params, {
      model: config.model,
      usesReasoningParser: config.uses_reasoning_parser,
      // Upstream HEAD: without a reasoning parser, `<think>` text is the model's visible output.
      parseThinkTags: config.uses_reasoning_parser,
      returnTokenIdInformation: training,
    });
  },
  chatCompletions: generate,
});
