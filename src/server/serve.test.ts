import { request as httpRequest } from 'node:http';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { HttpClient } from '../client/http-client.ts';
import { bindServer } from './serve.ts';

/** An app that answers only once `expected` requests are in flight, reporting each one's HTTP version. */
function barrierApp(expected: number) {
  const waiting: (() => void)[] = [];
  const app = new Hono();
  app.post('/echo', async (context) => {
    const body = await context.req.text();
    if (waiting.length + 1 < expected) await new Promise<void>((resolve) => waiting.push(resolve));
    else for (const release of waiting.splice(0)) release();
    return context.json({ version: (context.env as { incoming: { httpVersion: string } }).incoming.httpVersion, body });
  });
  return app;
}

describe('serving', () => {
  it('answers HTTP/1.1 on its port and cleartext HTTP/2 on its h2c port, overflowing ngym traffic onto HTTP/2', async () => {
    const server = await bindServer({ http: { host: '127.0.0.1', port: 0 }, h2c: { host: '127.0.0.1', port: 0 } });
    server.attach(barrierApp(20));
    const client = new HttpClient({ http1ConnectionsPerServer: 4 });
    const multiplexOrigin = `http://127.0.0.1:${server.h2cPort}`;
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, index) => client.request(`${server.url}/echo`, { body: { index }, multiplexOrigin }).then((reply) => reply.json<{ version: string; body: string }>())),
    );
    const versions = replies.map((reply) => reply.version).sort();
    expect(versions.filter((version) => version === '1.1')).toHaveLength(4);
    expect(versions.filter((version) => version === '2.0')).toHaveLength(16);
    expect(replies.map((reply) => JSON.parse(reply.body).index).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, index) => index));
    await client.close();
    await server.close(1_000);
  });

  it('carries large bodies both ways at once over HTTP/2 without the two ends blocking each other', { timeout: 60_000 }, async () => {
    // Node stops reading a session while its own write is pending; with 16 MB windows on both ends, 4 concurrent
    // 2 MB echoes (or 3,000 of 3 KB) left both ends writing and neither reading, for ever.
    const server = await bindServer({ http: { host: '127.0.0.1', port: 0 }, h2c: { host: '127.0.0.1', port: 0 } });
    server.attach(new Hono().post('/echo', async (context) => context.text(await context.req.text())));
    const client = new HttpClient({ http1ConnectionsPerServer: 0 });
    const multiplexOrigin = `http://127.0.0.1:${server.h2cPort}`;
    for (const [count, size] of [
      [16, 2 * 1024 * 1024],
      [3000, 3000],
    ] as const) {
      const body = 'x'.repeat(size);
      const lengths = await Promise.all(Array.from({ length: count }, () => client.request(`${server.url}/echo`, { body, multiplexOrigin }).then((reply) => reply.text.length)));
      expect(lengths).toEqual(Array.from({ length: count }, () => size));
    }
    await client.close();
    await server.close(1_000);
  });

  it('spreads HTTP/2 streams over connections of at most 256 each, and drops the extra ones once idle', async () => {
    const server = await bindServer({ http: { host: '127.0.0.1', port: 0 }, h2c: { host: '127.0.0.1', port: 0 } });
    // Answers each burst once all its requests are in flight, with the client's port: one per connection.
    let expected = 600;
    const waiting: (() => void)[] = [];
    server.attach(
      new Hono().post('/port', async (context) => {
        if (waiting.length + 1 < expected) await new Promise<void>((resolve) => waiting.push(resolve));
        else for (const release of waiting.splice(0)) release();
        return context.json({ port: (context.env as { incoming: { socket: { remotePort: number } } }).incoming.socket.remotePort });
      }),
    );
    const client = new HttpClient({ http1ConnectionsPerServer: 0 });
    const multiplexOrigin = `http://127.0.0.1:${server.h2cPort}`;
    const burst = (count: number) => Promise.all(Array.from({ length: count }, () => client.request(`${server.url}/port`, { body: {}, multiplexOrigin }).then((reply) => reply.json<{ port: number }>().port)));
    const countsOf = (ports: number[]) => {
      const counts = new Map<number, number>();
      for (const port of ports) counts.set(port, (counts.get(port) ?? 0) + 1);
      return counts;
    };
    const first = countsOf(await burst(600));
    expect([...first.values()].sort((a, b) => b - a)).toEqual([256, 256, 88]);
    expected = 300;
    const second = countsOf(await burst(300));
    // The first connection is kept and filled again; the two extra ones were closed, so the rest go to a new one.
    const kept = [...second].find(([, count]) => count === 256)?.[0];
    expect(kept !== undefined && first.get(kept)).toBe(256);
    expect([...second.keys()].filter((port) => port !== kept && first.has(port))).toEqual([]);
    expect([...second.values()].sort((a, b) => b - a)).toEqual([256, 44]);
    await client.close();
    await server.close(1_000);
  });

  it('serves plain HTTP/1.1 clients (node:http, as Python clients speak)', async () => {
    const server = await bindServer({ host: '127.0.0.1', port: 0 });
    server.attach(new Hono().get('/', (context) => context.json({ status: 'ok' })));
    const body = await new Promise<string>((resolve, reject) => {
      const call = httpRequest(`${server.url}/`, (response) => {
        let text = '';
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => resolve(text));
      });
      call.on('error', reject);
      call.end();
    });
    expect(JSON.parse(body)).toEqual({ status: 'ok' });
    await server.close(1_000);
  });

  it('lets an in-flight request finish when closing, then refuses new connections', async () => {
    const server = await bindServer({ host: '127.0.0.1', port: 0 });
    let release: (() => void) | undefined;
    const started = new Promise<void>((resolve) => {
      server.attach(
        new Hono().post('/slow', async (context) => {
          resolve();
          await new Promise<void>((done) => (release = done));
          return context.json({ finished: true });
        }),
      );
    });
    const client = new HttpClient();
    const pending = client.request(`${server.url}/slow`, { body: {} });
    await started;
    const closing = server.close(10_000);
    release?.();
    expect((await pending).json()).toEqual({ finished: true });
    await closing;
    await expect(client.request(`${server.url}/slow`, { body: {}, connectionRetries: 0 })).rejects.toMatchObject({ code: 'NGYM_UPSTREAM_CONNECTION' });
    await client.close();
  });
});
