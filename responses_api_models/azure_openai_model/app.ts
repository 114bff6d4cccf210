/**
 * azure_openai_model: Azure OpenAI deployments through Chat Completions. `/v1/responses` is converted to
 * a chat completion and back (as upstream, via the same converter the vLLM server uses), at most
 * `num_concurrent_requests` at a time; `/v1/chat/completions` passes through.
 */
import {
  type ChatCompletion,
  type ChatCompletionCreateParams,
  chatCompletionToResponse,
  defineModelServer,
  ModelEndpoint,
  openAiEndpointConfig,
  responsesToChatCompletion,
  Semaphore,
} from 'ngym';
import * as z from 'zod';

export default defineModelServer({
  className: 'SimpleModelServer',
  config: {
    ...openAiEndpointConfig,
    default_query: z.looseObject({ 'api-version': z.string().min(1) }),
    num_concurrent_requests: z.number().int().positive().default(8),
  },
  setup: ({ config }) => {
    const endpoint = (deployment: string) =>
      new ModelEndpoint({
        baseUrl: `${config.openai_base_url.replace(/\/+$/, '')}/openai/deployments/${encodeURIComponent(deployment)}`,
        headers: { 'api-key': config.openai_api_key },
        query: { 'api-version': config.default_query['api-version'] },
        maxRetries: config.max_retries,
      });
    return { endpoint, semaphore: new Semaphore(config.num_concurrent_requests) };
  },
  responses: async (params, { config, state }) => {
    const body = responsesToChatCompletion(params);
    const deployment = body.model ?? config.openai_model;
    const completion = await state.semaphore.run(() =>
      state.endpoint(deployment).post<ChatCompletion>('chat/completions', { ...body, model: deployment }),
    );
    return chatCompletionToResponse(completion, params, { model: config.openai_model });
  },
  chatCompletions: (params: ChatCompletionCreateParams, { config, state }) => {
    const deployment = params.model ?? config.openai_model;
    return state.endpoint(deployment).post<ChatCompletion>('chat/completions', { ...params, model: deployment });
  },
});
