/**
 * Claude Code's `--output-format stream-json` (one JSON event a line) as Responses output items, the way
 * upstream's claude_code_agent reads it: assistant text becomes a message (thinking before it wrapped in
 * `<think>`), each tool_use a function_call once its tool_result arrives, each tool_result a
 * function_call_output; the `result` event gives the usage and says whether the run ended in an error.
 */
import type { HarnessOutput, ResponseItem } from 'ngym';

type Block = { type?: string; text?: string; thinking?: string; id?: string; name?: string; input?: unknown; tool_use_id?: string; content?: unknown };
type Event = { type?: string; subtype?: string; is_error?: boolean; result?: unknown; message?: { content?: unknown; usage?: { input_tokens?: number; output_tokens?: number } }; usage?: { input_tokens?: number; output_tokens?: number } };

const blocksOf = (content: unknown): Block[] => (Array.isArray(content) ? content.filter((block): block is Block => typeof block === 'object' && block !== null) : []);
const textOf = (content: unknown): string => (typeof content === 'string' ? content : blocksOf(content).filter((block) => block.type === 'text').map((block) => block.text ?? '').join(''));

export function parseClaudeStream(stdout: string): HarnessOutput {
  const items: ResponseItem[] = [];
  const pending = new Map<string, { name: string; arguments: string }>();
  let thinking: string | null = null;
  let resultEvent: Event | null = null;
  let inputTokens = 0;
  let outputTokens = 0;
  for (const line of stdout.split('\n')) {
    let event: Event;
    try {
      event = JSON.parse(line) as Event;
    } catch {
      continue;
    }
    if (event.type === 'result') {
      resultEvent = event;
      inputTokens += event.usage?.input_tokens ?? 0;
      outputTokens += event.usage?.output_tokens ?? 0;
    } else if (event.type === 'assistant') {
      const blocks = blocksOf(event.message?.content);
      const thought = blocks.filter((block) => block.type === 'thinking' || block.type === 'reasoning').map((block) => block.thinking ?? block.text ?? '').filter(Boolean).join('\n');
      if (thought !== '') thinking = thinking === null ? thought : `${thinking}\n${thought}`;
      let text = textOf(blocks);
      if (text !== '') {
        if (thinking !== null) text = `<think>\n${thinking}\n</think>\n\n${text}`;
        thinking = null;
        items.push({ id: `msg-${items.length}`, type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] } as ResponseItem);
      }
      for (const block of blocks) {
        if (block.type !== 'tool_use' || block.id === undefined) continue;
        pending.set(block.id, { name: block.name ?? '', arguments: typeof block.input === 'object' && block.input !== null ? JSON.stringify(block.input) : String(block.input ?? '') });
      }
    } else if (event.type === 'user') {
      for (const block of blocksOf(event.message?.content)) {
        if (block.type !== 'tool_result') continue;
        const callId = block.tool_use_id ?? '';
        const call = pending.get(callId);
        pending.delete(callId);
        if (call !== undefined) items.push({ type: 'function_call', id: callId, call_id: callId, name: call.name, arguments: call.arguments, status: 'completed' } as ResponseItem);
        items.push({ type: 'function_call_output', call_id: callId, output: textOf(block.content), status: 'completed' } as ResponseItem);
      }
    }
  }
  let failure: string | null = null;
  if (resultEvent === null) failure = 'the CLI printed no result event';
  // Running out of turns is an outcome the environment scores (upstream: incomplete), not a failure.
  else if (resultEvent.subtype !== 'error_max_turns' && (resultEvent.is_error === true || resultEvent.subtype?.startsWith('error_') === true)) {
    failure = `the CLI ended in an error (${resultEvent.subtype ?? 'is_error'}): ${typeof resultEvent.result === 'string' ? resultEvent.result.slice(0, 1000) : ''}`;
  }
  return { items, inputTokens, outputTokens, failure };
}
