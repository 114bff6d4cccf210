/**
 * A box: one running sandbox (a bubblewrap namespace set, or a container) with our supervisor
 * (launcher.py) as its PID 1. The host sends it one job at a time over the supervisor's stdin and reads
 * the run's output and result from its stdout. Killing the box's process ends every process inside it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { encodeFrame, FrameDecoder } from './frames.ts';
import { DEFAULT_LIMITS, SandboxError, type SandboxRunHandle, type SandboxRunRequest, type SandboxRunResult, type SandboxFile, type SandboxLimits } from './types.ts';

const LAUNCHER_SOURCE = readFileSync(new URL('./launcher.py', import.meta.url), 'utf8');

/** How a provider starts a box: the command, and data to hand it on extra file descriptors 3, 4, ... */
export interface BoxSpawn {
  command: string;
  args: string[];
  uid?: number;
  gid?: number;
  /** Written to fds 3, 4, ... and closed (bubblewrap's --ro-bind-data and --seccomp read them). */
  inputs?: Uint8Array[];
  /** The box's work directory and base environment of every run. */
  workdir: string;
  env: Record<string, string>;
  /** The box itself bounds processes (a container's pids limit), so runs get no RLIMIT_NPROC. */
  processLimitByBox?: boolean;
  /** Whether reset() can make the box as new (false: the work directory is an image's own files). */
  reusable?: boolean;
  /**
   * Run after killing the box's process, for boxes that outlive it: a container keeps running when its
   * engine's client is killed, so the engine must remove it.
   */
  teardown?: { command: string; args: string[] };
}

/** Extra time the host allows past a run's wall limit before it stops waiting for the supervisor. */
const HOST_GRACE_MS = 5_000;
const STDERR_KEPT = 8_192;

interface LauncherResult {
  status: SandboxRunResult['status'];
  exit_code?: number | null;
  signal?: string | null;
  wall_seconds?: number;
  cpu_seconds?: number;
  max_rss_bytes?: number;
  reason?: string;
}

/** The supervisor's command line: the box runs `python3 -I -S -c <launcher> <config>`. */
export function launcherCommand(python: string, workdir: string, wipe: string[]): string[] {
  return [python, '-I', '-S', '-c', LAUNCHER_SOURCE, JSON.stringify({ workdir, wipe })];
}

export function resolveLimits(limits: Partial<SandboxLimits> | undefined, defaults: SandboxLimits = DEFAULT_LIMITS): SandboxLimits {
  return { ...defaults, ...Object.fromEntries(Object.entries(limits ?? {}).filter(([, value]) => value !== undefined)) };
}

function checkRelativePath(path: string): string {
  const parts = path.split('/');
  if (path === '' || path.startsWith('/') || parts.includes('..') || path.includes('\0')) {
    throw new TypeError(`Sandbox file path ${JSON.stringify(path)} must be relative to the work directory, without '..'.`);
  }
  return path;
}

function encodeFiles(files: SandboxFile[] | undefined): [string, string, number][] {
  return (files ?? []).map((file) => [
    checkRelativePath(file.path),
    Buffer.from(file.content as string | Uint8Array).toString('base64'),
    file.mode ?? 0o644,
  ]);
}

class OutputBuffer {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  truncated = false;

  constructor(private readonly limit: number) {}

