/** `ngym worker`: run the rollout jobs of a distributed `ngym collect` against the servers this host reaches. */
import * as z from 'zod';
import { loadGlobalConfig } from '../../config/global-config.ts';
import { connectRedis, describeRedis, QueueSettings } from '../../rollouts/queue/connection.ts';
import { startQueueWorker } from '../../rollouts/queue/queue-worker.ts';
import { type CliCommand, headServerClient, readParameters } from '../command.ts';

const Parameters = z.object({
  queue: QueueSettings,
  concurrency: z.number().int().min(1).default(64),
});

export const workerCommand: CliCommand = {
  name: 'worker',
  aliases: [],
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
  parameters: [
    { name: 'queue.url', type: 'str', description: 'Redis: redis://host:port[/db], rediss://host:port or unix:///path/to/redis.sock.', required: true },
    { name: 'queue.name', type: 'str', description: 'The queue; the same as the collector’s.', default: 'ngym_rollouts' },
    { name: 'queue.lock_seconds', type: 'float', description: 'A job whose worker is silent this long is retried by another worker.', default: '30' },
    { name: 'queue.max_stalled', type: 'int', description: 'Times a job may stall before it is recorded as failed.', default: '2' },
    { name: 'concurrency', type: 'int', description: 'Rollouts this worker runs at once.', default: '64' },
    { name: 'auth_token', type: 'str', description: "The gym's auth_token, when its servers require one." },
  ],
  async run(args) {
    const globalConfig = loadGlobalConfig({ overrides: args });
    const parameters = readParameters(globalConfig, Parameters, Object.keys(Parameters.shape));
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
