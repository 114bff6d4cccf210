/**
 * Admission by memory against a real stack (`ngym run` + `ngym collect` as processes): a resources server whose
 * memory grows with the verifies in flight (HUNGRY_BYTES_PER_VERIFY each) is run under a memory limit the test
 * enforces as the kernel's OOM killer would (its resident memory past the limit: an OOM kill counted, then SIGKILL;
 * no cgroup is writable here). Without a budget the collection OOM-kills it and every rollout in flight is recorded
 * as `server_oom_killed`; the resume, with `memory_budget` under the limit, completes the rest exactly once without
 * reaching the limit. docs/reliability.md holds the figures.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { sampleMemory } from '../src/gym/server-memory.ts';
import type { GymProcess } from '../src/testing/cli-process.ts';
import { exactlyOnce, type FaultyModel, HUNGRY_BYTES_PER_VERIFY, jsonlRows, pidOf, startCollect, startFaultyModel, startHungryStack, until, workFolder } from './fault-stack.ts';

const TASKS = 60;
const MIB = 2 ** 20;
/** How long each verify holds its memory: long enough for the collector's rollouts to pile up at the server. */
const HOLD_MS = 300;
/** The limit the test enforces, over the server's memory at start: 24 verifies in flight. */
const LIMIT_OVER_START = 24 * HUNGRY_BYTES_PER_VERIFY;
/** The budget, over the same start: 16 verifies in flight. */
const BUDGET_OVER_START = 16 * HUNGRY_BYTES_PER_VERIFY;

let gym: GymProcess | undefined;
let model: FaultyModel | undefined;
let watchdog: NodeJS.Timeout | undefined;

afterEach(async () => {
  clearInterval(watchdog);
  await gym?.stop('SIGKILL');
  await model?.close();
  gym = undefined;
  model = undefined;
});

/**
 * Plays the kernel's OOM killer for `pid`: past `limitBytes` resident, the OOM kill count in `counterFile` rises
 * and the process is SIGKILLed. Returns the most it saw resident, and whether it killed.
 */
function enforceLimit(pid: number, limitBytes: number, counterFile: string): { peakBytes: number; killed: boolean } {
  const seen = { peakBytes: 0, killed: false };
  clearInterval(watchdog);
  watchdog = setInterval(() => {
    const resident = sampleMemory(pid)?.residentBytes;
    if (resident === undefined || seen.killed) return;
    seen.peakBytes = Math.max(seen.peakBytes, resident);
    if (resident <= limitBytes) return;
    seen.killed = true;
    writeFileSync(counterFile, 'oom_kill 1\n');
    process.kill(pid, 'SIGKILL');
  }, 5);
  return seen;
}

/** Starts `pid`'s high-water mark (VmHWM) afresh from its resident memory now; where the kernel refuses, it stays. */
function resetPeak(pid: number): void {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    // Older kernels or a locked-down /proc: the mark then includes start-up, which only makes the check stricter.
  }
}

it.skipIf(sampleMemory(process.pid) === undefined)(
  'a server whose memory grows with its requests: OOM-killed without a budget (every rollout in flight recorded as server_oom_killed), completed under memory_budget on resume',
  { timeout: 180_000 },
  async () => {
    const work = workFolder(TASKS, 'hungry_simple_agent');
    const oomCounter = join(work.dir, 'vmstat');
    writeFileSync(oomCounter, 'oom_kill 0\n');
    model = await startFaultyModel(() => 'answer', 5);
    gym = await startHungryStack(model.url, { NGYM_OOM_KILL_COUNTER: oomCounter }, { holdMs: HOLD_MS });
    const firstServer = pidOf(gym, 'hungry');
    const start = sampleMemory(firstServer)?.residentBytes ?? 0;
    const limit = start + LIMIT_OVER_START;
    const budget = start + BUDGET_OVER_START;
    const unbudgeted = enforceLimit(firstServer, limit, oomCounter);
    const result = await startCollect(gym, work, ['+num_samples_in_parallel=64']).exited;

    expect(unbudgeted.killed, result.stdout + result.stderr).toBe(true);
    expect(result.code).toBe(1);
    await until('ngym run to report the kill', () => gym!.stderr().includes("Server 'hungry' was killed by the kernel's out-of-memory killer"));
    const failures = jsonlRows(work.failures);
    expect(failures.length).toBeGreaterThan(0);
    for (const failure of failures) expect(failure._ng_failure_class, String(failure.error)).toBe('server_oom_killed');
    // None scored: no rollout is both in the output and a failure, no reward was invented, all are accounted for.
    const counts = exactlyOnce(work.output, TASKS);
    expect(counts.zeros + counts.duplicates).toBe(0);
    const done = new Set(jsonlRows(work.output).map((row) => `${row._ng_task_index}/${row._ng_rollout_index}`));
    expect(failures.filter((row) => done.has(`${row._ng_task_index}/${row._ng_rollout_index}`))).toEqual([]);
    const notStarted = Number(/(\d+) rollouts were not started/.exec(result.stdout)?.[1] ?? 0);
    expect(counts.rows + failures.length + notStarted).toBe(TASKS);

    // The same server under a budget, the same limit enforced: the resume completes the rest once.
    await gym.stop('SIGKILL');
    clearInterval(watchdog);
    writeFileSync(oomCounter, 'oom_kill 1\n');
    const budgetMib = Math.floor(budget / MIB);
    gym = await startHungryStack(model.url, { NGYM_OOM_KILL_COUNTER: oomCounter }, { holdMs: HOLD_MS, args: [`+hungry.resources_servers.hungry.memory_budget=${budgetMib}MiB`] });
    const secondServer = pidOf(gym, 'hungry');
    // The budget governs the work a server admits: its high-water mark counts from here, not from its start-up.
    resetPeak(secondServer);
    const budgeted = enforceLimit(secondServer, limit, oomCounter);
    const resumed = await startCollect(gym, work, ['+resume=true', '+num_samples_in_parallel=64']).exited;
    const highWater = sampleMemory(secondServer)?.peakBytes ?? 0;
    const figures =
      `memory budget: start ${Math.round(start / MIB)} MiB, limit ${Math.round(limit / MIB)} MiB, budget ${budgetMib} MiB; ` +
      `without the budget: killed at over ${Math.round(unbudgeted.peakBytes / MIB)} MiB, ${counts.rows} rows, ${failures.length} server_oom_killed, ${notStarted} not started; ` +
      `with it: peak ${Math.round(budgeted.peakBytes / MIB)} MiB sampled, ${Math.round(highWater / MIB)} MiB VmHWM`;
    console.log(figures);
    expect(budgeted.killed, resumed.stdout + resumed.stderr).toBe(false);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(exactlyOnce(work.output, TASKS)).toEqual({ rows: TASKS, duplicates: 0, missing: 0, zeros: 0 });
    // Peak resident memory (the kernel's high-water mark, not a sample) stayed under the budget itself.
    expect(highWater, `${figures}\n${gym.stderr()}`).toBeLessThan(budgetMib * MIB);
  },
);
