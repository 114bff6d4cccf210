/**
 * Which gym run a box belongs to. Every box ngym makes carries the label `ngym.run=<run id>`; a run id is
 * `<host>:<pid>:<process start time>` of the `ngym run` (or other program) that owns the boxes, handed to its server
 * processes in NGYM_RUN_ID; a `-<label>` after the start time names one of several runs of one process (tests). A run whose process is gone (or whose pid now belongs to a younger process) is dead,
 * and the boxes it left are reaped at the next start (and by `ngym sandbox prune`).
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/** The environment variable that names the gym run to a server process (set by `ngym run` for its children). */
export const RUN_ID_ENV = 'NGYM_RUN_ID';
/** The label that names the gym run a box belongs to. */
export const RUN_LABEL = 'ngym.run';

/** A process's start time in clock ticks since boot (field 22 of /proc/<pid>/stat); undefined when there is no such process. */
function processStartTicks(pid: number | 'self'): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after its closing one.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** This process's own run id (what it would hand its children). */
export function ownRunId(): string {
  return `${hostname()}:${process.pid}:${processStartTicks('self') ?? '0'}`;
}

/** The run this process's boxes belong to: NGYM_RUN_ID when a gym set it, else this process's own. */
export function currentRunId(): string {
  return process.env[RUN_ID_ENV] || ownRunId();
}

/**
 * Whether the run that owns a box may still be alive. Only a run of this host can be checked; runs of other hosts
 * (and ids of another shape) count as alive, so nothing of theirs is reaped.
 */
export function runIsAlive(runId: string): boolean {
  const [host, pidText, startAndLabel] = runId.split(':');
  const pid = Number(pidText);
  // The start time is the digits before any `-<label>`; without them the id is not one of ours and counts as alive.
  const start = /^\d+(?=-|$)/.exec(startAndLabel ?? '')?.[0];
  if (host !== hostname() || !Number.isInteger(pid) || pid <= 0 || start === undefined) return true;
  const actual = processStartTicks(pid);
  return actual !== undefined && (start === '0' || actual === start);
}
