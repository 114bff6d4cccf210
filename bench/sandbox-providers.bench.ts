/**
 * `npm run bench sandbox-providers`: a box's life (create, exec, upload, download, close) on one engine, three
 * ways side by side: ngym's docker provider (Engine API over the socket), the same steps through the `docker` CLI
 * (a process per step, as upstream's provider works), and upstream 0.7.0's unmodified DockerProvider (Python, from
 * the venv). p50/p99 per step, at 1 and at 32 boxes in flight. Needs DOCKER_HOST and the base image
 * (NGYM_BENCH_SANDBOX_IMAGE to use another); NGYM_BENCH_SANDBOX_ROUNDS sets the boxes per concurrency level.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DockerSandboxProvider } from '../src/sandbox/providers/docker/docker-provider.ts';
import { BASE_IMAGE } from '../src/sandbox/images/base-image.ts';
import { upstreamWheel } from '../src/testing/upstream-wheel.ts';

const run = promisify(execFile);
const STEPS = ['create', 'exec', 'upload', 'download', 'close'] as const;
type Step = (typeof STEPS)[number];
type Timings = Record<Step, number[]>;

const UPSTREAM_DRIVER = `
import asyncio, json, sys, time, pathlib
from nemo_gym.sandbox.providers.base import SandboxSpec
from nemo_gym.sandbox.providers.docker.provider import DockerProvider
image, boxes, parallel, folder = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), pathlib.Path(sys.argv[4])
provider = DockerProvider()
timings = {step: [] for step in ["create", "exec", "upload", "download", "close"]}
async def life(index):
    started = time.perf_counter(); handle = await provider.create(SandboxSpec(image=image)); timings["create"].append(time.perf_counter() - started)
    started = time.perf_counter(); await provider.exec(handle, "echo hi"); timings["exec"].append(time.perf_counter() - started)
    started = time.perf_counter(); await provider.upload_file(handle, folder / "payload.bin", "/tmp/payload.bin"); timings["upload"].append(time.perf_counter() - started)
    started = time.perf_counter(); await provider.download_file(handle, "/tmp/payload.bin", folder / f"up-{index}.bin"); timings["download"].append(time.perf_counter() - started)
    started = time.perf_counter(); await provider.close(handle); timings["close"].append(time.perf_counter() - started)
async def main():
    for start in range(0, boxes, parallel):
        await asyncio.gather(*(life(index) for index in range(start, min(boxes, start + parallel))))
asyncio.run(main())
print(json.dumps(timings))
`;

function emptyTimings(): Timings {
  return { create: [], exec: [], upload: [], download: [], close: [] };
}

async function timed(timings: Timings, step: Step, work: () => Promise<unknown>): Promise<void> {
  const started = performance.now();
  await work();
  timings[step].push((performance.now() - started) / 1000);
}

async function inWaves(boxes: number, parallel: number, life: (index: number) => Promise<void>): Promise<void> {
  for (let start = 0; start < boxes; start += parallel) {
    await Promise.all(Array.from({ length: Math.min(parallel, boxes - start) }, (_, offset) => life(start + offset)));
  }
}

async function ngymApi(image: string, boxes: number, parallel: number, folder: string): Promise<Timings> {
  const provider = new DockerSandboxProvider({}, {});
  const timings = emptyTimings();
  try {
    await inWaves(boxes, parallel, async (index) => {
      let handle!: Awaited<ReturnType<DockerSandboxProvider['create']>>;
      await timed(timings, 'create', async () => (handle = await provider.create({ image })));
      await timed(timings, 'exec', () => provider.exec(handle, 'echo hi'));
      await timed(timings, 'upload', () => provider.upload_file(handle, join(folder, 'payload.bin'), '/tmp/payload.bin'));
      await timed(timings, 'download', () => provider.download_file(handle, '/tmp/payload.bin', join(folder, `api-${index}.bin`)));
      await timed(timings, 'close', () => provider.close(handle));
    });
  } finally {
    await provider.aclose();
  }
  return timings;
}

/** The same steps through the docker CLI, as upstream's provider issues them (probe and bash check included in create). */
async function dockerCli(image: string, boxes: number, parallel: number, folder: string): Promise<Timings> {
  const timings = emptyTimings();
  const docker = (...args: string[]) => run('docker', args);
  await inWaves(boxes, parallel, async (index) => {
    const name = `nemo-gym-${randomUUID().replaceAll('-', '')}`;
    await timed(timings, 'create', async () => {
      await docker('run', '-d', '--name', name, '--label', 'nemo-gym.sandbox=1', '--init', '--entrypoint', '/bin/sh', image, '-c', 'while :; do sleep 2147483647; done');
      await docker('exec', name, 'sh', '-c', 'printf docker-sandbox-ready');
      await docker('exec', name, 'sh', '-c', 'command -v bash');
    });
    await timed(timings, 'exec', () => docker('exec', name, 'bash', '-c', 'echo hi'));
    await timed(timings, 'upload', () => docker('cp', join(folder, 'payload.bin'), `${name}:/tmp/payload.bin`));
    await timed(timings, 'download', () => docker('cp', `${name}:/tmp/payload.bin`, join(folder, `cli-${index}.bin`)));
    await timed(timings, 'close', () => docker('rm', '-f', name));
  });
  return timings;
}

