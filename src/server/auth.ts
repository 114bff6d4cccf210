/**
 * A shared bearer token between Gym servers and their clients, for servers reachable beyond loopback. Every
 * route but the `GET /` health check needs `Authorization: Bearer <auth_token>`; the comparison takes the same
 * time whatever the token sent, so it reveals nothing about the right one.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { ConfigError, ERROR_CODE_HEADER } from '../errors.ts';
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

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Checks the bearer token on every request but `GET /`; 401 NGYM_UNAUTHORIZED otherwise. */
export function authMiddleware(token: string): MiddlewareHandler {
  const expected = digest(token);
  return async (context, next) => {
    if (context.req.method === 'GET' && context.req.path === '/') return next();
    const header = context.req.header('authorization') ?? '';
    const sent = header.startsWith('Bearer ') ? header.slice(7) : '';
    if (timingSafeEqual(digest(sent), expected)) return next();
    const detail =
      header === ''
        ? `This server requires a bearer token: send 'Authorization: Bearer <${AUTH_TOKEN_KEY}>' (the ${AUTH_TOKEN_KEY} that \`ngym run\` was given or printed).`
        : `The bearer token sent is not this server's ${AUTH_TOKEN_KEY}.`;
    return context.json({ detail }, 401, { [ERROR_CODE_HEADER]: 'NGYM_UNAUTHORIZED', 'www-authenticate': 'Bearer' });
  };
}
