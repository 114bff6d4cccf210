/** `ngym worker`: run the rollout jobs of a distributed `ngym collect` against the servers this host reaches. */
import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { join } from 'node:path';
import * as z from 'zod';
import { type GlobalConfig, loadGlobalConfig } from '../../config/global-config.ts';
import { gymTracer } from '../../rollouts/collection-tracing.ts';
import { connectRedis, describeRedis, QueueSettings } from '../../rollouts/queue/connection.ts';
import { startQueueWorker } from '../../rollouts/queue/queue-worker.ts';
import { type WorkerMessage, WorkerSupervisor } from '../../rollouts/queue/worker-supervisor.ts';
import { flushTracing } from '../../telemetry/tracing.ts';
import { PACKAGE_ROOT } from '../../util/package-root.ts';
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
type Parameters = z.infer<typeof Parameters>;

/** Set in the worker process the supervisor starts. */
const SUPERVISED_ENV = 'NGYM_WORKER_PROCESS';

export const workerCommand: CliCommand = {
  name: 'worker',
  summary: 'Run rollout jobs from a Redis queue (distributed ngym collect) against the servers this host reaches.',
  description: `
Takes rollout jobs that \`ngym collect +queue.url=...\` puts on a BullMQ queue in Redis, POSTs each to its
agent's /run through this host's head server (+head_server.host, +head_server.port; default
127.0.0.1:11000), and hands the result back to the collector, which writes it. Start any number of workers,
on any host that reaches Redis and a gym serving the agents of the input. A worker that dies mid-job loses
its lock; after +queue.lock_seconds another worker retries the job. The command runs the worker as a
child process and watches it: should that process die (the kernel's OOM killer, its JavaScript heap limit, a
crash), the rollouts it held are recorded as worker_oom_killed, worker_heap_exhausted or worker_died, naming it
and its memory, and a new one starts (after a wait doubling from 1 s to 30 s while workers die within 60 s of
starting). Ctrl-C or
SIGTERM finishes the jobs in hand and exits; a second one exits at once. See docs/distributed.md.

Example:
  ngym run +config_paths=[resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml,...] &
  ngym worker +queue.url=redis://redis-host:6379 +concurrency=64`,
  parameters: Parameters,
  async run(args) {
    const globalConfig = loadGlobalConfig({ overrides: args });
    const parameters = readParameters(globalConfig, Parameters);
    return process.env[SUPERVISED_ENV] === '1' ? runWorker(globalConfig, parameters) : supervise(args, parameters);
  },
};

/** The supervisor: starts this command again as the worker process, records its death, replaces it. */
async function supervise(args: string[], parameters: Parameters): Promise<number> {
  const connection = connectRedis(parameters.queue.url);
  const supervisor = new WorkerSupervisor({
    connection,
    name: parameters.queue.name,
    log,
    startWorker: () =>
      spawn(process.execPath, [...process.execArgv, join(PACKAGE_ROOT, 'bin', 'ngym.js'), 'worker', ...args], {
        env: { ...process.env, [SUPERVISED_ENV]: '1' },
        // The IPC channel carries the jobs held, and ends the worker should this process die (src/cli/end-with-parent.ts).
        // stderr passes through the supervisor, which reads it for V8 running out of heap.
        stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
      }),
  });
  let signals = 0;
  const onSignal = () => {
    if (signals++ === 0) log('Stopping: finishing the jobs in hand (again to quit now)...');
    supervisor.stop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const code = await supervisor.run();
  await connection.quit();
  return code;
}

/** The worker process, under the supervisor. */
async function runWorker(globalConfig: GlobalConfig, parameters: Parameters): Promise<number> {
  const client = await headServerClient(globalConfig);
  const connection = connectRedis(parameters.queue.url);
  const tell = (message: WorkerMessage) => process.send?.(message);
  const worker = startQueueWorker({
    connection,
    name: parameters.queue.name,
    client,
    concurrency: parameters.concurrency,
    lockSeconds: parameters.queue.lock_seconds,
    maxStalled: parameters.queue.max_stalled,
    log,
    onJob: tell,
    // The gym's telemetry block: the rollouts' spans join their collector's traces.
    tracer: await gymTracer(client, { name: 'worker', type: 'worker' }),
  });
  await worker.waitUntilReady();
  const head = globalConfig.headServer;
  process.stdout.write(
    `Worker ready (pid ${process.pid} on ${hostname()}): queue '${parameters.queue.name}' at ${describeRedis(parameters.queue.url)}, ${parameters.concurrency} rollouts at once, servers of the head server ${head.host}:${head.port}.\n`,
  );
  tell({ type: 'ready' });
  // A Ctrl-C reaches this process and the supervisor alike: only the supervisor counts a second one (and kills this).
  await new Promise<void>((resolve) => {
    process.on('SIGINT', resolve);
    process.on('SIGTERM', resolve);
  });
  await worker.close();
  await flushTracing();
  await connection.quit();
  return 0;
}

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}
