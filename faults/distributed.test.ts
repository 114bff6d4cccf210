/**
 * Distributed collection end to end, all real processes: `redis-server`, `ngym run` (example_single_tool_call
 * behind openai_model, the model endpoint served here with a fixed latency so rollouts are wait-bound),
 * `ngym worker` processes and `ngym collect +queue.url=...`. Several processes on loopback and a unix socket
 * (no network namespaces). Faults: a worker SIGKILLed mid-job, the collector SIGKILLed, Redis SIGKILLed and
 * restarted on its append-only file; each run must end with every (task, rollout) exactly once.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import type { GymProcess } from '../src/testing/cli-process.ts';
import { sampleMemory } from '../src/gym/server-memory.ts';
import {
  exactlyOnce,
  type FaultyModel,
  HUNGRY_BYTES_PER_VERIFY,
  jsonlRows,
  pidOf,
  startCollect,
  startFaultyModel,
  startHungryStack,
  startStack,
  until,
  workFolder,
} from './fault-stack.ts';
import { REDIS_AVAILABLE, type RedisProcess, startRedis } from './redis-server.ts';
import { killHostsLeft, startWorker as startWorkerProcess, type WorkerProcess } from './worker-process.ts';

const TASKS = 40;

let redis: RedisProcess | undefined;
let gym: GymProcess | undefined;
let model: FaultyModel | undefined;
const watches: { stop: () => Promise<void> }[] = [];
// Each test starts redis-server, ngym run, workers and collectors: minutes on a loaded 2-core machine.
const TIMEOUT_MS = 180_000;

afterEach(async () => {
  for (const watch of watches.splice(0)) await watch.stop();
  await killHostsLeft();
  await gym?.stop('SIGKILL');
  await model?.close();
  await redis?.kill();
  gym = undefined;
  model = undefined;
  redis = undefined;
});

function startWorker(extra: string[] = []): Promise<WorkerProcess> {
  return startWorkerProcess(gym?.headPort as number, redis?.url as string, extra);
}

/** Jobs of the queue in Redis, by state, sampled every 20 ms until stopped; keeps the highest total. */
function watchQueue(url: string): { highest: () => number; latest: () => Record<string, number>; stop: () => Promise<void> } {
  const connection = new Redis({ path: url.replace('unix://', ''), maxRetriesPerRequest: null });
  connection.on('error', () => {});
  const queue = new Queue('ngym_rollouts', { connection });
  let highest = 0;
  let latest: Record<string, number> = {};
  let running = true;
  const loop = (async () => {
    while (running) {
      try {
        latest = await queue.getJobCounts('wait', 'active', 'delayed', 'prioritized', 'completed', 'failed');
        highest = Math.max(highest, Object.values(latest).reduce((sum, count) => sum + count, 0));
      } catch {
        // Redis restarting.
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  const watch = {
    highest: () => highest,
    latest: () => latest,
    stop: async () => {
      if (!running) return;
      running = false;
      await loop;
      await queue.close();
      connection.disconnect();
    },
  };
  watches.push(watch);
  return watch;
}

/** A unix-socket relay to Redis that can drop every connection and refuse new ones: a network partition. */
async function startPartitionableProxy(target: string): Promise<{ path: string; partition(): void; heal(): void; close(): Promise<void> }> {
  const path = join(mkdtempSync(join(tmpdir(), 'ngym-proxy-')), 'proxy.sock');
  const sockets = new Set<Socket>();
  let cut = false;
  const server = createServer((client) => {
    if (cut) return void client.destroy();
    const upstream = connect(target);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return {
    path,
    partition() {
      cut = true;
      for (const socket of sockets) socket.destroy();
    },
    heal() {
      cut = false;
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function distributed(extra: string[] = []): string[] {
  return [`+queue.url=${redis?.url}`, '+num_samples_in_parallel=8', ...extra];
}

async function startAll(latencyMs: number): Promise<ReturnType<typeof workFolder>> {
  redis = await startRedis();
  model = await startFaultyModel(() => 'answer', latencyMs);
  gym = await startStack(model.url);
  return workFolder(TASKS);
}

describe.skipIf(!REDIS_AVAILABLE)('distributed collection (redis-server, ngym worker, ngym collect +queue.url; processes on loopback)', () => {
  it('writes the rows and metrics of a local run, with at most num_samples_in_parallel jobs in Redis', async () => {
    const work = await startAll(20);
    await startWorker();
    await startWorker();
    const watch = watchQueue(redis?.url as string);
    const result = await startCollect(gym as GymProcess, work, distributed(['+num_repeats=2'])).exited;
    await watch.stop();
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(exactlyOnce(work.output, TASKS, 2)).toEqual({ rows: TASKS * 2, duplicates: 0, missing: 0, zeros: 0 });
    expect(watch.highest()).toBeGreaterThan(1);
    expect(watch.highest()).toBeLessThanOrEqual(8);
    // Nothing of the run is left in Redis.
    expect(Object.values(watch.latest()).reduce((sum, count) => sum + count, 0)).toBe(0);

    const local = await startCollect(gym as GymProcess, { input: work.input, output: join(work.dir, 'local.jsonl') }, ['+num_repeats=2']).exited;
    expect(local.code, local.stderr).toBe(0);
    const metrics = (path: string) => {
      const { agents: _agents, ...rest } = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
      return rest;
    };
    expect(metrics(join(work.dir, 'out_metrics.json'))).toEqual(metrics(join(work.dir, 'local_metrics.json')));
    const fields = (path: string) => jsonlRows(path).map((row) => Object.keys(row).sort().join(','));
    expect(new Set(fields(work.output))).toEqual(new Set(fields(join(work.dir, 'local.jsonl'))));
  }, TIMEOUT_MS);

  it('a rollout that keeps failing is retried by BullMQ, then recorded as a local run records it, never as a row', async () => {
    redis = await startRedis();
    model = await startFaultyModel(() => 'error', 5);
    gym = await startStack(model.url);
    const work = workFolder(6);
    await startWorker();
    const result = await startCollect(gym, work, distributed(['+max_retries=2'])).exited;
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/6 rollouts failed after their retries \(6 server_error\)/);
    expect(jsonlRows(work.output)).toEqual([]);
    const local = await startCollect(gym, { input: work.input, output: join(work.dir, 'local.jsonl') }, ['+max_retries=2']).exited;
    expect(local.code).toBe(1);
    const record = (row: Record<string, unknown>) => [row._ng_task_index, row._ng_rollout_index, row._ng_failure_class, row.status, row.attempts, row.input_line];
    const sorted = (path: string) => jsonlRows(path).map(record).sort((a, b) => Number(a[0]) - Number(b[0]));
    expect(sorted(work.failures)).toEqual(sorted(join(work.dir, 'local_failures.jsonl')));
    expect(sorted(work.failures).every((row) => row[2] === 'server_error' && row[4] === 3)).toBe(true);
  }, TIMEOUT_MS);

  it('a collector with no head server of its own goes on, the workers reaching theirs', async () => {
    const work = await startAll(5);
    await startWorker();
    // A port that was free a moment ago: nothing answers there.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const result = await startCollect(gym as GymProcess, work, distributed([`++head_server={host: 127.0.0.1, port: ${port}}`])).exited;
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stderr).toContain(`Could not connect to the head server at http://127.0.0.1:${port}`);
    expect(result.stderr).toContain('Going on without it');
    expect(exactlyOnce(work.output, TASKS)).toEqual({ rows: TASKS, duplicates: 0, missing: 0, zeros: 0 });
  }, TIMEOUT_MS);

  it('a worker host SIGKILLed mid-job (the supervisor and its worker process): its jobs stall, another worker runs them, no row twice', async () => {
    const work = await startAll(150);
    const first = await startWorker();
    const watch = watchQueue(redis?.url as string);
    const collect = startCollect(gym as GymProcess, work, distributed());
    await until('rows and jobs in hand', () => jsonlRows(work.output).length >= 5 && (watch.latest().active ?? 0) >= 2, 120_000);
    first.killHost();
    await first.exited;
    const second = await startWorker();
    const result = await collect.exited;
    await watch.stop();
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(second.output()).toMatch(/Job \S+ stalled \(its worker stopped renewing the lock\)/);
    expect(exactlyOnce(work.output, TASKS)).toEqual({ rows: TASKS, duplicates: 0, missing: 0, zeros: 0 });
  }, TIMEOUT_MS);

  it('a worker cut off from Redis for longer than its locks: its jobs run elsewhere, its late results are refused', async () => {
    const work = await startAll(150);
    const proxy = await startPartitionableProxy((redis?.url as string).replace('unix://', ''));
    try {
      const cutOff = await startWorker([`++queue.url=unix://${proxy.path}`]);
      const watch = watchQueue(redis?.url as string);
      const collect = startCollect(gym as GymProcess, work, distributed());
      await until('rows and jobs in hand', () => jsonlRows(work.output).length >= 5 && (watch.latest().active ?? 0) >= 2, 120_000);
      proxy.partition();
      const other = await startWorker();
      await until('the other worker takes over the stalled jobs', () => /stalled/.test(other.output()), 120_000);
      proxy.heal();
      const result = await collect.exited;
      expect(result.code, result.stdout + result.stderr).toBe(0);
      expect(exactlyOnce(work.output, TASKS)).toEqual({ rows: TASKS, duplicates: 0, missing: 0, zeros: 0 });
      expect(cutOff.child.exitCode).toBeNull();
      // Back online, the cut-off worker's results for jobs it no longer holds were refused by BullMQ: the lock is gone
      // (the other worker finished the job) or is the other worker's (it is still running it).
      const refused = /Missing (lock|key) for job \S+\. moveToFinished|Lock mismatch for job \S+\. Cmd moveToFinished/;
      await until('the late completions refused', () => refused.test(cutOff.output()), 120_000, () => `the cut-off worker said:\n${cutOff.output().slice(-4000)}`);
    } finally {
      await proxy.close();
    }
  }, TIMEOUT_MS);

  it('the collector SIGKILLed: workers go on, +resume=true picks up the queue and the file', async () => {
    const work = await startAll(100);
    await startWorker();
    const watch = watchQueue(redis?.url as string);
    const first = startCollect(gym as GymProcess, work, distributed());
    await until('some rows', () => jsonlRows(work.output).length >= 10, 120_000);
    first.child.kill('SIGKILL');
    await first.exited;
    const partial = jsonlRows(work.output).length;
    // Jobs the workers finish while no collector listens wait in Redis for the resumed one.
    await until('results left in Redis', () => (watch.latest().completed ?? 0) >= 1, 120_000);
    const resumed = await startCollect(gym as GymProcess, work, distributed(['+resume=true'])).exited;
    await watch.stop();
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(`${TASKS - partial} new, ${partial} from an earlier run`);
    expect(exactlyOnce(work.output, TASKS)).toEqual({ rows: TASKS, duplicates: 0, missing: 0, zeros: 0 });
  }, TIMEOUT_MS);

  it.skipIf(sampleMemory(process.pid) === undefined)(
    "the kernel OOM-kills the resources server behind a worker's jobs (played by the test): recorded as server_oom_killed, a resume completes the rest once",
    async () => {
      redis = await startRedis();
      model = await startFaultyModel(() => 'answer', 20);
      const work = workFolder(TASKS, 'hungry_simple_agent');
      // The kernel's OOM kill count as ngym run reads it (/proc/vmstat's format).
      const oomCounter = join(work.dir, 'vmstat');
      writeFileSync(oomCounter, 'oom_kill 0\n');
      gym = await startHungryStack(model.url, { NGYM_OOM_KILL_COUNTER: oomCounter });
      const first = await startWorker();
      const server = pidOf(gym, 'hungry');
      const resident = () => sampleMemory(server)?.residentBytes ?? 0;
      const limit = resident() + 12 * HUNGRY_BYTES_PER_VERIFY;
      const collect = startCollect(gym, work, distributed());
      await until('the server to pass its memory limit', () => resident() > limit, 120_000, () => collect.output());
      writeFileSync(oomCounter, 'oom_kill 1\n');
      process.kill(server, 'SIGKILL');
      const result = await collect.exited;
      expect(result.code).toBe(1);
      const failures = jsonlRows(work.failures);
      expect(failures.length).toBeGreaterThan(0);
      expect(failures.map((row) => row._ng_failure_class)).toEqual(failures.map(() => 'server_oom_killed'));
      expect(exactlyOnce(work.output, TASKS).zeros).toBe(0);

      // A new gym, and a worker that reaches it.
      first.killHost();
      await gym.stop('SIGKILL');
      gym = await startHungryStack(model.url);
      await startWorker();
      const resumed = await startCollect(gym, work, distributed(['+resume=true'])).exited;
      expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
      expect(exactlyOnce(work.output, TASKS)).toEqual({ rows: TASKS, duplicates: 0, missing: 0, zeros: 0 });
    },
    TIMEOUT_MS,
  );

  it('Redis SIGKILLed and restarted on its append-only file: the run completes exactly once', async () => {
    const work = await startAll(100);
    await startWorker();
    await startWorker();
    const collect = startCollect(gym as GymProcess, work, distributed());
    await until('some rows', () => jsonlRows(work.output).length >= 10, 120_000);
    await redis?.restart();
    const result = await collect.exited;
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(exactlyOnce(work.output, TASKS)).toEqual({ rows: TASKS, duplicates: 0, missing: 0, zeros: 0 });
  }, TIMEOUT_MS);
});

if (!REDIS_AVAILABLE) console.log('distributed collection tests skipped: redis-server is not installed (Debian package redis-server, in .ci/apt-packages).');
