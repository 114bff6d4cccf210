/** Prometheus `GET /metrics` of running servers: the figures move with the requests they answer. */
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { sharedHttpClient } from '../client/http-client.ts';
import { type InProcessGym, startInProcessGym } from '../gym/in-process.ts';
import { ERROR_CODE_HEADER } from '../errors.ts';
import { defineResourcesServer } from './resources-server.ts';

let release: () => void = () => {};
const echo = defineResourcesServer({
  className: 'EchoServer',
  tools: {
    echo: { parameters: z.strictObject({ text: z.string() }), handler: ({ text }) => ({ text }) },
    wait: { parameters: z.object({}), handler: () => new Promise((resolve) => (release = () => resolve({ waited: true }))) },
    fail: {
      parameters: z.object({}),
      handler: () => {
        throw new Error('broken');
      },
    },
  },
  verify: () => ({ reward: 1 }),
});

const http = sharedHttpClient();
let gym: InProcessGym | undefined;
afterEach(async () => {
  release();
  await gym?.close();
  gym = undefined;
});

function startEcho(extra: Record<string, unknown> = {}): Promise<InProcessGym> {
  return startInProcessGym({ config: { echo: { resources_servers: { echo: { entrypoint: 'app.ts', domain: 'other' } } }, ...extra }, definitions: { echo } });
}

/** The value of the sample `name` whose labels include `labels` (0 when there is none yet). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match?.[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((pair) => [pair[1], pair[2]]));
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[3]);
  }
  return 0;
}

async function scrape(url: string, headers?: Record<string, string>): Promise<string> {
  const response = await http.request(`${url}/metrics`, { headers });
  expect(response.status).toBe(200);
  expect(response.headers['content-type']).toContain('text/plain');
  return response.text;
}

describe('GET /metrics', () => {
  it('counts requests per route, their durations and failures by kind', async () => {
    gym = await startEcho();
    const url = gym.url('echo');
    const before = await scrape(url);
    const ok = { http_request_method: 'POST', http_route: '/echo', http_response_status_code: '200' };
    for (const text of ['a', 'b']) expect((await http.request(`${url}/echo`, { body: { text } })).status).toBe(200);
    const refused = await http.request(`${url}/echo`, { body: { words: 1 } });
    const broken = await http.request(`${url}/fail`, { body: {} });
    expect([refused.status, broken.status]).toEqual([422, 500]);
    const after = await scrape(url);

    expect(sample(after, 'http_server_request_duration_seconds_count', ok) - sample(before, 'http_server_request_duration_seconds_count', ok)).toBe(2);
    expect(sample(after, 'http_server_request_duration_seconds_sum', ok)).toBeGreaterThan(0);
    expect(sample(after, 'http_server_request_duration_seconds_bucket', { ...ok, le: '+Inf' })).toBe(sample(after, 'http_server_request_duration_seconds_count', ok));
    expect(sample(after, 'gym_server_request_failures_total', { http_route: '/echo', error_type: String(refused.headers[ERROR_CODE_HEADER]) })).toBe(1);
    expect(sample(after, 'gym_server_request_failures_total', { http_route: '/fail', error_type: String(broken.headers[ERROR_CODE_HEADER]) })).toBe(1);
    // The scrapes themselves are requests, one of them in flight while it is answered.
    expect(sample(after, 'http_server_request_duration_seconds_count', { http_route: '/metrics' })).toBe(1);
    expect(sample(after, 'http_server_active_requests', { http_request_method: 'GET' })).toBe(1);
    // The process's own: memory, heap, event-loop delay.
    expect(sample(after, 'process_resident_memory_bytes')).toBeGreaterThan(10 * 2 ** 20);
    expect(sample(after, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(after).toMatch(/^nodejs_eventloop_lag_p99_seconds \S+$/m);
    expect(sample(after, 'gym_tracing_dropped_spans_total')).toBe(0);
  });

  it('shows the requests in flight', async () => {
    gym = await startEcho();
    const url = gym.url('echo');
    const waiting = http.request(`${url}/wait`, { body: {} });
    // The tool has the request once the gauge says so: poll the scrape (bounded), no sleep.
    let during = '';
    for (let tries = 0; tries < 200 && sample(during, 'http_server_active_requests', { http_request_method: 'POST' }) !== 1; tries++) during = await scrape(url);
    expect(sample(during, 'http_server_active_requests', { http_request_method: 'POST' })).toBe(1);
    release();
    expect((await waiting).status).toBe(200);
    expect(sample(await scrape(url), 'http_server_active_requests', { http_request_method: 'POST' })).toBe(0);
  });

  it('asks for the bearer token like every route but GET /, and is gone with metrics_enabled: false', async () => {
    gym = await startEcho({ auth_token: 'open-sesame-0123456789' });
    expect((await http.request(`${gym.url('echo')}/metrics`)).status).toBe(401);
    expect(sample(await scrape(gym.url('echo'), { authorization: 'Bearer open-sesame-0123456789' }), 'http_server_request_duration_seconds_count', { http_route: '', http_response_status_code: '401' })).toBe(1);
    await gym.close();
    gym = await startEcho({ telemetry: { metrics_enabled: false } });
    expect((await http.request(`${gym.url('echo')}/metrics`)).status).toBe(404);
  });

  it('is served by the head server too', async () => {
    gym = await startEcho();
    expect((await http.request(`${gym.headUrl}/server_instances`)).status).toBe(200);
    expect(sample(await scrape(gym.headUrl), 'http_server_request_duration_seconds_count', { http_route: '/server_instances', http_response_status_code: '200' })).toBe(1);
  });
});
