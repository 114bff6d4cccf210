import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { globalConfigFromDict } from '../config/global-config.ts';
import { createHeadServerApp } from './head-server.ts';
import { launch } from './launcher.ts';
import { checkReachable, joinedHeadUrl } from './replica-join.ts';
import { ReplicaRegistry } from './replica-registry.ts';
import { type BoundServer, bindServer } from '../server/serve.ts';

const counter = (name: string) => ({
  [name]: { resources_servers: { example_session_state_mgmt: { entrypoint: 'app.ts', domain: 'agent', host: '127.0.0.1', port: 0 } } },
});

describe('joining another head server (+head_server.url)', () => {
  let head: BoundServer | undefined;
  afterEach(async () => {
    await head?.close();
    head = undefined;
  });

  it('reads head_server.url as an http origin, and refuses addresses other hosts cannot reach', () => {
    expect(joinedHeadUrl(undefined)).toBeUndefined();
    expect(joinedHeadUrl('http://10.0.0.1:11000')).toBe('http://10.0.0.1:11000');
    for (const bad of ['10.0.0.1:11000', 'http://10.0.0.1', 'http://10.0.0.1:11000/x', 11000]) {
      expect(() => joinedHeadUrl(bad)).toThrow(/head_server\.url must be the http:\/\/host:port of a running head server/);
    }
    expect(() => checkReachable('http://10.0.0.1:11000', 'env', '0.0.0.0')).toThrow(/Server 'env' listens on 0\.0\.0\.0.*\+default_host/);
    expect(() => checkReachable('http://10.0.0.1:11000', 'env', '127.0.0.1')).toThrow(/cannot reach/);
    expect(() => checkReachable('http://127.0.0.1:11000', 'env', '127.0.0.1')).not.toThrow();
  });

  it('fails before starting anything when the head server is unreachable', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const config = globalConfigFromDict({ head_server: { host: '127.0.0.1', port: 0, url: `http://127.0.0.1:${port}` }, ...counter('env') });
    await expect(launch({ globalConfig: config, output: () => {} })).rejects.toThrow(`Could not reach the head server at http://127.0.0.1:${port} (head_server.url)`);
  });

  it('stops when the head server has no server of that name, saying which it has', async () => {
    const headConfig = globalConfigFromDict({ ...counter('other_env') });
    head = await bindServer({ host: '127.0.0.1', port: 0 });
    head.attach(createHeadServerApp(headConfig, () => [], new ReplicaRegistry(() => [], () => [{ name: 'other_env', serverType: 'resources_servers' }])));
    const config = globalConfigFromDict({ head_server: { host: '127.0.0.1', port: 0, url: head.url }, ...counter('env') });
    await expect(launch({ globalConfig: config, output: () => {} })).rejects.toThrow(
      /refused replica http:\/\/127\.0\.0\.1:\d+ of 'env' \(HTTP 404\).*no resources_servers named 'env'.*Its servers: other_env \(resources_servers\)/,
    );
  }, 120_000);
});