  add(chunk: Buffer): void {
    const room = this.limit - this.size;
    if (chunk.length > room) this.truncated = true;
    const kept = chunk.length > room ? chunk.subarray(0, Math.max(0, room)) : chunk;
    if (kept.length === 0) return;
    this.chunks.push(kept);
    this.size += kept.length;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

interface ActiveRun {
  stdout: OutputBuffer;
  stderr: OutputBuffer;
  stdoutListeners: ((chunk: Buffer) => void)[];
  finish: (result: LauncherResult) => void;
}

export class BoxStartError extends Error {}

export class Box {
  private readonly decoder = new FrameDecoder();
  private readonly stdin: Writable;
  private active: ActiveRun | undefined;
  private resetWaiter: ((reply: { ok: boolean; reason?: string }) => void) | undefined;
  private stderrTail = '';
  private exitReason: string | undefined;
  private readonly exitListeners: ((reason: string) => void)[] = [];
  /** Runs this box has served. */
  runs = 0;
  readonly exited: Promise<void>;

  private constructor(
    private readonly process: ChildProcess,
    readonly spec: BoxSpawn,
  ) {
    this.stdin = process.stdin as Writable;
    // A box that died has closed its stdin; the exit handler reports it.
    this.stdin.on('error', () => {});
    process.stderr?.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_KEPT);
    });
    this.exited = new Promise((resolve) => {
      process.on('exit', (code, signal) => {
        this.exitReason = `the sandbox process exited (${signal ?? `code ${code}`})${this.stderrTail.trim() ? `: ${this.stderrTail.trim()}` : ''}`;
        for (const listener of this.exitListeners.splice(0)) listener(this.exitReason);
        resolve();
      });
    });
  }

  /** Starts a box and waits for its supervisor's ready frame. */
  static start(spec: BoxSpawn, timeoutMs = 30_000): Promise<Box> {
    const inputs = spec.inputs ?? [];
    const child = spawn(spec.command, spec.args, {
      stdio: ['pipe', 'pipe', 'pipe', ...inputs.map(() => 'pipe' as const)],
      uid: spec.uid,
      gid: spec.gid,
      env: { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', LANG: 'C.UTF-8' },
    });
    const box = new Box(child, spec);
    inputs.forEach((data, index) => {
      const stream = child.stdio[3 + index] as Writable;
      stream.on('error', () => {});
      stream.end(data);
    });
    return new Promise<Box>((resolve, reject) => {
      let ready = false;
      const fail = (message: string) => {
        if (ready) return;
        ready = true;
        clearTimeout(timer);
        box.kill();
        reject(new BoxStartError(message));
      };
      const timer = setTimeout(() => fail(`the sandbox did not start within ${timeoutMs / 1000} s${box.stderrTail ? `: ${box.stderrTail.trim()}` : ''}`), timeoutMs);
      child.on('error', (error) => fail(`cannot run ${spec.command}: ${error.message}`));
      box.exitListeners.push((reason) => fail(reason));
      child.stdout?.on('data', (chunk: Buffer) => {
        for (const frame of box.decoder.push(chunk)) {
          if (frame.kind === 'R' && !ready) {
            ready = true;
            clearTimeout(timer);
            resolve(box);
          } else {
            box.handleFrame(frame.kind, frame.payload);
          }
        }
      });
    });
  }

  get alive(): boolean {
    return this.exitReason === undefined;
  }

  get busy(): boolean {
    return this.active !== undefined || this.resetWaiter !== undefined;
  }

  private handleFrame(kind: string, payload: Buffer): void {
    const run = this.active;
    if (kind === 'o' && run) {
      if (run.stdoutListeners.length > 0) for (const listener of run.stdoutListeners) listener(payload);
      else run.stdout.add(payload);
    } else if (kind === 'e' && run) {
      run.stderr.add(payload);
    } else if (kind === 'r' && run) {
      run.finish(JSON.parse(payload.toString('utf8')) as LauncherResult);
    } else if (kind === 'Z' && this.resetWaiter) {
      const waiter = this.resetWaiter;
      this.resetWaiter = undefined;
      waiter(JSON.parse(payload.toString('utf8')) as { ok: boolean; reason?: string });
    }
  }

  private send(kind: string, payload?: Uint8Array | string): void {
    if (this.alive) this.stdin.write(encodeFrame(kind, payload));
  }

  /** Starts a run; the box serves one at a time. */
  start(request: SandboxRunRequest, defaults: SandboxLimits = DEFAULT_LIMITS): SandboxRunHandle {
    if (this.busy) throw new Error('This sandbox box is already running something.');
    if (!this.alive) throw new SandboxError(`This sandbox box is gone: ${this.exitReason}`);
    const limits = resolveLimits(request.limits, defaults);
    const job = {
      argv: request.command,
      cwd: request.cwd === undefined ? this.spec.workdir : request.cwd.startsWith('/') ? request.cwd : `${this.spec.workdir}/${request.cwd}`,
      env: { ...this.spec.env, ...request.env },
      files: encodeFiles(request.files),
      merge_stderr: request.mergeStderr === true,
      limits: {
        wall_seconds: limits.wallSeconds,
        cpu_seconds: limits.cpuSeconds === null ? null : Math.max(1, Math.ceil(limits.cpuSeconds)),
        memory_bytes: limits.memoryBytes,
        processes: this.spec.processLimitByBox ? null : limits.processes,
        file_size_bytes: limits.fileSizeBytes,
        output_bytes: limits.outputBytes,
        open_files: limits.openFiles,
      },
    };
    if (request.command.length === 0) throw new TypeError('A sandbox run needs a command.');

    const stdout = new OutputBuffer(limits.outputBytes);
    const stderr = new OutputBuffer(limits.outputBytes);
    const stdoutListeners: ((chunk: Buffer) => void)[] = [];
    let settle!: (result: SandboxRunResult) => void;
    const result = new Promise<SandboxRunResult>((resolve) => (settle = resolve));
    let done = false;
    const hostDeadline = setTimeout(() => finish({ status: 'wall_timeout', reason: 'the sandbox did not end the run at its wall limit; the box was killed' }, true), limits.wallSeconds * 1000 + HOST_GRACE_MS);
    const onExit = (reason: string) => finish({ status: 'sandbox_error', reason }, false);

    const finish = (raw: LauncherResult, killBox: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(hostDeadline);
      this.removeExitListener(onExit);
      this.active = undefined;
      this.runs++;
      if (killBox) this.kill();
      settle({
        status: raw.status,
        exitCode: raw.exit_code ?? null,
        signal: raw.signal ?? null,
        stdout: stdout.text(),
        stderr: stderr.text(),
        stdoutTruncated: stdout.truncated || raw.status === 'output_limit',
        stderrTruncated: stderr.truncated,
        wallSeconds: raw.wall_seconds ?? 0,
        cpuSeconds: raw.cpu_seconds ?? 0,
        maxRssBytes: raw.max_rss_bytes ?? 0,
        reason: raw.reason ?? describeStop(raw, limits),
      });
    };
    this.active = { stdout, stderr, stdoutListeners, finish: (raw) => finish(raw, false) };
    this.exitListeners.push(onExit);

    this.send('j', JSON.stringify(job));
    if (request.stdin !== undefined && request.stdin.length > 0) this.send('i', request.stdin);
    return {
      write: (data) => {
        if (!done) this.send('i', data);
      },
      closeStdin: () => {
        if (!done) this.send('c');
      },
      kill: () => {
        if (!done) this.send('k');
      },
      onStdout: (listener) => stdoutListeners.push(listener),
      result,
    };
  }

  /** Runs a program to its end. */
  run(request: SandboxRunRequest, defaults: SandboxLimits = DEFAULT_LIMITS): Promise<SandboxRunResult> {
    const handle = this.start(request, defaults);
    handle.closeStdin();
    return handle.result;
  }

  /** Empties the writable directories and removes what a run left; false when the box cannot be reused. */
  reset(timeoutMs = 10_000): Promise<boolean> {
    if (this.busy || !this.alive) return Promise.resolve(false);
    return new Promise((resolve) => {
      const end = (ok: boolean) => {
        clearTimeout(timer);
        this.removeExitListener(onExit);
        this.resetWaiter = undefined;
        resolve(ok);
      };
      const onExit = () => end(false);
      const timer = setTimeout(() => end(false), timeoutMs);
      this.resetWaiter = (reply) => end(reply.ok);
      this.exitListeners.push(onExit);
      this.send('z');
    });
  }

  private removeExitListener(listener: (reason: string) => void): void {
    const index = this.exitListeners.indexOf(listener);
    if (index >= 0) this.exitListeners.splice(index, 1);
  }

  /** Ends the box and every process in it. */
  kill(): void {
    if (!this.alive) return;
    this.process.kill('SIGKILL');
    const teardown = this.spec.teardown;
    if (teardown !== undefined) spawn(teardown.command, teardown.args, { stdio: 'ignore' }).on('error', () => {});
  }
}

function describeStop(raw: LauncherResult, limits: SandboxLimits): string | null {
  switch (raw.status) {
    case 'wall_timeout':
      return `wall time limit of ${limits.wallSeconds} s reached`;
    case 'cpu_timeout':
      return `CPU time limit of ${limits.cpuSeconds} s reached`;
    case 'memory_limit':
      return `memory limit of ${limits.memoryBytes} bytes reached`;
    case 'output_limit':
      return `output limit of ${limits.outputBytes} bytes reached`;
    case 'file_size_limit':
      return `file size limit of ${limits.fileSizeBytes} bytes reached`;
    default:
      return null;
  }
}
