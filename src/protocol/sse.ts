/**
 * Server-sent events as the three model dialects frame them: the Responses API and Anthropic's Messages API
 * name each event (`event: <type>`), Chat Completions sends bare `data:` chunks.
 */

/** Why a stream ended without an answer: the HTTP status the call would have had, and what went wrong. */
export interface StreamFailure {
  status: number;
  message: string;
}

/** One event: `event: <name>` when named, then its data (JSON, or a string as it is: chat's `[DONE]`), then a blank line. */
export function sseEvent(data: unknown, name?: string): string {
  const json = typeof data === 'string' ? data : JSON.stringify(data);
  return name === undefined ? `data: ${json}\n\n` : `event: ${name}\ndata: ${json}\n\n`;
}
