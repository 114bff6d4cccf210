/**
 * `codex exec --json` (one JSON event a line) as Responses output items, the way upstream's codex_agent reads
 * it: each completed unit of work is an item; a shell command, an MCP tool call, a file change, a web search and
 * a plan update become a function_call + function_call_output pair (`exec_command`, the tool's name,
 * `apply_patch`, `web_search`, `update_plan`); reasoning goes in `<think>` before the next message;
 * `turn.completed` gives the usage; `turn.failed` makes the run a failure.
 */
import type { HarnessOutput, ResponseItem } from 'ngym';

type CodexItem = Record<string, any>;

export function parseCodexEvents(stdout: string): HarnessOutput {
  const items: ResponseItem[] = [];
  const errors: string[] = [];
  let thinking: string | null = null;
  let inputTokens = 0;
  let outputTokens = 0;
  let turnCompleted = false;
  const toolPair = (item: CodexItem, name: string, args: unknown, output: string) => {
    const callId = String(item.id ?? `call-${items.length}`);
    items.push({ type: 'function_call', id: callId, call_id: callId, name, arguments: JSON.stringify(args), status: item.status === 'failed' ? 'incomplete' : 'completed' } as ResponseItem);
    items.push({ type: 'function_call_output', call_id: callId, output, status: 'completed' } as ResponseItem);
  };
  const message = (text: string) => items.push({ id: `msg-${items.length}`, type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] } as ResponseItem);
  for (const line of stdout.split('\n')) {
    let event: CodexItem;
    try {
      event = JSON.parse(line) as CodexItem;
    } catch {
      continue;
    }
    if (event.type === 'turn.completed') {
      turnCompleted = true;
      inputTokens += Number(event.usage?.input_tokens ?? 0);
      outputTokens += Number(event.usage?.output_tokens ?? 0);
    } else if (event.type === 'turn.failed') {
      errors.push(String(event.error?.message ?? 'turn failed'));
    } else if (event.type === 'item.completed' && typeof event.item === 'object' && event.item !== null) {
      const item = event.item as CodexItem;
      if (item.type === 'agent_message') {
        const text = String(item.text ?? '');
        message(thinking === null ? text : `<think>\n${thinking}\n</think>\n\n${text}`);
        thinking = null;
      } else if (item.type === 'reasoning') {
        if (item.text) thinking = thinking === null ? String(item.text) : `${thinking}\n${item.text}`;
      } else if (item.type === 'command_execution') {
        const output = String(item.aggregated_output ?? '');
        toolPair(item, 'exec_command', { cmd: item.command ?? '' }, item.exit_code === null || item.exit_code === undefined || item.exit_code === 0 ? output : `${output}\n[exit code: ${item.exit_code}]`);
      } else if (item.type === 'mcp_tool_call') {
        toolPair(item, String(item.tool ?? ''), item.arguments ?? {}, item.error ? `error: ${JSON.stringify(item.error)}` : JSON.stringify(item.result ?? ''));
      } else if (item.type === 'file_change') {
        toolPair(item, 'apply_patch', { changes: item.changes }, String(item.status ?? 'completed'));
      } else if (item.type === 'web_search') {
        toolPair(item, 'web_search', { query: item.query ?? '' }, '');
      } else if (item.type === 'todo_list') {
        toolPair(item, 'update_plan', { items: item.items ?? [] }, '');
      }
      // Error items are Codex's warnings (unknown model metadata...): only a failed turn fails the run.
    }
  }
  if (thinking !== null) message(`<think>\n${thinking}\n</think>`);
  let failure: string | null = null;
  if (errors.length > 0) failure = `the CLI reported errors: ${errors.join('; ').slice(0, 1000)}`;
  else if (!turnCompleted) failure = 'the CLI printed no completed turn';
  return { items, inputTokens, outputTokens, failure };
}
