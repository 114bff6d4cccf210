/**
 * What a resumed run learns from the failures file of the run before it (upstream 0.7.0's resume reads its
 * failures sidecar the same way): which rollouts failed terminally and stay failed, and how many attempts each
 * rollout to retry has had, which its retry carries as `_ng_attempt_index` (upstream's stamp, so a server can
 * key what it keeps per attempt).
 *
 * A failure is terminal when its record says `_ng_failure_terminal: true`, as an agent stamps a failure that
 * trying again cannot fix. `retry_terminal_timeouts` overrides the stamp by class, as upstream's does: an
 * agent's per-task timeout (`timeout_exceeded`) and GDPVal's environment faults (`reference_missing`,
 * `eval_missing`, `transport_ineligible`) are retried, a `skipped` sample never is.
 */
import { existsSync } from 'node:fs';
import { readLinesWithOffsets, rolloutKey } from './output-files.ts';

type Row = Record<string, unknown>;

/** Classes retry_terminal_timeouts retries whatever their stamp says. */
const RETRIED_WHEN_ASKED = new Set(['timeout_exceeded', 'reference_missing', 'eval_missing', 'transport_ineligible']);

export function isTerminalFailure(record: Row, retryTerminalTimeouts: boolean): boolean {
  if (retryTerminalTimeouts) {
    if (RETRIED_WHEN_ASKED.has(record._ng_failure_class as string)) return false;
    if (record._ng_failure_class === 'skipped') return true;
  }
  return record._ng_failure_terminal === true;
}

/** The attempt a rollout's next try is: one more than the attempt a record of it says it was (0 when unstamped). */
function nextAttempt(record: Row): number {
  const previous = record._ng_attempt_index;
  return (typeof previous === 'number' && Number.isInteger(previous) && previous > 0 ? previous : 0) + 1;
}

export class PriorFailures {
  /** The whole lines of the terminal failures, carried into this run's failures file. */
  readonly terminalLines: string[] = [];
  private readonly terminal = new Set<number>();
  private readonly attempts = new Map<number, number>();

  isTerminal(taskIndex: number, rolloutIndex: number): boolean {
    return this.terminal.has(rolloutKey(taskIndex, rolloutIndex));
  }

  /** The attempt index a retry of this rollout carries; undefined for a first attempt. */
  attemptOf(taskIndex: number, rolloutIndex: number): number | undefined {
    return this.attempts.get(rolloutKey(taskIndex, rolloutIndex));
  }

  /** A record of a failed attempt of the rollout it names (a failures-file row, or a row taken out of the output to run again). */
  add(record: Row, line: string, retryTerminalTimeouts: boolean): void {
    if (typeof record._ng_task_index !== 'number' || typeof record._ng_rollout_index !== 'number') return;
    const key = rolloutKey(record._ng_task_index, record._ng_rollout_index);
    if (isTerminalFailure(record, retryTerminalTimeouts)) {
      this.terminal.add(key);
      this.terminalLines.push(line);
      this.attempts.delete(key);
      return;
    }
    this.terminal.delete(key);
    this.attempts.set(key, Math.max(this.attempts.get(key) ?? 0, nextAttempt(record)));
  }

  get terminalCount(): number {
    return this.terminal.size;
  }
}

/** Reads the failures file an earlier run left (its whole lines; a torn or unreadable line is skipped). */
export async function readPriorFailures(path: string, prior: PriorFailures, retryTerminalTimeouts: boolean): Promise<void> {
  if (!existsSync(path)) return;
  for await (const { bytes } of readLinesWithOffsets(path)) {
    if (bytes.length === 0) continue;
    const line = bytes.toString('utf8');
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      continue;
    }
    if (record !== null && typeof record === 'object' && !Array.isArray(record)) prior.add(record as Row, line, retryTerminalTimeouts);
  }
}
