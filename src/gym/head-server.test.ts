import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { ServerClient } from '../client/server-client.ts';
import { globalConfigFromDict } from '../config/global-config.ts';
import { createHeadServerApp } from './head-server.ts';
import { bindServer } from '../server/serve.ts';

describe('head server', () => {
  const config = globalConfigFromDict({
    policy_api_key: 'sk-secret',
    agent: { responses_api_agents: { simple_agent: { entrypoint: 'app.ts', host: '127.0.0.1', port: 4321 } } },
  });

  it('serves the config as a JSON string of YAML with secrets redacted, and liveness', async () => {
    const app = createHeadServerApp(config, () => []);
    expect(await (await app.request('/')).json()).toEqual({ status: 'ok' });
    const response = await app.request('/global_config_dict_yaml');
    expect(response.headers.get('content-type')).toContain('application/json');
    const text = await response.text();
    expect(text.startsWith('"')).toBe(true);
    const yaml = JSON.parse(text) as string;
    const parsed = YAML.parse(yaml);
    expect(parsed.policy_api_key).toBe('<redacted>');
    expect(parsed.agent.responses_api_agents.simple_agent).toMatchObject({ host: '127.0.0.1', port: 4321 });
    expect(yaml).not.toContain('sk-secret');
  });

  it('refuses a head_server.max_request_body_mb that is not a positive number of MiB, naming the key', () => {
    const bad = globalConfigFromDict({ head_server: { host: '127.0.0.1', port: 0, max_request_body_mb: 'lots' } });
    expect(() => createHeadServerApp(bad, () => [])).toThrow(/head_server\.max_request_body_mb must be a positive number of MiB or null, got "lots"/);
  });

  it('is what ServerClient.fromHeadServer reads to find servers by name', async () => {
    const head = await bindServer({ host: '127.0.0.1', port: 0 });
    head.attach(createHeadServerApp(config, () => []));
    const client = await ServerClient.fromHeadServer({ host: '127.0.0.1', port: head.port });
    expect(client.url('agent', '/run')).toBe('http://127.0.0.1:4321/run');
    expect(() => client.url('nope')).toThrow(/No server named 'nope'.*Available: agent/);
    await head.close();
    await expect(ServerClient.fromHeadServer({ host: '127.0.0.1', port: head.port })).rejects.toThrow(/Could not connect to the head server/);
  });
});
