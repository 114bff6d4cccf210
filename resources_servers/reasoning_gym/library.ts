/**
 * The reasoning-gym Python library, for the tasks ngym has not ported to TypeScript: where its interpreter
 * is, and a long-lived worker process (scripts/library_worker.py) that scores answers with the library's
 * own `score_answer`. Requests are JSON lines over the worker's stdin/stdout, one in flight at a time (the
 * worker is single-threaded anyway), so a request's time limit counts its own scoring only. A worker that
 * dies or overruns fails the request it was scoring with an error saying so, never a score, and the next
 * request starts a fresh worker.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { NgymError } from 'ngym';
import { PACKAGE_ROOT } from 'ngym/runtime';

export const LIBRARY_SCRIPTS = fileURLToPath(new URL('./scripts/', import.meta.url));

/**
 * The interpreter with reasoning-gym installed: `configured`, else `$NGYM_PYTHON_VENV/bin/python`, else the
 * `.venv` that `npm run setup:python` makes in the ngym checkout. Throws an error naming the fix when absent.
 */
export function libraryPython(configured?: string | null): string {
  if (configured) {
    if (!existsSync(configured)) throw new NgymError('NGYM_CONFIG_INVALID', `reasoning_gym: the Python interpreter ${configured} does not exist.`);
    return configured;
  }
  const venv = process.env.NGYM_PYTHON_VENV || join(PACKAGE_ROOT, '.venv');
  const python = join(venv, 'bin', 'python');
  if (!existsSync(python)) {
    throw new NgymError(
      'NGYM_CONFIG_INVALID',
      `reasoning_gym needs the reasoning-gym Python library for this task, but there is no Python virtual environment at ${venv}. ` +
        'Run `npm run setup:python` in the ngym checkout (or set NGYM_PYTHON_VENV to a venv with reasoning-gym==0.1.25).',
    );
  }
  return python;
}

export type LibraryScore = { kind: 'score'; score: number; scorerError?: string } | { kind: 'unknown_task' };

interface Job {
  task: string;
  answer: string | null;
  entry: unknown;
  resolve: (result: LibraryScore) => void;
  reject: (error: Error) => void;
}

interface Running {
  process: ChildProcessWithoutNullStreams;
  lines: AsyncIterator<string>;
  /** Settles when the process has exited (its status then known). */
  exited: Promise<'exit'>;
  stderrTail: string[];
}

const STDERR_TAIL_LINES = 20;

