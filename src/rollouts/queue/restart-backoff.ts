/**
 * When `ngym worker`'s supervisor starts a new worker process after one died. A worker that ran a while is replaced
 * at once; one that dies soon after it started (its rollouts exhaust its heap again, a server it needs is down)
 * would otherwise be restarted in a hot loop, so each quick death in a row doubles the wait, up to a ceiling. A
 * worker that stays up `stableMs` clears the count.
 */

export interface RestartBackoffSettings {
  /** The wait after the first quick death. */
  initialMs: number;
  /** The most it waits. */
  maxMs: number;
  /** A worker up at least this long died of something new: it is replaced at once, and the count starts over. */
  stableMs: number;
}

export const DEFAULT_RESTART_BACKOFF: RestartBackoffSettings = { initialMs: 1_000, maxMs: 30_000, stableMs: 60_000 };

export class RestartBackoff {
  private quickDeathsInARow = 0;

  constructor(readonly settings: RestartBackoffSettings = DEFAULT_RESTART_BACKOFF) {
    const { initialMs, maxMs, stableMs } = settings;
    if (!(initialMs > 0 && maxMs >= initialMs && stableMs > 0)) {
      throw new RangeError(`A restart backoff needs 0 < initialMs <= maxMs and stableMs > 0, got ${JSON.stringify(settings)}.`);
    }
  }

  /** The wait before the next worker starts, for one that died after `uptimeMs`; 0 for one that ran a while. */
  delayAfter(uptimeMs: number): number {
    if (uptimeMs >= this.settings.stableMs) {
      this.quickDeathsInARow = 0;
      return 0;
    }
    const delay = Math.min(this.settings.maxMs, this.settings.initialMs * 2 ** this.quickDeathsInARow);
    this.quickDeathsInARow++;
    return delay;
  }

  /** Quick deaths in a row, the last one included. */
  get quickDeaths(): number {
    return this.quickDeathsInARow;
  }
}
