/**
 * `ngym worker`'s supervisor over stand-in worker processes (plain `node -e` scripts that speak its IPC), against a
 * real redis-server: a worker that runs out of JavaScript heap holding a job, and workers that die as soon as
 * they are ready, restarted with a growing wait that stop() ends.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { REDIS_AVAILABLE, type RedisProcess, startRedis } from '../../../faults/redis-server.ts';
import type { RolloutJobResult } from './jobs.ts';
import { connectRedis } from './connection.ts';
import { WorkerSupervisor } from './worker-supervisor.ts';

let redis: RedisProcess | undefined;
const connections: Redis[] = [];
const children: ChildProcess[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all(connections.splice(0).map((connection) => connection.quit()));
  await redis?.kill();
  redis = undefined;
});

function connect(url: string): Redis {
  const connection = connectRedis(url);
  connections.push(connection);
  return connection;
}

/** A stand-in worker process: `script` runs with the supervisor's IPC channel; stderr is piped as ngym worker pipes it. */
function standIn(script: string, nodeFlags: string[] = [], env: NodeJS.ProcessEnv = {}): ChildProcess {
  const child = spawn(process.execPath, [...nodeFlags, '-e', script], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  children.push(child);
  return child;
}

/** Resolves with the log once `pattern` has been logged `times` times. */
function logWatch(): { log: (message: string) => void; lines: string[]; until: (pattern: RegExp, times?: number) => Promise<void> } {
  const lines: string[] = [];
  const waiters: { pattern: RegExp; times: number; resolve: () => void }[] = [];
  const check = () => {
    for (const waiter of [...waiters]) {
      if (lines.filter((line) => waiter.pattern.test(line)).length < waiter.times) continue;
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  };
  return {
    lines,
    log: (message) => {
      lines.push(message);
      check();
    },
    until: (pattern, times = 1) =>
      new Promise<void>((resolve) => {
        waiters.push({ pattern, times, resolve });
        check();
      }),
  };
}

describe.skipIf(!REDIS_AVAILABLE)('WorkerSupervisor (redis-server, stand-in worker processes)', () => {
  it(
    'a worker process that runs out of JavaScript heap: its job is recorded as worker_heap_exhausted naming its heap limit; stop() ends the wait before the next',
    { timeout: 60_000 },
    async () => {
      redis = await startRedis();
      const name = `heap-${randomUUID()}`;
      const queue = new Queue<unknown, RolloutJobResult>(name, { connection: connect(redis.url) });
      await queue.add('rollout', { taskIndex: 0 }, { jobId: 'job-0' });
      // The test takes the job under a lock whose token the stand-in reports as its own, as queue-worker.ts does.
      const taker = new Worker(name, null, { connection: connect(redis.url), autorun: false });
      const token = randomUUID();
      const job = await taker.getNextJob(token);
      expect(job?.id).toBe('job-0');

      const watch = logWatch();
      const started: ChildProcess[] = [];
      let stderr = '';
      const supervisor = new WorkerSupervisor({
        connection: connect(redis.url),
        name,
        log: watch.log,
        stderr: (text) => (stderr += text),
        // Long enough that only stop() can end the wait within the test's time.
        restartBackoff: { initialMs: 60_000, maxMs: 60_000, stableMs: 60_000 },
        startWorker: () => {
          const child = standIn(
            `process.send({ type: 'ready' }, () => process.send({ type: 'job-started', jobId: 'job-0', token: process.env.TOKEN }, () => {
              const held = [];
              for (;;) held.push({ index: held.length, label: 'x' + held.length });
            }));`,
            ['--max-old-space-size=32'],
            { TOKEN: token },
          );
          started.push(child);
          return child;
        },
      });
      const finished = supervisor.run();
      await watch.until(/starting a new worker process in 60 s/);
      const pid = started[0]?.pid;
      const death = watch.lines.find((line) => line.startsWith(`Worker process ${pid} `));
      expect(death).toMatch(
        new RegExp(
          `^Worker process ${pid} on ${hostname()} ran out of JavaScript heap \\(signal SIGABRT\\); its heap limit was 32 MiB \\(--max-old-space-size=32\\)(; at the last sample it held \\d+ MiB resident, peak \\d+ MiB, [\\d.]+ s before)?; give it more heap \\(NODE_OPTIONS=--max-old-space-size=<MiB> in the environment of ngym worker\\) or fewer rollouts at once \\(\\+concurrency\\); it held 1 job\\(s\\)\\.$`,
        ),
      );
      expect(watch.lines).toContain('Job job-0: recorded as worker_heap_exhausted.');
      // V8's own words still reach the user.
      expect(stderr).toContain('FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory');
      expect(watch.lines.at(-1)).toMatch(/^The worker process died within 60 s of starting \(after [\d.]+ s\): starting a new worker process in 60 s\.$/);
      const recorded = await queue.getJob('job-0');
      expect(await recorded?.getState()).toBe('completed');
      const result = recorded?.returnvalue as Extract<RolloutJobResult, { failure: unknown }>;
      expect(result.failure).toMatchObject({ failureClass: 'worker_heap_exhausted', retryable: false });
      expect(result.failure.message).toContain(`Worker process ${pid} on ${hostname()} ran out of JavaScript heap`);

      const stoppedAt = Date.now();
      supervisor.stop();
      expect(await finished).toBe(0);
      expect(Date.now() - stoppedAt).toBeLessThan(5_000);
      expect(started).toHaveLength(1);
      await taker.close();
      await queue.close();
    },
  );

  it('workers that die as soon as they are ready are restarted after a wait that doubles up to its ceiling', { timeout: 60_000 }, async () => {
    redis = await startRedis();
    const watch = logWatch();
    let starts = 0;
    const supervisor = new WorkerSupervisor({
      connection: connect(redis.url),
      name: `quick-${randomUUID()}`,
      log: watch.log,
      restartBackoff: { initialMs: 20, maxMs: 80, stableMs: 60_000 },
      startWorker: () => {
        starts++;
        return standIn(`process.send({ type: 'ready' }, () => process.exit(3));`);
      },
    });
    const finished = supervisor.run();
    await watch.until(/starting a new worker process in/, 5);
    supervisor.stop();
    expect(await finished).toBe(0);
    const waits = watch.lines.map((line) => /^The worker process died (again )?within 60 s of starting \(after [\d.]+ s\): starting a new worker process in ([\d.]+) s\.$/.exec(line)).filter((match) => match !== null);
    expect(waits.slice(0, 5).map((match) => [match[1] ?? '', match[2]])).toEqual([
      ['', '0.02'],
      ['again ', '0.04'],
      ['again ', '0.08'],
      ['again ', '0.08'],
      ['again ', '0.08'],
    ]);
    expect(watch.lines.filter((line) => /exited unexpectedly \(exit code 3\); it held 0 job\(s\)\.$/.test(line)).length).toBe(starts);
    expect(watch.lines).not.toContain('Starting a new worker process.');
  });
});

if (!REDIS_AVAILABLE) console.log('worker supervisor tests skipped: redis-server is not installed (Debian package redis-server, in .ci/apt-packages).');
