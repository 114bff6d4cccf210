/**
 * What a server costs when `ngym run` runs the TypeScript sources through tsx (a checkout) against the compiled
 * JavaScript of dist/ (what the published package runs; `npm run build` first): each layout starts the same gym
 * (the mcqa resources server, simple_agent, openai_model), and the bench reads every server's resident memory at
 * rest (after start-up and again after a load), the time to ready, and the CPU each verify costs the mcqa server
 * under 8 requests in flight. Rounds alternate the layouts; the ratios are taken within each round.
 * Environment: BENCH_ROUNDS (default 3), BENCH_VERIFIES (default 20000).
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sharedHttpClient } from '../src/client/http-client.ts';
import { ServerClient } from '../src/client/server-client.ts';
import { startGymProcess } from '../src/testing/cli-process.ts';
import { PACKAGE_ROOT } from '../src/util/package-root.ts';
import { format, median, totalCpuSeconds } from './lib/measure.ts';
import { childPids, killTree } from '../scripts/lib/process-tree.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const VERIFIES = Number(process.env.BENCH_VERIFIES ?? 20_000);
const SERVERS = ['mcqa', 'mcqa_simple_agent', 'policy_model'];

/** bin/ngym.js beside links to dist/, node_modules/ and package.json, and no src/: it runs the compiled library, as an installed package does. */
function compiledBin(): string {
  const folder = mkdtempSync(join(tmpdir(), 'ngym-compiled-'));
  mkdirSync(join(folder, 'bin'));
  copyFileSync(join(PACKAGE_ROOT, 'bin', 'ngym.js'), join(folder, 'bin', 'ngym.js'));
  for (const name of ['dist', 'node_modules', 'package.json']) symlinkSync(join(PACKAGE_ROOT, name), join(folder, name));
  return join(folder, 'bin', 'ngym.js');
}

function residentMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN) / 1024;
}

interface Measured {
  readySeconds: number;
  /** Resident MB per server at rest after start-up, then after the verifies. */
  restMb: Record<string, number>;
  afterMb: Record<string, number>;
  perSecond: number;
  cpuMicrosPerVerify: number;
}

async function measure(bin: string | undefined, bodies: string[]): Promise<Measured> {
  const started = performance.now();
  const gym = await startGymProcess(
    [
      '+config_paths=[resources_servers/mcqa/configs/mcqa.yaml,responses_api_models/openai_model/configs/openai_model.yaml]',
      '+policy_base_url=http://127.0.0.1:9/v1',
      '+policy_api_key=bench',
      '+policy_model_name=bench',
    ],
    bin === undefined ? {} : { bin },
  );
  const readySeconds = (performance.now() - started) / 1000;
  try {
    const client = await ServerClient.fromHeadServer({ host: '127.0.0.1', port: gym.headPort });
    const pids = new Map(SERVERS.map((name) => [name, Number(new RegExp(`^\\s*${name}\\s.*?http://127\\.0\\.0\\.1:\\d+\\s+(\\d+)`, 'm').exec(gym.stdout())?.[1])]));
    // What start-up left to settle (a lazy import, a first GC) settles before the reading.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const restMb = Object.fromEntries([...pids].map(([name, pid]) => [name, residentMb(pid)]));
    const server = pids.get('mcqa') as number;
    const url = client.url('mcqa', '/verify');
    const cpuBefore = totalCpuSeconds([server]);
    let next = 0;
    const begin = performance.now();
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < VERIFIES) {
          const response = await sharedHttpClient().request(url, { body: bodies[next++ % bodies.length] });
          if (response.status !== 200) throw new Error(`mcqa /verify answered ${response.status}: ${response.text.slice(0, 300)}`);
        }
      }),
    );
    const seconds = (performance.now() - begin) / 1000;
    const cpu = totalCpuSeconds([server]) - cpuBefore;
    const afterMb = Object.fromEntries([...pids].map(([name, pid]) => [name, residentMb(pid)]));
    return { readySeconds, restMb, afterMb, perSecond: VERIFIES / seconds, cpuMicrosPerVerify: (cpu / VERIFIES) * 1e6 };
  } finally {
    await killTree([gym.process.pid as number, ...childPids(gym.process.pid as number)], 10_000);
  }
}

export default async function compiledBench(): Promise<void> {
  process.env.NGYM_LOG_LEVEL = 'error';
  const distMain = join(PACKAGE_ROOT, 'dist', 'src', 'cli', 'main.js');
  if (!existsSync(distMain)) throw new Error('No dist/: run `npm run build` first (the bench compares the sources with the compiled library).');
  if (statSync(join(PACKAGE_ROOT, 'src', 'gym', 'launcher.ts')).mtimeMs > statSync(distMain).mtimeMs) process.stdout.write('Warning: src/ is newer than dist/; `npm run build` for a fair comparison.\n');
  const bodies = readFileSync(join(PACKAGE_ROOT, 'resources_servers', 'mcqa', 'data', 'example_rollouts.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const { reward: _reward, ...body } = JSON.parse(line) as Record<string, unknown>;
      return JSON.stringify(body);
    });
  const layouts = [
    { name: 'sources (tsx)', bin: undefined },
    { name: 'compiled dist', bin: compiledBin() },
  ];
  process.stdout.write(`mcqa + simple_agent + openai_model under ngym run; ${VERIFIES} verifies to mcqa at 8 in flight; ${ROUNDS} rounds alternating\n`);
  const runs = new Map<string, Measured[]>(layouts.map((layout) => [layout.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const layout of round % 2 === 0 ? layouts : [...layouts].reverse()) {
      const result = await measure(layout.bin, bodies);
      runs.get(layout.name)?.push(result);
      process.stdout.write(
        `   round ${round + 1} ${layout.name.padEnd(14)} ready ${format(result.readySeconds, 2)} s; at rest MB ${SERVERS.map((name) => `${name} ${format(result.restMb[name] ?? Number.NaN, 0)}`).join(', ')}; after ${SERVERS.map((name) => format(result.afterMb[name] ?? Number.NaN, 0)).join('/')}; ${format(result.perSecond, 0)} verifies/s, ${format(result.cpuMicrosPerVerify, 0)} µs CPU/verify\n`,
      );
    }
  }
  const [source, compiled] = layouts.map((layout) => runs.get(layout.name) as Measured[]) as [Measured[], Measured[]];
  const perRound = (pick: (run: Measured) => number) => source.map((run, index) => pick(compiled[index] as Measured) / pick(run));
  const sumRest = (run: Measured) => Object.values(run.restMb).reduce((sum, value) => sum + value, 0);
  const show = (label: string, pick: (run: Measured) => number, digits: number) =>
    process.stdout.write(
      `   ${label.padEnd(28)} sources ${format(median(source.map(pick)), digits).padStart(8)}  compiled ${format(median(compiled.map(pick)), digits).padStart(8)}  compiled/sources per round [${perRound(pick).map((value) => format(value, 2)).join(', ')}]\n`,
    );
  process.stdout.write('\n   medians\n');
  show('time to ready, s', (run) => run.readySeconds, 2);
  for (const name of SERVERS) show(`${name} at rest, MB`, (run) => run.restMb[name] ?? Number.NaN, 0);
  show('three servers at rest, MB', sumRest, 0);
  show('mcqa after the verifies, MB', (run) => run.afterMb.mcqa ?? Number.NaN, 0);
  show('verifies/s', (run) => run.perSecond, 0);
  show('mcqa CPU per verify, µs', (run) => run.cpuMicrosPerVerify, 0);
}
