/**
 * Prometheus `GET /metrics` on a Python server under `ngym run` (python-server-metrics.py, wrapped around the app by
 * python-child.py): the counts and buckets move with the requests it answers, the exposition parses with
 * prometheus_client's own parser, its names, labels and help texts are those of ngym's TypeScript servers, it needs
 * the run's auth_token, a caller who hangs up counts as 499, an app's own /metrics wins, an import-string app says it
 * has none, and `telemetry.metrics_enabled: false` turns it off.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ServerMetrics } from '../telemetry/server-metrics.ts';
import { startGymProcess } from '../testing/cli-process.ts';
import { upstreamWheel } from '../testing/upstream-wheel.ts';

const wheel = upstreamWheel();
const TOKEN = 'python-metrics-test-token-0123';

// How a server finds its host and port in the config ngym run hands it.
const ENTRY = (name: string) => `
import os, yaml
entry = yaml.safe_load(os.environ["NEMO_GYM_CONFIG_DICT"])[os.environ["NEMO_GYM_CONFIG_PATH"]]["resources_servers"]["${name}"]
`;

const SERVERS: Record<string, string> = {
  // /block holds the event loop for 300 ms, as a synchronous call in an async handler does; /wait waits until its
  // caller hangs up, when upstream's middleware cancels it.
  pymetrics: `${ENTRY('pymetrics')}
import asyncio, time, uvicorn
from fastapi import FastAPI, Response
from nemo_gym.server_utils import ClientDisconnectCancellationMiddleware
app = FastAPI()
app.add_middleware(ClientDisconnectCancellationMiddleware)

@app.get("/")
async def health():
    return {"status": "ok"}

@app.get("/items/{item_id}")
async def item(item_id: int):
    return {"item": item_id}

@app.post("/fail")
async def fail():
    return Response(status_code=503, headers={"x-ngym-error-code": "NGYM_TEST_FAILURE"})

@app.post("/block")
async def block():
    time.sleep(0.3)
    return {}

@app.post("/wait")
async def wait():
    await asyncio.sleep(600)
    return {}

uvicorn.run(app=app, host=entry["host"], port=entry["port"], log_level="warning")
`,
  ownmetrics: `${ENTRY('ownmetrics')}
import uvicorn
from fastapi import FastAPI
from fastapi.responses import PlainTextResponse
app = FastAPI()

@app.get("/metrics", response_class=PlainTextResponse)
async def metrics():
    return "own_metric 1\\n"

uvicorn.run(app=app, host=entry["host"], port=entry["port"], log_level="warning")
`,
  // An import string, as upstream's servers with several workers hand uvicorn.run.
  stringapp: `${ENTRY('stringapp')}
import uvicorn
from fastapi import FastAPI
app = FastAPI()

if __name__ == "__main__":
    uvicorn.run("app:app", host=entry["host"], port=entry["port"], workers=1, log_level="warning")
`,
};

function project(names: string[]): string {
  const root = mkdtempSync(join(tmpdir(), 'ngym-python-metrics-'));
  let config = `python_executable: ${wheel.python}\n`;
  for (const name of names) {
    mkdirSync(join(root, 'resources_servers', name), { recursive: true });
    writeFileSync(join(root, 'resources_servers', name, 'app.py'), SERVERS[name] as string);
    writeFileSync(join(root, 'resources_servers', name, 'requirements.txt'), 'fastapi\npyyaml\nuvicorn\n');
    config += `${name}:\n  resources_servers:\n    ${name}:\n      entrypoint: app.py\n      domain: other\n`;
  }
  writeFileSync(join(root, 'fixture.yaml'), config);
  return root;
}

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number | string;
}
interface Family {
  name: string;
  type: string;
  documentation: string;
  samples: Sample[];
}

// prometheus_client's parser, which refuses what Prometheus would (prom-client has none).
const PARSE = `
import json, math, sys
from prometheus_client.parser import text_string_to_metric_families
print(json.dumps([
    {"name": family.name, "type": family.type, "documentation": family.documentation,
     "samples": [{"name": s.name, "labels": s.labels, "value": s.value if math.isfinite(s.value) else str(s.value)} for s in family.samples]}
    for family in text_string_to_metric_families(sys.stdin.read())
]))
`;

function parseExposition(text: string): Map<string, Family> {
  const parsed = spawnSync(wheel.python, ['-c', PARSE], { input: text, encoding: 'utf8' });
  expect(parsed.status, parsed.stderr).toBe(0);
  return new Map((JSON.parse(parsed.stdout) as Family[]).map((family) => [family.name, family]));
}

function sampleValue(families: Map<string, Family>, family: string, sample: string, labels: Record<string, string> = {}): number | string | undefined {
  return families.get(family)?.samples.find((candidate) => candidate.name === sample && Object.entries(labels).every(([key, value]) => candidate.labels[key] === value))?.value;
}

function portOf(stdout: string, name: string): string {
  const port = new RegExp(`^${name}\\s.*?http://127\\.0\\.0\\.1:(\\d+)`, 'm').exec(stdout)?.[1];
  expect(port, stdout).toBeDefined();
  return port as string;
}

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

describe.skipIf(wheel.skipReason !== null)('GET /metrics on a Python server under ngym run', () => {
  it('counts requests per route, parses as Prometheus text, and matches the TypeScript servers', { timeout: 120_000 }, async () => {
    const root = project(['pymetrics', 'ownmetrics', 'stringapp']);
    roots.push(root);
    const gym = await startGymProcess(['+config_paths=[fixture.yaml]', `+auth_token=${TOKEN}`], { cwd: root });
    try {
      // Printed just after the table.
      await expect.poll(() => gym.stdout()).toContain('Metrics: Prometheus GET /metrics on every server above (Python ones too)');
      const base = `http://127.0.0.1:${portOf(gym.stdout(), 'pymetrics')}`;
      const authorization = { authorization: `Bearer ${TOKEN}` };
      const scrape = async () => {
        const response = await fetch(`${base}/metrics`, { headers: authorization });
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
        return parseExposition(await response.text());
      };

      // The TypeScript servers' rule: no token or a wrong one is refused, naming the problem.
      const missing = await fetch(`${base}/metrics`);
      expect(missing.status).toBe(401);
      expect(missing.headers.get('x-ngym-error-code')).toBe('NGYM_UNAUTHORIZED');
      expect(((await missing.json()) as { detail: string }).detail).toContain("send 'Authorization: Bearer <auth_token>'");
      const wrong = await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer not-the-token' } });
      expect(wrong.status).toBe(401);
      expect(((await wrong.json()) as { detail: string }).detail).toBe("The bearer token sent is not this server's auth_token.");

      const before = await scrape();
      const items = { http_request_method: 'GET', http_route: '/items/{item_id}', http_response_status_code: '200' };
      expect(sampleValue(before, 'http_server_request_duration_seconds', 'http_server_request_duration_seconds_count', items)).toBeUndefined();

      for (const id of [1, 2, 3]) expect((await fetch(`${base}/items/${id}`)).status).toBe(200);
      expect((await fetch(`${base}/fail`, { method: 'POST' })).status).toBe(503);
      expect((await fetch(`${base}/nowhere`)).status).toBe(404);
      expect((await fetch(`${base}/block`, { method: 'POST' })).status).toBe(200);
      const after = await scrape();

      const duration = 'http_server_request_duration_seconds';
      expect(sampleValue(after, duration, `${duration}_count`, items)).toBe(3);
      expect(sampleValue(after, duration, `${duration}_bucket`, { ...items, le: '+Inf' })).toBe(3);
      expect(sampleValue(after, duration, `${duration}_bucket`, { ...items, le: '3600' })).toBe(3);
      // /block took 300 ms: past the 0.25 s bucket, inside the 0.5 s one.
      const blocked = { http_request_method: 'POST', http_route: '/block', http_response_status_code: '200' };
      expect(sampleValue(after, duration, `${duration}_bucket`, { ...blocked, le: '0.25' })).toBe(0);
      expect(sampleValue(after, duration, `${duration}_bucket`, { ...blocked, le: '0.5' })).toBe(1);
      expect(sampleValue(after, duration, `${duration}_sum`, blocked)).toBeGreaterThanOrEqual(0.3);
      // Buckets are cumulative.
      for (const labels of [items, blocked]) {
        const counts = (after.get(duration)?.samples ?? [])
          .filter((sample) => sample.name === `${duration}_bucket` && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
          .map((sample) => Number(sample.value));
        expect(counts).toHaveLength(20);
        expect(counts).toEqual([...counts].sort((a, b) => a - b));
      }
      // The previous scrape and the refused ones are measured too, under the route they asked for.
      expect(sampleValue(after, duration, `${duration}_count`, { http_route: '/metrics', http_response_status_code: '200' })).toBe(1);
      expect(sampleValue(after, duration, `${duration}_count`, { http_route: '/metrics', http_response_status_code: '401' })).toBe(2);

      const failures = 'gym_server_request_failures';
      expect(sampleValue(after, failures, `${failures}_total`, { http_route: '/fail', error_type: 'NGYM_TEST_FAILURE' })).toBe(1);
      expect(sampleValue(after, failures, `${failures}_total`, { http_route: '', error_type: '404' })).toBe(1);
      expect(sampleValue(after, failures, `${failures}_total`, { http_route: '/metrics', error_type: 'NGYM_UNAUTHORIZED' })).toBe(2);
      // This scrape is the request in flight.
      expect(sampleValue(after, 'http_server_active_requests', 'http_server_active_requests', { http_request_method: 'GET' })).toBe(1);
      expect(sampleValue(after, 'http_server_active_requests', 'http_server_active_requests', { http_request_method: 'POST' })).toBe(0);
      // /block held the loop for 300 ms since the last scrape.
      expect(Number(sampleValue(after, 'python_eventloop_lag_max_seconds', 'python_eventloop_lag_max_seconds'))).toBeGreaterThanOrEqual(0.15);
      expect(Number(sampleValue(after, 'process_resident_memory_bytes', 'process_resident_memory_bytes'))).toBeGreaterThan(10 * 2 ** 20);
      expect(Number(sampleValue(after, 'process_cpu_seconds', 'process_cpu_seconds_total'))).toBeGreaterThan(0);
      // No memory_budget on this server: no admission metrics.
      expect(after.has('gym_admission_waits')).toBe(false);

      // The same families as a TypeScript server's, with the same types, help texts and label names.
      const typescript = new ServerMetrics();
      typescript.requestStarted('GET');
      typescript.requestFinished({ method: 'GET', route: '/run', status: 500, errorType: 'NGYM_X', seconds: 0.1 });
      const reference = parseExposition(await typescript.render());
      const shared = [...after.keys()].filter((name) => reference.has(name));
      expect(shared.sort()).toEqual(
        [
          'gym_server_request_failures',
          'http_server_active_requests',
          'http_server_request_duration_seconds',
          'process_cpu_seconds',
          'process_open_fds',
          'process_resident_memory_bytes',
          'process_start_time_seconds',
        ].sort(),
      );
      const labelNames = (family: Family | undefined) => [...new Set(family?.samples.flatMap((sample) => Object.keys(sample.labels)))].sort();
      for (const name of shared) {
        const python = after.get(name) as Family;
        const node = reference.get(name) as Family;
        expect({ name, type: python.type, help: python.documentation }).toEqual({ name, type: node.type, help: node.documentation });
        expect(labelNames(python)).toEqual(labelNames(node));
      }
      for (const name of [...after.keys()].filter((candidate) => candidate.startsWith('python_eventloop_lag'))) {
        const node = reference.get(name.replace('python_', 'nodejs_'));
        expect(after.get(name)?.documentation, name).toBe(node?.documentation);
      }

      // A caller that hangs up before any answer: upstream's middleware ends the request unanswered; counted as 499.
      const hangUp = new AbortController();
      const waiting = fetch(`${base}/wait`, { method: 'POST', signal: hangUp.signal }).catch(() => 'hung up');
      const inFlight = async () => sampleValue(await scrape(), 'http_server_active_requests', 'http_server_active_requests', { http_request_method: 'POST' });
      await expect.poll(inFlight, { timeout: 30_000 }).toBe(1);
      hangUp.abort();
      expect(await waiting).toBe('hung up');
      const gone = { http_request_method: 'POST', http_route: '/wait', http_response_status_code: '499' };
      await expect.poll(async () => sampleValue(await scrape(), duration, `${duration}_count`, gone), { timeout: 30_000 }).toBe(1);
      expect(sampleValue(await scrape(), failures, `${failures}_total`, { http_route: '/wait', error_type: '499' })).toBe(1);

      // An app with a /metrics of its own keeps it (and its own rules: ngym's token is not asked for).
      const own = await fetch(`http://127.0.0.1:${portOf(gym.stdout(), 'ownmetrics')}/metrics`);
      expect(own.status).toBe(200);
      expect(await own.text()).toBe('own_metric 1\n');

      // An import string is left alone, and says so.
      const stringApp = await fetch(`http://127.0.0.1:${portOf(gym.stdout(), 'stringapp')}/metrics`, { headers: authorization });
      expect(stringApp.status).toBe(404);
      await expect.poll(() => gym.stderr() + gym.stdout()).toContain("(stringapp) Serves no GET /metrics: uvicorn.run was given the import string 'app:app'");
    } finally {
      await gym.stop();
    }
  });

  it('serves none with telemetry.metrics_enabled: false', { timeout: 120_000 }, async () => {
    const root = project(['pymetrics']);
    roots.push(root);
    const gym = await startGymProcess(['+config_paths=[fixture.yaml]', '+telemetry.metrics_enabled=false'], { cwd: root });
    try {
      await expect.poll(() => gym.stdout()).toContain('Metrics: off');
      const response = await fetch(`http://127.0.0.1:${portOf(gym.stdout(), 'pymetrics')}/metrics`);
      expect(response.status).toBe(404);
    } finally {
      await gym.stop();
    }
  });
});
