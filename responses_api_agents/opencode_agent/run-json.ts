/**
 * `opencode run --format json` (one JSON event a line) as Responses output items, with the item shapes
 * upstream's opencode_agent makes from OpenCode's session: assistant text is a message (reasoning before it in
 * `<think>`), each tool part a function_call (the tool's own name, its input as arguments) with its
 * function_call_output (the tool's output, or its error); `step_finish` gives the usage; an `error` event, or a
 * run with no finished step, is a failure.
 */
import type { HarnessOutput, ResponseItem } from 'ngym';

type Part = Record<string, any>;

export function parseOpencodeEvents(stdout: string): HarnessOutput {
  const items: ResponseItem[] = [];
  const errors: string[] = [];
  let thinking: string | null = null;
  let inputTokens = 0;
  let outputTokens = 0;
  let steps = 0;
  for (const line of stdout.split('\n')) {
    let event: Part;
    try {
      event = JSON.parse(line) as Part;
    } catch {
      continue;
    }
    const part: Part = typeof event.part === 'object' && event.part !== null ? event.part : {};
    if (event.type === 'step_finish') {
      steps++;
      inputTokens += Number(part.tokens?.input ?? 0);
      outputTokens += Number(part.tokens?.output ?? 0);
    } else if (event.type === 'reasoning' && typeof part.text === 'string' && part.text.trim() !== '') {
      thinking = thinking === null ? part.text : `${thinking}\n${part.text}`;
    } else if (event.type === 'text' && typeof part.text === 'string' && part.text.trim() !== '') {
      const text = thinking === null ? part.text : `<think>\n${thinking}\n</think>\n\n${part.text}`;
      thinking = null;
      items.push({ id: String(part.id ?? `msg-${items.length}`), type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] } as ResponseItem);
    } else if (event.type === 'tool_use' && part.type === 'tool') {
      const state: Part = part.state ?? {};
      const callId = String(part.callID ?? `call-${items.length}`);
      const status = state.status === 'completed' ? 'completed' : 'incomplete';
      items.push({ type: 'function_call', id: callId, call_id: callId, name: String(part.tool ?? ''), arguments: JSON.stringify(state.input ?? {}), status } as ResponseItem);
      const output = state.output ?? state.error;
      if (output !== undefined && output !== null) items.push({ type: 'function_call_output', call_id: callId, output: String(output), status } as ResponseItem);
    } else if (event.type === 'error') {
      const error: Part = event.error ?? {};
      errors.push(String(error.data?.message ?? error.message ?? error.name ?? JSON.stringify(event).slice(0, 500)));
    }
  }
  let failure: string | null = null;
  if (errors.length > 0) failure = `the CLI reported errors: ${errors.join('; ').slice(0, 1000)}`;
  else if (steps === 0) failure = 'the CLI finished no step';
  return { items, inputTokens, outputTokens, failure };
}
