/**
 * Admission by memory: new work starts only while this process's resident memory is under its budget; above it,
 * work waits in arrival order (nothing is refused) and starts again once memory falls back under it.
 *
 * Memory is only measured after the work admitted has allocated it, so a burst admitted at once could overshoot
 * the budget by everything it allocates. Two bounds keep it under:
 * - Each piece in flight is expected to hold what the most one of its kind has been seen to hold (resident memory
 *   over the idle baseline at a reading, per piece that has had time to show its memory; a figure that decays so
 *   one odd reading does not throttle for good). Kinds (a server's routes) are told apart because they differ: a session seed takes next to nothing, a
 *   verify may take much, and cheap pieces coming and going must not teach the gate that the costly ones are cheap.
 *   A piece starts only if two pieces of its kind (itself and a spare) fit under the budget on top of what is
 *   projected: the reading plus each piece started too recently (SETTLE_MS) to show in it, or the baseline plus
 *   every piece in flight, whichever is more. A reading taken right after a piece started does not show what it
 *   will allocate; until a piece of a kind has had time to show its memory, that kind's pieces go one at a time.
 * - Near the budget (past half of it), a window of work in flight, as TCP bounds the data in flight. It starts at
 *   one piece, since before any piece's memory has shown nothing says what the next will take. While full, it
 *   doubles with each window's worth of work that ends under the budget until memory first goes over, then grows
 *   by one per window's worth; a reading over the budget halves it to what was in flight. Far under the budget
 *   only the reading and the estimate are checked.
 *
 * Over the budget, a full garbage collection is forced (at most once a second): freed buffers go back to the system
 * only once their objects are collected, and with no work admitted nothing would allocate enough to collect them.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ConfigError } from '../errors.ts';
import { describeBytes, MEMORY_BUDGET_KEY } from './memory-budget.ts';

/** How often waiting work looks at memory again. */
const POLL_MS = 25;
/** A reading is reused this long: reading /proc costs ~20 µs, too much for every request at thousands a second. */
const READING_MS = 5;
/** The window in flight near the budget, before any piece of work has ended. */
const INITIAL_WINDOW = 1;
/** The per-piece estimate forgets half of what it is above the latest reading's figure in this long. */
const PER_PIECE_HALF_LIFE_MS = 2_000;
/** A piece started this recently may not have allocated yet: readings are not trusted to show it. */
const SETTLE_MS = 100;
/** A piece starts only if this many pieces' worth fits under the budget on top of the projection: itself and one spare. */
const HEADROOM_PIECES = 2;
/** At most one forced collection per this long while over the budget. */
const COLLECT_EVERY_MS = 1000;
/** Kinds of work told apart; past this many (a client inventing paths), the rest share one. */
const MAX_KINDS = 32;
const SHARED_KIND = '(other kinds)';

export interface MemoryGateOptions {
  budgetBytes: number;
  /** The process's resident bytes now (default: process.memoryUsage.rss). */
  residentBytes?: () => number;
  /** Called each time a piece of work has to wait (metrics). */
  onWait?: () => void;
  /** Called when admission starts and stops holding work back (logs). */
  onHold?: (holding: boolean, residentBytes: number) => void;
  /**
   * How many pieces in flight have shown their memory in the reading, when the reading counts what work makes
   * elsewhere and the time since a piece started says nothing of it (a rollout's sandbox box takes from a second to
   * many to exist, with its memory). Given, it replaces the SETTLE_MS rule; for a gate with one kind of work.
   */
  shownPieces?: () => number;
}

let fullCollection: (() => void) | undefined;

/** A full garbage collection (V8 offers it only behind --expose-gc, which a context made after the flag sees). */
function collectGarbage(): void {
  if (fullCollection === undefined) {
    setFlagsFromString('--expose-gc');
    fullCollection = runInNewContext('gc') as () => void;
  }
  fullCollection();
}

/** What the gate knows of one kind of work. */
class WorkKind {
  inFlight = 0;
  /** What one piece in flight is expected to hold (the decaying most seen), and when that was last updated. */
  perPieceBytes = 0;
  private perPieceAt = -Infinity;
  /**
   * Whether a piece of this kind could have shown its memory yet: one was in flight SETTLE_MS with a reading taken,
   * or one ended. Until then this kind's pieces go one at a time: a cold burst would all start on the reading alone.
   */
  calibrated = false;
  /** When the pieces started in the last SETTLE_MS started, oldest first, from recentHead on. */
  private readonly recentStarts: number[] = [];
  private recentHead = 0;

  constructor(private readonly shownPieces: (() => number) | undefined) {}

  observe(bytes: number, now: number): void {
    const decayed = this.perPieceBytes * 0.5 ** ((now - this.perPieceAt) / PER_PIECE_HALF_LIFE_MS);
    this.perPieceBytes = Math.max(bytes, decayed);
    this.perPieceAt = now;
  }

