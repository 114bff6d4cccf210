/**
 * The sandbox interface every provider serves: a program (argv), files, stdin and limits in; exit status,
 * capped stdout/stderr, wall and CPU time and why the run stopped out.
 */
import { NgymError } from '../errors.ts';


/** The sandbox cannot run anything: it cannot start, or its supervisor died. Retryable, HTTP 503. */
export class SandboxError extends NgymError {
  constructor(message: string, cause?: unknown) {
    super('NGYM_SANDBOX', message, { status: 503, retryable: true, cause });
  }
}

export interface SandboxLimits {
  /** Wall-clock time of a run; the run is killed when it is over. */
  wallSeconds: number;
  /** CPU time of each process (RLIMIT_CPU: SIGXCPU, then SIGKILL a second later). */
  cpuSeconds: number | null;
  /**
   * Memory: the address space of each process (RLIMIT_AS; allocations beyond it fail) and the resident
   * memory of all processes of the run together (polled every 50 ms; the run is killed beyond it).
   */
  memoryBytes: number | null;
  /** Processes and threads the run may have at once (RLIMIT_NPROC in the box's own user namespace). */
  processes: number | null;
  /** Largest file a process may write (RLIMIT_FSIZE). */
  fileSizeBytes: number | null;
  /** Bytes kept of stdout and of stderr each; a run that writes more is killed (status `output_limit`). */
  outputBytes: number;
  /** Open file descriptors per process (RLIMIT_NOFILE). */
  openFiles: number | null;
}

export const DEFAULT_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  wallSeconds: 30,
  cpuSeconds: 30,
  memoryBytes: 2 * 1024 ** 3,
  processes: 64,
  fileSizeBytes: 64 * 1024 ** 2,
  outputBytes: 1024 ** 2,
  openFiles: 1024,
});

/** Why a run stopped. */
export type SandboxRunStatus =
  /** The program exited by itself (see `exitCode`). */
  | 'exited'
  /** The program was killed by a signal it did not get from the sandbox (see `signal`). */
  | 'signaled'
  | 'wall_timeout'
  | 'cpu_timeout'
  /** The resident memory of the run's processes went over the limit. */
  | 'memory_limit'
  | 'output_limit'
  /** Killed by SIGXFSZ (programs that ignore it, as Python does, get an error from the write instead). */
  | 'file_size_limit'
  /** Killed on request (`SandboxRunHandle.kill`, a closed session). */
  | 'killed'
  /** The program could not be started (no such file, not executable). */
  | 'exec_failed'
  /** The sandbox itself failed: it could not start, or its supervisor died. */
  | 'sandbox_error';

export interface SandboxFile {
  /** Relative to the box's work directory; no `..`. */
  path: string;
  content: string | Uint8Array;
  /** Unix permission bits; 0o644 unless set. */
  mode?: number;
}

export interface SandboxRunRequest {
  /** argv; `command[0]` is looked up on the box's PATH (/usr/local/bin:/usr/bin:/bin). */
  command: string[];
  /** Written into the work directory before the program starts. */
  files?: SandboxFile[];
  stdin?: string | Uint8Array;
  /** Added to the box's base environment (PATH, HOME, LANG, ...); nothing of the host's is passed. */
  env?: Record<string, string>;
  /** Relative to the work directory, or absolute inside the box. */
  cwd?: string;
  limits?: Partial<SandboxLimits>;
  /** Send stderr into the stdout pipe (one interleaved stream, as `2>&1`). */
  mergeStderr?: boolean;
}

export interface SandboxRunResult {
  status: SandboxRunStatus;
  exitCode: number | null;
  signal: string | null;
  /** UTF-8 with invalid bytes replaced. */
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  wallSeconds: number;
  /** User + system time of every process of the run. */
  cpuSeconds: number;
  maxRssBytes: number;
  /** Details for `exec_failed`, `sandbox_error` and limits, in words. */
  reason: string | null;
}

/** A run finished by itself with exit code 0. */
export function succeeded(result: SandboxRunResult): boolean {
  return result.status === 'exited' && result.exitCode === 0;
}

/** A run that goes on while the host talks to it (an interpreter serving several requests). */
export interface SandboxRunHandle {
  write(data: string | Uint8Array): void;
  closeStdin(): void;
  kill(): void;
  /** Each stdout chunk as it arrives (the result's `stdout` holds them too, up to the output limit). */
  onStdout(listener: (chunk: Buffer) => void): void;
  readonly result: Promise<SandboxRunResult>;
}

/** Calls `listener` with each complete line (without its "\n") a running program writes to stdout. */
export function onStdoutLines(handle: SandboxRunHandle, listener: (line: string) => void): void {
  let pending: Buffer[] = [];
  handle.onStdout((chunk) => {
    let start = 0;
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
      pending.push(chunk.subarray(start, newline));
      listener(Buffer.concat(pending).toString('utf8'));
      pending = [];
      start = newline + 1;
    }
    if (start < chunk.length) pending.push(chunk.subarray(start));
  });
}
