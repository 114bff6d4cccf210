/**
 * A complete chat completion re-emitted as `chat.completion.chunk` events, as upstream NeMo Gym 0.7.0 does:
 * per choice a role chunk, then reasoning, content, refusal and tool-call chunks (each only when present, each
 * whole), then a chunk with the finish reason; a usage chunk when the client asked for one
 * (`stream_options.include_usage`); and `data: [DONE]`. Token ids and logprobs have no place in a chunk.
 */
import type { ChatCompletion, ChatCompletionChoice } from './chat-completions.ts';
import { type StreamFailure, sseEvent } from './sse.ts';

type Delta = { index: number; delta: Record<string, unknown>; finish_reason: string | null };

function choiceDeltas(choice: ChatCompletionChoice): Delta[] {
  const { index, message } = choice;
  const delta = (fields: Record<string, unknown>): Delta => ({ index, delta: fields, finish_reason: null });
  const deltas = [delta({ role: message.role })];
  const reasoning = message.reasoning_content || (message as { reasoning?: string | null }).reasoning;
  if (reasoning) deltas.push(delta({ reasoning_content: reasoning }));
  if (message.content) deltas.push(delta({ content: message.content }));
  const refusal = (message as { refusal?: string | null }).refusal;
  if (refusal) deltas.push(delta({ refusal }));
  const toolCalls = message.tool_calls ?? [];
  if (toolCalls.length > 0) {
    deltas.push(
      delta({
        tool_calls: toolCalls.map((call, position) => ({
          index: position,
          id: call.id,
          type: call.type,
          function: { name: call.function.name, arguments: call.function.arguments },
        })),
      }),
    );
  }
  deltas.push({ index, delta: {}, finish_reason: choice.finish_reason ?? null });
  return deltas;
}

/** The chunks of a complete chat completion, ending with `[DONE]`. */
export function chatCompletionChunks(completion: ChatCompletion, includeUsage: boolean): string[] {
  const chunk = (choices: Delta[], usage?: unknown) => ({
    id: completion.id,
    object: 'chat.completion.chunk',
    created: completion.created,
    model: completion.model,
    ...(typeof completion.system_fingerprint === 'string' ? { system_fingerprint: completion.system_fingerprint } : {}),
    choices,
    ...(usage === undefined ? {} : { usage }),
  });
  const events = completion.choices.flatMap((choice) => choiceDeltas(choice).map((delta) => sseEvent(chunk([delta]))));
  if (includeUsage && completion.usage) events.push(sseEvent(chunk([], completion.usage)));
  events.push(sseEvent('[DONE]'));
  return events;
}

/** Upstream's end of a failed chat stream: an `error` event, which the OpenAI clients raise as an API error. */
export function chatFailureEvents(failure: StreamFailure): string[] {
  const type = failure.status >= 500 ? 'server_error' : 'invalid_request_error';
  return [sseEvent({ error: { message: failure.message, type, code: failure.status } }, 'error')];
}
