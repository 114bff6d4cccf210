/**
 * A request's time limit (`request_timeout_seconds`): past it the caller is answered 504 with a message naming the
 * limit. Nothing can stop a handler from outside, so it runs on; middleware before this one (admission by memory)
 * asks unfinishedWork() and keeps holding its place until the handler has settled, since the work still holds its
 * memory.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';

const unfinished = new WeakMap<Context, Promise<void>>();

/** The work of a request answered 504 while its handler still ran: settles (never rejects) when the handler ends. */
export function unfinishedWork(context: Context): Promise<void> | undefined {
  return unfinished.get(context);
}

export function requestTimeout(limitMs: number): MiddlewareHandler {
  return async (context, next) => {
    let timer: NodeJS.Timeout | undefined;
    const work = next();
    const expired = new Promise<true>((resolve) => {
      timer = setTimeout(() => resolve(true), limitMs);
    });
    try {
      if ((await Promise.race([work, expired])) === true) {
        unfinished.set(
          context,
          work.then(
            () => undefined,
            () => undefined,
          ),
        );
        throw new HTTPException(504, { message: `Request timed out after ${limitMs / 1000} s` });
      }
    } finally {
      clearTimeout(timer);
    }
  };
}
