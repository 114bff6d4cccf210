import { afterEach, describe, expect, it } from 'vitest';
import { sharedHttpClient } from 'ngym';
import {
  assistantMessage,
  functionCall,
  type InProcessGym,
  type ScriptedModel,
  scriptedModel,
  startInProcessGym,
  usage,
} from 'ngym/testing';

const AGENT = 'non_executing_simple_agent';
const http = sharedHttpClient();
let gym: InProcessGym | undefined;
afterEach(async () => {
  await gym?.close();
  gym = undefined;
});

/** The shipped config, its agent pointed at `environment` (an instance named `env`) and a scripted policy model. */
async function start(environment: string, model: ScriptedModel) {
  gym = await startInProcessGym({
    overrides: [
      `+config_paths=[responses_api_agents/${AGENT}/configs/${AGENT}.yaml]`,
      `++${AGENT}.responses_api_agents.${AGENT}.resources_server.name=env`,
      `+env.resources_servers.${environment}.entrypoint=app.ts`,
      `+env.resources_servers.${environment}.domain=agent`,
      '+policy_model.responses_api_models.scripted.entrypoint=app.ts',
    ],
    definitions: { policy_model: model.definition },
  });
  return gym;
}

async function post(path: string, body: unknown) {
  const answer = await http.request(gym?.url(AGENT, path) as string, { body });
  return { status: answer.status, body: answer.json<Record<string, any>>(), text: answer.text };
}

describe('non_executing_simple_agent', () => {
  it('verifies the model\'s tool calls as its answer without running them, in the seeded session', async () => {
    const calls = [functionCall('increment_counter', { count: 5 }, 'c1'), functionCall('get_counter_value', {}, 'c2')];
    const model = scriptedModel(() => ({ output: calls, usage: usage(12, 7) }));
    await start('example_session_state_mgmt', model);
    // Seeded at 3: the counter stays 3 only if increment_counter never ran, and verify reads it only in the seeded session.
    const result = await post('/run', { responses_create_params: { input: 'add 5' }, initial_count: 3, expected_count: 3, _rowidx: 4 });
    expect(result.status, result.text).toBe(200);
    expect(result.body).toMatchObject({ reward: 1, _rowidx: 4, initial_count: 3 });
    expect(result.body.response.output).toEqual(calls);
    expect(result.body.response.usage).toMatchObject({ input_tokens: 12, output_tokens: 7, total_tokens: 19 });
    expect(model.calls).toHaveLength(1);

    // The same row with a count the tool would have produced scores 0.
    expect((await post('/run', { responses_create_params: { input: 'add 5' }, initial_count: 3, expected_count: 8 })).body.reward).toBe(0);
  });

  it('scores a tool call as the final answer (example_single_tool_call), and a text answer as it is', async () => {
    const model = scriptedModel(({ index }) => (index === 0 ? [functionCall('get_weather', { city: 'Oslo' }, 'c1')] : [assistantMessage('It is cold.')]));
    await start('example_single_tool_call', model);
    const called = await post('/run', { responses_create_params: { input: 'weather in Oslo?' } });
    expect(called.body).toMatchObject({ reward: 1 });
    expect(called.body.response.output.map((item: any) => item.type)).toEqual(['function_call']);
    const answered = await post('/run', { responses_create_params: { input: 'weather in Oslo?' } });
    expect(answered.body).toMatchObject({ reward: 0 });
    expect(model.calls).toHaveLength(2);
  });

  it('/v1/responses sends a string input as a user message and returns the model response unchanged', async () => {
    const tokenFields = { prompt_token_ids: [1, 2], generation_token_ids: [3, 151645], generation_log_probs: [-0.5, -0.25] };
    const model = scriptedModel(() => ({ output: [functionCall('get_weather', { city: 'Oslo' }, 'c1', tokenFields)], model: 'policy-x', status: 'completed' }));
    await start('example_single_tool_call', model);
    const result = await post('/v1/responses', { input: 'weather in Oslo?', temperature: 0.5 });
    expect(result.status, result.text).toBe(200);
    expect(model.calls[0]?.params).toMatchObject({ input: [{ role: 'user', content: 'weather in Oslo?' }], temperature: 0.5 });
    expect(result.body).toMatchObject({ model: 'policy-x', status: 'completed', output: [{ type: 'function_call', name: 'get_weather', arguments: '{"city":"Oslo"}', ...tokenFields }] });
    expect(result.body.output).toHaveLength(1);
    const refused = await post('/v1/responses', { input: 'hi', seed: 3 });
    expect(refused.status).toBe(422);
  });

  it('relays /aggregate_metrics to its resources server', async () => {
    await start('example_single_tool_call', scriptedModel(() => []));
    const result = await post('/aggregate_metrics', { verify_responses: [{ _ng_task_index: 0, _ng_rollout_index: 0, reward: 1 }, { _ng_task_index: 1, _ng_rollout_index: 0, reward: 0 }] });
    expect(result.status, result.text).toBe(200);
    expect(result.body.agent_metrics).toMatchObject({ 'mean/reward': 0.5 });
  });
});
