/**
 * Distributed collection (issue 18): rollouts/s with 1, 2 and 4 `ngym worker` processes (each 32 rollouts at
 * once) against local collection at the same number in flight, with a model that answers after a fixed
 * latency so the work is wait-bound, as in production; the queue's overhead per rollout (time from enqueue to
 * result minus the local /run time, and Redis commands); Redis memory per 10k queued jobs.
 * A real redis-server (unix socket) and one gym (bench_trivial, simple_agent, bench_null_model), all on this
 * machine. Environment: BENCH_DISTRIBUTED_ROLLOUTS (default 2000), BENCH_MODEL_LATENCY_MS (default 100).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { type ConfigDict } from 'ngym';
import { collectRollouts, globalConfigFromDict, launch, PACKAGE_ROOT } from 'ngym/runtime';
import { simpleAgentConfig } from 'ngym/testing';
import { QueueExecutor } from '../src/rollouts/queue/queue-executor.ts';
import { REDIS_AVAILABLE, startRedis } from '../faults/redis-server.ts';
import { format, percentile } from './lib/measure.ts';
import { PING_ROW as row } from './lib/ping-row.ts';

const ROLLOUTS = Number(process.env.BENCH_DISTRIBUTED_ROLLOUTS ?? 2000);
const LATENCY_MS = Number(process.env.BENCH_MODEL_LATENCY_MS ?? 100);
const PER_WORKER = 32;

async function redisInfo(connection: Redis, field: string): Promise<number> {
  const info = await connection.info();
  return Number(new RegExp(`^${field}:(\\d+)`, 'm').exec(info)?.[1]);
}

function startWorker(headPort: number, url: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [join(PACKAGE_ROOT, 'bin', 'ngym.js'), 'worker', `+head_server={host: 127.0.0.1, port: ${headPort}}`, `+queue.url=${url}`, `+concurrency=${PER_WORKER}`],
    { env: { ...process.env, NGYM_LOG_LEVEL: 'error' }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => chunk.includes('Worker ready') && resolve(child));
    child.once('exit', (code) => reject(new Error(`ngym worker exited with ${code}`)));
  });
}

export default async function distributedBench(): Promise<void> {
  if (!REDIS_AVAILABLE) {
    process.stdout.write('skipped: redis-server is not installed\n');
    return;
  }
  const redis = await startRedis();
  const connection = new Redis({ path: redis.url.replace('unix://', ''), maxRetriesPerRequest: null });
  const dict: ConfigDict = {
    head_server: { host: '127.0.0.1', port: 0 },
    ...simpleAgentConfig({
      resources: { name: 'bench_env', implementation: 'bench_trivial' },
      agent: 'bench_agent',
      model: { implementation: 'bench_null_model', config: { latency_ms: LATENCY_MS } },
    }),
  };
  const gym = await launch({ globalConfig: globalConfigFromDict(dict, { searchRoots: [join(PACKAGE_ROOT, 'bench', 'servers'), PACKAGE_ROOT] }), output: () => {} });
  const headServer = { host: '127.0.0.1', port: Number(new URL(gym.headUrl).port) };
  const folder = mkdtempSync(join(tmpdir(), 'ngym-bench-distributed-'));
  const input = join(folder, 'input.jsonl');
  writeFileSync(input, Array.from({ length: ROLLOUTS }, (_, index) => `${JSON.stringify({ ...row, id: index })}\n`).join(''));
  process.stdout.write(`${ROLLOUTS} rollouts, model latency ${LATENCY_MS} ms per call (2 calls a rollout), ${PER_WORKER} in flight per worker\n`);
  process.stdout.write('setup                       rollouts/s   rollout p50 ms   p99 ms   Redis cmds/rollout\n');

  let run = 0;
  const measure = async (label: string, concurrency: number, executor?: QueueExecutor) => {
    const durations: number[] = [];
    const commandsBefore = await redisInfo(connection, 'total_commands_processed');
    const started = performance.now();
    const collection = collectRollouts({ headServer, input, outputPath: join(folder, `out-${run++}.jsonl`), agentName: 'bench_agent', concurrency, maxRetries: 0, executor });
    for await (const outcome of collection) if (outcome.status === 'completed') durations.push(outcome.durationMs);
    const summary = await collection.done();
    const seconds = (performance.now() - started) / 1000;
    if (summary.completed !== ROLLOUTS) throw new Error(`${label}: ${summary.completed} of ${ROLLOUTS} completed (${summary.failed} failed)`);
    // Each sample of INFO is one command itself.
    const commands = (await redisInfo(connection, 'total_commands_processed')) - commandsBefore - 1;
    durations.sort((a, b) => a - b);
    const p50 = percentile(durations, 0.5);
    process.stdout.write(
      `${label.padEnd(28)}${format(ROLLOUTS / seconds).padStart(10)}${format(p50).padStart(17)}${format(percentile(durations, 0.99)).padStart(9)}${(executor === undefined ? '-' : format(commands / ROLLOUTS)).padStart(21)}\n`,
    );
    return p50;
  };

  const workers: ChildProcess[] = [];
  try {
    const localP50 = await measure(`local, ${PER_WORKER} in flight`, PER_WORKER);
    await measure(`local, ${4 * PER_WORKER} in flight`, 4 * PER_WORKER);
    let distributedP50 = Number.NaN;
    for (const count of [1, 2, 4]) {
      while (workers.length < count) workers.push(await startWorker(headServer.port, redis.url));
      const executor = new QueueExecutor({ connection, name: 'ngym_rollouts', maxRetries: 0, retryDelayMs: 1000, rolloutTimeoutMs: undefined });
      const p50 = await measure(`${count} worker${count > 1 ? 's' : ''}, ${count * PER_WORKER} in flight`, count * PER_WORKER, executor);
      if (count === 1) distributedP50 = p50;
    }
    process.stdout.write(`queue overhead per rollout (1 worker vs local at ${PER_WORKER} in flight, p50): ${format(distributedP50 - localP50)} ms\n`);

    // Memory: 10k jobs as the collector adds them (this row), waiting in a queue no worker takes from.
    const queue = new Queue('bench_memory', { connection });
    const before = await redisInfo(connection, 'used_memory');
    const body = JSON.stringify({ ...row, _ng_task_index: 0, _ng_rollout_index: 0 });
    for (let start = 0; start < 10_000; start += 1000) {
      await queue.addBulk(
        Array.from({ length: 1000 }, (_, offset) => ({
          name: 'rollout',
          data: { agent: 'bench_agent', taskIndex: start + offset, rolloutIndex: 0, body },
          opts: { jobId: `bench-${start + offset}-0`, attempts: 4, backoff: { type: 'exponential', delay: 1000, jitter: 0.5 } },
        })),
      );
    }
    const after = await redisInfo(connection, 'used_memory');
    process.stdout.write(`Redis memory per 10k queued jobs (a ${body.length}-byte row each): ${format((after - before) / 2 ** 20)} MiB\n`);
    await queue.obliterate({ force: true });
    await queue.close();
  } finally {
    for (const worker of workers) worker.kill('SIGTERM');
    await gym.stop();
    connection.disconnect();
    await redis.kill();
  }
}
