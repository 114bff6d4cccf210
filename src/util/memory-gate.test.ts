import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../errors.ts';
import { MemoryGate } from './memory-gate.ts';

const MIB = 2 ** 20;

/** A gate over a resident size the test sets, with what it reported. */
function gateOver(budgetMib: number, startMib: number) {
  const state = { resident: startMib * MIB, waits: 0, holds: [] as boolean[] };
  const gate = new MemoryGate({
    budgetBytes: budgetMib * MIB,
    residentBytes: () => state.resident,
    onWait: () => state.waits++,
    onHold: (holding) => state.holds.push(holding),
  });
  return { gate, state };
}

describe('MemoryGate', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('admits at once under the budget, holds work over it in order, and admits it again once memory falls', async () => {
    const { gate, state } = gateOver(100, 10);
    expect(gate.admit()).toBe(true);
    gate.release();
    state.resident = 120 * MIB;
    await vi.advanceTimersByTimeAsync(10);
    const order: number[] = [];
    const first = gate.admit();
    const second = gate.admit();
    expect(first).toBeInstanceOf(Promise);
    void (first as Promise<boolean>).then(() => order.push(1));
    void (second as Promise<boolean>).then(() => order.push(2));
    expect(gate.waiting).toBe(2);
    await vi.advanceTimersByTimeAsync(500);
    // Still over: nothing started, however long it waits.
    expect(order).toEqual([]);
    expect(state.holds).toEqual([true]);
    state.resident = 30 * MIB;
    await vi.advanceTimersByTimeAsync(100);
    expect(order).toEqual([1, 2]);
    expect(await first).toBe(true);
    expect(gate.waiting).toBe(0);
    expect(state.waits).toBe(2);
    expect(state.holds).toEqual([true, false]);
  });

  it('lets a waiting piece of work go when its caller gives up', async () => {
    const { gate } = gateOver(100, 150);
    const controller = new AbortController();
    const admitted = gate.admit(() => controller.signal);
    controller.abort();
    expect(await admitted).toBe(false);
    expect(gate.waiting).toBe(0);
  });

  it('past half the budget, bounds the work in flight by a window: from one piece, doubling while under the budget, halved when memory goes over, then growing by one per window', async () => {
    const { gate, state } = gateOver(100, 60);
    let inFlight = 0;
    const demand = () => {
      const admitted = gate.admit();
      if (admitted === true) inFlight++;
      else void admitted.then(() => inFlight++);
    };
    // A burst: one piece starts, since nothing yet says what a piece takes.
    for (let index = 0; index < 40; index++) demand();
    expect(inFlight).toBe(1);
    // Each window's worth of work that ends under the budget, with more waiting, doubles the window.
    const windows: number[] = [];
    for (let round = 0; round < 4; round++) {
      for (let index = inFlight; index > 0; index--) {
        gate.release();
        inFlight--;
        await vi.advanceTimersByTimeAsync(30);
      }
      windows.push(inFlight);
    }
    expect(windows).toEqual([2, 4, 8, 16]);
    // Over the budget: the window falls to half of what was in flight (8)...
    state.resident = 110 * MIB;
    await vi.advanceTimersByTimeAsync(30);
    state.resident = 60 * MIB;
    for (let index = 0; index < 8; index++) {
      gate.release();
      inFlight--;
    }
    await vi.advanceTimersByTimeAsync(30);
    expect(inFlight).toBe(8);
    // ...then grows by one per window's worth: 8 more pieces end, 9 start.
    for (let index = 0; index < 8; index++) {
      gate.release();
      inFlight--;
      await vi.advanceTimersByTimeAsync(30);
    }
    expect(inFlight).toBe(9);
  });

  it('over the budget with nothing in flight even after a full collection, lets one piece of work through at a time', async () => {
    const { gate } = gateOver(100, 150);
    const started: number[] = [];
    for (const index of [1, 2]) void (gate.admit() as Promise<boolean>).then(() => started.push(index));
    await vi.advanceTimersByTimeAsync(500);
    // The first collection may free what is held: nothing goes yet.
    expect(started).toEqual([]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(started).toEqual([1]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(started).toEqual([1]);
    gate.release();
    await vi.advanceTimersByTimeAsync(100);
    expect(started).toEqual([1, 2]);
  });

  it('expects each piece in flight to hold what the most one was seen to hold, counting pieces that do not show yet, and with nothing in flight always lets one go', async () => {
    const { gate, state } = gateOver(100, 10);
    expect(gate.admit()).toBe(true);
    // One piece in flight holds 25 MiB, and has had time to show it: this one and a spare would reach 85 MiB,
    // under the budget.
    state.resident = 35 * MIB;
    await vi.advanceTimersByTimeAsync(200);
    expect(gate.admit()).toBe(true);
    // The second has not allocated yet (37 MiB): it is still expected to take 25 MiB, so a third and a spare would
    // pass 100 MiB. It waits, although the reading alone leaves room for them.
    state.resident = 37 * MIB;
    await vi.advanceTimersByTimeAsync(10);
    const third = gate.admit();
    expect(third).toBeInstanceOf(Promise);
    await vi.advanceTimersByTimeAsync(100);
    expect(gate.waiting).toBe(1);
    // Both end, memory stays at 70 MiB (kept, not freed): with nothing in flight the estimate cannot hold it.
    state.resident = 70 * MIB;
    gate.release();
    gate.release();
    await vi.advanceTimersByTimeAsync(100);
    expect(await third).toBe(true);
  });

  it('forgets an estimate that readings no longer bear out', async () => {
    const { gate, state } = gateOver(1000, 100);
    expect(gate.admit()).toBe(true);
    // One reading shows the piece in flight holding 800 MiB: another would pass the budget.
    state.resident = 900 * MIB;
    await vi.advanceTimersByTimeAsync(10);
    const second = gate.admit();
    expect(second).toBeInstanceOf(Promise);
    // It holds 100 MiB from then on: the estimate decays toward that, and the second starts within seconds.
    state.resident = 200 * MIB;
    await vi.advanceTimersByTimeAsync(1000);
    expect(gate.waiting).toBe(1);
    await vi.advanceTimersByTimeAsync(5000);
    expect(await second).toBe(true);
  });

  it('far under the budget, admits without a window once a piece has had time to show its memory', async () => {
    const { gate, state } = gateOver(1000, 10);
    expect(gate.admit()).toBe(true);
    // A cold burst: nothing says yet what a piece takes, so the rest wait for the first to show it.
    const second = gate.admit();
    expect(second).toBeInstanceOf(Promise);
    state.resident = 11 * MIB;
    await vi.advanceTimersByTimeAsync(150);
    expect(await second).toBe(true);
    for (let index = 0; index < 100; index++) expect(gate.admit()).toBe(true);
  });

  it('learns each kind of work apart: cheap pieces coming and going say nothing of what a costly kind takes', async () => {
    const { gate, state } = gateOver(1000, 10);
    // Session seeds: a hundred start and end, and memory does not move.
    for (let index = 0; index < 100; index++) {
      expect(gate.admit(undefined, 'POST /seed_session')).toBe(true);
      gate.release('POST /seed_session');
    }
    // A burst of verifies, a kind never seen: one starts, the rest wait for it to show what a verify takes.
    let verifying = 0;
    for (let index = 0; index < 10; index++) {
      const admitted = gate.admit(undefined, 'POST /verify');
      if (admitted === true) verifying++;
      else void admitted.then(() => verifying++);
    }
    expect(verifying).toBe(1);
    // It holds 100 MiB. Each starts only if it and a spare verify fit on top of the projection: 8 in 1000 MiB.
    state.resident = 110 * MIB;
    await vi.advanceTimersByTimeAsync(150);
    expect(verifying).toBe(8);
    expect(gate.waiting).toBe(2);
  });

  it('takes a piece that ended as a sign its memory has shown', () => {
    const { gate } = gateOver(1000, 10);
    expect(gate.admit()).toBe(true);
    gate.release();
    for (let index = 0; index < 100; index++) expect(gate.admit()).toBe(true);
  });

  it('is a config error naming memory_budget when the process is over it before any work', () => {
    const { gate } = gateOver(100, 150);
    expect(() => gate.checkReachable("server 'hungry'")).toThrow(ConfigError);
    expect(() => gate.checkReachable("server 'hungry'")).toThrow(/^memory_budget: 100 MiB is below what server 'hungry' holds before any work \(150 MiB resident\): it could never admit anything/);
    expect(() => gateOver(100, 50).gate.checkReachable('the collector')).not.toThrow();
  });
});