  /** Counts a piece starting now. */
  start(now: number): void {
    this.inFlight++;
    this.trim(now);
    this.recentStarts.push(now);
  }

  /** Pieces in flight started in the last SETTLE_MS: too recent to show in a reading. */
  unsettled(now: number): number {
    if (this.shownPieces !== undefined) return this.inFlight - Math.min(this.inFlight, this.shownPieces());
    this.trim(now);
    return Math.min(this.inFlight, this.recentStarts.length - this.recentHead);
  }

  private trim(now: number): void {
    // An index moves past the old starts; the array is cut only now and then: shift() on a long array costs
    // microseconds, and at a hundred thousand admissions a second the list is that long.
    while (this.recentHead < this.recentStarts.length && this.recentStarts[this.recentHead]! <= now - SETTLE_MS) this.recentHead++;
    if (this.recentHead > 1024 && this.recentHead * 2 > this.recentStarts.length) {
      this.recentStarts.splice(0, this.recentHead);
      this.recentHead = 0;
    }
  }
}

export class MemoryGate {
  readonly budgetBytes: number;
  private readonly residentBytes: () => number;
  private readonly waiters: { admit: (admitted: boolean) => void; signal: AbortSignal | undefined; kind: WorkKind }[] = [];
  private readonly kinds = new Map<string, WorkKind>();
  private inFlight = 0;
  private window = INITIAL_WINDOW;
  private wentOver = false;
  private halved = false;
  private reading = 0;
  private readAt = -Infinity;
  private collectedAt = -Infinity;
  private timer: NodeJS.Timeout | undefined;
  private holding = false;
  private heldSince = -Infinity;
  /** The lowest reading with no work in flight: what the process holds without work. */
  private idleBytes = Infinity;

  constructor(private readonly options: MemoryGateOptions) {
    this.budgetBytes = options.budgetBytes;
    this.residentBytes = options.residentBytes ?? (() => process.memoryUsage.rss());
  }

  /** Work waiting for memory now. */
  get waiting(): number {
    return this.waiters.length;
  }

  /**
   * A budget this process is already over before any work (its code and data alone) could never admit anything:
   * a config error, raised at start.
   */
  checkReachable(what: string): void {
    const resident = this.read(true);
    if (resident < this.budgetBytes) return;
    throw new ConfigError(
      'NGYM_CONFIG_INVALID',
      `${MEMORY_BUDGET_KEY}: ${describeBytes(this.budgetBytes)} is below what ${what} holds before any work (${describeBytes(resident)} resident): it could never admit anything. Raise it, or set it to null for no budget.`,
      { key: MEMORY_BUDGET_KEY },
    );
  }

  /**
   * True at once, or a promise of true once the work may start (call release() with the same `kind` when it ends
   * either way it was admitted), or of false if the signal `abortWhen` gives (asked only when the work has to wait)
   * aborted first. `kind` names what sort of work this is (a server's route), when there are several.
   */
  admit(abortWhen?: () => AbortSignal | undefined, kind = ''): Promise<boolean> | true {
    const workKind = this.kindNamed(kind);
    if (this.waiters.length === 0 && this.hasRoom(this.read(this.nearBudget()), workKind)) {
      this.start(workKind);
      return true;
    }
    const signal = abortWhen?.();
    if (signal?.aborted) return Promise.resolve(false);
    this.options.onWait?.();
    return new Promise<boolean>((resolve) => {
      const waiter = { admit: resolve, signal, kind: workKind };
      this.waiters.push(waiter);
      signal?.addEventListener('abort', () => this.drop(waiter), { once: true });
      this.schedule();
    });
  }

  private kindNamed(name: string): WorkKind {
    let kind = this.kinds.get(name);
    if (kind === undefined) {
      if (this.kinds.size >= MAX_KINDS) return this.kindNamed(SHARED_KIND);
      kind = new WorkKind(this.options.shownPieces);
      this.kinds.set(name, kind);
    }
    return kind;
  }

  private shrinkInFlight(kind: WorkKind): void {
    // Only a full window grows: one that work never filled says nothing about the memory more work would take.
    const full = this.inFlight >= Math.floor(this.window);
    this.inFlight = Math.max(0, this.inFlight - 1);
    kind.inFlight = Math.max(0, kind.inFlight - 1);
    kind.calibrated = true;
    if (!full || this.read(false) >= this.budgetBytes) return;
    // Doubling each window's worth until memory first went over, then one more per window's worth.
    this.window += this.wentOver ? 1 / this.window : 1;
  }

  /** Ends a piece of work of `kind`; the next one waiting takes its place at once if there is room. */
  release(kind = ''): void {
    this.shrinkInFlight(this.kindNamed(kind));
    if (this.waiters.length > 0 && this.hasRoom(this.read(this.nearBudget()), this.waiters[0]!.kind)) this.admitNext();
  }

