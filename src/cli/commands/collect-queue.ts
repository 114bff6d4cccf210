/** `ngym collect +queue.url=...`: the rollouts go to `ngym worker` processes through a BullMQ queue. */
import type { Redis } from 'ioredis';
import { type QueueSettings, connectRedis, describeRedis } from '../../rollouts/queue/connection.ts';
import { QueueExecutor } from '../../rollouts/queue/queue-executor.ts';

interface RetryParameters {
  max_retries: number;
  retry_delay_seconds: number;
  rollout_timeout_seconds?: number | null;
}

export function queueExecutor(queue: QueueSettings, parameters: RetryParameters, write: (text: string) => void): { executor: QueueExecutor; connection: Redis } {
  const connection = connectRedis(queue.url);
  // ioredis reconnects by itself (a Redis restart); say so rather than stay silent while it waits.
  connection.on('error', (error: Error) => write(`Redis (${describeRedis(queue.url)}): ${error.message}; reconnecting\n`));
  const timeout = parameters.rollout_timeout_seconds;
  const executor = new QueueExecutor({
    connection,
    name: queue.name,
    maxRetries: parameters.max_retries,
    retryDelayMs: parameters.retry_delay_seconds * 1000,
    rolloutTimeoutMs: timeout === undefined ? undefined : timeout === null ? null : timeout * 1000,
  });
  return { executor, connection };
}
