/**
 * Fault injection against a real stack (`ngym run` + `ngym collect` as processes): each fault is injected
 * mid-collection, then the test checks what the collector reported, what was recorded, and that a resume ends
 * with every (task, rollout) exactly once and no reward invented for a failure. `npm run faults` runs these;
 * docs/reliability.md holds the table.
 */
import { symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
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

const TASKS = 60;
const survived: string[] = [];
const tried: string[] = [];
let gym: GymProcess | undefined;
let model: FaultyModel | undefined;

afterEach(async () => {
  await gym?.stop('SIGKILL');
  await model?.close();
  gym = undefined;
  model = undefined;
});

afterAll(() => {
  console.log(`fault injection: ${tried.length} tried, ${survived.length} survived${tried.length === survived.length ? '' : ` (not: ${tried.filter((name) => !survived.includes(name)).join(', ')})`}`);
});

/** Collects what is missing (resume) with a healthy model and checks the output is exact. */
async function resumeAndCheck(work: ReturnType<typeof workFolder>, start: (modelUrl: string) => Promise<GymProcess> = startStack): Promise<void> {
  await gym?.stop('SIGKILL');
  await model?.close();
  model = await startFaultyModel(() => 'answer');
  gym = await start(model.url);
  const resumed = await startCollect(gym, work, ['+resume=true', '+num_samples_in_parallel=16']).exited;
  expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
  expect(exactlyOnce(work.output, TASKS)).toEqual({ rows: TASKS, duplicates: 0, missing: 0, zeros: 0 });
}

/** A fault tried against the stack; skipped (saying why) when `skipReason` is given. */
function fault(name: string, body: () => Promise<void>, skipReason?: string): void {
  // Two stacks start in each (the faulty one, then the resume's): minutes on a loaded 2-core machine.
  it.skipIf(skipReason !== undefined)(skipReason === undefined ? name : `${name} (skipped: ${skipReason})`, { timeout: 180_000 }, async () => {
    tried.push(name);
    await body();
    survived.push(name);
  });
}

describe('fault injection (ngym run + ngym collect)', () => {
  fault('SIGSTOP on the resources server: reported by ngym run and as a stall, rollouts recorded as stalled', async () => {
    model = await startFaultyModel(() => 'answer', 20);
    gym = await startStack(model.url, ['+health_check={interval_seconds: 0.25, timeout_seconds: 0.5, misses: 2}']);
    const server = pidOf(gym, 'example_single_tool_call');
    const work = workFolder(TASKS);
    const collect = startCollect(gym, work, ['+num_samples_in_parallel=4', '+stall_timeout_seconds=2']);
    await until('a few rollouts', () => jsonlRows(work.output).length >= 10);
    process.kill(server, 'SIGSTOP');
    try {
      const result = await collect.exited;
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/Stalled: no rollout of agent 'example_single_tool_call_simple_agent' finished for \d+ s; \d+ in flight/);
      expect(result.stdout).toMatch(/rollouts failed after their retries \(\d+ stalled\)/);
      await until('the health report', () => gym!.stderr().includes("Server 'example_single_tool_call' (pid"));
      expect(gym.stderr()).toMatch(/has not answered its health check for \d+ s \(\d+ checks in a row\)/);
      const failures = jsonlRows(work.failures);
      expect(failures.length).toBeGreaterThan(0);
      expect(failures.every((row) => row._ng_failure_class === 'stalled')).toBe(true);
      expect(exactlyOnce(work.output, TASKS).zeros).toBe(0);
    } finally {
      process.kill(server, 'SIGCONT');
    }
    await until('the server answers again', () => gym!.stderr().includes("Server 'example_single_tool_call' answers its health check again."));
    await resumeAndCheck(work);
  });

  fault('SIGKILL on the resources server: ngym run names it, the collector records failures and stops', async () => {
    model = await startFaultyModel(() => 'answer', 20);
    gym = await startStack(model.url);
    const server = pidOf(gym, 'example_single_tool_call');
    const work = workFolder(TASKS);
    const collect = startCollect(gym, work, ['+num_samples_in_parallel=4']);
    await until('a few rollouts', () => jsonlRows(work.output).length >= 10);
    process.kill(server, 'SIGKILL');
    const result = await collect.exited;
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/rollouts failed after their retries/);
    expect(result.stdout).toMatch(/Stopped early/);
    await until('ngym run to report the exit', () => gym!.stderr().includes("Server 'example_single_tool_call' exited unexpectedly (signal SIGKILL)"));
    const failures = jsonlRows(work.failures);
    expect(failures.length).toBeGreaterThan(0);
    // No OOM kill was counted: a death, not an out-of-memory one.
    expect(failures.map((row) => row._ng_failure_class)).toEqual(failures.map(() => 'server_died'));
    await resumeAndCheck(work);
  });

  fault(
    'the kernel OOM-kills the resources server (played by the test): ngym run names it and its memory, every rollout in flight is server_oom_killed',
    async () => {
      const work = workFolder(TASKS, 'hungry_simple_agent');
      // The kernel's OOM kill count as ngym run reads it (/proc/vmstat's format).
      const oomCounter = join(work.dir, 'vmstat');
      writeFileSync(oomCounter, 'oom_kill 0\n');
      model = await startFaultyModel(() => 'answer', 20);
      gym = await startHungryStack(model.url, { NGYM_OOM_KILL_COUNTER: oomCounter });
      const server = pidOf(gym, 'hungry');
      const resident = () => sampleMemory(server)?.residentBytes ?? 0;
      const limit = resident() + 16 * HUNGRY_BYTES_PER_VERIFY;
      const collect = startCollect(gym, work, ['+num_samples_in_parallel=4']);
      await until('the server to pass its memory limit', () => resident() > limit, 60_000, () => collect.output());
      // What the kernel does to a process over its cgroup's limit: count an OOM kill, then SIGKILL it.
      writeFileSync(oomCounter, 'oom_kill 1\n');
      process.kill(server, 'SIGKILL');
      const result = await collect.exited;
      expect(result.code).toBe(1);
      await until('ngym run to report the kill', () => gym!.stderr().includes("Server 'hungry' was killed"));
      expect(gym.stderr()).toMatch(
        /Server 'hungry' was killed by the kernel's out-of-memory killer \(signal SIGKILL; the kernel counted an OOM kill as it died\); at the last sample it held \d+ MiB resident, peak \d+ MiB, [\d.]+ s before/,
      );
      const failures = jsonlRows(work.failures);
      expect(failures.length).toBeGreaterThan(0);
      for (const failure of failures) {
        expect(failure._ng_failure_class, String(failure.error)).toBe('server_oom_killed');
        // The agent's 500 quotes the server's 503 (its quotes escaped on the way).
        expect(failure.error).toMatch(/Server \W*hungry\W* \(pid \d+, http:\/\/[^)]+\) was killed by the kernel\W*s out-of-memory killer .*\d+ MiB resident/);
      }
      // Every rollout is accounted for: scored in the output, recorded as killed, or not started; none twice.
      const notStarted = Number(/(\d+) rollouts were not started/.exec(result.stdout)?.[1] ?? 0);
      const counts = exactlyOnce(work.output, TASKS);
      expect(counts.zeros + counts.duplicates).toBe(0);
      expect(counts.rows + failures.length + notStarted, result.stdout).toBe(TASKS);
      const done = new Set(jsonlRows(work.output).map((row) => `${row._ng_task_index}/${row._ng_rollout_index}`));
      expect(failures.filter((row) => done.has(`${row._ng_task_index}/${row._ng_rollout_index}`))).toEqual([]);
      expect(result.stdout).toMatch(/rollouts failed after their retries \(\d+ server_oom_killed\)/);
      await resumeAndCheck(work, (modelUrl) => startHungryStack(modelUrl));
    },
    sampleMemory(process.pid) === undefined ? 'no /proc here: memory is read from /proc/<pid>/status' : undefined,
  );

  fault('SIGKILL on the collector: the resume loses and duplicates nothing', async () => {
    model = await startFaultyModel(() => 'answer', 20);
    gym = await startStack(model.url);
    const work = workFolder(TASKS);
    const collect = startCollect(gym, work, ['+num_samples_in_parallel=4']);
    await until('a few rollouts', () => jsonlRows(work.output).length >= 10);
    collect.child.kill('SIGKILL');
    await collect.exited;
    await resumeAndCheck(work);
  });

  fault('model endpoint resets connections and truncates responses: retried, nothing lost', async () => {
    model = await startFaultyModel((call) => (call % 5 === 1 ? 'reset' : call % 5 === 3 ? 'truncate' : 'answer'));
    gym = await startStack(model.url);
    const work = workFolder(TASKS);
    const result = await startCollect(gym, work, ['+num_samples_in_parallel=8']).exited;
    // The model server and the collector retry; whatever still failed is recorded, never written as a reward.
    const counts = exactlyOnce(work.output, TASKS);
    expect(counts.duplicates + counts.zeros).toBe(0);
    expect(counts.rows + jsonlRows(work.failures).length).toBe(TASKS);
    if (result.code !== 0) expect(result.stdout).toMatch(/rollouts failed after their retries/);
    await resumeAndCheck(work);
  });

  fault('model endpoint answers malformed JSON and 500s: recorded as failures, not rewards', async () => {
    model = await startFaultyModel((call) => (call % 3 === 0 ? 'malformed' : call % 3 === 1 ? 'error' : 'answer'));
    gym = await startStack(model.url);
    const work = workFolder(TASKS);
    const result = await startCollect(gym, work, ['+num_samples_in_parallel=8', '+max_retries=0']).exited;
    expect(result.code).toBe(1);
    const failures = jsonlRows(work.failures);
    expect(failures.length).toBeGreaterThan(0);
    expect(failures.map((row) => String(row.error)).join('\n')).toMatch(/not JSON|engine crashed/);
    const counts = exactlyOnce(work.output, TASKS);
    expect(counts.duplicates + counts.zeros).toBe(0);
    expect(counts.rows + failures.length).toBe(TASKS);
    await resumeAndCheck(work);
  });

  fault('model endpoint hangs: rollout timeout records failures, no silent wait', async () => {
    model = await startFaultyModel((call) => (call >= 10 ? 'hang' : 'answer'));
    gym = await startStack(model.url);
    const work = workFolder(TASKS);
    const result = await startCollect(gym, work, ['+num_samples_in_parallel=16', '+rollout_timeout_seconds=1', '+max_retries=0']).exited;
    expect(result.code).toBe(1);
    const failures = jsonlRows(work.failures);
    expect(failures.length).toBeGreaterThan(0);
    expect(failures.every((row) => row._ng_failure_class === 'timeout' || row._ng_failure_class === 'stalled')).toBe(true);
    expect(exactlyOnce(work.output, TASKS)).toMatchObject({ duplicates: 0, zeros: 0 });
    await resumeAndCheck(work);
  });

  fault('the disk fills while writing the output: a clear error, and resume completes the run', async () => {
    model = await startFaultyModel(() => 'answer');
    gym = await startStack(model.url);
    const work = workFolder(TASKS);
    // /dev/full accepts the open and fails every write with ENOSPC, as a full disk does.
    symlinkSync('/dev/full', work.output);
    const result = await startCollect(gym, work, ['+num_samples_in_parallel=8']).exited;
    expect(result.code).not.toBe(0);
    expect(result.stdout + result.stderr).toMatch(/ENOSPC|no space left/i);
    expect(result.stdout + result.stderr).not.toMatch(/\n\s+at /);
    unlinkSync(work.output);
    await resumeAndCheck(work);
  });
});
