/**
 * Grading a solution against its unit tests, as upstream's LiveCodeBench harness grades it: runner.py
 * runs the tests in a sandbox box and reports each test's output as it goes; comparator.py, in a box of
 * its own that never runs model code, judges each report against the expected output, which never enters
 * the solution's box. Grading stops at the first failing test (its run is killed), as upstream's does.
 *
 * The result list holds `true` per passed test, then the failing test's code (-2 wrong answer, `false` for
 * a call-based wrong answer, -3 time limit, -4 runtime error); `[-4]` alone when the code cannot be loaded or the harness fails; `-1` for
 * every test when the whole run ends abnormally (the global time limit, a crash).
 */
import { readFileSync } from 'node:fs';
import { AsyncQueue, JsonLineProcess, onStdoutLines, type Sandbox } from 'ngym';

const RUNNER = readFileSync(new URL('./runner.py', import.meta.url), 'utf8');
const COMPARATOR = readFileSync(new URL('./comparator.py', import.meta.url), 'utf8');

export interface UnitTests {
  inputs: string[];
  outputs: string[];
  fn_name?: string | null;
}

/** `false` is a call-based wrong answer (upstream records the comparison itself there). */
type TestResult = boolean | -1 | -2 | -3 | -4;

export interface Grade {
  result: TestResult[];
  metadata: Record<string, unknown> | null;
}

type RunnerRecord =
  | { kind: 'ready' }
  | { kind: 'end' }
  | { kind: 'fatal'; message: string }
  | { kind: 'output' | 'value' | 'timeout' | 'error'; index: number; seconds?: number };

type Verdict = { pass: true } | { pass: false; code: false | -2 | -3 | -4; metadata: Record<string, unknown> } | { fatal: string };

const COMPARATOR_TIMEOUT_MS = 120_000;

export class Grader {
  private comparator: Promise<JsonLineProcess> | undefined;

  constructor(
    private readonly sandbox: Sandbox,
    private readonly timeoutSeconds: number,
  ) {}

  /** The comparator process, started on first use and again if it ended. */
  private async compare<T>(message: unknown): Promise<T> {
    let comparator = this.comparator === undefined ? undefined : await this.comparator.catch(() => undefined);
    if (comparator === undefined || !comparator.alive) {
      this.comparator = JsonLineProcess.start(this.sandbox, {
        command: ['python3', '-c', COMPARATOR],
        // A day; it is restarted if it ever ends.
        limits: { wallSeconds: 86_400, cpuSeconds: null, outputBytes: 1024 ** 3 },
      });
      comparator = await this.comparator;
    }
    return comparator.request<T>(message, COMPARATOR_TIMEOUT_MS);
  }

  async grade(code: string, tests: UnitTests): Promise<Grade> {
    const mode = tests.fn_name === undefined || tests.fn_name === null ? 'stdio' : 'call';
    const count = tests.inputs.length;
    // Upstream's limit on the whole task: a run that does not finish within it counts as all -1.
    const globalSeconds = (this.timeoutSeconds + 1) * count + 5;
    const handle = await this.sandbox.start({
      command: ['python3', 'runner.py'],
      files: [
        { path: 'runner.py', content: RUNNER },
        { path: 'solution.py', content: code },
        { path: 'task.json', content: JSON.stringify({ inputs: tests.inputs, fn_name: tests.fn_name ?? null, timeout: this.timeoutSeconds }) },
      ],
      limits: { wallSeconds: globalSeconds, cpuSeconds: globalSeconds },
    });
    handle.closeStdin();
    const records = new AsyncQueue<RunnerRecord | { kind: 'corrupt'; line: string }>(Number.POSITIVE_INFINITY);
    onStdoutLines(handle, (line) => {
      try {
        records.push(JSON.parse(line) as RunnerRecord);
      } catch {
        records.push({ kind: 'corrupt', line });
      }
    });
    void handle.result.then(() => records.close());

    const result: TestResult[] = [];
    let executionSeconds = 0;
    let grade: Grade | undefined;
    const fatal = (message: string): Grade => ({ result: [-4], metadata: { error_code: -4, error_message: message } });
    try {
      for await (const record of records) {
        if (grade !== undefined) continue;
        if (record.kind === 'fatal') {
          grade = fatal(record.message);
        } else if (record.kind === 'ready') {
          if (mode === 'call') {
            const reply = await this.compare<{ ok?: true; fatal?: string }>({ op: 'outputs', outputs: tests.outputs });
            if (reply.fatal !== undefined) grade = fatal(reply.fatal);
          }
        } else if (record.kind === 'end') {
          grade = { result, metadata: { 'execution time': executionSeconds } };
        } else if (record.kind === 'corrupt' || record.index !== result.length || record.index >= count) {
          // Only a solution writing into the runner's channel produces this.
          result.push(-4);
          grade = { result, metadata: { error_code: -4, error_message: 'Runtime Error', error: "the test runner's report was corrupted" } };
        } else {
          const verdict = await this.compare<Verdict>({ op: 'judge', mode, record, expected: tests.outputs[record.index] });
          if ('fatal' in verdict) {
            grade = fatal(verdict.fatal);
          } else if (verdict.pass) {
            result.push(true);
            executionSeconds += record.seconds ?? 0;
          } else {
            result.push(verdict.code);
            grade = { result, metadata: verdict.metadata };
          }
        }
        if (grade !== undefined) handle.kill();
      }
    } finally {
      handle.kill();
    }
    await handle.result;
    return grade ?? { result: new Array<TestResult>(count).fill(-1), metadata: null };
  }

  close(): void {
    void this.comparator?.then((comparator) => comparator.close()).catch(() => {});
  }
}
