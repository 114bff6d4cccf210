/**
 * Cookie sessions as upstream: each server has one cookie named `<ServerClass>___<instance name>` whose
 * value carries a `session_id`; every response re-sends it. The value is private to the server that
 * minted it (HMAC-signed JSON), so other servers and agents treat it as opaque and forward it verbatim.
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';

export const SESSION_ID_KEY = 'session_id';
const SESSION_MAX_AGE_SECONDS = 1_209_600;

export function sessionCookieName(className: string, instanceName: string): string {
  return `${className}___${instanceName}`;
}

/** Most recent entries of a map, up to a size: the oldest insertion goes first. */
function remember<K, V>(cache: Map<K, V>, key: K, value: V, limit: number): V {
  if (cache.size >= limit) cache.delete(cache.keys().next().value as K);
  cache.set(key, value);
  return value;
}

const CACHE_LIMIT = 65_536;

export class SessionSigner {
  // A rollout sends the same cookie many times; signing and checking it each time would cost an HMAC per request.
  private readonly encoded = new Map<string, string>();
  private readonly decoded = new Map<string, string>();

  constructor(private readonly secret: string) {}

  private signature(payload: string): string {
    return createHmac('sha256', this.secret).update(payload).digest('base64url');
  }

  encode(sessionId: string): string {
    const cached = this.encoded.get(sessionId);
    if (cached !== undefined) return cached;
    const payload = Buffer.from(JSON.stringify({ [SESSION_ID_KEY]: sessionId })).toString('base64url');
    const value = `${payload}.${this.signature(payload)}`;
    // The caller will send it back: knowing it already saves checking its signature then.
    remember(this.decoded, value, sessionId, CACHE_LIMIT);
    return remember(this.encoded, sessionId, value, CACHE_LIMIT);
  }

  /** The session id in a cookie value, or undefined when it is absent, malformed or not signed by us. */
  decode(value: string | undefined): string | undefined {
    if (!value) return undefined;
    const cached = this.decoded.get(value);
    if (cached !== undefined) return cached;
    const sessionId = this.verify(value);
    return sessionId === undefined ? undefined : remember(this.decoded, value, sessionId, CACHE_LIMIT);
  }

  private verify(value: string): string | undefined {
    const dot = value.lastIndexOf('.');
    if (dot <= 0) return undefined;
    const payload = value.slice(0, dot);
    const given = Buffer.from(value.slice(dot + 1));
    const expected = Buffer.from(this.signature(payload));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    try {
      const session = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
      const id = session[SESSION_ID_KEY];
      return typeof id === 'string' && id.length > 0 ? id : undefined;
    } catch {
      return undefined;
    }
  }
}

export function newSessionId(): string {
  return randomUUID();
}

export function setCookieHeader(name: string, value: string): string {
  return `${name}=${value}; Path=/; Max-Age=${SESSION_MAX_AGE_SECONDS}; HttpOnly; SameSite=Lax`;
}
