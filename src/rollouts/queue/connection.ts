/**
 * The Redis behind a distributed collection, and the `queue` config keys that name it. The collector and
 * every worker read the same keys, so one config file (or the same `+queue.*` overrides) serves them all.
 */
import { Redis } from 'ioredis';
import * as z from 'zod';

const Settings = z.strictObject({
  /** `redis://[user:password@]host:port[/db]`, `rediss://...` (TLS), or `unix:///path/to/redis.sock`. */
  url: z.string().regex(/^(rediss?:\/\/|unix:)/, 'must be redis://host:port, rediss://host:port or unix:///path/to/redis.sock'),
  /** The BullMQ queue: collectors and workers of one queue must use the same name. */
  name: z
    .string()
    .regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, _ . and - only')
    .default('ngym_rollouts'),
  /** Workers: a job whose worker has not renewed its lock for this long is stalled and retried elsewhere. */
  lock_seconds: z.number().positive().default(30),
  /** Workers: how often one job may stall (its worker died or was cut off) before it is recorded as failed. */
  max_stalled: z.number().int().min(0).default(2),
});
/** An absent `queue` reads as `{}`, so the error names `queue.url`, the key to add. */
export const QueueSettings = z.preprocess((value) => value ?? {}, Settings);
export type QueueSettings = z.infer<typeof Settings>;

/**
 * One connection as BullMQ wants it: commands wait across a Redis restart (no per-request retry limit, an
 * offline queue) instead of failing, so a restarted Redis with its data resumes the run where it was.
 */
export function connectRedis(url: string): Redis {
  const options = { maxRetriesPerRequest: null, lazyConnect: false };
  // `url` passed QueueSettings: redis://, rediss:// or unix:.
  if (url.startsWith('unix:')) return new Redis({ ...options, path: url.replace(/^unix:(\/\/)?/, '') });
  return new Redis(url, options);
}

/** Where a connection points, for messages (no password). */
export function describeRedis(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//');
}
