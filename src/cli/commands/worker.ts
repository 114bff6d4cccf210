/** `ngym worker`: run the rollout jobs of a distributed `ngym collect` against the servers this host reaches. */
import * as z from 'zod';
import { loadGlobalConfig } from '../../config/global-config.ts';
import { connectRedis, describeRedis, QueueSettings } from '../../rollouts/queue/connection.ts';
import { startQueueWorker } from '../../rollouts/queue/queue-worker.ts';
import { type CliCommand, headServerClient, readParameters } from '../command.ts';
import { readElsewhere } from '../parameters.ts';

const Parameters = z.object({
  queue: QueueSettings.meta({
    fields: {
      url: 'Redis: redis://host:port[/db], rediss://host:port or unix:///path/to/redis.sock.',
      name: 'The queue; the same as the collector’s.',
      lock_seconds: 'A job whose worker is silent this long is retried by another worker.',
      max_stalled: 'Times a job may stall before it is recorded as failed.',
    },
  }),
  concurrency: z.number().int().min(1).default(64).describe('Rollouts this worker runs at once.'),
  auth_token: readElsewhere(z.string().optional(), "The gym's auth_token, when its servers require one."),
});

export const workerCommand: CliCommand = {
  name: 'worker',
  summary: 'Run rollout jobs from a Redis queue (distributed ngym collect) against the servers this host reaches.',
  description: `
Takes rollout jobs that \`ngym collect +queue.url=...\` puts on a BullMQ queue in Redis, POSTs each to its
agent's /run through this host's head server (+head_server.host, +head_server.port; default
127.0.0.1:11000), and hands the result back to the collector, which writes it. Start any number of workers,
on any host that reaches Redis and a gym serving the agents of the input. A worker that dies mid-job loses
its lock; after +queue.lock_seconds another worker retries the job. Ctrl-C or SIGTERM finishes the jobs in
hand and exits; a second one exits at once. See docs/distributed.md.

Example:
  ngym run +config_paths=[resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml,...] &
  ngym worker +queue.url=redis://redis-host:6379 +concurrency=64`,
  parameters: Parameters,
  async run(args) {
    const globalConfig = loadGlobalConfig({ overrides: args });
    const parameters = readParameters(globalConfig, Parameters);
    const client = await headServerClient(globalConfig);
    const connection = connectRedis(parameters.queue.url);
    const log = (message: string) => process.stderr.write(`${message}\n`);
    const worker = startQueueWorker({
      connection,
      name: parameters.queue.name,
      client,
      concurrency: parameters.concurrency,
      lockSeconds: parameters.queue.lock_seconds,
      maxStalled: parameters.queue.max_stalled,
      log,
    });
    await worker.waitUntilReady();
    const head = globalConfig.headServer;
    process.stdout.write(
      `Worker ready: queue '${parameters.queue.name}' at ${describeRedis(parameters.queue.url)}, ${parameters.concurrency} rollouts at once, servers of the head server ${head.host}:${head.port}.\n`,
    );
    const stopped = new Promise<void>((resolve) => {
      const onSignal = () => {
        if (worker.closing) process.exit(130);
        log('Stopping: finishing the jobs in hand (again to quit now)...');
        resolve();
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
    });
    await stopped;
    await worker.close();
    await connection.quit();
    return 0;
  },
};
