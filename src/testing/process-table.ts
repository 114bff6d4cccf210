/**
 * The machine's processes as Linux's /proc shows them, for tests and checks that no process outlives what
 * started it. A process is found by a variable in its environment (inherited by everything a command starts,
 * orphans included) rather than by its parent, which is init once it is orphaned. A zombie (exited, not yet
 * reaped) counts as gone. Where /proc is missing (macOS) there is no table: `listProcesses` returns undefined.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessEntry {
  pid: number;
  parentPid: number;
  /** `R`, `S`, `D`, `Z` (zombie), ... */
  state: string;
  /** When it started, in clock ticks since boot: a later process has a larger number. */
  startTicks: number;
  /** Its arguments joined by spaces. */
  commandLine: string;
}

/** One process, or undefined when it does not exist (or exited before it could be read). */
export function readProcess(pid: number): ProcessEntry | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // `pid (comm) state ppid ...`: comm may hold spaces and parentheses, so fields are counted after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
    return { pid, state: fields[0] as string, parentPid: Number(fields[1]), startTicks: Number(fields[19]), commandLine };
  } catch {
    return undefined;
  }
}

export function listProcesses(): ProcessEntry[] | undefined {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return undefined;
  }
  return names
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readProcess(Number(name)))
    .filter((entry): entry is ProcessEntry => entry !== undefined);
}

/** The `NAME=value` entries a process was started with; empty when they cannot be read (another user's). */
export function environmentOf(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

/** Live processes (zombies excluded) started with `name=value` in their environment. */
export function processesTagged(name: string, value: string): ProcessEntry[] {
  return (listProcesses() ?? []).filter((entry) => entry.state !== 'Z' && environmentOf(entry.pid).includes(`${name}=${value}`));
}

/** Whether the process exists and has not exited (a zombie has). */
export function isRunning(pid: number): boolean {
  const entry = readProcess(pid);
  return entry !== undefined && entry.state !== 'Z';
}

/** Polls until `find()` lists no process or `timeoutMs` passes; resolves to what is still there. */
export async function untilNoneLeft(find: () => ProcessEntry[], timeoutMs: number): Promise<ProcessEntry[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = find();
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