async function upstreamProvider(image: string, boxes: number, parallel: number, folder: string): Promise<Timings | string> {
  const wheel = upstreamWheel();
  if (wheel.skipReason !== null) return wheel.skipReason;
  const { stdout } = await run(wheel.python, ['-c', UPSTREAM_DRIVER, image, String(boxes), String(parallel), folder], { maxBuffer: 1 << 24 });
  return JSON.parse(stdout.trim().split('\n').pop() as string) as Timings;
}

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN;
}

const seconds = (value: number) => `${value.toFixed(3)}`;

export default async function sandboxProviders(): Promise<void> {
  if (!process.env.DOCKER_HOST) {
    process.stdout.write('Skipped: DOCKER_HOST is not set (scripts/container-engine.sh start prints it).\n');
    return;
  }
  const image = process.env.NGYM_BENCH_SANDBOX_IMAGE || BASE_IMAGE;
  const rounds = Number(process.env.NGYM_BENCH_SANDBOX_ROUNDS || 32);
  const folder = mkdtempSync(join(tmpdir(), 'ngym-bench-sandbox-'));
  writeFileSync(join(folder, 'payload.bin'), Buffer.alloc(64 * 1024, 7));
  process.stdout.write(`Image ${image}, engine ${process.env.DOCKER_HOST}; ${rounds} boxes per level; upload/download of 64 KiB; seconds.\n`);
  for (const parallel of [1, 32]) {
    const boxes = parallel === 1 ? Math.min(rounds, 8) : Math.max(rounds, parallel);
    const results: [string, Timings | string][] = [
      ['ngym (Engine API)', await ngymApi(image, boxes, parallel, folder)],
      ['docker CLI', await dockerCli(image, boxes, parallel, folder)],
      ["upstream's DockerProvider", await upstreamProvider(image, boxes, parallel, folder)],
    ];
    process.stdout.write(`\n${parallel} in flight (${boxes} boxes):\n`);
    process.stdout.write(`${'way'.padEnd(28)}${STEPS.map((step) => `${step} p50/p99`.padEnd(20)).join('')}\n`);
    for (const [way, timings] of results) {
      if (typeof timings === 'string') {
        process.stdout.write(`${way.padEnd(28)}skipped: ${timings}\n`);
        continue;
      }
      process.stdout.write(`${way.padEnd(28)}${STEPS.map((step) => `${seconds(percentile(timings[step], 0.5))}/${seconds(percentile(timings[step], 0.99))}`.padEnd(20)).join('')}\n`);
    }
    const api = results[0]?.[1] as Timings;
    for (const [way, timings] of results.slice(1)) {
      if (typeof timings === 'string') continue;
      const ratios = STEPS.map((step) => `${step} ${(percentile(timings[step], 0.5) / percentile(api[step], 0.5)).toFixed(2)}x`);
      process.stdout.write(`  ${way} p50 / ngym p50: ${ratios.join(', ')}\n`);
    }
  }
}
