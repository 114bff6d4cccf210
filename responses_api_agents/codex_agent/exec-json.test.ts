import { describe, expect, it } from 'vitest';
import { parseCodexEvents } from './exec-json.ts';

const lines = (...events: unknown[]) => events.map((event) => JSON.stringify(event)).join('\n');

describe('parseCodexEvents', () => {
  it('turns messages, reasoning, commands and file changes into output items as upstream does', () => {
    const output = parseCodexEvents(
      lines(
        { type: 'thread.started' },
        { type: 'item.completed', item: { id: 'item_0', type: 'error', message: 'Model metadata for `policy` not found.' } },
        { type: 'item.completed', item: { id: 'item_1', type: 'reasoning', text: 'Look first.' } },
        { type: 'item.completed', item: { id: 'item_2', type: 'command_execution', command: 'cat a.py', aggregated_output: 'x = 1\n', exit_code: 0, status: 'completed' } },
        { type: 'item.completed', item: { id: 'item_3', type: 'command_execution', command: 'false', aggregated_output: '', exit_code: 1, status: 'failed' } },
        { type: 'item.completed', item: { id: 'item_4', type: 'file_change', changes: [{ path: 'a.py', kind: 'update' }], status: 'completed' } },
        { type: 'item.completed', item: { id: 'item_5', type: 'agent_message', text: 'Fixed.' } },
        { type: 'turn.completed', usage: { input_tokens: 50, output_tokens: 7 } },
      ),
    );
    expect(output.failure).toBeNull();
    expect(output.items.map((item: any) => [item.type, item.name ?? item.output ?? item.content?.[0]?.text])).toEqual([
      ['function_call', 'exec_command'],
      ['function_call_output', 'x = 1\n'],
      ['function_call', 'exec_command'],
      ['function_call_output', '\n[exit code: 1]'],
      ['function_call', 'apply_patch'],
      ['function_call_output', 'completed'],
      ['message', '<think>\nLook first.\n</think>\n\nFixed.'],
    ]);
    expect([output.inputTokens, output.outputTokens]).toEqual([50, 7]);
  });

  it('is a failure on a failed turn, or with no completed turn', () => {
    expect(parseCodexEvents(lines({ type: 'turn.failed', error: { message: 'unexpected status 502' } })).failure).toMatch(/unexpected status 502/);
    expect(parseCodexEvents('').failure).toBe('the CLI printed no completed turn');
  });
});

describe('codex_agent config.toml', () => {
  it('points the gym provider at the relay with the Responses wire API, offline, with extra_config merged over it', async () => {
    const { parse } = await import('smol-toml');
    const { codex } = await import('./app.ts');
    const config = { model: null, timeout: 60, sandbox_mode: 'danger-full-access', reasoning_effort: 'low', stream_idle_timeout_ms: null, extra_config: { features: { web_search: false }, model_providers: { gym: { name: 'mine' } } } };
    const invocation = codex.invocation({ instruction: 'Fix it.', systemPrompt: 'Be brief.', modelUrl: 'http://127.0.0.1:8639', config: config as never });
    const toml = parse(String(invocation.harnessFiles?.[0]?.content));
    expect(toml).toMatchObject({
      model: 'policy',
      model_provider: 'gym',
      approval_policy: 'never',
      developer_instructions: 'Be brief.',
      model_reasoning_effort: 'low',
      analytics: { enabled: false },
      check_for_update_on_startup: false,
      features: { multi_agent: false, code_mode: false, web_search: false },
      model_providers: { gym: { name: 'mine', base_url: 'http://127.0.0.1:8639/v1', wire_api: 'responses', stream_idle_timeout_ms: 60_000 } },
    });
    expect(invocation.command.slice(-2)).toEqual(['--', 'Fix it.']);
  });
});
