/**
 * The shared token: every server kind and the head server refuse a call without it or with a wrong one (401,
 * NGYM_UNAUTHORIZED) except the `GET /` health check, and our clients (collector, agents) send it.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { sharedHttpClient } from '../client/http-client.ts';
import { collectRollouts } from '../rollouts/collect.ts';
import { simpleAgentConfig } from '../testing/agent-config.ts';
import { type GymProcess, runCli, startGymProcess } from '../testing/cli-process.ts';
import { type InProcessGym, startInProcessGym } from '../gym/in-process.ts';
import { assistantMessage, modelResponse, scriptedModel } from './scripted-model.ts';
import { readJsonlRows } from '../testing/jsonl-rows.ts';
import { PACKAGE_ROOT } from '../util/package-root.ts';
import { defineResourcesServer } from './resources-server.ts';

const TOKEN = 'a-shared-token-of-the-test-0123456789';
const http = sharedHttpClient();
let gym: InProcessGym | undefined;
let process_: GymProcess | undefined;
afterEach(async () => {
  await gym?.close();
  await process_?.stop();
  gym = undefined;
  process_ = undefined;
});

const echo = defineResourcesServer({
  className: 'Echo',
  verifyRequest: z.looseObject({ answer: z.string() }),
  verify: () => ({ reward: 1 }),
});

describe('auth_token', () => {
  it('every server kind refuses a missing or wrong token with 401 and accepts the right one; GET / stays open', async () => {
    const config = { ...simpleAgentConfig({ resources: { name: 'env', implementation: 'echo' }, agent: 'env_agent', model: { implementation: 'scripted' } }), auth_token: TOKEN };
    const model = scriptedModel(() => [assistantMessage('ok')]);
    gym = await startInProcessGym({ config, definitions: { policy_model: model.definition, env: echo } });
    const row = { responses_create_params: { input: 'hi' }, answer: 'ok' };
    const calls = [
      ['env', '/verify', { ...row, response: modelResponse([]) }],
      ['env_agent', '/run', row],
      ['policy_model', '/v1/responses', { input: 'hi' }],
    ] as const;
    for (const [server, path, body] of calls) {
      const missing = await http.request(gym.url(server, path), { body });
      expect(missing.status, `${server} without a token`).toBe(401);
      expect(missing.headers['x-ngym-error-code']).toBe('NGYM_UNAUTHORIZED');
      expect(missing.json<{ detail: string }>().detail).toContain("requires a bearer token: send 'Authorization: Bearer <auth_token>'");
      const wrong = await http.request(gym.url(server, path), { body, headers: { authorization: `Bearer ${TOKEN.slice(0, -1)}x` } });
      expect(wrong.status, `${server} with a wrong token`).toBe(401);
      expect(wrong.json<{ detail: string }>().detail).toBe("The bearer token sent is not this server's auth_token.");
      const right = await http.request(gym.url(server, path), { body, headers: { authorization: `Bearer ${TOKEN}` } });
      expect(right.status, `${server} with the token: ${right.text}`).toBe(200);
      expect((await http.request(gym.url(server, '/'), { method: 'GET' })).status).toBe(200);
    }
    // The agent's own calls to the model and the resources server carried the token (the /run above scored).
    expect(model.calls.length).toBeGreaterThan(0);
    // The in-process client sends it too.
    expect((await gym.client.post('env_agent', '/run', row)).status).toBe(200);
  });

  it('ngym run beyond loopback makes and prints a token; the head server and collector need it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ngym-auth-'));
    const input = join(dir, 'in.jsonl');
    // A recorded example row, so replay_model has its answer.
    const example = readFileSync(join(PACKAGE_ROOT, 'resources_servers/example_single_tool_call/data/example.jsonl'), 'utf8').split('\n')[0] as string;
    writeFileSync(input, `${JSON.stringify({ ...JSON.parse(example), agent_ref: { type: 'responses_api_agents', name: 'example_single_tool_call_simple_agent' } })}\n`);
    process_ = await startGymProcess([
      '+config_paths=[resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml,responses_api_models/replay_model/configs/replay_model.yaml]',
      '+policy_model.responses_api_models.replay_model.rollouts_jsonl_fpath=resources_servers/example_single_tool_call/data/example_rollouts.jsonl',
      '+default_host=0.0.0.0',
    ]);
    const token = /Generated auth_token \(shown once\):\n {2}(\S+)\n/.exec(process_.stdout())?.[1];
    expect(token).toBeDefined();
    const head = `http://127.0.0.1:${process_.headPort}`;
    expect((await http.request(`${head}/`, { method: 'GET' })).status).toBe(200);
    expect((await http.request(`${head}/global_config_dict_yaml`, { method: 'GET' })).status).toBe(401);
    const config = await http.request(`${head}/global_config_dict_yaml`, { method: 'GET', headers: { authorization: `Bearer ${token}` } });
    expect(config.json<string>()).toContain('auth_token: <redacted>');

    const refused = await runCli(['collect', `+head_server={host: 127.0.0.1, port: ${process_.headPort}}`, `+input_jsonl_fpath=${input}`, `+output_jsonl_fpath=${join(dir, 'no.jsonl')}`]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('answered HTTP 401');
    const accepted = await runCli(['collect', `+head_server={host: 127.0.0.1, port: ${process_.headPort}}`, `+input_jsonl_fpath=${input}`, `+output_jsonl_fpath=${join(dir, 'cli.jsonl')}`, `+auth_token=${token}`]);
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(readJsonlRows(join(dir, 'cli.jsonl'))).toHaveLength(1);
    const summary = await collectRollouts({ headServer: { host: '127.0.0.1', port: process_.headPort }, authToken: token, input, outputPath: join(dir, 'out.jsonl') }).done();
    expect(summary.completed).toBe(1);
    expect(readJsonlRows(join(dir, 'out.jsonl'))[0]).toMatchObject({ reward: 1 });
  });
});
