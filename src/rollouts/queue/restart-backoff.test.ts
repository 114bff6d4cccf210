import { describe, expect, it } from 'vitest';
import { DEFAULT_RESTART_BACKOFF, RestartBackoff } from './restart-backoff.ts';

describe('RestartBackoff', () => {
  it('replaces a worker that ran a while at once, and doubles the wait from 1 s to 30 s for each quick death in a row', () => {
    const backoff = new RestartBackoff();
    expect(backoff.delayAfter(3_600_000)).toBe(0);
    const waits = Array.from({ length: 8 }, () => backoff.delayAfter(2_000));
    expect(waits).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
    expect(backoff.quickDeaths).toBe(8);
  });

  it('starts over once a worker stays up stableMs', () => {
    const backoff = new RestartBackoff({ initialMs: 100, maxMs: 1_000, stableMs: 5_000 });
    expect([backoff.delayAfter(10), backoff.delayAfter(10), backoff.delayAfter(4_999)]).toEqual([100, 200, 400]);
    expect(backoff.delayAfter(5_000)).toBe(0);
    expect(backoff.quickDeaths).toBe(0);
    expect(backoff.delayAfter(10)).toBe(100);
  });

  it('never overflows past its ceiling', () => {
    const backoff = new RestartBackoff(DEFAULT_RESTART_BACKOFF);
    for (let death = 0; death < 2_000; death++) backoff.delayAfter(0);
    expect(backoff.delayAfter(0)).toBe(30_000);
  });

  it('refuses settings that would spin or never wait', () => {
    expect(() => new RestartBackoff({ initialMs: 0, maxMs: 1_000, stableMs: 1_000 })).toThrow(/0 < initialMs <= maxMs/);
    expect(() => new RestartBackoff({ initialMs: 2_000, maxMs: 1_000, stableMs: 1_000 })).toThrow(/initialMs <= maxMs/);
  });
});
