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

  it('past half the budget, bounds the work in flight by a window: doubling while under the budget, halved when memory goes over, then growing by one per window', async () => {
    const { gate, state } = gateOver(100, 60);
    let admitted = 0;
    while (gate.admit() === true) admitted++;
    // The initial window: a burst cannot all start before its memory shows.
    expect(admitted).toBe(16);
    expect(gate.waiting).toBe(1);
    // A full window's piece ends under the budget: the window widens by one, the one waiting takes the free slot.
    gate.release();
    expect(gate.waiting).toBe(0);
    expect(gate.admit()).toBe(true);
    // 17 in flight.
    void gate.admit();
    state.resident = 110 * MIB;
    await vi.advanceTimersByTimeAsync(30);
    // Over the budget: the window fell to half of what was in flight (8).
    state.resident = 60 * MIB;
    await vi.advanceTimersByTimeAsync(10);
    expect(gate.waiting).toBe(1);
    for (let index = 0; index < 8; index++) gate.release();
    // 9 in flight, window 8 and almost one more: still waiting.
    expect(gate.waiting).toBe(1);
    gate.release();
    // 8 in flight, window 9: it starts, and the window is full again.
    expect(gate.waiting).toBe(0);
    expect(gate.admit()).toBeInstanceOf(Promise);
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

  it('charges each piece admitted what one in flight holds, and with nothing in flight always lets one go', async () => {
    const { gate, state } = gateOver(100, 10);
    expect(gate.admit()).toBe(true);
    // One piece in flight holds 40 MiB: at 50 MiB resident, another 40 would pass 80 but not the budget...
    state.resident = 50 * MIB;
    await vi.advanceTimersByTimeAsync(10);
    expect(gate.admit()).toBe(true);
    // ...while at 70 MiB with two in flight (30 each), a third would reach 100: it waits.
    state.resident = 70 * MIB;
    await vi.advanceTimersByTimeAsync(10);
    const third = gate.admit();
    expect(third).toBeInstanceOf(Promise);
    // Both end, memory stays at 70 MiB (kept, not freed): with nothing in flight the estimate cannot hold it.
    gate.release();
    gate.release();
    await vi.advanceTimersByTimeAsync(100);
    expect(await third).toBe(true);
  });

  it('far under the budget, admits without a window', () => {
    const { gate } = gateOver(1000, 10);
    for (let index = 0; index < 1000; index++) expect(gate.admit()).toBe(true);
  });

  it('is a config error naming memory_budget when the process is over it before any work', () => {
    const { gate } = gateOver(100, 150);
    expect(() => gate.checkReachable("server 'hungry'")).toThrow(ConfigError);
    expect(() => gate.checkReachable("server 'hungry'")).toThrow(/^memory_budget: 100 MiB is below what server 'hungry' holds before any work \(150 MiB resident\): it could never admit anything/);
    expect(() => gateOver(100, 50).gate.checkReachable('the collector')).not.toThrow();
  });
});
