/**
 * Runs a model's `transform` on the test grid in the sandbox (inductive mode): one box run of runner.py per verify,
 * with upstream's time limits (the transform's own alarm, and the whole run `timeout + 5` seconds). Whatever the
 * program does wrong (no transform, an exception, a timeout, output that is no grid) is no prediction; a sandbox that
 * cannot run at all is an error (HTTP 503, retryable), never a reward of 0.
 */
import { readFileSync } from 'node:fs';
import { Sandbox, SandboxError, succeeded } from 'ngym';
import { isPythonDict, pythonJsonLoads, pythonStrip, pythonTruthy } from 'ngym/python-compat';
import { type Grid, isValidGrid, laxIntGrid } from './grid.ts';

const RUNNER = readFileSync(new URL('./runner.py', import.meta.url), 'utf8');
/** Upstream waits this much longer than the transform's own alarm for the whole program. */
const PROCESS_GRACE_SECONDS = 5;

export class TransformRunner {
  private readiness: Promise<void> | undefined;

  constructor(
    private readonly sandbox: Sandbox,
    private readonly timeoutSeconds: number,
  ) {}

  /**
   * Checks once that the box's Python has numpy, which the runner imports to convert every result: without it each
   * answer would silently score 0 (as upstream's does). A failed check is retried on the next call.
   */
  ready(): Promise<void> {
    this.readiness ??= this.checkNumpy().catch((error: unknown) => {
      this.readiness = undefined;
      throw error;
    });
    return this.readiness;
  }

  private async checkNumpy(): Promise<void> {
    const result = await this.sandbox.run({ command: ['python3', '-c', 'import numpy'], limits: { wallSeconds: 60 } });
    if (!succeeded(result)) {
      const reason = pythonStrip(result.stderr).split('\n').at(-1) || result.reason || result.status;
      throw new SandboxError(`nvarc's inductive mode needs numpy in the sandbox's python3 (Debian: apt-get install python3-numpy): ${reason}`);
    }
  }

  /** The grid `transform(grid)` returns, or null when the program gives none. */
  async run(code: string, grid: Grid): Promise<Grid | null> {
    await this.ready();
    const seconds = this.timeoutSeconds + PROCESS_GRACE_SECONDS;
    const result = await this.sandbox.run({
      command: ['python3', '-c', RUNNER],
      stdin: JSON.stringify({ code, grid, timeout: this.timeoutSeconds }),
      limits: { wallSeconds: seconds, cpuSeconds: seconds },
    });
    if (!succeeded(result)) return null;
    const output = pythonStrip(result.stdout);
    if (output === '') return null;
    let answer: unknown;
    try {
      answer = pythonJsonLoads(output);
    } catch {
      // What the program printed past the runner's capture makes the answer unreadable: no prediction.
      return null;
    }
    if (!isPythonDict(answer) || !pythonTruthy(answer.success) || answer.result === undefined || answer.result === null) return null;
    const predicted = laxIntGrid(answer.result);
    return predicted !== undefined && isValidGrid(predicted) ? predicted : null;
  }
}
