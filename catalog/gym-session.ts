/**
 * One `ngym run` as a user starts it (the real CLI in a child process of its own process group), timed from start
 * to "servers ready", its output kept in a log file; `ngym collect` against it; and stopping it whatever happens.
 * Every session still running is stopped when the catalog is interrupted (`stopAllSessions`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { killTree } from '../scripts/lib/process-tree.ts';
import { PACKAGE_ROOT } from '../src/util/package-root.ts';

const BIN = join(PACKAGE_ROOT, 'bin', 'ngym.js');
const live = new Set<ChildProcess>();

export interface ServerRow {
  instance: string;
  type: string;
  impl: string;
  /** `TypeScript`, or `Python <folder>`. */
  runs: string;
}

export interface EnvironmentBuild {
  /** `<type>/<name>` of the server folder. */
  folder: string;
  seconds: number;
}

export interface StartedGym {
  ready: true;
  headPort: number;
  readySeconds: number;
  servers: ServerRow[];
  builds: EnvironmentBuild[];
  output(): string;
  stop(): Promise<void>;
}

export interface FailedGym {
  ready: false;
  /** Exit code, or `timeout`. */
  ending: string;
  seconds: number;
  builds: EnvironmentBuild[];
  output: string;
}

/** Set once the catalog is being stopped: no new session starts after (one starting then would outlive it). */
let stopping = false;

function spawnCli(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  if (stopping) throw new Error('The catalog is stopping: no new ngym process is started.');
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: PACKAGE_ROOT,
    env: { ...process.env, NGYM_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: the whole tree can be ended even if the CLI itself is gone.
    detached: true,
  });
  live.add(child);
  child.once('close', () => live.delete(child));
  return child;
}

async function stopProcess(child: ChildProcess): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  const closed = new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('close', () => resolve())));
  // The CLI stops its servers on SIGTERM; the tree and then the group are killed after it in case something is left.
  await killTree([pid], 20_000);
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // the group is gone
  }
  await closed;
}

/** Kills every ngym process the catalog started (on SIGINT/SIGTERM of the catalog). */
export async function stopAllSessions(): Promise<void> {
  stopping = true;
  // Until none is left: a session whose start was under way when stopping began is stopped too.
  while (live.size > 0) await Promise.all([...live].map(stopProcess));
}

const BUILT = /Python environment of .+? \(([^)]+)\): built in ([\d.]+) s/g;

export function buildsIn(output: string): EnvironmentBuild[] {
  return [...output.matchAll(BUILT)].map((match) => ({ folder: match[1] as string, seconds: Number(match[2]) }));
}

/** The instances table `ngym run` prints once every server is ready. */
export function serverRowsIn(output: string): ServerRow[] {
  const rows: ServerRow[] = [];
  const header = output.indexOf('instance ');
  if (header < 0) return rows;
  for (const line of output.slice(header).split('\n').slice(2)) {
    const match = /^(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\d+)\s+(TypeScript|Python .+?)\s*$/.exec(line);
    if (match === null) break;
    rows.push({ instance: match[1] as string, type: match[2] as string, impl: match[3] as string, runs: match[6] as string });
  }
  return rows;
}

function recorder(log: WriteStream, keep: { text: string }) {
  return (chunk: string) => {
    log.write(chunk);
    keep.text = (keep.text + chunk).slice(-400_000);
  };
}

/** `ngym run <args>` with the head server on a free port; resolves when every server is ready, or when it ended or timed out. */
export function startGym(args: string[], options: { logPath: string; timeoutMs: number; env?: NodeJS.ProcessEnv }): Promise<StartedGym | FailedGym> {
  const started = performance.now();
  const log = createWriteStream(options.logPath, { flags: 'a' });
  log.write(`$ ngym run ${args.join(' ')}\n`);
  const child = spawnCli(['run', ...args, '++head_server={host: 127.0.0.1, port: 0}'], options.env ?? {});
  const kept = { text: '' };
  const record = recorder(log, kept);
  child.stdout?.setEncoding('utf8').on('data', record);
  child.stderr?.setEncoding('utf8').on('data', record);
  const seconds = () => (performance.now() - started) / 1000;
  return new Promise((resolve) => {
    let settled = false;
    const fail = async (ending: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      await stopProcess(child);
      log.end();
      resolve({ ready: false, ending, seconds: seconds(), builds: buildsIn(kept.text), output: kept.text });
    };
    const timer = setTimeout(() => void fail('timeout'), options.timeoutMs);
    child.once('close', (code, signal) => void fail(`exit ${code ?? signal}`));
    const onData = () => {
      const head = /Head server: http:\/\/[^:]+:(\d+)/.exec(kept.text);
      if (settled || head === null || !/servers ready/.test(kept.text)) return;
      settled = true;
      clearTimeout(timer);
      const readySeconds = seconds();
      resolve({
        ready: true,
        headPort: Number(head[1]),
        readySeconds,
        servers: serverRowsIn(kept.text),
        builds: buildsIn(kept.text),
        output: () => kept.text,
        stop: async () => {
          await stopProcess(child);
          log.end();
        },
      });
    };
    child.stdout?.on('data', onData);
  });
}

export interface CollectRun {
  code: string;
  seconds: number;
  output: string;
}

/** `ngym collect` of `inputPath` against the gym at `headPort`, into `outputPath` (and its `_failures.jsonl`); `sequential`: one rollout at a time, in row order. */
export function collect(headPort: number, agent: string, inputPath: string, outputPath: string, options: { logPath: string; timeoutMs: number; sequential?: boolean }): Promise<CollectRun> {
  const started = performance.now();
  const args = ['collect', `+head_server.port=${headPort}`, `+agent_name=${agent}`, `+input_jsonl_fpath=${inputPath}`, `+output_jsonl_fpath=${outputPath}`];
  if (options.sequential === true) args.push('+num_samples_in_parallel=1');
  const log = createWriteStream(options.logPath, { flags: 'a' });
  log.write(`\n$ ngym ${args.join(' ')}\n`);
  const child = spawnCli(args, {});
  const kept = { text: '' };
  const record = recorder(log, kept);
  child.stdout?.setEncoding('utf8').on('data', record);
  child.stderr?.setEncoding('utf8').on('data', record);
  return new Promise((resolve) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      void stopProcess(child);
    }, options.timeoutMs);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      log.end();
      resolve({ code: timedOut ? 'timeout' : String(code ?? signal), seconds: (performance.now() - started) / 1000, output: kept.text });
    });
  });
}
