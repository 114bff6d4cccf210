/**
 * The docker provider's warm pool (`warm_pool: {size: N}` beside a sandbox block's provider): boxes made ahead of
 * need for a spec that is asked for again and again, so a create of that spec is handed a box already up and probed.
 *
 * - A spare is handed out once and never comes back: a box an agent had is removed when it is closed, as without
 *   the pool (a reset cannot be proved clean: the agent may have changed anything, started processes, filled the
 *   disk). Spares are fresh boxes nobody has had.
 * - A spec is pooled from its second create on (the first says nothing of whether it comes again), and only one
 *   without `ttl_s` (its clock would start before anyone had the box). Specs are told apart by every field.
 * - The pool holds at most `size` spares (made or being made); refilling one spec removes the spares of the specs
 *   used least recently. Spares are boxes of the run like others: they count against `max_sandboxes`, are made only
 *   while the run has room (never waiting for it), and are removed first when a create would otherwise wait.
 * - close() waits for the spares being made and removes every spare; a process killed leaves spares that are
 *   reaped as any box of a dead holder or run.
 */

/** What a pool counts, for benches and `ngym sandbox`: creates served by a spare, creates that made their box, spares made. */
export interface WarmPoolStats {
  hits: number;
  misses: number;
  made: number;
}

export interface WarmPoolOptions<Spec, Handle> {
  size: number;
  /** Makes a spare; undefined when the run has no room for it now. */
  make(spec: Spec): Promise<Handle | undefined>;
  /** Removes a spare (it was never handed out). */
  discard(handle: Handle): Promise<void>;
}

interface PooledSpec<Spec, Handle> {
  spec: Spec;
  ready: Handle[];
  making: number;
  creates: number;
  usedAt: number;
}

export class WarmPool<Spec, Handle> {
  private readonly specs = new Map<string, PooledSpec<Spec, Handle>>();
  private readonly inFlight = new Set<Promise<void>>();
  private closed = false;
  private clock = 0;
  readonly stats: WarmPoolStats = { hits: 0, misses: 0, made: 0 };

  constructor(private readonly options: WarmPoolOptions<Spec, Handle>) {}

  /** Spares ready now. */
  get ready(): number {
    let count = 0;
    for (const entry of this.specs.values()) count += entry.ready.length;
    return count;
  }

  private get held(): number {
    let count = 0;
    for (const entry of this.specs.values()) count += entry.ready.length + entry.making;
    return count;
  }

  /** A spare for this spec (handed out for good), or undefined; either way the spec counts as asked for. */
  take(key: string, spec: Spec): Handle | undefined {
    const entry = this.entryFor(key, spec);
    entry.creates++;
    entry.usedAt = ++this.clock;
    const spare = entry.ready.shift();
    if (spare === undefined) this.stats.misses++;
    else this.stats.hits++;
    if (entry.creates >= 2) this.refill(key);
    return spare;
  }

  /** Makes spares of this spec now, up to the pool's size; resolves once they are up (or the run has no more room). */
  async warm(key: string, spec: Spec): Promise<void> {
    const entry = this.entryFor(key, spec);
    entry.creates = Math.max(entry.creates, 2);
    entry.usedAt = ++this.clock;
    this.refill(key);
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
  }

  /** Removes every spare (to make room for a create that would otherwise wait); resolves once they are gone. */
  async drain(): Promise<void> {
    const spares = [...this.specs.values()].flatMap((entry) => entry.ready.splice(0));
    await Promise.all(spares.map((spare) => this.options.discard(spare).catch(() => undefined)));
  }

  async close(): Promise<void> {
    this.closed = true;
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
    await this.drain();
  }

  private entryFor(key: string, spec: Spec): PooledSpec<Spec, Handle> {
    let entry = this.specs.get(key);
    if (entry === undefined) this.specs.set(key, (entry = { spec, ready: [], making: 0, creates: 0, usedAt: 0 }));
    return entry;
  }

  /** Brings this spec's spares up to size, removing spares of the specs used least recently to make room. */
  private refill(key: string): void {
    const entry = this.specs.get(key);
    if (entry === undefined || this.closed) return;
    const wanted = this.options.size - entry.ready.length - entry.making;
    for (let index = 0; index < wanted; index++) {
      if (this.held >= this.options.size && !this.evictOther(key)) return;
      entry.making++;
      const making: Promise<void> = this.options
        .make(entry.spec)
        .then(async (handle) => {
          if (handle === undefined) return;
          this.stats.made++;
          if (this.closed) await this.options.discard(handle).catch(() => undefined);
          else entry.ready.push(handle);
        })
        .catch(() => undefined)
        .finally(() => {
          entry.making--;
          this.inFlight.delete(making);
        });
      this.inFlight.add(making);
    }
  }

  /** Removes one spare of the spec used least recently other than `key`; false when there is none. */
  private evictOther(key: string): boolean {
    const others = [...this.specs.entries()].filter(([other, entry]) => other !== key && entry.ready.length > 0).sort(([, left], [, right]) => left.usedAt - right.usedAt);
    const spare = others[0]?.[1].ready.shift();
    if (spare === undefined) return false;
    void this.options.discard(spare).catch(() => undefined);
    return true;
  }
}
