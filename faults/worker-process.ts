/**
 * `ngym worker` as the fault tests start it: its supervisor leads a process group of its own, so that the test can
 * kill the whole worker host at once (the supervisor and its worker process), or only the worker process under it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/util/package-root.ts';
import { until } from './fault-stack.ts';

export interface WorkerProcess {
  /** The supervisor. */
  child: ChildProcess;
  output(): string;
  exited: Promise<unknown>;
  /** The worker process the supervisor started last, from its `Worker ready (pid N ...)` line. */
  workerPid(): number;
  /** SIGKILL to the supervisor and its worker process at once: the host is gone. */
  killHost(): void;
}

/** Started supervisors, for killHostsLeft. */
const started: WorkerProcess[] = [];

export async function startWorker(headPort: number, redisUrl: string, extra: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<WorkerProcess> {
  const child = spawn(
    process.execPath,
    [join(PACKAGE_ROOT, 'bin', 'ngym.js'), 'worker', `+head_server={host: 127.0.0.1, port: ${headPort}}`, `+queue.url=${redisUrl}`, '+queue.lock_seconds=1', '+concurrency=4', ...extra],
    // The IPC channel ends the worker with this process, should a test time out (src/cli/end-with-parent.ts).
    { cwd: PACKAGE_ROOT, env: { ...process.env, NGYM_LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe', 'ipc'], detached: true },
  );
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise((resolve) => child.on('close', resolve));
  const worker: WorkerProcess = {
    child,
    output: () => output,
    exited,
    workerPid() {
      const pids = [...output.matchAll(/Worker ready \(pid (\d+)/g)].map((match) => Number(match[1]));
      if (pids.length === 0) throw new Error(`no worker process is ready:\n${output}`);
      return pids.at(-1) as number;
    },
    killHost() {
      try {
        process.kill(-(child.pid as number), 'SIGKILL');
      } catch {
        // Already gone.
      }
    },
  };
  started.push(worker);
  await until('the worker is ready', () => output.includes('Worker ready') || child.exitCode !== null, 120_000);
  if (!output.includes('Worker ready')) throw new Error(`the worker did not start:\n${output}`);
  return worker;
}

/** For afterEach: every worker host a test started is killed, the worker processes with their supervisors. */
export async function killHostsLeft(): Promise<void> {
  for (const worker of started.splice(0)) {
    worker.killHost();
    await worker.exited;
  }
}
