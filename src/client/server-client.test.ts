import { describe, expect, it } from 'vitest';
import { globalConfigFromDict } from '../config/global-config.ts';
import type { ConfigDict } from '../config/tree.ts';
import { ServerClient } from './server-client.ts';

const server = (type: string, extra: ConfigDict = {}): ConfigDict => ({ [type]: { impl: { entrypoint: 'app.ts', host: '127.0.0.1', port: 1, domain: 'other', ...extra } } });

describe('ServerClient timeouts per hop', () => {
  it("waits for a server its own request_timeout_seconds plus a margin, else its type's default", () => {
    const client = new ServerClient(
      globalConfigFromDict({
        env: server('resources_servers'),
        quick_env: server('resources_servers', { request_timeout_seconds: 60 }),
        endless_env: server('resources_servers', { request_timeout_seconds: null }),
        agent: server('responses_api_agents'),
        model: server('responses_api_models'),
      }),
    );
    // Verify and tool calls get 30 minutes; a rollout or a generation 3 hours.
    expect(client.timeoutFor('env')).toBe(1_805_000);
    expect(client.timeoutFor('quick_env')).toBe(65_000);
    expect(client.timeoutFor('endless_env')).toBeNull();
    expect(client.timeoutFor('agent')).toBe(10_805_000);
    expect(client.timeoutFor('model')).toBe(10_805_000);
  });

  it('lets the top-level request_timeout_seconds set every hop without its own', () => {
    const client = new ServerClient(globalConfigFromDict({ request_timeout_seconds: 100, env: server('resources_servers'), quick_env: server('resources_servers', { request_timeout_seconds: 5 }) }));
    expect(client.timeoutFor('env')).toBe(100_000);
    expect(client.timeoutFor('quick_env')).toBe(10_000);
    expect(client.defaultTimeoutMs).toBe(100_000);
  });
});
