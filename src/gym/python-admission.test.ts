/**
 * Admission by memory for a Python server under `ngym run` (python-child.py): with `memory_budget` on its entry, a
 * request that brings work waits while the server is over it, and runs once memory falls; a budget the server is
 * over before any work stops the start, naming the key. Its /metrics counts the requests that waited.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, startGymProcess } from '../testing/cli-process.ts';
import { upstreamWheel } from '../testing/upstream-wheel.ts';

const wheel = upstreamWheel();

// An ASGI app run by uvicorn.run, as upstream's servers are: /hold takes 200 MiB until /release; /work and /events
// report what happened before they ran; anything else is 404 (so /metrics is ngym's).
const APP = `
import asyncio, os, yaml, uvicorn
entry = yaml.safe_load(os.environ["NEMO_GYM_CONFIG_DICT"])[os.environ["NEMO_GYM_CONFIG_PATH"]]["resources_servers"]["pyadmit"]
held, events = [], []
released = asyncio.Event()

async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    path = scope["path"]
    if path == "/hold":
        held.append(bytearray(b"\\x01") * (200 * 2**20))
        events.append("hold")
        await released.wait()
        held.clear()
    elif path == "/release":
        events.append("release")
        released.set()
    elif path == "/work":
        events.append("work")
    elif path != "/events":
        await send({"type": "http.response.start", "status": 404, "headers": []})
        await send({"type": "http.response.body", "body": b""})
        return
    body = ",".join(events).encode()
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": body})

uvicorn.run(app=app, host=entry["host"], port=entry["port"], log_level="warning")
`;

function project(budget: string): string {
  const root = mkdtempSync(join(tmpdir(), 'ngym-python-admission-'));
  mkdirSync(join(root, 'resources_servers', 'pyadmit'), { recursive: true });
  writeFileSync(join(root, 'resources_servers', 'pyadmit', 'app.py'), APP);
  writeFileSync(join(root, 'resources_servers', 'pyadmit', 'requirements.txt'), 'pyyaml\nuvicorn\n');
  writeFileSync(
    join(root, 'fixture.yaml'),
    `python_executable: ${wheel.python}\npyadmit:\n  resources_servers:\n    pyadmit:\n      entrypoint: app.py\n      domain: other\n      memory_budget: ${budget}\n`,
  );
  return root;
}

async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return false;
}

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

describe.skipIf(wheel.skipReason !== null)('memory_budget on a Python server', () => {
  it('holds a request while the server is over its budget and runs it once memory falls', { timeout: 120_000 }, async () => {
    const root = project('150MiB');
    roots.push(root);
    const gym = await startGymProcess(['+config_paths=[fixture.yaml]'], { cwd: root });
    try {
      const port = /pyadmit\s.*?http:\/\/127\.0\.0\.1:(\d+)/.exec(gym.stdout())?.[1];
      expect(port, gym.stdout()).toBeDefined();
      const url = (path: string) => `http://127.0.0.1:${port}${path}`;
      const hold = fetch(url('/hold'), { method: 'POST' }).then((response) => response.text());
      expect(await until(async () => (await (await fetch(url('/events'))).text()).includes('hold'))).toBe(true);
      const work = fetch(url('/work'), { method: 'POST' }).then((response) => response.text());
      const output = () => gym.stdout() + gym.stderr();
      expect(await until(() => output().includes('Over its memory_budget')), output()).toBe(true);
      // A scrape is a GET: it is answered while /work waits, and counts it.
      const admissionMetrics = async () => {
        const text = await (await fetch(url('/metrics'))).text();
        return { waits: /^gym_admission_waits_total (\d+)$/m.exec(text)?.[1], waiting: /^gym_admission_waiting (\d+)$/m.exec(text)?.[1] };
      };
      expect(await admissionMetrics()).toEqual({ waits: '1', waiting: '1' });
      expect(await (await fetch(url('/release'))).text()).toBe('hold,release');
      // /work ran only after /release let /hold free its memory.
      expect(await work).toBe('hold,release,work');
      expect(await hold).toBe('hold,release');
      expect(await admissionMetrics()).toEqual({ waits: '1', waiting: '0' });
    } finally {
      await gym.stop();
    }
  });

  it('refuses to start with a budget the server is over before any work', { timeout: 120_000 }, async () => {
    const root = project('1MiB');
    roots.push(root);
    const result = await runCli(['run', '+config_paths=[fixture.yaml]', '++head_server={host: 127.0.0.1, port: 0}'], { cwd: root });
    expect(result.code).not.toBe(0);
    expect(result.stdout + result.stderr).toContain('memory_budget: 1 MiB is below what this server holds before any work');
  });
});
