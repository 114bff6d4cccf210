/**
 * Admission by memory for a Python server under `ngym run` (python-child.py): with `memory_budget` on its entry, a
 * request that brings work waits while the server is over it, and runs once memory falls; a burst of requests that
 * would carry it far past the budget is admitted so that its peak memory stays under it; a budget the server is
 * over before any work stops the start, naming the key. Its /metrics counts the requests that waited.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, startGymProcess } from '../testing/cli-process.ts';
import { upstreamWheel } from '../testing/upstream-wheel.ts';
import { sampleMemory } from './server-memory.ts';

const wheel = upstreamWheel();
const MIB = 2 ** 20;
/** What each POST /allocate holds, resident, for 0.3 s. */
const ALLOCATE_MIB = 8;

// An ASGI app run by uvicorn.run, as upstream's servers are: /hold takes 200 MiB until /release; /allocate takes
// ALLOCATE_MIB for 0.3 s, half at once and half after an await (as a handler that reads its request, then builds its
// answer), so that memory shows only partly when the next request comes; /allocate_late the same 20 ms later (as a
// handler that first waits on something), so that none shows before a burst is all in; /work and /events report what happened
// before they ran; anything else is 404 (so /metrics is ngym's).
const APP = `
import asyncio, os, yaml, uvicorn
entry = yaml.safe_load(os.environ["NEMO_GYM_CONFIG_DICT"])[os.environ["NEMO_GYM_CONFIG_PATH"]]["resources_servers"]["pyadmit"]
held, events = [], []
released = asyncio.Event()
ALLOCATE_MIB = ${ALLOCATE_MIB}

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
    elif path in ("/allocate", "/allocate_late"):
        if path == "/allocate_late":
            await asyncio.sleep(0.02)
        first = bytearray(b"\x01") * (ALLOCATE_MIB * 2**19)
        await asyncio.sleep(0)
        second = bytearray(b"\x01") * (ALLOCATE_MIB * 2**19)
        await asyncio.sleep(0.3)
        del first, second
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

/** `ngym run`'s pyadmit server: its URL for a path, and its pid. */
function pyadmitServer(stdout: string): { url: (path: string) => string; pid: number } {
  const match = /pyadmit\s.*?http:\/\/127\.0\.0\.1:(\d+)\s+(\d+)/.exec(stdout);
  expect(match, stdout).not.toBeNull();
  return { url: (path) => `http://127.0.0.1:${match![1]}${path}`, pid: Number(match![2]) };
}

async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return false;
}

/**
 * Starts the server with `budget`, sends it `cheapFirst` POST /work one after another (requests that take no memory),
 * then `burst` POST `path` at once, and returns its idle memory before them, its peak resident memory (VmHWM)
 * after them, the requests that waited for memory, and the burst's duration. Every request must be answered 200.
 */
async function burstPeak(
  budget: string,
  burst: number,
  { cheapFirst = 0, path = '/allocate' }: { cheapFirst?: number; path?: string } = {},
): Promise<{ idleBytes: number; peakBytes: number; waits: number; seconds: number }> {
  const root = project(budget);
  roots.push(root);
  const gym = await startGymProcess(['+config_paths=[fixture.yaml]'], { cwd: root });
  try {
    const { url, pid } = pyadmitServer(gym.stdout());
    const idleBytes = sampleMemory(pid)?.residentBytes;
    expect(idleBytes).toBeDefined();
    for (let index = 0; index < cheapFirst; index++) expect((await fetch(url('/work'), { method: 'POST' })).status).toBe(200);
    const started = performance.now();
    const statuses = await Promise.all(Array.from({ length: burst }, () => fetch(url(path), { method: 'POST' }).then((response) => response.status)));
    const seconds = (performance.now() - started) / 1000;
    expect(statuses).toEqual(Array.from({ length: burst }, () => 200));
    const peakBytes = sampleMemory(pid)?.peakBytes ?? Infinity;
    const waits = Number(/^gym_admission_waits_total (\d+)$/m.exec(await (await fetch(url('/metrics'))).text())?.[1] ?? 0);
    return { idleBytes: idleBytes!, peakBytes, waits, seconds };
  } finally {
    await gym.stop();
  }
}

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

