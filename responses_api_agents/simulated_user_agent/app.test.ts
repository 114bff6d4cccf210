import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineModelServer, ERROR_CODE_HEADER, NgymError, sharedHttpClient } from 'ngym';
import { collectRollouts } from 'ngym/runtime';
import {
  assistantMessage,
  functionCall,
  type InProcessGym,
  readJsonlRows,
  scriptedModel,
  startInProcessGym,
} from 'ngym/testing';
import { AGENT, episodeConfig, type EpisodeConfigOptions } from './test-helpers.ts';

const http = sharedHttpClient();
let gym: InProcessGym | undefined;
afterEach(async () => {
  await gym?.close();
  gym = undefined;
});

async function start(options: EpisodeConfigOptions, definitions: Record<string, unknown>) {
  gym = await startInProcessGym({ config: episodeConfig(options), definitions: definitions as never });
  return gym;
}

async function run(row: Record<string, unknown>) {
  const response = await http.request((gym as InProcessGym).url(AGENT, '/run'), { body: row });
  return { status: response.status, headers: response.headers, text: response.text, body: response.text === '' ? undefined : response.json<Record<string, any>>() };
}

const textOf = (item: any) => (typeof item.content === 'string' ? item.content : item.content.map((part: any) => part.text).join(''));
const roles = (output: any[]) => output.map((item) => (item.type === 'message' || item.type === undefined ? item.role : item.type));
/** The policy echoes the user's last message. */
const echoPolicy = () =>
  scriptedModel(({ input }) => {
    const last = [...input].reverse().find((item: any) => item.role === 'user');
    return [assistantMessage(`You said: ${textOf(last)}`)];
  });
const counterRow = (extra: Record<string, unknown>) => ({ responses_create_params: { input: 'add 1' }, initial_count: 0, expected_count: 0, ...extra });

