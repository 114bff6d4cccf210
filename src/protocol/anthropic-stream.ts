/**
 * A complete Anthropic Message re-emitted as the Messages API's stream, as upstream NeMo Gym 0.7.0 does:
 * `message_start`, then per content block `content_block_start` / one `content_block_delta` /
 * `content_block_stop`, then `message_delta` (stop reason, output tokens) and `message_stop`.
 */
import { pythonJsonDumps } from '../python-compat/python-json.ts';
import type { AnthropicContentBlock, AnthropicMessage } from './anthropic-messages.ts';
import { type StreamFailure, sseEvent } from './sse.ts';

const named = (data: Record<string, unknown> & { type: string }) => sseEvent(data, data.type);

/** A block as it starts, and the deltas that complete it. */
function blockParts(block: AnthropicContentBlock): { start: Record<string, unknown>; deltas: Record<string, unknown>[] } {
  switch (block.type) {
    case 'text':
      return { start: { type: 'text', text: '' }, deltas: [{ type: 'text_delta', text: block.text }] };
    case 'thinking':
      return {
        start: { type: 'thinking', thinking: '', signature: '' },
        deltas: [{ type: 'thinking_delta', thinking: block.thinking }, ...(block.signature === '' ? [] : [{ type: 'signature_delta', signature: block.signature }])],
      };
    case 'tool_use':
      return { start: { type: 'tool_use', id: block.id, name: block.name, input: {} }, deltas: [{ type: 'input_json_delta', partial_json: pythonJsonDumps(block.input) }] };
  }
}

export function anthropicMessageEvents(message: AnthropicMessage): string[] {
  const events = [named({ type: 'message_start', message: { ...message, content: [], stop_reason: null } })];
  message.content.forEach((block, index) => {
    const { start, deltas } = blockParts(block);
    events.push(named({ type: 'content_block_start', index, content_block: start }));
    for (const delta of deltas) events.push(named({ type: 'content_block_delta', index, delta }));
    events.push(named({ type: 'content_block_stop', index }));
  });
  events.push(
    named({ type: 'message_delta', delta: { stop_reason: message.stop_reason, stop_sequence: message.stop_sequence }, usage: { output_tokens: message.usage.output_tokens } }),
    named({ type: 'message_stop' }),
  );
  return events;
}

/** Anthropic's error types by the status the call would have had. */
function errorTypeOf(status: number): string {
  if (status === 504) return 'timeout_error';
  if (status === 429) return 'rate_limit_error';
  return status >= 500 ? 'api_error' : 'invalid_request_error';
}

/** The Messages API's `error` event, which Anthropic's clients raise as an API error. */
export function anthropicFailureEvents(failure: StreamFailure): string[] {
  return [named({ type: 'error', error: { type: errorTypeOf(failure.status), message: failure.message } })];
}
