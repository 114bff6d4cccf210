/**
 * A system's whole process tree, from /proc: every descendant of its root (servers, workers, Ray's daemons),
 * their CPU time (reaped children included), a sampled peak of their summed RSS, and killing them all.
 */
import { readdirSync, readFileSync } from 'node:fs';

const CLOCK_TICKS_PER_SECOND = 100;
const PAGE_KB = 4;

interface Stat {
  pid: number;
  ppid: number;
  /** utime + stime + cutime + cstime: its own CPU and that of the children it has reaped. */
  ticks: number;
  rssKb: number;
  zombie: boolean;
}

function readStat(pid: number): Stat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    return { pid, ppid: Number(fields[1]), ticks, rssKb: Number(fields[21]) * PAGE_KB, zombie: fields[0] === 'Z' };
  } catch {
    return undefined; // exited between listing and reading
  }
}

function allStats(): Stat[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => readStat(Number(name)) ?? []);
}

/** The roots and all their live descendants. */
function treeOf(roots: number[]): Stat[] {
  const stats = allStats();
  const inTree = new Set(roots);
  for (let grew = true; grew; ) {
    grew = false;
    for (const stat of stats) {
      if (!inTree.has(stat.pid) && inTree.has(stat.ppid)) {
        inTree.add(stat.pid);
        grew = true;
      }
    }
  }
  return stats.filter((stat) => inTree.has(stat.pid));
}

export function treeCpuSeconds(roots: number[]): number {
  return treeOf(roots).reduce((sum, stat) => sum + stat.ticks, 0) / CLOCK_TICKS_PER_SECOND;
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

/** Summed RSS of the trees, and of the part whose command line matches `part`. */
function treeRssMb(roots: number[], part: RegExp): { all: number; part: number } {
  let all = 0;
  let matching = 0;
  for (const stat of treeOf(roots)) {
    all += stat.rssKb;
    if (part.test(commandLine(stat.pid))) matching += stat.rssKb;
  }
  return { all: all / 1024, part: matching / 1024 };
}

export interface PeakRss {
  /** The highest summed RSS seen, MB. */
  peakMb: number;
  /** In that same sample, the RSS of the processes matching `part` (e.g. Ray's daemons). */
  partMb: number;
}

/** Samples the summed RSS of the trees every `everyMs` until stopped. */
export function rssSampler(roots: () => number[], part: RegExp, everyMs = 250): { stop(): PeakRss } {
  let peak = { peakMb: 0, partMb: 0 };
  const sample = () => {
    const { all, part: matching } = treeRssMb(roots(), part);
    if (all > peak.peakMb) peak = { peakMb: all, partMb: matching };
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}

const alive = (pid: number) => readStat(pid)?.zombie === false;

/**
 * SIGTERM to every process of the trees, then SIGKILL to those still alive after `graceMs`. The pids are taken
 * once, first: a child whose parent exits is re-parented and would drop out of a tree read later.
 */
export async function killTree(roots: number[], graceMs = 5000): Promise<void> {
  const pids = treeOf(roots).map((stat) => stat.pid);
  const send = (pid: number, name: NodeJS.Signals) => {
    try {
      process.kill(pid, name);
    } catch {
      // already gone
    }
  };
  for (const pid of pids) send(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && pids.some(alive)) await new Promise((resolve) => setTimeout(resolve, 100));
  for (const pid of pids.filter(alive)) send(pid, 'SIGKILL');
}

/** The direct children of `pid`. */
export function childPids(pid: number): number[] {
  return allStats()
    .filter((stat) => stat.ppid === pid && !stat.zombie)
    .map((stat) => stat.pid);
}
