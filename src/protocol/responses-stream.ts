/**
 * A complete Response re-emitted as the Responses API's stream of events. Model servers call their backend
 * without streaming (as upstream NeMo Gym 0.7.0 does) and synthesize the stream from the whole answer, so
 * each text or argument string arrives as one delta.
 *
 * Upstream sends the minimum its harnesses read (`response.created`, `response.output_item.done` per item,
 * `response.completed`); this sends the OpenAI API's full sequence around those same events (item added,
 * content part added, delta, done...) because the official clients' stream helpers rebuild the answer from
 * it and refuse a `done` for an item they never saw added.
 */
import { randomUUID } from 'node:crypto';
import { TOKEN_FIELDS } from './chat-conversion.ts';
import type { Response, ResponseItem } from './responses.ts';
import { type StreamFailure, sseEvent } from './sse.ts';

type Event = Record<string, unknown> & { type: string };

/** An item as announced before its content: the same identity, empty text, no token fields. */
function inProgress(item: Record<string, unknown>, emptied: Record<string, unknown>): Record<string, unknown> {
  const shell: Record<string, unknown> = { ...item, ...emptied, status: 'in_progress' };
  for (const field of TOKEN_FIELDS) delete shell[field];
  return shell;
}

/** The events between `output_item.added` and `output_item.done` that fill in one item's content. */
function contentEvents(item: Record<string, any>, at: { item_id: string; output_index: number }): Event[] {
  if (item.type === 'function_call') {
    return [
      { type: 'response.function_call_arguments.delta', ...at, delta: item.arguments },
      { type: 'response.function_call_arguments.done', ...at, name: item.name, arguments: item.arguments },
    ];
  }
  if (item.type === 'reasoning') {
    return (item.summary as Array<{ type: string; text: string }>).flatMap((part, summary_index) => [
      { type: 'response.reasoning_summary_part.added', ...at, summary_index, part: { ...part, text: '' } },
      { type: 'response.reasoning_summary_text.delta', ...at, summary_index, delta: part.text },
      { type: 'response.reasoning_summary_text.done', ...at, summary_index, text: part.text },
      { type: 'response.reasoning_summary_part.done', ...at, summary_index, part },
    ]);
  }
  if (item.type !== 'message' || !Array.isArray(item.content)) return [];
  return (item.content as Array<Record<string, any>>).flatMap((part, content_index): Event[] => {
    const where = { ...at, content_index };
    if (part.type === 'output_text') {
      return [
        { type: 'response.content_part.added', ...where, part: { ...part, text: '', annotations: [] } },
        { type: 'response.output_text.delta', ...where, delta: part.text, logprobs: [] },
        { type: 'response.output_text.done', ...where, text: part.text, logprobs: [] },
        { type: 'response.content_part.done', ...where, part },
      ];
    }
    if (part.type === 'refusal') {
      return [
        { type: 'response.content_part.added', ...where, part: { ...part, refusal: '' } },
        { type: 'response.refusal.delta', ...where, delta: part.refusal },
        { type: 'response.refusal.done', ...where, refusal: part.refusal },
        { type: 'response.content_part.done', ...where, part },
      ];
    }
    return [
      { type: 'response.content_part.added', ...where, part },
      { type: 'response.content_part.done', ...where, part },
    ];
  });
}

/** What an item is announced with: its content comes after, by events, when the item has an id to name it by. */
function emptiedContent(item: Record<string, any>): Record<string, unknown> {
  if (item.type === 'function_call') return { arguments: '' };
  if (item.type === 'reasoning') return { summary: [] };
  if (item.type === 'message' && Array.isArray(item.content)) return { content: [] };
  return {};
}

function itemEvents(item: ResponseItem, output_index: number): Event[] {
  const full = item as Record<string, any>;
  const itemId = typeof full.id === 'string' && full.id !== '' ? full.id : undefined;
  // Content events name their item by id: an item without one is announced whole.
  const announced = itemId === undefined ? inProgress(full, {}) : inProgress(full, emptiedContent(full));
  return [
    { type: 'response.output_item.added', output_index, item: announced },
    ...(itemId === undefined ? [] : contentEvents(full, { item_id: itemId, output_index })),
    { type: 'response.output_item.done', output_index, item: full },
  ];
}

function numbered(events: Event[]): string[] {
  return events.map((event, sequence_number) => sseEvent({ ...event, sequence_number }, event.type));
}

/** The Responses API stream of a complete Response: created, in progress, each item, completed. */
export function responseStreamEvents(response: Response): string[] {
  // An input-style message may leave `type` out; the stream's clients key items by it.
  const output = response.output.map((item) => (item.type === undefined ? ({ ...item, type: 'message' } as ResponseItem) : item));
  const started = { ...response, status: 'in_progress', output: [] };
  return numbered([
    { type: 'response.created', response: started },
    { type: 'response.in_progress', response: started },
    ...output.flatMap(itemEvents),
    { type: 'response.completed', response: { ...response, output } },
  ]);
}

/**
 * A stream that ends in `response.failed` (upstream's terminal event for a failed call): the client sees the
 * failure and its reason instead of a stream that stops.
 */
export function responseFailureEvents(failure: StreamFailure): string[] {
  const base = { id: `resp_${randomUUID().replaceAll('-', '')}`, object: 'response', created_at: Math.floor(Date.now() / 1000), output: [] };
  const code = failure.status >= 500 ? 'server_error' : 'invalid_request';
  return numbered([
    { type: 'response.created', response: { ...base, status: 'in_progress', error: null } },
    { type: 'response.failed', response: { ...base, status: 'failed', error: { code, message: failure.message } } },
  ]);
}
