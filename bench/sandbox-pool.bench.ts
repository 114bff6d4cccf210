/**
 * `npm run bench sandbox-pool`: the docker provider's warm pool (`warm_pool: {size: N}`) side by side with no pool,
 * in one run on one engine. Each of N workers runs programs one after another as a code-execution verifier does
 * (create a box, run one command, close it) until the level's boxes are done; printed per level of N in flight:
 * create p50/p99, boxes per second (also counting the pool's warm-up, which a server pays once at setup), and the box starts the pool took off the critical path (hits). The pool's size
 * is 2N (a spare is made while the one handed out runs), warmed before the clock starts (as a server warms it at setup); spares made during the run are made beside
 * the work, on the same engine. Needs DOCKER_HOST and the base image (NGYM_BENCH_SANDBOX_IMAGE for another);
 * NGYM_BENCH_POOL_BOXES sets the boxes per level and mode (default 16), NGYM_BENCH_POOL_LEVELS the levels (1,4).
 */
import { DockerSandboxProvider } from '../src/sandbox/providers/docker/docker-provider.ts';
import { BASE_IMAGE } from '../src/sandbox/images/base-image.ts';
import { format, percentile } from './lib/measure.ts';

interface ModeResult {
  createSeconds: number[];
  wallSeconds: number;
  /** The pool's warm-up before the clock started. */
  warmSeconds: number;
  hits: number;
  made: number;
}

async function runMode(image: string, boxes: number, parallel: number, pooled: boolean): Promise<ModeResult> {
  const provider = new DockerSandboxProvider({}, pooled ? { warmPool: { size: 2 * parallel } } : {});
  const createSeconds: number[] = [];
  try {
    const warmStarted = performance.now();
    if (pooled) await provider.warm({ image });
    const warmSeconds = (performance.now() - warmStarted) / 1000;
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: parallel }, async () => {
        while (next < boxes) {
          next++;
          const createStarted = performance.now();
          const handle = await provider.create({ image });
          createSeconds.push((performance.now() - createStarted) / 1000);
          const result = await provider.exec(handle, 'echo hi');
          if (result.return_code !== 0) throw new Error(`exec failed in ${handle.sandbox_id}: ${JSON.stringify(result)}`);
          await provider.close(handle);
        }
      }),
    );
    const wallSeconds = (performance.now() - started) / 1000;
    const stats = provider.poolStats;
    return { createSeconds, wallSeconds, warmSeconds, hits: stats?.hits ?? 0, made: stats?.made ?? 0 };
  } finally {
    await provider.aclose();
  }
}

function summarize(result: ModeResult): { p50: number; p99: number; perSecond: number; perSecondWithWarmUp: number } {
  const sorted = [...result.createSeconds].sort((left, right) => left - right);
  const count = result.createSeconds.length;
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), perSecond: count / result.wallSeconds, perSecondWithWarmUp: count / (result.wallSeconds + result.warmSeconds) };
}

export default async function main(): Promise<void> {
  if (!process.env.DOCKER_HOST) throw new Error('Set DOCKER_HOST to a container engine (scripts/container-engine.sh start prints it).');
  const image = process.env.NGYM_BENCH_SANDBOX_IMAGE || BASE_IMAGE;
  const boxes = Number(process.env.NGYM_BENCH_POOL_BOXES || 16);
  const levels = (process.env.NGYM_BENCH_POOL_LEVELS || '1,4').split(',').map(Number);
  console.log(`sandbox-pool: ${boxes} boxes per level and mode, image ${image}, engine ${process.env.DOCKER_HOST}; create + 'echo hi' + close per box`);
  console.log('| in flight | mode | create p50 | create p99 | boxes/s | boxes/s counting the warm-up | starts avoided |');
  console.log('|---|---|---|---|---|---|---|');
  for (const parallel of levels) {
    // Alternated so that load from elsewhere on the machine falls on both modes alike.
    const without = await runMode(image, boxes, parallel, false);
    const withPool = await runMode(image, boxes, parallel, true);
    const [plain, pooled] = [summarize(without), summarize(withPool)];
    console.log(`| ${parallel} | no pool | ${format(plain.p50 * 1000, 0)} ms | ${format(plain.p99 * 1000, 0)} ms | ${format(plain.perSecond, 2)} | ${format(plain.perSecond, 2)} | 0 |`);
    console.log(`| ${parallel} | warm_pool size ${2 * parallel} | ${format(pooled.p50 * 1000, 0)} ms | ${format(pooled.p99 * 1000, 0)} ms | ${format(pooled.perSecond, 2)} | ${format(pooled.perSecondWithWarmUp, 2)} (warm-up ${format(withPool.warmSeconds, 1)} s) | ${withPool.hits}/${boxes} (spares made: ${withPool.made}) |`);
    console.log(`|   | ratio | ${format(plain.p50 / pooled.p50, 1)}x faster | ${format(plain.p99 / pooled.p99, 1)}x | ${format(pooled.perSecond / plain.perSecond, 2)}x | ${format(pooled.perSecondWithWarmUp / plain.perSecond, 2)}x | |`);
  }
}