  /** Past half the budget every admission reads memory afresh: a reused reading misses what was admitted since. */
  private nearBudget(): boolean {
    return this.reading >= this.budgetBytes / 2;
  }

  private read(fresh: boolean): number {
    const now = performance.now();
    if (fresh || now - this.readAt >= READING_MS) {
      this.reading = this.residentBytes();
      this.readAt = now;
      if (this.inFlight === 0) this.idleBytes = Math.min(this.idleBytes, this.reading);
      else this.observe(now);
    }
    return this.reading;
  }

  /**
   * What the reading says each kind in flight holds per piece. The memory over the baseline is spread over the
   * pieces that have had time to show theirs (a piece just started has likely allocated little), or over all in
   * flight for a kind none of whose pieces has yet.
   */
  private observe(now: number): void {
    let settled = 0;
    for (const kind of this.kinds.values()) if (kind.inFlight > 0) settled += kind.inFlight - kind.unsettled(now);
    const above = Math.max(0, this.reading - this.idleBytes);
    for (const kind of this.kinds.values()) {
      if (kind.inFlight === 0) continue;
      const shown = kind.inFlight > kind.unsettled(now);
      if (shown) kind.calibrated = true;
      // Counted by what shows (shownPieces), a reading before any piece shows says nothing: its near nothing would
      // wear the estimate down while boxes are still being made.
      if (!shown && this.options.shownPieces !== undefined) continue;
      if (Number.isFinite(this.idleBytes)) kind.observe(shown ? above / settled : above / this.inFlight, now);
    }
  }

  /**
   * Memory once the work in flight holds what it is expected to: the reading plus the pieces too recent to show in
   * it, or the idle baseline plus every piece in flight, whichever is more.
   */
  private projected(resident: number): number {
    const now = performance.now();
    let unsettledBytes = 0;
    let inFlightBytes = 0;
    for (const kind of this.kinds.values()) {
      if (kind.inFlight === 0) continue;
      unsettledBytes += kind.unsettled(now) * kind.perPieceBytes;
      inFlightBytes += kind.inFlight * kind.perPieceBytes;
    }
    const fromReading = resident + unsettledBytes;
    return Number.isFinite(this.idleBytes) ? Math.max(fromReading, this.idleBytes + inFlightBytes) : fromReading;
  }

  private hasRoom(resident: number, kind: WorkKind): boolean {
    if (resident >= this.budgetBytes) {
      // Once per time over, as TCP halves once per loss: halving at every reading would shrink it to nothing.
      if (!this.halved) this.window = Math.max(1, Math.min(this.window, Math.floor(this.inFlight / 2)));
      this.halved = true;
      this.wentOver = true;
      return false;
    }
    this.halved = false;
    // With nothing in flight one piece always goes: the estimate alone must never stop work for good. Room for a
    // second piece is kept free: resident memory also grows with what the allocator keeps and fragments, which no
    // piece is seen to hold until a reading shows it.
    if (this.inFlight > 0 && ((kind.inFlight > 0 && !kind.calibrated) || this.projected(resident) + HEADROOM_PIECES * kind.perPieceBytes >= this.budgetBytes)) return false;
    return resident < this.budgetBytes / 2 || this.inFlight < Math.floor(this.window);
  }

  private drop(waiter: (typeof this.waiters)[number]): void {
    const index = this.waiters.indexOf(waiter);
    if (index === -1) return;
    this.waiters.splice(index, 1);
    waiter.admit(false);
  }

  private schedule(): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.admitWaiting();
    }, POLL_MS);
  }

  private admitWaiting(): void {
    let resident = this.read(true);
    if (resident >= this.budgetBytes && performance.now() - this.collectedAt >= COLLECT_EVERY_MS) {
      this.collectedAt = performance.now();
      collectGarbage();
      resident = this.read(true);
    }
    this.hold(resident >= this.budgetBytes, resident);
    // Still over with nothing in flight after a full collection since the hold began: what is held is no work's
    // (memory the allocator keeps for reuse, or a leak). One piece at a time goes on, so work never stops for good.
    if (this.holding && this.inFlight === 0 && this.collectedAt > this.heldSince) this.admitNext();
    while (this.waiters.length > 0 && this.hasRoom(resident, this.waiters[0]!.kind)) this.admitNext();
    if (this.waiters.length > 0) this.schedule();
    else this.hold(false, resident);
  }

  private start(kind: WorkKind): void {
    this.inFlight++;
    kind.start(performance.now());
  }

  private admitNext(): void {
    const waiter = this.waiters.shift();
    if (waiter === undefined) return;
    this.start(waiter.kind);
    waiter.admit(true);
  }

  private hold(holding: boolean, resident: number): void {
    if (holding === this.holding) return;
    this.holding = holding;
    this.heldSince = performance.now();
    this.options.onHold?.(holding, resident);
  }
}
