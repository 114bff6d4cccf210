/**
 * The per-rollout model endpoint a harness CLI is pointed at: it serves the three dialects (Claude Code calls
 * `/v1/messages`, Codex `/v1/responses`, OpenCode `/v1/chat/completions`), each with and without streaming,
 * on a Unix socket the rollout's box sees (box-relay.ts). Every call is converted to a Responses request and
 * sent to the gym's model server without streaming, so the answer keeps the token ids and logprobs vllm_model
 * returns; they are recorded in the rollout's `RolloutTokenCapture` before the answer is converted back to the
 * CLI's dialect. A request the dialect cannot map is a 4xx naming the field; a failed model call (including a
 * malformed backend answer) is recorded and reaches the CLI as its dialect's error, never as a hung stream.
 */
import { chmod } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { describeError, NgymError } from '../../errors.ts';
import { anthropicToResponsesRequest, responseToAnthropicMessage } from '../../protocol/anthropic-conversion.ts';
import { AnthropicMessageCreateParams } from '../../protocol/anthropic-messages.ts';
import { anthropicFailureEvents, anthropicMessageEvents } from '../../protocol/anthropic-stream.ts';
import { ChatCompletionCreateParams, type ChatCompletion } from '../../protocol/chat-completions.ts';
import { chatRequestToResponses, responseToChatCompletion } from '../../protocol/chat-over-responses.ts';
import { chatCompletionChunks, chatFailureEvents } from '../../protocol/chat-stream.ts';
import { ResponseCreateParams, type Response } from '../../protocol/responses.ts';
import { responseFailureEvents, responseStreamEvents } from '../../protocol/responses-stream.ts';
import { validateBody } from '../../protocol/validation.ts';
import { createServerApp, readJsonBody, type ServerApp } from '../../server/http-app.ts';
import { type StreamDialect, streamAnswer } from '../../server/model-stream.ts';
import type { Logger } from '../../util/logger.ts';
import type { RolloutTokenCapture } from './token-capture.ts';

/** Sends one Responses request (never streaming) to the gym's model server. */
export type CallModel = (params: ResponseCreateParams) => Promise<Response>;

export interface ModelRelayOptions {
  callModel: CallModel;
  capture: RolloutTokenCapture;
  logger: Logger;
  /** Each call's time limit in ms; null: none. */
  timeoutMs: number | null;
  /** The model name the gym's model server expects, whatever name the CLI sends. */
  model?: string | null;
}

function streamRequested(body: unknown): body is Record<string, unknown> {
  return typeof body === 'object' && body !== null && (body as { stream?: unknown }).stream === true;
}

function withoutStreamFields(body: Record<string, unknown>): Record<string, unknown> {
  const { stream: _stream, stream_options: _options, ...rest } = body;
  return rest;
}

/** Codex's annotation of its own requests (session and window ids): not model input, and not a Responses field. */
function withoutClientMetadata(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || !('client_metadata' in body)) return body;
  const { client_metadata: _metadata, ...rest } = body as Record<string, unknown>;
  return rest;
}

/** The relay's routes, as a Hono app (tests call it in-process). */
export function modelRelayApp(options: ModelRelayOptions): ServerApp {
  const { capture, logger } = options;
  const app = createServerApp({ className: 'HarnessModelRelay', instanceName: capture.rolloutId, logger, requestTimeoutMs: null, maxBodyBytes: null });
  const streamOptions = { logger, timeoutMs: options.timeoutMs };

  /** One model call: checked like a /v1/responses body, answered by the model server, recorded. */
  const respond = async (params: ResponseCreateParams, dialect: string): Promise<Response> => {
    const request = validateBody<ResponseCreateParams>(ResponseCreateParams, options.model ? { ...params, model: options.model } : params);
    const { turns } = Array.isArray(request.input) ? capture.restoreTokenIds(request.input as unknown as Record<string, unknown>[]) : { turns: 0 };
    try {
      const response = await options.callModel(request);
      capture.record(response, dialect, turns);
      return response;
    } catch (error) {
      capture.recordFailure({ dialect, status: NgymError.isInstance(error) ? error.status : 500, message: describeError(error) });
      throw error;
    }
  };

  app.post('/v1/responses', async (http) => {
    const body = withoutClientMetadata(await readJsonBody(http));
    const streaming = streamRequested(body);
    const params = validateBody<ResponseCreateParams>(ResponseCreateParams, streaming ? withoutStreamFields(body) : body);
    const answer = respond(params, '/v1/responses');
    if (!streaming) return http.json(await answer);
    const dialect: StreamDialect<Response> = { events: responseStreamEvents, failure: responseFailureEvents };
    return streamAnswer(http, answer, dialect, streamOptions);
  });

  app.post('/v1/chat/completions', async (http) => {
    const body = await readJsonBody(http);
    const streaming = streamRequested(body);
    const params = validateBody<ChatCompletionCreateParams>(ChatCompletionCreateParams, streaming ? withoutStreamFields(body) : body);
    const answer = respond(chatRequestToResponses(params), '/v1/chat/completions').then(responseToChatCompletion);
    if (!streaming) return http.json(await answer);
    const includeUsage = (body.stream_options as { include_usage?: unknown } | null | undefined)?.include_usage === true;
    const dialect: StreamDialect<ChatCompletion> = { events: (completion) => chatCompletionChunks(completion, includeUsage), failure: chatFailureEvents };
    return streamAnswer(http, answer, dialect, streamOptions);
  });

  app.post('/v1/messages', async (http) => {
    const params = validateBody<AnthropicMessageCreateParams>(AnthropicMessageCreateParams, await readJsonBody(http));
    const answer = respond(anthropicToResponsesRequest(params), '/v1/messages').then((response) => responseToAnthropicMessage(response, params.model));
    if (params.stream !== true) return http.json(await answer);
    return streamAnswer(http, answer, { events: anthropicMessageEvents, failure: anthropicFailureEvents }, streamOptions);
  });

  // Claude Code counts tokens before some calls; an estimate keeps it going without a model call.
  app.post('/v1/messages/count_tokens', async (http) => {
    const body = await readJsonBody(http);
    return http.json({ input_tokens: Math.ceil(JSON.stringify(body).length / 4) });
  });

  return app;
}

export interface ModelRelay {
  readonly socketPath: string;
  close(): Promise<void>;
}

/** Serves the relay on a Unix socket any user may connect to (the box runs as another user when ngym is root). */
export async function startModelRelay(socketPath: string, options: ModelRelayOptions): Promise<ModelRelay> {
  const server: Server = createServer(getRequestListener(modelRelayApp(options).fetch));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  await chmod(socketPath, 0o777);
  return {
    socketPath,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
