/**
 * Runs the real `ngym` CLI in child processes, for end-to-end tests: `runCli` for commands that finish,
 * `startGymProcess` for `ngym run`, which is ready once it prints the head server's URL.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../util/package-root.ts';

const BIN = join(PACKAGE_ROOT, 'bin', 'ngym.js');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** The script to run instead of bin/ngym.js (a symlink named like an alias, as npm's bin links are). */
  bin?: string;
  /** startGymProcess: the command that starts the gym (default `run`; `env start` for a `gym` link). */
  command?: string[];
}

function spawnCli(args: string[], options: CliOptions = {}): ChildProcess {
  return spawn(process.execPath, [options.bin ?? BIN, ...args], {
    cwd: options.cwd ?? PACKAGE_ROOT,
    env: { ...process.env, NGYM_LOG_LEVEL: 'warn', ...options.env },
    // The IPC channel ties the command to the test: if the test's process dies (a timeout, a crash), the command
    // stops too, with its servers (src/cli/end-with-parent.ts).
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
}

export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  const child = spawnCli(args, options);
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
}

export interface GymProcess {
  process: ChildProcess;
  headPort: number;
  stdout(): string;
  stderr(): string;
  /** Sends SIGTERM and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<CliResult>;
}

/** Starts `ngym run <args>` (or options.command) with the head server on a free port; resolves when every server is ready. */
export function startGymProcess(args: string[], options: CliOptions = {}): Promise<GymProcess> {
  const child = spawnCli([...(options.command ?? ['run']), ...args, '++head_server={host: 127.0.0.1, port: 0}'], options);
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<CliResult>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return new Promise((resolve, reject) => {
    const onData = () => {
      const match = /Head server: http:\/\/[^:]+:(\d+)/.exec(stdout);
      if (match === null || !stdout.includes('servers ready')) return;
      child.stdout?.off('data', onData);
      resolve({
        process: child,
        headPort: Number(match[1]),
        stdout: () => stdout,
        stderr: () => stderr,
        stop: (signal = 'SIGTERM') => {
          child.kill(signal);
          return exited;
        },
      });
    };
    child.stdout?.on('data', onData);
    void exited.then((result) => reject(new Error(`ngym run exited before it was ready (code ${result.code}):\n${result.stderr}\n${result.stdout}`)));
  });
}
