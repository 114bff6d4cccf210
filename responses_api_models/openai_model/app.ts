/**
 * openai_model: forwards `/v1/responses` and `/v1/chat/completions` to an OpenAI-compatible endpoint,
 * with `model` forced to the configured one. No conversion, no token ids.
 */
import { type ChatCompletion, defineModelServer, ModelEndpoint, openAiEndpointConfig, type Response, Semaphore } from 'ngym';
import * as z from 'zod';

/** A bool as pydantic reads one: upstream's config sets this key from `${oc.env:VAR,false}`, which is text. */
const pydanticBool = z.union([
  z.boolean(),
  z
    .string()
    .transform((text) => text.trim().toLowerCase())
    .pipe(z.enum(['0', 'off', 'f', 'false', 'n', 'no', '1', 'on', 't', 'true', 'y', 'yes']))
    .transform((text) => ['1', 'on', 't', 'true', 'y', 'yes'].includes(text)),
]);

export default defineModelServer({
  className: 'SimpleModelServer',
  config: {
    ...openAiEndpointConfig,
    /** Merged under every request (request keys win), e.g. provider-specific parameters. */
    extra_body: z.record(z.string(), z.unknown()).nullable().optional(),
    /** Headers sent on every call to the endpoint (upstream 0.7.0). */
    openai_default_headers: z.record(z.string(), z.string()).default({}),
    /** Upstream 0.7.0's name for the attempt count (retries + 1); when set it wins over `max_retries`. */
    max_http_attempts: z.number().int().min(1).optional(),
    /** At most this many calls to the endpoint at a time (rate-limited providers); null: no limit. */
    max_concurrent_requests: z.number().int().min(1).nullable().default(null),
    /** Drops `type: reasoning` items from a Responses input: some endpoints fail on their own reasoning items sent back. */
    drop_input_reasoning_items: pydanticBool.default(false),
  },
  setup: ({ config }) => ({
    endpoint: new ModelEndpoint({
      baseUrl: config.openai_base_url,
      apiKey: config.openai_api_key,
      headers: config.openai_default_headers,
      maxRetries: config.max_http_attempts === undefined ? config.max_retries : config.max_http_attempts - 1,
    }),
    limit: config.max_concurrent_requests === null ? undefined : new Semaphore(config.max_concurrent_requests),
  }),
  responses: (params, { config, state, http }) => {
    const input = config.drop_input_reasoning_items && Array.isArray(params.input) ? params.input.filter((item) => !isReasoningItem(item)) : params.input;
    const body = { ...config.extra_body, ...params, input, model: config.openai_model };
    return limited(state.limit, () => state.endpoint.post<Response>('responses', body, http.req.raw.signal));
  },
  chatCompletions: (params, { config, state, http }) =>
    limited(state.limit, () =>
      state.endpoint.post<ChatCompletion>('chat/completions', { ...config.extra_body, ...params, model: config.openai_model }, http.req.raw.signal),
    ),
});

function isReasoningItem(item: unknown): boolean {
  return typeof item === 'object' && item !== null && (item as { type?: unknown }).type === 'reasoning';
}

function limited<T>(limit: Semaphore | undefined, call: () => Promise<T>): Promise<T> {
  return limit === undefined ? call() : limit.run(call);
}
