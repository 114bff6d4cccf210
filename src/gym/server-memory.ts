/**
 * What `ngym run` knows of its servers' memory, read from /proc while they run: what a server held when it died,
 * and whether the kernel's out-of-memory killer is what ended it (or V8's heap limit: heap-exhaustion.ts). The kernel counts every OOM kill in
 * /proc/vmstat (`oom_kill`, machine-wide, cgroup limits included) just before it sends the SIGKILL, so a SIGKILL
 * that arrives while that count rises is its. Linux only: elsewhere every reading is undefined.
 */
import { readFileSync } from 'node:fs';

/**
 * Where the OOM kill count is read: /proc/vmstat, or a file in the same format named by this variable. A test that
 * plays the kernel (raises the count, then SIGKILLs a server) points it at its own file.
 */
const OOM_KILL_COUNTER_ENV = 'NGYM_OOM_KILL_COUNTER';

export interface MemorySample {
  residentBytes: number;
  /** The most the process has held at once (VmHWM). */
  peakBytes: number;
  /** When it was read (Date.now()). */
  at: number;
}

/** The process's resident memory now, or undefined when it is gone or /proc is not there. */
export function sampleMemory(pid: number): MemorySample | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const resident = kibibytes(status, 'VmRSS');
  if (resident === undefined) return undefined;
  return { residentBytes: resident * 1024, peakBytes: (kibibytes(status, 'VmHWM') ?? resident) * 1024, at: Date.now() };
}

function kibibytes(status: string, field: string): number | undefined {
  const match = new RegExp(`^${field}:\\s*(\\d+) kB`, 'm').exec(status);
  return match === null ? undefined : Number(match[1]);
}

/** OOM kills the kernel has counted since boot, or undefined where it does not say. */
function oomKillCount(env: NodeJS.ProcessEnv = process.env): number | undefined {
  try {
    const match = /^oom_kill (\d+)$/m.exec(readFileSync(env[OOM_KILL_COUNTER_ENV] || '/proc/vmstat', 'utf8'));
    return match === null ? undefined : Number(match[1]);
  } catch {
    return undefined;
  }
}

/** `812 MiB resident, peak 830 MiB, 0.4 s before`: a sample as a death report gives it. */
function describeSample(sample: MemorySample, now = Date.now()): string {
  const mebibytes = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MiB`;
  return `${mebibytes(sample.residentBytes)} resident, peak ${mebibytes(sample.peakBytes)}, ${Math.max(0, (now - sample.at) / 1000).toFixed(1)} s before`;
}

/** A death of heap exhaustion as its report names it. */
export interface HeapExhaustion {
  /** `96 MiB (--max-old-space-size=96)`, `V8's default ...` (heapLimitOf). */
  limit: string;
  /** What to change: `give it more heap (...) or ...`, no full stop. */
  remedy: string;
}

/** How a process ended, in the words death reports use. */
export interface ProcessEnd {
  /** SIGKILL while the kernel counted an OOM kill. */
  oomKilled: boolean;
  /** V8 reported the process out of JavaScript heap (heap-exhaustion.ts): its heap limit and what to change. */
  heapExhausted?: HeapExhaustion;
  /** `signal SIGKILL`, `exit code 7` */
  status: string;
  /** `; at the last sample it held ...`, or empty when there was none. */
  memory: string;
}

/**
 * The kernel's OOM kill count, read at each memory sample. A death is the OOM killer's when it is a SIGKILL and the
 * count is above the one read a sample before the latest: that margin of one interval keeps a kill counted just
 * before the latest sample (the SIGKILL landing just after) from being missed.
 */
export class OomKillWatch {
  private before: number | undefined;
  private latest: number | undefined;

  sample(): void {
    const count = oomKillCount();
    this.before = this.latest ?? count;
    this.latest = count;
  }

  /** `heapExhausted` when the process's stderr showed V8 out of heap: that is the death then, whatever the count. */
  end(code: number | null, signal: NodeJS.Signals | null, memory: MemorySample | undefined, heapExhausted?: HeapExhaustion): ProcessEnd {
    const count = oomKillCount();
    const counted = count !== undefined && this.before !== undefined && count > this.before;
    return {
      oomKilled: heapExhausted === undefined && signal === 'SIGKILL' && counted,
      heapExhausted,
      status: signal === null ? `exit code ${code}` : `signal ${signal}`,
      memory: memory === undefined ? '' : `; at the last sample it held ${describeSample(memory)}`,
    };
  }
}

/**
 * `was killed by the kernel's out-of-memory killer (...)`, `ran out of JavaScript heap (...)` or `exited
 * unexpectedly (...)`, with the memory (and for heap exhaustion, the remedy).
 */
export function describeEnd(end: ProcessEnd, when: 'unexpectedly' | 'before it was ready'): string {
  if (end.heapExhausted !== undefined) {
    const { limit, remedy } = end.heapExhausted;
    return `ran out of JavaScript heap${when === 'unexpectedly' ? '' : ` ${when}`} (${end.status}); its heap limit was ${limit}${end.memory}; ${remedy}`;
  }
  if (end.oomKilled) {
    return `was killed by the kernel's out-of-memory killer${when === 'unexpectedly' ? '' : ` ${when}`} (${end.status}; the kernel counted an OOM kill as it died)${end.memory}`;
  }
  return `exited ${when} (${end.status})${end.memory}`;
}
