import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ConfigDict,
  defineModelServer,
  defineResourcesServer,
  ERROR_CODE_HEADER,
  NgymError,
  sharedHttpClient,
} from 'ngym';
import {
  assistantMessage,
  functionCall,
  type InProcessGym,
  scriptedModel,
  simpleAgentConfig,
  startInProcessGym,
  usage,
} from 'ngym/testing';

/** `resources` is `{<implementation>: <its config>}`; the agent is `env_agent` over `env`, with a scripted model. */
const agentConfig = (resources: Record<string, ConfigDict>, agentConfig: ConfigDict = {}): ConfigDict => {
  const [implementation, config] = Object.entries(resources)[0] as [string, ConfigDict];
  return simpleAgentConfig({ resources: { name: 'env', implementation, config }, agent: 'env_agent', agentConfig, model: { implementation: 'scripted' } });
};
const counter = { example_session_state_mgmt: { entrypoint: 'app.ts', domain: 'agent' } };
const weather = { example_single_tool_call: { entrypoint: 'app.ts', domain: 'agent' } };

const http = sharedHttpClient();
let gym: InProcessGym | undefined;
let fake: Server | undefined;
afterEach(async () => {
  await gym?.close();
  gym = undefined;
  await new Promise((resolve) => (fake ? fake.close(resolve) : resolve(undefined)));
  fake = undefined;
});

async function run(row: Record<string, unknown>) {
  const response = await http.request(gym?.url('env_agent', '/run') as string, { body: row });
  return { status: response.status, body: response.json<Record<string, any>>(), text: response.text };
}