export class LibraryScorer {
  private worker: Promise<Running> | undefined;
  private readonly queue: Job[] = [];
  private busy = false;
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly python: () => string,
    private readonly timeoutMs: number,
  ) {}

  score(task: string, answer: string | null, entry: unknown): Promise<LibraryScore> {
    if (this.closed) return Promise.reject(new NgymError('NGYM_INTERNAL', 'reasoning_gym: the library worker is shut down.'));
    return new Promise((resolve, reject) => {
      this.queue.push({ task, answer, entry, resolve, reject });
      void this.drain();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = undefined;
    if (worker === undefined) return;
    const running = await worker.catch(() => undefined);
    if (running === undefined || running.process.exitCode !== null) return;
    running.process.stdin.end();
    const timer = setTimeout(() => running.process.kill('SIGKILL'), 5000);
    await running.exited;
    clearTimeout(timer);
  }

  private start(): Promise<Running> {
    if (this.worker === undefined) {
      const worker = this.spawnWorker();
      this.worker = worker;
      // A worker that failed to start is not kept: the next request tries again.
      worker.catch(() => {
        if (this.worker === worker) this.worker = undefined;
      });
    }
    return this.worker;
  }

  private spawnWorker(): Promise<Running> {
    const script = join(LIBRARY_SCRIPTS, 'library_worker.py');
    const child = spawn(this.python(), [script], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, PYTHONUNBUFFERED: '1' } });
    const stderrTail: string[] = [];
    createInterface({ input: child.stderr }).on('line', (line) => {
      stderrTail.push(line);
      if (stderrTail.length > STDERR_TAIL_LINES) stderrTail.shift();
    });
    const exited = new Promise<'exit'>((resolve) =>
      child.once('exit', () => {
        if (current === this.worker) this.worker = undefined;
        resolve('exit');
      }),
    );
    // A write to a worker that just died fails here; its 'exit' reports the death.
    child.stdin.on('error', () => undefined);
    const spawnFailed = new Promise<never>((_, reject) => child.once('error', (error) => reject(error)));
    spawnFailed.catch(() => undefined);
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const current = (async () => {
      const first = await Promise.race([lines.next(), spawnFailed]).catch((error: Error) => {
        throw new NgymError('NGYM_INTERNAL', `reasoning_gym: cannot start the library worker (${error.message}).`);
      });
      let hello: { ready?: boolean; fatal?: string } | undefined;
      try {
        hello = first.done ? undefined : (JSON.parse(first.value) as typeof hello);
      } catch {
        hello = { fatal: `it printed ${JSON.stringify(first.value.slice(0, 200))} in place of its handshake` };
      }
      if (hello?.ready !== true) {
        child.kill('SIGKILL');
        const reason = hello?.fatal ?? `it exited before it was ready: ${stderrTail.join('\n') || '(no output)'}`;
        throw new NgymError('NGYM_INTERNAL', `reasoning_gym: the library worker did not start: ${reason}. Run \`npm run setup:python\` to (re)install reasoning-gym.`);
      }
      return { process: child, lines, exited, stderrTail };
    })();
    return current;
  }

  private async drain(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      for (let job = this.queue.shift(); job !== undefined; job = this.queue.shift()) {
        try {
          job.resolve(await this.run(job));
        } catch (error) {
          job.reject(error as Error);
        }
      }
    } finally {
      this.busy = false;
    }
  }

  private async run(job: Job): Promise<LibraryScore> {
    if (this.closed) throw new NgymError('NGYM_INTERNAL', 'reasoning_gym: the library worker is shut down.');
    const running = await this.start();
    const id = this.nextId++;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.timeoutMs);
    });
    running.process.stdin.write(`${JSON.stringify({ id, task: job.task, answer: job.answer, entry: job.entry })}\n`);
    const outcome = await Promise.race([running.lines.next(), running.exited, timedOut]);
    clearTimeout(timer);
    if (outcome === 'timeout') {
      running.process.kill('SIGKILL');
      this.worker = undefined;
      throw new NgymError('NGYM_INTERNAL', `reasoning_gym: the library's scorer of task '${job.task}' took longer than ${this.timeoutMs / 1000} s; the worker was restarted and this verify failed.`);
    }
    if (outcome === 'exit' || outcome.done) {
      this.worker = undefined;
      await running.exited; // its stdout can close before its exit status is known
      const how = running.process.signalCode ?? `code ${running.process.exitCode}`;
      throw new NgymError(
        'NGYM_INTERNAL',
        `reasoning_gym: the library worker died (${how}) while scoring task '${job.task}'; this verify failed and the next one starts a new worker. Its last output: ${running.stderrTail.join('\n') || '(none)'}`,
      );
    }
    const reply = JSON.parse(outcome.value) as { id: number; score?: number; scorer_error?: string; unknown_task?: boolean };
    if (reply.id !== id) throw new NgymError('NGYM_INTERNAL', `reasoning_gym: the library worker answered request ${reply.id} in place of ${id}.`);
    if (reply.unknown_task) return { kind: 'unknown_task' };
    if (typeof reply.score !== 'number') throw new NgymError('NGYM_INTERNAL', `reasoning_gym: malformed reply from the library worker: ${outcome.value}`);
    return reply.scorer_error === undefined ? { kind: 'score', score: reply.score } : { kind: 'score', score: reply.score, scorerError: reply.scorer_error };
  }
}
