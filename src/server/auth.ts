/**
 * The server's side of the shared bearer token (client/auth-token.ts): every route but the `GET /` health check
 * needs `Authorization: Bearer <auth_token>`; the comparison takes the same time whatever the token sent, so it
 * reveals nothing about the right one.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { AUTH_TOKEN_KEY } from '../client/auth-token.ts';
import { ERROR_CODE_HEADER } from '../errors.ts';

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