describe.skipIf(wheel.skipReason !== null)('memory_budget on a Python server', () => {
  it('holds a request while the server is over its budget, runs it once memory falls, and drops one whose caller hangs up', { timeout: 120_000 }, async () => {
    const root = project('150MiB');
    roots.push(root);
    const gym = await startGymProcess(['+config_paths=[fixture.yaml]'], { cwd: root });
    try {
      const { url } = pyadmitServer(gym.stdout());
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
      // A request whose caller hangs up while it waits leaves the queue, and never runs.
      const hangUp = new AbortController();
      const abandoned = fetch(url('/work'), { method: 'POST', signal: hangUp.signal }).catch((error: unknown) => error);
      expect(await until(async () => (await admissionMetrics()).waiting === '2')).toBe(true);
      hangUp.abort();
      await abandoned;
      expect(await until(async () => (await admissionMetrics()).waiting === '1')).toBe(true);
      expect(await (await fetch(url('/release'))).text()).toBe('hold,release');
      // /work ran only after /release let /hold free its memory.
      expect(await work).toBe('hold,release,work');
      expect(await hold).toBe('hold,release');
      expect(await (await fetch(url('/events'))).text()).toBe('hold,release,work');
      expect(await admissionMetrics()).toEqual({ waits: '2', waiting: '0' });
    } finally {
      await gym.stop();
    }
  });

  it('keeps the peak memory of a burst that would carry the server far past its budget under it', { timeout: 120_000 }, async () => {
    const burst = 40;
    // A burst of `burst` requests in flight at once would take this much over the idle server; the budget leaves
    // room for 12 of them.
    const budgetOverIdle = 12 * ALLOCATE_MIB * MIB;

    // Without a budget: the burst does carry the server that far past its idle memory.
    const unbudgeted = await burstPeak('null', burst);
    expect(unbudgeted.peakBytes - unbudgeted.idleBytes).toBeGreaterThan(2 * budgetOverIdle);

    const budgetMib = Math.floor((unbudgeted.idleBytes + budgetOverIdle) / MIB);
    const budgeted = await burstPeak(`${budgetMib}MiB`, burst);
    console.log(
      `python burst of ${burst} x ${ALLOCATE_MIB} MiB: idle ${Math.round(unbudgeted.idleBytes / MIB)} MiB; without a budget peak ` +
        `${Math.round(unbudgeted.peakBytes / MIB)} MiB; budget ${budgetMib} MiB: peak ${Math.round(budgeted.peakBytes / MIB)} MiB, ` +
        `${budgeted.waits} waited, ${budgeted.seconds.toFixed(1)} s`,
    );
    expect(budgeted.waits).toBeGreaterThan(0);
    // The kernel's high-water mark, not a sample: nothing between readings escapes it.
    expect(budgeted.peakBytes).toBeLessThan(budgetMib * MIB);

    // Cheap requests first, that take nothing and end at once, then a burst that allocates only once all of it is
    // in: the cheap ones say nothing of what the others take (one estimate for all would let the whole burst in).
    const warmed = await burstPeak(`${budgetMib}MiB`, burst, { cheapFirst: 20, path: '/allocate_late' });
    console.log(`20 cheap requests, then a burst allocating 20 ms in: peak ${Math.round(warmed.peakBytes / MIB)} MiB, ${warmed.waits} waited, ${warmed.seconds.toFixed(1)} s`);
    expect(warmed.peakBytes).toBeLessThan(budgetMib * MIB);
  });

  it('refuses to start with a budget the server is over before any work', { timeout: 120_000 }, async () => {
    const root = project('1MiB');
    roots.push(root);
    const result = await runCli(['run', '+config_paths=[fixture.yaml]', '++head_server={host: 127.0.0.1, port: 0}'], { cwd: root });
    expect(result.code).not.toBe(0);
    expect(result.stdout + result.stderr).toContain('memory_budget: 1 MiB is below what this server holds before any work');
  });
});
