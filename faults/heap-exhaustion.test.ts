/**
 * A TypeScript resources server that runs out of JavaScript heap mid-collection, for real: `ngym run` starts its
 * servers with NODE_OPTIONS=--max-old-space-size=HEAP_LIMIT_MIB, and the hungry server keeps JavaScript objects
 * from every verify until V8 gives up and aborts. `ngym run` reads V8's last words on the server's stderr and
 * reports the death as heap exhaustion; every rollout in flight is a `server_heap_exhausted` failure, none scored,
 * and a resume on a stack without the limit completes the rest once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { GymProcess } from '../src/testing/cli-process.ts';
import { exactlyOnce, type FaultyModel, HUNGRY_OBJECTS_PER_VERIFY, jsonlRows, startCollect, startFaultyModel, startHungryStack, until, workFolder } from './fault-stack.ts';

const TASKS = 60;
/** Room for a server's own heap (about 20 MiB) and a dozen verifies' objects, far from the 60 the tasks need. */
const HEAP_LIMIT_MIB = 64;

let gym: GymProcess | undefined;
let model: FaultyModel | undefined;

afterEach(async () => {
  await gym?.stop('SIGKILL');
  await model?.close();
  gym = undefined;
  model = undefined;
});

describe('a server that runs out of JavaScript heap (ngym run + ngym collect)', () => {
  it(
    `dies of V8's heap limit mid-collection (${HUNGRY_OBJECTS_PER_VERIFY} objects kept per verify, ${HEAP_LIMIT_MIB} MiB): ngym run says so, every rollout in flight is server_heap_exhausted, the resume completes the rest`,
    { timeout: 120_000 },
    async () => {
      const started = Date.now();
      const work = workFolder(TASKS, 'hungry_simple_agent');
      model = await startFaultyModel(() => 'answer', 20);
      gym = await startHungryStack(model.url, { NODE_OPTIONS: `--max-old-space-size=${HEAP_LIMIT_MIB}` }, { jsObjects: true });
      const result = await startCollect(gym, work, ['+num_samples_in_parallel=4']).exited;
      expect(result.code, result.stdout + result.stderr).toBe(1);
      await until('ngym run to report the death', () => gym!.stderr().includes("Server 'hungry' (pid"), 30_000, () => gym!.stderr());
      // V8's own words came through, and ngym run named the death for what it was.
      expect(gym.stderr()).toContain('(hungry) FATAL ERROR:');
      const limit = `its heap limit was ${HEAP_LIMIT_MIB} MiB \\(--max-old-space-size=${HEAP_LIMIT_MIB}\\)`;
      expect(gym.stderr()).toMatch(
        new RegExp(`Server 'hungry' \\(pid \\d+, http://[^)]+\\) ran out of JavaScript heap \\(signal SIGABRT\\); ${limit}; at the last sample it held \\d+ MiB resident, peak \\d+ MiB, [\\d.]+ s before; give it more heap \\(NODE_OPTIONS=--max-old-space-size=<MiB>`),
      );

      const failures = jsonlRows(work.failures);
      expect(failures.length).toBeGreaterThan(0);
      for (const failure of failures) {
        expect(failure._ng_failure_class, String(failure.error)).toBe('server_heap_exhausted');
        // The agent's 500 quotes the server's 503 (its quotes escaped on the way).
        expect(failure.error).toMatch(new RegExp(`Server \\W*hungry\\W* \\(pid \\d+, http://[^)]+\\) ran out of JavaScript heap .*${limit}.*memory_budget`));
      }
      expect(result.stdout).toMatch(/rollouts failed after their retries \(\d+ server_heap_exhausted\)/);
      expect(result.stdout).toMatch(/Stopped early \(a server behind agent 'hungry_simple_agent' died \(server_heap_exhausted\)/);
      // Every rollout is accounted for: scored in the output, recorded as the death, or not started; none twice.
      const notStarted = Number(/(\d+) rollouts were not started/.exec(result.stdout)?.[1] ?? 0);
      const counts = exactlyOnce(work.output, TASKS);
      expect(counts.zeros + counts.duplicates).toBe(0);
      expect(counts.rows).toBeGreaterThan(0);
      expect(counts.rows + failures.length + notStarted, result.stdout).toBe(TASKS);
      const done = new Set(jsonlRows(work.output).map((row) => `${row._ng_task_index}/${row._ng_rollout_index}`));
      expect(failures.filter((row) => done.has(`${row._ng_task_index}/${row._ng_rollout_index}`))).toEqual([]);
      const died = Date.now() - started;

      // The resume retries the failures as it does any death's, on a stack without the limit.
      await gym.stop('SIGKILL');
      gym = await startHungryStack(model.url, {}, { jsObjects: true });
      const resumed = await startCollect(gym, work, ['+resume=true', '+num_samples_in_parallel=16']).exited;
      expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
      expect(exactlyOnce(work.output, TASKS)).toEqual({ rows: TASKS, duplicates: 0, missing: 0, zeros: 0 });
      console.log(
        `heap exhausted: ${counts.rows} rows + ${failures.length} server_heap_exhausted + ${notStarted} not started = ${TASKS}, in ${(died / 1000).toFixed(1)} s; ` +
          `resumed to ${TASKS} rows, ${((Date.now() - started) / 1000).toFixed(1)} s in all\n${failures[0]?.error}`,
      );
    },
  );
});
