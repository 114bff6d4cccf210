/**
 * Model servers: stateless generation in three dialects, each with and without `stream: true`:
 * `POST /v1/responses` (a server's `responses`), `POST /v1/chat/completions` (its `chatCompletions`, or its
 * `responses` through chat-over-responses.ts when it has none) and `POST /v1/messages`, Anthropic's Messages
 * API (its `responses`, through anthropic-conversion.ts). A streamed answer is synthesized from the complete
 * one (model-stream.ts). The session id (from the cookie agents forward across one rollout's calls) lets a
 * server keep every turn of a rollout on the same backend engine.
 */
import { anthropicToResponsesRequest, responseToAnthropicMessage } from '../protocol/anthropic-conversion.ts';
import { AnthropicMessageCreateParams } from '../protocol/anthropic-messages.ts';
import { anthropicFailureEvents, anthropicMessageEvents } from '../protocol/anthropic-stream.ts';
import { ChatCompletionCreateParams, type ChatCompletion } from '../protocol/chat-completions.ts';
import { chatRequestToResponses, responseToChatCompletion } from '../protocol/chat-over-responses.ts';
import { chatCompletionChunks, chatFailureEvents } from '../protocol/chat-stream.ts';
import { ResponseCreateParams, type Response } from '../protocol/responses.ts';
import { responseFailureEvents, responseStreamEvents } from '../protocol/responses-stream.ts';
import { validateBody } from '../protocol/validation.ts';
import { type BaseServerSpec, type ConfigShape, defineServerOfKind, type RequestContext, requestTimeoutMsOf, type ServerConfigOf } from './base-server.ts';
import { readJsonBody, type ServerRequestContext } from './http-app.ts';
import { type StreamDialect, streamAnswer } from './model-stream.ts';
import type { ServerDefinition } from './server-definition.ts';
import { traced, withTokenUsage } from '../telemetry/tracing.ts';

export type ModelRequestContext<Config, State> = RequestContext<Config, State>;

export interface ModelServerSpec<Shape extends ConfigShape, State> extends BaseServerSpec<Shape, State> {
  responses: (params: ResponseCreateParams, context: ModelRequestContext<ServerConfigOf<Shape>, State>) => Promise<Response>;
  /** A Chat Completions backend of the server's own; without it, chat requests go through `responses`. */
  chatCompletions?: (
    params: ChatCompletionCreateParams,
    context: ModelRequestContext<ServerConfigOf<Shape>, State>,
  ) => Promise<ChatCompletion>;
}

export interface ModelServerDefinition extends ServerDefinition {
  readonly kind: 'responses_api_models';
}

const RESPONSES_STREAM: StreamDialect<Response> = { events: responseStreamEvents, failure: responseFailureEvents };
const MESSAGES_STREAM = { events: anthropicMessageEvents, failure: anthropicFailureEvents };

/** Only a JSON `true` asks for a stream (upstream); any other value is checked by the dialect's schema. */
function streamRequested(body: unknown): body is Record<string, unknown> {
  return typeof body === 'object' && body !== null && (body as { stream?: unknown }).stream === true;
}

/** The request as the backend gets it: streaming is this server's business, never the backend's. */
function withoutStreamFields(body: Record<string, unknown>): Record<string, unknown> {
  const { stream: _stream, stream_options: _options, ...rest } = body;
  return rest;
}

export function defineModelServer<Shape extends ConfigShape = Record<never, never>, State = undefined>(
  spec: ModelServerSpec<Shape, State>,
): ModelServerDefinition {
  return defineServerOfKind('responses_api_models', spec, ({ app, setup, requestContext }) => {
    const streamOptions = { logger: setup.logger, timeoutMs: requestTimeoutMsOf('responses_api_models', setup.config) };
    const respond = (params: ResponseCreateParams, http: ServerRequestContext) =>
      traced('model_call', 'gym.model.responses', async (span) => withTokenUsage(span, await spec.responses(params, requestContext(http))));
    /** A request converted from another dialect is checked like one sent to /v1/responses. */
    const respondConverted = (params: ResponseCreateParams, http: ServerRequestContext) =>
      respond(validateBody<ResponseCreateParams>(ResponseCreateParams, params), http);
    const chatCompletions = spec.chatCompletions;
    const completeChat = async (params: ChatCompletionCreateParams, http: ServerRequestContext): Promise<ChatCompletion> =>
      chatCompletions !== undefined
        ? traced('model_call', 'gym.model.chat_completions', async (span) => withTokenUsage(span, await chatCompletions(params, requestContext(http))))
        : responseToChatCompletion(await respondConverted(chatRequestToResponses(params), http));

    app.post('/v1/responses', async (http) => {
      const body = await readJsonBody(http);
      if (!streamRequested(body)) return http.json(await respond(validateBody<ResponseCreateParams>(ResponseCreateParams, body), http));
      const params = validateBody<ResponseCreateParams>(ResponseCreateParams, withoutStreamFields(body));
      return streamAnswer(http, respond(params, http), RESPONSES_STREAM, streamOptions);
    });

    app.post('/v1/chat/completions', async (http) => {
      const body = await readJsonBody(http);
      if (!streamRequested(body)) return http.json(await completeChat(validateBody<ChatCompletionCreateParams>(ChatCompletionCreateParams, body), http));
      const params = validateBody<ChatCompletionCreateParams>(ChatCompletionCreateParams, withoutStreamFields(body));
      const includeUsage = (body.stream_options as { include_usage?: unknown } | null | undefined)?.include_usage === true;
      const dialect: StreamDialect<ChatCompletion> = { events: (completion) => chatCompletionChunks(completion, includeUsage), failure: chatFailureEvents };
      return streamAnswer(http, completeChat(params, http), dialect, streamOptions);
    });

    app.post('/v1/messages', async (http) => {
      const params = validateBody<AnthropicMessageCreateParams>(AnthropicMessageCreateParams, await readJsonBody(http));
      const message = respondConverted(anthropicToResponsesRequest(params), http).then((response) => responseToAnthropicMessage(response, params.model));
      if (params.stream !== true) return http.json(await message);
      return streamAnswer(http, message, MESSAGES_STREAM, streamOptions);
    });
  });
}