describe('simulated_user_agent', () => {
  it('ends when the scripted user runs out of turns, or says the stop token (its words before it are kept)', async () => {
    const policy = echoPolicy();
    await start({ environment: 'example_session_state_mgmt', models: { user: null } }, { policy_model: policy.definition });
    const finished = await run(counterRow({ simulated_user: { turns: ['second', 'third'] } }));
    expect(finished.status, finished.text).toBe(200);
    expect(finished.body?.episode).toEqual({ stop_reason: 'user_stopped', user_turns: 3 });
    expect(roles(finished.body?.response.output)).toEqual(['assistant', 'user', 'assistant', 'user', 'assistant']);
    expect(finished.body?.response.output.map(textOf)).toEqual(['You said: add 1', 'second', 'You said: second', 'third', 'You said: third']);
    expect(finished.body).toMatchObject({ reward: 1, initial_count: 0 });

    policy.calls.length = 0;
    const early = await run(counterRow({ simulated_user: { turns: ['Thanks, bye! ###STOP###', 'never said'] } }));
    expect(early.body?.episode).toEqual({ stop_reason: 'user_stopped', user_turns: 1 });
    expect(early.body?.response.output.map(textOf)).toEqual(['You said: add 1', 'Thanks, bye!']);
    expect(policy.calls).toHaveLength(1);
  });

  it('gives the user model its prompt and the conversation from its side, and stops when it writes the stop token', async () => {
    const policy = scriptedModel(({ index }) =>
      index === 0 ? [functionCall('increment_counter', { count: 1 }, 'c1')] : [assistantMessage(index === 1 ? 'Added 1. Anything else?' : 'Added 2.')],
    );
    const user = scriptedModel(({ index }) => [assistantMessage(index === 0 ? 'Now add 2.' : '###STOP###')]);
    await start(
      { environment: 'example_session_state_mgmt', agentConfig: { user_prompt_template: 'Goal: {instructions} Mood: {mood}. Stop with {stop_token}.' } },
      { policy_model: policy.definition, user_model: user.definition },
    );
    const result = await run(counterRow({ simulated_user: { instructions: 'get the counter to 3', mood: 'impatient' } }));
    expect(result.status, result.text).toBe(200);
    expect(result.body?.episode).toEqual({ stop_reason: 'user_stopped', user_turns: 2 });
    // No final user message: the user only stopped.
    expect(roles(result.body?.response.output).at(-1)).toBe('assistant');
    expect(user.calls[0]?.input).toEqual([
      { role: 'system', content: 'Goal: get the counter to 3 Mood: impatient. Stop with ###STOP###.' },
      { role: 'assistant', content: 'add 1' },
      { role: 'user', content: 'Added 1. Anything else?' },
    ]);
    expect(user.calls[1]?.input.slice(3)).toEqual([
      { role: 'assistant', content: 'Now add 2.' },
      { role: 'user', content: 'Added 2.' },
    ]);
  });

  it('ends at max_user_turns when the user never stops (turn limit)', async () => {
    const policy = echoPolicy();
    const user = scriptedModel(({ index }) => [assistantMessage(`more ${index}`)]);
    await start({ environment: 'example_session_state_mgmt', agentConfig: { max_user_turns: 3 } }, { policy_model: policy.definition, user_model: user.definition });
    const result = await run(counterRow({ simulated_user: { instructions: 'never be satisfied' } }));
    expect(result.status, result.text).toBe(200);
    expect(result.body?.episode).toEqual({ stop_reason: 'turn_limit', user_turns: 3 });
    expect(policy.calls).toHaveLength(3);
    expect(user.calls).toHaveLength(2);
    expect(result.body?.response.output.map(textOf)).toEqual(['You said: add 1', 'more 0', 'You said: more 0', 'more 1', 'You said: more 1']);
  });

  it('runs the policy tool calls of every turn in one environment session, and verify sees the whole episode', async () => {
    const policy = scriptedModel(({ input }) => {
      const last = input.at(-1) as any;
      if (last.type === 'function_call_output') return [assistantMessage(`Done: ${last.output}`)];
      const text = textOf(last);
      if (text === 'what is the count?') return [functionCall('get_counter_value', {}, 'get')];
      return [functionCall('increment_counter', { count: Number(/add (\d)/.exec(text)?.[1]) }, `add_${input.length}`)];
    });
    await start({ environment: 'example_session_state_mgmt', models: { user: null } }, { policy_model: policy.definition });
    const result = await run(counterRow({ initial_count: 10, expected_count: 15, responses_create_params: { input: 'add 2' }, simulated_user: { turns: ['add 3', 'what is the count?'] } }));
    expect(result.status, result.text).toBe(200);
    const output = result.body?.response.output;
    expect(roles(output)).toEqual([
      'function_call', 'function_call_output', 'assistant', 'user',
      'function_call', 'function_call_output', 'assistant', 'user',
      'function_call', 'function_call_output', 'assistant',
    ]);
    expect(output[9].output).toBe('{"count": 15}');
    // The counter lives in the session seeded before the first turn: the reward reads it after the last.
    expect(result.body).toMatchObject({ reward: 1, expected_count: 15, episode: { stop_reason: 'user_stopped', user_turns: 3 } });
    // Each policy call's input is the previous call's input plus what came since.
    for (let index = 1; index < policy.calls.length; index++) {
      const previous = policy.calls[index - 1]?.input ?? [];
      expect(policy.calls[index]?.input.slice(0, previous.length)).toEqual(previous);
    }
  });

  it('ends when the environment reports the goal met (goal_check_path)', async () => {
    const { exampleRows } = await import('../../resources_servers/customer_service/example-data.ts');
    const row = exampleRows()[2] as Record<string, any>;
    const policy = scriptedModel(({ input }) => {
      const last = input.at(-1) as any;
      if (last.type === 'function_call_output') return [assistantMessage('Your order W1003 is on its way; tracking number TRK-88231.')];
      return input.length === 2 ? [assistantMessage('Your email, please?')] : [functionCall('get_order_details', { order_id: 'W1003' }, 'd')];
    });
    const user = scriptedModel(() => [assistantMessage('chloe.martin@example.com, W1003')]);
    await start({ environment: 'customer_service', agentConfig: { goal_check_path: '/goal_status' } }, { policy_model: policy.definition, user_model: user.definition });
    const result = await run(row);
    expect(result.status, result.text).toBe(200);
    expect(result.body).toMatchObject({ reward: 1, user_informed: true, database_correct: true, episode: { stop_reason: 'goal_met', user_turns: 2 } });
    expect(user.calls).toHaveLength(1);
  });

  it('fails the rollout, naming the user model and the turn, when the user model server fails mid-episode (no reward)', async () => {
    const policy = echoPolicy();
    const failing = defineModelServer({
      className: 'FlakyUser',
      setup: () => ({ calls: 0 }),
      responses: async (_params, { state }) => {
        state.calls++;
        if (state.calls === 2) throw new NgymError('NGYM_UPSTREAM_STATUS', 'the user LLM is overloaded', { status: 503, retryable: true });
        return { id: 'r', object: 'response', created_at: 0, model: 'u', output: [assistantMessage('go on')], parallel_tool_calls: true, tool_choice: 'auto', tools: [], incomplete_details: null, usage: null } as never;
      },
    });
    await start({ environment: 'example_session_state_mgmt' }, { policy_model: policy.definition, user_model: failing });
    const result = await run(counterRow({ simulated_user: { instructions: 'chat' } }));
    expect(result.status).toBeGreaterThanOrEqual(500);
    // A 5xx body is the error's Python repr, as upstream's.
    const message = JSON.parse(result.text) as string;
    expect(message).toMatch(/The simulated user\\'s model server \\'user_model\\' failed at user turn 3: Server .*answered HTTP 503: .*the user LLM is overloaded/);
    expect(result.text).not.toContain('reward');
    expect(result.headers[ERROR_CODE_HEADER]).toBe('NGYM_UPSTREAM_STATUS');
    expect(policy.calls).toHaveLength(2);
  });

  it('a collection records the episode whose user model fails as a failure, never as a reward', async () => {
    const user = scriptedModel(({ input }) => {
      if (input.length > 3) throw new NgymError('NGYM_UPSTREAM_STATUS', 'the user LLM crashed', { status: 500 });
      return [assistantMessage('tell me more')];
    });
    await start({ environment: 'example_session_state_mgmt' }, { policy_model: echoPolicy().definition, user_model: user.definition });
    const dir = mkdtempSync(join(tmpdir(), 'ngym-simulated-user-'));
    const rows = [counterRow({ simulated_user: { turns: ['scripted, fine'] } }), counterRow({ simulated_user: { instructions: 'chat' } })];
    const summary = await collectRollouts({ client: (gym as InProcessGym).client, input: rows, agentName: AGENT, outputPath: join(dir, 'out.jsonl'), maxRetries: 1, retryDelayMs: 1 }).done();
    expect(summary).toMatchObject({ completed: 1, failed: 1 });
    expect(readJsonlRows(join(dir, 'out.jsonl')).map((row) => row.episode)).toEqual([{ stop_reason: 'user_stopped', user_turns: 2 }]);
    expect(existsSync(join(dir, 'out_failures.jsonl'))).toBe(true);
    expect(readFileSync(join(dir, 'out_failures.jsonl'), 'utf8')).toContain("failed at user turn 3");
  });

  it('fails clearly when the user model returns no message', async () => {
    const user = scriptedModel(() => [functionCall('oops', {}, 'x')]);
    await start({ environment: 'example_session_state_mgmt' }, { policy_model: echoPolicy().definition, user_model: user.definition });
    const result = await run(counterRow({ simulated_user: { instructions: 'chat' } }));
    expect(result.status).toBe(502);
    expect(result.headers[ERROR_CODE_HEADER]).toBe('NGYM_UPSTREAM_BODY');
    expect(result.text).toContain("failed at user turn 2: its reply holds no assistant message");
  });

  it('refuses rows without a usable simulated user before the episode starts (422 naming the field)', async () => {
    const policy = echoPolicy();
    await start({ environment: 'example_session_state_mgmt', models: { user: null } }, { policy_model: policy.definition });
    const missing = await run(counterRow({}));
    expect(missing.status).toBe(422);
    expect(missing.body?.detail[0].loc).toEqual(['body', 'simulated_user']);
    const noModel = await run(counterRow({ simulated_user: { instructions: 'x' } }));
    expect(noModel.status).toBe(422);
    expect(noModel.body?.detail[0]).toMatchObject({ loc: ['body', 'simulated_user', 'turns'] });
    const taken = await run(counterRow({ simulated_user: { turns: [] }, episode: 1 }));
    expect(taken.body?.detail[0]).toMatchObject({ loc: ['body', 'episode'] });
    await (gym as InProcessGym).close();

    await start({ environment: 'example_session_state_mgmt', agentConfig: { user_prompt_template: '{instructions} as {persona}' } }, { policy_model: policy.definition, user_model: echoPolicy().definition });
    const noPersona = await run(counterRow({ simulated_user: { instructions: 'x' } }));
    expect(noPersona.status).toBe(422);
    expect(noPersona.body?.detail.map((detail: any) => detail.loc)).toEqual([['body', 'simulated_user', 'persona']]);
    expect(policy.calls).toHaveLength(0);
  });

  it('answers one policy turn on /v1/responses and relays /aggregate_metrics to the environment', async () => {
    const policy = scriptedModel(({ index }) => (index === 0 ? [functionCall('increment_counter', { count: 2 }, 'c1')] : [assistantMessage('Added.')]));
    await start({ environment: 'example_session_state_mgmt', models: { user: null } }, { policy_model: policy.definition });
    const turn = await http.request((gym as InProcessGym).url(AGENT, '/v1/responses'), { body: { input: 'add 2' } });
    expect(turn.status, turn.text).toBe(200);
    expect(roles(turn.json<Record<string, any>>().output)).toEqual(['function_call', 'function_call_output', 'assistant']);
    const metrics = await http.request((gym as InProcessGym).url(AGENT, '/aggregate_metrics'), {
      body: { verify_responses: [0, 1].map((rollout) => ({ reward: rollout, _ng_task_index: 0, _ng_rollout_index: rollout })) },
    });
    // The environment computes the metrics; the agent relays its answer.
    expect(metrics.status, metrics.text).toBe(200);
    expect(metrics.text).toContain('reward');
  });

  it('refuses a user prompt template without {instructions} at start-up', async () => {
    await expect(
      startInProcessGym({
        config: episodeConfig({ environment: 'example_session_state_mgmt', agentConfig: { user_prompt_template: 'Be a customer.' } }),
        definitions: { policy_model: echoPolicy().definition, user_model: echoPolicy().definition },
      }),
    ).rejects.toThrow(/user_prompt_template must use \{instructions\}/);
  });
});