describe('simple_agent', () => {
  it("answers a model server's 4xx as a 502 naming that server, its status and its message, marked not retryable", async () => {
    for (const status of [404, 409]) {
      const refusing = defineModelServer({
        className: 'RefusingModel',
        responses: () => {
          throw new NgymError('NGYM_INVALID_REQUEST', `The model \`gpt-x\` does not exist (${status})`, { status });
        },
      });
      gym = await startInProcessGym({ config: agentConfig(weather), definitions: { policy_model: refusing } });
      const response = await http.request(gym.url('env_agent', '/run'), { body: { responses_create_params: { input: 'weather in Paris?' } } });
      expect(response.status).toBe(502);
      expect(response.headers[ERROR_CODE_HEADER]).toBe('NGYM_UPSTREAM_REJECTED');
      expect(response.json<{ detail: string }>().detail).toMatch(new RegExp(`^Server 'policy_model' \\(http://.*/v1/responses\\) answered HTTP ${status}: The model \`gpt-x\` does not exist`));
      await gym.close();
      gym = undefined;
    }
  });

  it('carries the session cookie from seed_session through tools to verify, keeps row fields, sums usage', async () => {
    const model = scriptedModel(({ index }) => {
      if (index === 0) return { output: [functionCall('increment_counter', { count: 1 }, 'c1'), functionCall('increment_counter', { count: 2 }, 'c2')], usage: usage(10, 3) };
      if (index === 1) return { output: [functionCall('get_counter_value', {}, 'c3')], usage: usage(20, 4) };
      return { output: [assistantMessage('The count is 6.')], usage: usage(30, 5) };
    });
    gym = await startInProcessGym({ config: agentConfig(counter), definitions: { policy_model: model.definition } });
    const result = await run({
      responses_create_params: { input: 'add 1 then add 2 then get the count' },
      initial_count: 3,
      expected_count: 6,
      _rowidx: 7,
      agent_ref: { type: 'responses_api_agents', name: 'env_agent' },
    });
    expect(result.status, result.text).toBe(200);
    expect(result.body).toMatchObject({ reward: 1, _rowidx: 7, initial_count: 3, agent_ref: { name: 'env_agent' } });
    const outputs = result.body.response.output.filter((item: any) => item.type === 'function_call_output').map((item: any) => item.output);
    expect(outputs).toEqual(['{"success": true}', '{"success": true}', '{"count": 6}']);
    expect(result.body.response.usage).toMatchObject({ input_tokens: 60, output_tokens: 12, total_tokens: 72 });
    // The model server's own session cookie is forwarded across the rollout's calls.
    expect(new Set(model.calls.map((call) => call.sessionId)).size).toBe(1);
    expect(model.calls[1]?.input.at(-1)).toEqual({ type: 'function_call_output', call_id: 'c2', output: '{"success": true}' });
  });

  it('turns invalid tool-call arguments into a tool error the model reads, and goes on', async () => {
    const model = scriptedModel(({ index }) =>
      index === 0 ? [functionCall('get_weather', '{"city": "Par', 'bad')] : [assistantMessage('Sorry, let me try again later.')],
    );
    gym = await startInProcessGym({ config: agentConfig(weather), definitions: { policy_model: model.definition } });
    const result = await run({ responses_create_params: { input: 'weather in Paris?' } });
    expect(result.status, result.text).toBe(200);
    const toolOutput = result.body.response.output.find((item: any) => item.type === 'function_call_output');
    expect(toolOutput.call_id).toBe('bad');
    expect(JSON.parse(toolOutput.output).error).toMatch(/^Invalid tool call arguments: /);
    expect(model.calls).toHaveLength(2);
  });

  it('passes the environment error body (422) to the model when arguments do not fit the tool', async () => {
    const model = scriptedModel(({ index }) => (index === 0 ? [functionCall('get_weather', { town: 'Paris' }, 'c1')] : [assistantMessage('ok')]));
    gym = await startInProcessGym({ config: agentConfig(weather), definitions: { policy_model: model.definition } });
    const result = await run({ responses_create_params: { input: 'weather?' } });
    const toolOutput = JSON.parse(result.body.response.output[1].output);
    expect(toolOutput.detail.map((detail: any) => detail.loc)).toEqual([['body', 'city'], ['body', 'town']]);
  });

  it('passes training token fields through unchanged in both directions', async () => {
    const tokenFields = { prompt_token_ids: [1, 2, 3], generation_token_ids: [4, 5, 151645], generation_log_probs: [-0.5, -1e-7, -2.25] };
    const model = scriptedModel(({ index }) =>
      index === 0
        ? [{ id: 'rs_1', type: 'reasoning', summary: [{ type: 'summary_text', text: 'think' }] }, functionCall('get_weather', { city: 'Oslo' }, 'c1', tokenFields)]
        : [assistantMessage('Cold in Oslo.', { prompt_token_ids: [1, 2, 3, 4, 5, 151645, 9], generation_token_ids: [7], generation_log_probs: [-0.1] } as never)],
    );
    gym = await startInProcessGym({ config: agentConfig(weather), definitions: { policy_model: model.definition } });
    const result = await run({ responses_create_params: { input: 'weather in Oslo?' } });
    const [, call, , message] = result.body.response.output;
    expect(call).toMatchObject({ type: 'function_call', ...tokenFields });
    expect(message).toMatchObject({ generation_token_ids: [7], generation_log_probs: [-0.1] });
    // The second model call got the first call's items back, token fields included.
    expect(model.calls[1]?.input[2]).toMatchObject({ type: 'function_call', ...tokenFields });
  });

  it('rejects unknown top-level fields on /v1/responses with a 422 and keeps them on /run', async () => {
    const model = scriptedModel(() => [assistantMessage('hi')]);
    gym = await startInProcessGym({ config: agentConfig(weather), definitions: { policy_model: model.definition } });
    const rejected = await http.request(gym.url('env_agent', '/v1/responses'), { body: { input: 'hi', seed: 3 } });
    expect(rejected.status).toBe(422);
    expect(rejected.json()).toMatchObject({ detail: [{ type: 'extra_forbidden', loc: ['body', 'seed'] }] });
    const accepted = await run({ responses_create_params: { input: 'hi' }, seed: 3, nested: { a: [1] } });
    expect(accepted.body).toMatchObject({ seed: 3, nested: { a: [1] }, reward: 0 });
  });

  it('stops at max_steps and on an empty model output', async () => {
    const looping = scriptedModel(({ index }) => [functionCall('get_weather', { city: `C${index}` }, `c${index}`)]);
    gym = await startInProcessGym({ config: agentConfig(weather, { max_steps: 3 }), definitions: { policy_model: looping.definition } });
    const result = await run({ responses_create_params: { input: 'loop' } });
    expect(looping.calls).toHaveLength(3);
    expect(result.body.response.output).toHaveLength(6);
    await gym.close();

    const empty = scriptedModel(() => []);
    gym = await startInProcessGym({ config: agentConfig(weather), definitions: { policy_model: empty.definition } });
    expect((await run({ responses_create_params: { input: 'x' } })).status).toBe(200);
    expect(empty.calls).toHaveLength(1);
  });

  it('ends the rollout after a reasoning-only output, marked incomplete, as upstream 0.7.0 does (one model call, then verify)', async () => {
    const reasoningOnly = scriptedModel(() => [{ type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Thinking about Paris.' }] }]);
    gym = await startInProcessGym({ config: agentConfig(weather), definitions: { policy_model: reasoningOnly.definition } });
    const result = await run({ responses_create_params: { input: 'weather in Paris?' } });
    expect(result.status, result.text).toBe(200);
    expect(reasoningOnly.calls).toHaveLength(1);
    expect(result.body.reward).toBe(0);
    expect(result.body.response).toMatchObject({ status: 'incomplete', metadata: { ng_termination_reason: 'incomplete_reasoning' } });
    expect(result.body.response.output.map((item: any) => item.type)).toEqual(['reasoning']);
    await gym.close();

    const empty = scriptedModel(() => []);
    gym = await startInProcessGym({ config: agentConfig(weather), definitions: { policy_model: empty.definition } });
    const emptyResult = await run({ responses_create_params: { input: 'x' } });
    expect(emptyResult.body.response).toMatchObject({ status: 'incomplete', metadata: { ng_termination_reason: 'empty_output' } });
  });

  it('merges cookies: a tool error without a cookie does not lose the session (upstream-style server)', async () => {
    // A resources server that behaves like upstream FastAPI: a 500 carries no Set-Cookie.
    const sessions = new Map<string, number>();
    fake = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        const session = /RS=(\w+)/.exec(request.headers.cookie ?? '')?.[1];
        const send = (status: number, payload: unknown, cookie?: string) => {
          response.writeHead(status, { 'content-type': 'application/json', ...(cookie ? { 'set-cookie': `RS=${cookie}; Path=/` } : {}) });
          response.end(JSON.stringify(payload));
        };
        if (request.url === '/seed_session') {
          sessions.set('s1', 0);
          return send(200, {}, 's1');
        }
        if (request.url === '/explode') return send(500, "RuntimeError('boom')");
        if (request.url === '/bump' && session !== undefined) {
          sessions.set(session, (sessions.get(session) ?? 0) + 1);
          return send(200, { ok: true }, session);
        }
        if (request.url === '/verify') {
          const parsed = JSON.parse(body);
          return send(200, { ...parsed, reward: session === 's1' && sessions.get('s1') === 1 ? 1 : 0, session: session ?? null }, session);
        }
        return send(404, { detail: 'Not Found' });
      });
    });
    await new Promise<void>((resolve) => fake?.listen(0, '127.0.0.1', resolve));
    const model = scriptedModel(({ index }) =>
      index === 0 ? [functionCall('explode', {}, 'c1')] : index === 1 ? [functionCall('bump', {}, 'c2')] : [assistantMessage('done')],
    );
    gym = await startInProcessGym({
      config: agentConfig({ fake: { entrypoint: 'app.py', domain: 'other' } }),
      definitions: { policy_model: model.definition },
      external: { env: { host: '127.0.0.1', port: (fake.address() as AddressInfo).port } },
    });
    const result = await run({ responses_create_params: { input: 'go' } });
    expect(result.body).toMatchObject({ reward: 1, session: 's1' });
    expect(result.body.response.output[1].output).toBe('"RuntimeError(\'boom\')"');
  });

  it('propagates the error code of a failed verify (a judge failure) through /run', async () => {
    const judged = defineResourcesServer({
      className: 'Judged',
      verify: () => {
        throw new NgymError('NGYM_JUDGE_FAILED', 'the judge model answered HTTP 503', { status: 502, retryable: true });
      },
    });
    const model = scriptedModel(() => [assistantMessage('42')]);
    gym = await startInProcessGym({
      config: agentConfig({ judged: { entrypoint: 'app.ts', domain: 'other' } }),
      definitions: { policy_model: model.definition, env: judged },
    });
    const response = await http.request(gym.url('env_agent', '/run'), { body: { responses_create_params: { input: 'x' } } });
    expect(response.status).toBe(500);
    expect(response.headers[ERROR_CODE_HEADER]).toBe('NGYM_JUDGE_FAILED');
    expect(response.json<string>()).toContain('the judge model answered HTTP 503');
  });

  it('fails the rollout (no score) when the resources server is down', async () => {
    const model = scriptedModel(() => [functionCall('get_weather', { city: 'x' }, 'c1')]);
    gym = await startInProcessGym({
      config: agentConfig({ gone: { entrypoint: 'app.py', domain: 'other' } }),
      definitions: { policy_model: model.definition },
      external: { env: { host: '127.0.0.1', port: 1 } },
    });
    const result = await run({ responses_create_params: { input: 'x' } });
    expect(result.status).toBe(500);
    expect(result.text).toMatch(/Could not reach http:\/\/127\.0\.0\.1:1\/seed_session after 5 attempts/);
  });
});
