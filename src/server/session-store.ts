/**
 * Per-session state for stateful resources servers, keyed by the session id from the cookie. Entries that
 * have not been touched for `idleTtlMs` are evicted, so a long training run does not grow memory forever
 * (upstream's dicts are never freed).
 */
export interface SessionStoreOptions {
  /** Evict entries idle for this long; default one hour. Null keeps entries forever. */
  idleTtlMs?: number | null;
}

export class SessionStore<T> {
  private readonly entries = new Map<string, { value: T; touched: number }>();
  private readonly idleTtlMs: number | null;
  private readonly onEvict: ((value: T, sessionId: string) => void) | undefined;
  private lastSweep = Date.now();

  /** `onEvict` gets each entry evicted for idleness, to release what it holds (a process, a sandbox). */
  constructor(options: SessionStoreOptions & { onEvict?: (value: T, sessionId: string) => void } = {}) {
    this.idleTtlMs = options.idleTtlMs === undefined ? 3_600_000 : options.idleTtlMs;
    this.onEvict = options.onEvict;
  }

  get size(): number {
    return this.entries.size;
  }

  has(sessionId: string): boolean {
    return this.entries.has(sessionId);
  }

  get(sessionId: string): T | undefined {
    const entry = this.entries.get(sessionId);
    if (entry === undefined) return undefined;
    entry.touched = Date.now();
    return entry.value;
  }

  set(sessionId: string, value: T): void {
    this.sweep();
    this.entries.set(sessionId, { value, touched: Date.now() });
  }

  /** The existing value, or `create()` stored and returned (Python's `setdefault`). */
  getOrCreate(sessionId: string, create: () => T): T {
    const existing = this.get(sessionId);
    if (existing !== undefined) return existing;
    const value = create();
    this.set(sessionId, value);
    return value;
  }

  delete(sessionId: string): boolean {
    return this.entries.delete(sessionId);
  }

  /** Evicts idle entries, at most once a minute, amortized over writes. */
  private sweep(): void {
    if (this.idleTtlMs === null) return;
    const now = Date.now();
    if (now - this.lastSweep < Math.min(60_000, this.idleTtlMs)) return;
    this.lastSweep = now;
    for (const [id, entry] of this.entries) {
      if (now - entry.touched <= this.idleTtlMs) continue;
      this.entries.delete(id);
      this.onEvict?.(entry.value, id);
    }
  }
}
