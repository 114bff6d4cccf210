/**
 * The shared bearer token between Gym servers and their clients (servers reachable beyond loopback): its config
 * keys, how a configured one is read and a new one made, and the header a client sends. The server's check of
 * it is server/auth.ts.
 */
import { randomBytes } from 'node:crypto';
import { ConfigError } from '../errors.ts';
import type { ConfigValue } from '../config/tree.ts';
import { REDACTED } from '../config/redact.ts';

/** The top-level config key holding the token (secret-looking: the head server redacts it). */
export const AUTH_TOKEN_KEY = 'auth_token';

/**
 * Serve beyond loopback without a token: for clients that cannot send one (NeMo RL's Python collector on a
 * private Ray cluster network). `ngym run` warns when it is used.
 */
export const ALLOW_UNAUTHENTICATED_KEY = 'allow_unauthenticated';

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost', '[::1]']);

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK.has(host) || host.startsWith('127.');
}

/** The configured token, or undefined; anything but a non-empty string is a config error. */
export function authTokenOf(value: ConfigValue | undefined): string | undefined {
  if (value === undefined || value === null || value === REDACTED) return undefined;
  if (typeof value !== 'string' || value.length < 16) {
    throw new ConfigError('NGYM_CONFIG_INVALID', `${AUTH_TOKEN_KEY} must be a string of at least 16 characters (a random one is generated when it is left out).`, {
      key: AUTH_TOKEN_KEY,
    });
  }
  return value;
}

export function generateAuthToken(): string {
  return randomBytes(24).toString('base64url');
}

export function authorizationHeader(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

