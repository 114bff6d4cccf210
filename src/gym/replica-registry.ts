/**
 * Replicas of a server behind one name, as the head server knows them: the ones `ngym run` launched here
 * (`replicas: N` on the entry) and the ones other `ngym run` processes registered (`+head_server.url=...`).
 * Registrations expire unless renewed, so a host that went away leaves the listing by itself.
 */
import { parseReportingInput, validationDetails } from '../protocol/validation.ts';
import { type ReplicaInfo, ReplicaRegistration } from '../protocol/replicas.ts';

/** How often a joined `ngym run` renews its registrations; the head forgets them after three missed renewals. */
export const REGISTRATION_RENEW_MS = 5_000;
const REGISTRATION_TTL_MS = 3 * REGISTRATION_RENEW_MS;

export class ReplicaRegistry {
  private readonly registered = new Map<string, { info: ReplicaInfo; expires: number }>();

  constructor(
    /** The replicas launched here, first replica of each name first; each server's own entry is its first. */
    private readonly local: () => ReplicaInfo[],
    /** Names and types the head's config holds: only those may be registered. */
    private readonly known: () => { name: string; serverType: string }[],
    private readonly now: () => number = Date.now,
  ) {}

  /** Adds or renews a registration; answers the problem when the body or the name is wrong. */
  register(body: unknown): { ok: true } | { ok: false; status: 404 | 422; detail: string } {
    const parsed = parseReportingInput(ReplicaRegistration, body);
    if (!parsed.success) {
      return { ok: false, status: 422, detail: validationDetails(parsed.error, []).map((d) => `${d.loc.join('.') || 'body'}: ${d.msg}`).join('; ') };
    }
    const { name, server_type } = parsed.data;
    const known = this.known();
    const match = known.find((entry) => entry.name === name);
    if (match === undefined || match.serverType !== server_type) {
      const have = known.map((entry) => `${entry.name} (${entry.serverType})`).join(', ') || '(none)';
      return { ok: false, status: 404, detail: `This head server has no ${server_type} named '${name}' to add a replica to. Its servers: ${have}.` };
    }
    this.registered.set(parsed.data.url, { info: { ...parsed.data, origin: 'registered', up: true }, expires: this.now() + REGISTRATION_TTL_MS });
    return { ok: true };
  }

  remove(urls: readonly string[]): number {
    return urls.filter((url) => this.registered.delete(url)).length;
  }

  /** Every replica by name: launched ones first, then registered ones in registration order; lapsed ones dropped. */
  listing(): Record<string, ReplicaInfo[]> {
    const now = this.now();
    const byName: Record<string, ReplicaInfo[]> = {};
    for (const info of this.local()) (byName[info.name] ??= []).push(info);
    for (const [url, entry] of this.registered) {
      if (entry.expires < now) this.registered.delete(url);
      else (byName[entry.info.name] ??= []).push(entry.info);
    }
    return byName;
  }
}
