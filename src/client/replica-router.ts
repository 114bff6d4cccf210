/**
 * Which replica of a server a call goes to, on the client side. New sessions go to the up replica with the
 * fewest calls in flight (ties in turn); a session stays on the replica that seeded it, because its state
 * lives in that process: the choice is written into the session's cookie jar (`ngym_replica___<name>`),
 * so it travels wherever the jar's cookies are forwarded. A replica that refuses or drops connections is
 * taken out of rotation until it answers `GET /` again or the head server lists it anew.
 *
 * The replica list comes from the head server's `GET /server_replicas`, read once before the first call and
 * refreshed every few seconds. Servers with a single instance are not routed at all (no cost per call).
 */
import type { CookieJar } from './cookies.ts';
import type { HttpClient } from './http-client.ts';
import type { ReplicaInfo } from '../protocol/replicas.ts';

export const REPLICA_COOKIE_PREFIX = 'ngym_replica___';
const REFRESH_MS = 2_000;
const PROBE_TIMEOUT_MS = 2_000;

export interface Replica {
  /** `host:port`: what the session cookie holds. */
  id: string;
  url: string;
  h2cUrl: string | undefined;
  inFlight: number;
  up: boolean;
  /** Why it is out of rotation. */
  downReason?: string;
  /** The head server lists it as up; only then is a replica this client marked down probed again. */
  listedUp: boolean;
}

export class ReplicaSet {
  readonly replicas: Replica[] = [];
  readonly cookie: string;
  private turn = 0;

  constructor(readonly name: string) {
    this.cookie = `${REPLICA_COOKIE_PREFIX}${name}`;
  }

  /** The up replica with the fewest calls in flight, ties broken in turn; undefined when none is up. */
  choose(exclude?: ReadonlySet<Replica>): Replica | undefined {
    const count = this.replicas.length;
    let best: number | undefined;
    for (let step = 0; step < count; step++) {
      const index = (this.turn + step) % count;
      const replica = this.replicas[index] as Replica;
      if (!replica.up || exclude?.has(replica)) continue;
      if (best === undefined || replica.inFlight < (this.replicas[best] as Replica).inFlight) best = index;
    }
    if (best === undefined) return undefined;
    // The next search starts after this one, so equal replicas take turns even with some out of rotation.
    this.turn = (best + 1) % count;
    return this.replicas[best];
  }

  /** The replica a session's jar is bound to: undefined when it is bound to none yet; a string says why it cannot be used. */
  boundReplica(jar: CookieJar): Replica | string | undefined {
    const id = jar.get(this.cookie);
    if (id === undefined) return undefined;
    const replica = this.replicas.find((candidate) => candidate.id === id);
    if (replica === undefined) return `Replica ${id} of server '${this.name}', which holds this session, is no longer listed by the head server`;
    if (!replica.up) return `Replica ${replica.url} of server '${this.name}', which holds this session, is out of rotation (${replica.downReason ?? 'down'})`;
    return replica;
  }

  bind(jar: CookieJar, replica: Replica): void {
    jar.set(this.cookie, replica.id);
  }

  markDown(replica: Replica, reason: string): void {
    replica.up = false;
    replica.downReason = reason;
  }

  /** Takes the head server's list: new replicas join, gone ones leave, ones it says are down go out of rotation. */
  update(listed: readonly ReplicaInfo[]): void {
    const urls = new Set(listed.map((info) => info.url));
    for (let index = this.replicas.length - 1; index >= 0; index--) {
      if (!urls.has((this.replicas[index] as Replica).url)) this.replicas.splice(index, 1);
    }
    for (const info of listed) {
      let replica = this.replicas.find((candidate) => candidate.url === info.url);
      if (replica === undefined) {
        replica = { id: new URL(info.url).host, url: info.url, h2cUrl: info.h2c_url ?? undefined, inFlight: 0, up: info.up, listedUp: info.up };
        this.replicas.push(replica);
      }
      replica.listedUp = info.up;
      if (!info.up) this.markDown(replica, 'the head server lists it as down');
    }
  }
}

export class ReplicaRouter {
  private readonly sets = new Map<string, ReplicaSet>();
  /** Set until the first listing is in (or given up on): calls wait for it once. */
  loading: Promise<void> | undefined;
  private readonly timer: NodeJS.Timeout;
  private refreshing = false;

  constructor(
    private readonly http: HttpClient,
    private readonly headUrl: string,
    private readonly headers: Record<string, string> | undefined,
  ) {
    this.loading = this.refresh().finally(() => (this.loading = undefined));
    this.timer = setInterval(() => void this.tick(), REFRESH_MS);
    this.timer.unref();
  }

  /** The replicas of a server run as several; undefined for one of a single instance. */
  replicated(name: string): ReplicaSet | undefined {
    return this.sets.get(name);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async tick(): Promise<void> {
    if (this.refreshing) return;
    this.refreshing = true;
    try {
      await this.refresh();
      await Promise.all([...this.sets.values()].flatMap((set) => set.replicas.filter((replica) => !replica.up && replica.listedUp).map((replica) => this.probe(replica))));
    } finally {
      this.refreshing = false;
    }
  }

  private async probe(replica: Replica): Promise<void> {
    try {
      await this.http.request(`${replica.url}/`, { timeoutMs: PROBE_TIMEOUT_MS, connectionRetries: 0 });
      replica.up = true;
      replica.downReason = undefined;
    } catch {
      // Still down: probed again at the next refresh.
    }
  }

  private async refresh(): Promise<void> {
    let listing: Record<string, ReplicaInfo[]>;
    try {
      const response = await this.http.request(`${this.headUrl}/server_replicas`, { timeoutMs: 10_000, connectionRetries: 1, headers: this.headers });
      // A head server without replicas (upstream's, an older ngym): nothing to route, ever.
      if (response.status === 404) return this.stop();
      if (!response.ok) return;
      listing = response.json<Record<string, ReplicaInfo[]>>();
    } catch {
      // The head server is away for now: keep routing over what was listed last.
      return;
    }
    for (const [name, listed] of Object.entries(listing)) {
      if (!Array.isArray(listed)) continue;
      let set = this.sets.get(name);
      // A name served by one process is not routed; once routed, it stays so (its sessions carry replica cookies).
      if (set === undefined && listed.length < 2) continue;
      if (set === undefined) this.sets.set(name, (set = new ReplicaSet(name)));
      set.update(listed);
    }
  }
}
