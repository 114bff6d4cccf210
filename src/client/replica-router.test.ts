import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CookieJar } from './cookies.ts';
import { ServerClient } from './server-client.ts';
import { globalConfigFromDict } from '../config/global-config.ts';
import { createHeadServerApp } from '../gym/head-server.ts';
import type { ReplicaInfo } from '../protocol/replicas.ts';
import { ReplicaRegistry } from '../gym/replica-registry.ts';
import { REPLICA_COOKIE_PREFIX, ReplicaSet } from './replica-router.ts';
import { type BoundServer, bindServer } from '../server/serve.ts';

function info(url: string, up = true): ReplicaInfo {
  return { name: 'env', server_type: 'resources_servers', url, h2c_url: null, pid: null, origin: 'local', up };
}

describe('ReplicaSet', () => {
  it('picks the up replica with the fewest calls in flight, in turn on ties, and binds a session to it by cookie', () => {
    const set = new ReplicaSet('env');
    set.update([info('http://127.0.0.1:1'), info('http://127.0.0.1:2'), info('http://127.0.0.1:3', false)]);
    const picks = [set.choose(), set.choose(), set.choose(), set.choose()].map((replica) => replica?.id);
    expect(picks).toEqual(['127.0.0.1:1', '127.0.0.1:2', '127.0.0.1:1', '127.0.0.1:2']);
    const [first, second] = set.replicas;
    (first as { inFlight: number }).inFlight = 3;
    expect(set.choose()?.id).toBe('127.0.0.1:2');
    expect(set.choose()?.id).toBe('127.0.0.1:2');

    const jar = new CookieJar();
    expect(set.boundReplica(jar)).toBeUndefined();
    set.bind(jar, second as never);
    expect(jar.get(`${REPLICA_COOKIE_PREFIX}env`)).toBe('127.0.0.1:2');
    // The binding travels with the cookies: a jar rebuilt from the header finds the same replica.
    expect(set.boundReplica(CookieJar.fromHeader(jar.toHeader()))).toBe(second);
    set.markDown(second as never, 'connection refused');
    expect(set.boundReplica(jar)).toMatch(/Replica http:\/\/127\.0\.0\.1:2 of server 'env', which holds this session, is out of rotation \(connection refused\)/);
    set.update([info('http://127.0.0.1:1')]);
    expect(set.boundReplica(jar)).toMatch(/Replica 127\.0\.0\.1:2 .* is no longer listed/);
    expect(set.choose(new Set(set.replicas))).toBeUndefined();
  });
});

describe('ReplicaRegistry', () => {
  it('takes registrations for servers the head has, refuses others with a reason, and forgets lapsed ones', () => {
    let now = 0;
    const registry = new ReplicaRegistry(() => [info('http://127.0.0.1:1')], () => [{ name: 'env', serverType: 'resources_servers' }], () => now);
    expect(registry.register({ name: 'env', server_type: 'resources_servers', url: 'http://10.0.0.2:5' })).toEqual({ ok: true });
    expect(registry.register({ name: 'evn', server_type: 'resources_servers', url: 'http://10.0.0.2:6' })).toMatchObject({
      ok: false,
      status: 404,
      detail: expect.stringMatching(/no resources_servers named 'evn'.*Its servers: env \(resources_servers\)/),
    });
    expect(registry.register({ name: 'env', server_type: 'resources_servers', url: 'not a url' })).toMatchObject({ ok: false, status: 422, detail: expect.stringMatching(/^url:/) });
    expect(registry.listing().env?.map((replica) => [replica.url, replica.origin])).toEqual([
      ['http://127.0.0.1:1', 'local'],
      ['http://10.0.0.2:5', 'registered'],
    ]);
    now = 60_000;
    expect(registry.listing().env?.map((replica) => replica.url)).toEqual(['http://127.0.0.1:1']);
  });
});

describe('ServerClient over replicas (real servers, real head server)', () => {
  const servers: Server[] = [];
  let head: BoundServer | undefined;
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    await head?.close();
  });

  async function replica(): Promise<{ server: Server; url: string }> {
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  }

  it('spreads new sessions, keeps each on its replica, and fails a session whose replica died while new ones go elsewhere', async () => {
    const [a, b] = [await replica(), await replica()];
    const config = globalConfigFromDict({
      env: { resources_servers: { example: { entrypoint: 'app.ts', host: '127.0.0.1', port: Number(new URL(a.url).port), domain: 'agent' } } },
      single: { resources_servers: { example: { entrypoint: 'app.ts', host: '127.0.0.1', port: Number(new URL(a.url).port), domain: 'agent' } } },
    });
    const registry = new ReplicaRegistry(() => [info(a.url), info(b.url), { ...info(a.url), name: 'single' }], () => config.servers.map((s) => ({ name: s.name, serverType: s.serverType })));
    head = await bindServer({ host: '127.0.0.1', port: 0 });
    head.attach(createHeadServerApp(config, () => [], registry));
    const client = new ServerClient(config);
    client.routeReplicasVia(head.url);

    const jars = Array.from({ length: 4 }, () => new CookieJar());
    const first = await Promise.all(jars.map((cookies) => client.post('env', '/seed_session', {}, { cookies })));
    const origins = first.map((response) => new URL(response.url).origin);
    expect(new Set(origins)).toEqual(new Set([a.url, b.url]));
    for (const [index, cookies] of jars.entries()) {
      expect(new URL((await client.post('env', '/verify', {}, { cookies })).url).origin).toBe(origins[index]);
    }
    // A server of one instance is not routed: no cookie of ours in its sessions.
    const plain = new CookieJar();
    await client.post('single', '/seed_session', {}, { cookies: plain });
    expect(plain.size).toBe(0);

    const dead = servers[1] as Server;
    dead.closeAllConnections();
    await new Promise((resolve) => dead.close(resolve));
    const onDead = jars[origins.indexOf(b.url)] as CookieJar;
    await expect(client.post('env', '/verify', {}, { cookies: onDead })).rejects.toThrow(/which holds this session, is unreachable: the session's state is lost with it/);
    for (let session = 0; session < 4; session++) {
      expect(new URL((await client.post('env', '/seed_session', {}, { cookies: new CookieJar() })).url).origin).toBe(a.url);
    }
    await expect(client.post('env', '/verify', {}, { cookies: onDead })).rejects.toThrow(/is out of rotation/);
  });
});
