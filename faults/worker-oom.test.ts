/**
 * A queue worker process that dies under `ngym worker`'s supervisor, all real processes (redis-server, ngym run,
 * ngym worker, ngym collect +queue.url). The test plays the kernel: it SIGKILLs the worker process while it holds
 * jobs, once plainly (`worker_died`) and once after raising the OOM kill count the supervisor reads
 * (`worker_oom_killed`; NGYM_OOM_KILL_COUNTER names the test's file in /proc/vmstat's format). Each time the jobs it
 * held are in the failures file naming the worker and its memory, the collector stops with every rollout accounted
 * for, and the supervisor's next worker process serves the resume.
 */
import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sampleMemory } from '../src/gym/server-memory.ts';
import type { GymProcess } from '../src/testing/cli-process.ts';
import { exactlyOnce, type FaultyModel, jsonlRows, startCollect, startFaultyModel, startStack, until, workFolder } from './fault-stack.ts';
import { REDIS_AVAILABLE, type RedisProcess, startRedis } from './redis-server.ts';
import { killHostsLeft, startWorker, type WorkerProcess } from './worker-process.ts';

const TASKS = 40;
const TIMEOUT_MS = 180_000;

let redis: RedisProcess | undefined;
let gym: GymProcess | undefined;
let model: FaultyModel | undefined;

afterEach(async () => {
  await killHostsLeft();
  await gym?.stop('SIGKILL');
  await model?.close();
  await redis?.kill();
});

interface KilledRun {
  code: number | null;
  stdout: string;
  failures: Record<string, unknown>[];
  rows: number;
  notStarted: number;
  /** The supervisor's count of the jobs of the dead worker process whose death it recorded. */
  recorded: number;
}

/** A collection into `name`.jsonl whose worker process `kill` ends once rows come in; what it left behind. */
async function collectUntilKilled(worker: WorkerProcess, work: { dir: string; input: string }, name: string, kill: (pid: number) => void): Promise<KilledRun> {
  const output = join(work.dir, `${name}.jsonl`);
  const pid = worker.workerPid();
  const collect = startCollect(gym as GymProcess, { input: work.input, output }, [`+queue.url=${redis?.url}`, '+num_samples_in_parallel=8']);
  await until('some rows', () => jsonlRows(output).length >= 3, 120_000, () => collect.output());
  kill(pid);
  const result = await collect.exited;
  // Of the jobs it held, one may have finished just before the death (its row written), its news lost with it.
  const recorded = new RegExp(`Worker process ${pid}: (\\d+) of the \\d+ job\\(s\\) it held recorded as`).exec(worker.output());
  expect(recorded, worker.output()).not.toBeNull();
  return {
    code: result.code,
    stdout: result.stdout,
    failures: jsonlRows(join(work.dir, `${name}_failures.jsonl`)),
    rows: exactlyOnce(output, TASKS).rows,
    notStarted: Number(/(\d+) rollouts were not started/.exec(result.stdout)?.[1] ?? 0),
    recorded: Number(recorded?.[1]),
  };
}

/** Every rollout accounted for once: scored, recorded as the death, or not started; nothing scored as 0. */
function expectAccounted(run: KilledRun, failureClass: string, pid: number): void {
  expect(run.code, run.stdout).toBe(1);
  expect(run.stdout).toMatch(new RegExp(`Stopped early \\(the queue worker running a rollout of agent '\\S+' died \\(${failureClass}\\)`));
  expect(run.failures.length).toBe(run.recorded);
  expect(run.failures.length).toBeGreaterThan(0);
  for (const failure of run.failures) {
    expect(failure._ng_failure_class).toBe(failureClass);
    expect(String(failure.error)).toContain(`Worker process ${pid} on ${hostname()}`);
    expect(String(failure.error)).toMatch(/at the last sample it held \d+ MiB resident, peak \d+ MiB/);
  }
  expect(run.rows + run.failures.length + run.notStarted, run.stdout).toBe(TASKS);
}

describe.skipIf(!REDIS_AVAILABLE || sampleMemory(process.pid) === undefined)('a queue worker process that dies (redis-server, ngym worker, ngym collect +queue.url)', () => {
  it(
    'SIGKILLed: its jobs are worker_died; OOM-killed (the test plays the kernel): worker_oom_killed; each naming the worker and its memory, then a new worker serves the resume',
    async () => {
      redis = await startRedis();
      model = await startFaultyModel(() => 'answer', 200);
      gym = await startStack(model.url);
      const work = workFolder(TASKS);
      const oomCounter = join(work.dir, 'vmstat');
      writeFileSync(oomCounter, 'oom_kill 0\n');
      const worker = await startWorker(gym.headPort, redis.url, ['++queue.lock_seconds=10'], { NGYM_OOM_KILL_COUNTER: oomCounter });

      // A SIGKILL while the kernel counts no OOM kill.
      const firstPid = worker.workerPid();
      const killed = await collectUntilKilled(worker, work, 'killed', (pid) => process.kill(pid, 'SIGKILL'));
      expectAccounted(killed, 'worker_died', firstPid);
      expect(worker.output()).toContain(`Worker process ${firstPid} on ${hostname()} exited unexpectedly (signal SIGKILL)`);

      // The supervisor started another worker process; the kernel's OOM killer ends it.
      await until('a new worker process', () => worker.workerPid() !== firstPid, 120_000, () => worker.output());
      const secondPid = worker.workerPid();
      const oomKilled = await collectUntilKilled(worker, work, 'oom', (pid) => {
        writeFileSync(oomCounter, 'oom_kill 1\n');
        process.kill(pid, 'SIGKILL');
      });
      expectAccounted(oomKilled, 'worker_oom_killed', secondPid);
      const report = new RegExp(
        `Worker process ${secondPid} on \\S+ was killed by the kernel's out-of-memory killer \\(signal SIGKILL; the kernel counted an OOM kill as it died\\); at the last sample it held (\\d+) MiB resident`,
      ).exec(worker.output());
      expect(report, worker.output()).not.toBeNull();
      console.log(
        `worker_died: ${killed.recorded} recorded, ${killed.rows} rows, ${killed.notStarted} not started; ` +
          `worker_oom_killed: ${oomKilled.recorded} recorded, ${oomKilled.rows} rows, ${oomKilled.notStarted} not started\n${oomKilled.failures[0]?.error}`,
      );

      // The third worker process completes the first collection on resume, each rollout once.
      await until('a third worker process', () => worker.workerPid() !== secondPid, 120_000, () => worker.output());
      const resumed = await startCollect(gym, { input: work.input, output: join(work.dir, 'killed.jsonl') }, [`+queue.url=${redis.url}`, '+resume=true']).exited;
      expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
      expect(exactlyOnce(join(work.dir, 'killed.jsonl'), TASKS)).toEqual({ rows: TASKS, duplicates: 0, missing: 0, zeros: 0 });
    },
    TIMEOUT_MS,
  );
});

if (!REDIS_AVAILABLE) console.log('queue worker death tests skipped: redis-server is not installed (Debian package redis-server, in .ci/apt-packages).');
