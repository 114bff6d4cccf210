/**
 * ngym against upstream Python NeMo Gym 0.7.0 (the venv of `npm run setup:python`), on this machine, in one run:
 *   1. collection: example_single_tool_call and example_multi_step, both systems' simple_agent and openai_model
 *      pointed at the same null model (bench/baseline's model role: it calls each tool of the request once, then
 *      answers); 256 and 4,096 in flight; rounds alternate the systems; rollouts/s, CPU per rollout over every
 *      process of the system (servers, Ray, collector), peak summed RSS, rollout latency;
 *   2. burst: BENCH_BURST rollouts posted at once, the model answers after 2 s;
 *   3. verify-heavy environments: verifies/s, p99 and the server's CPU per verify (its process tree) of each side's
 *      resources server over the parity generators' bodies, 8 in flight, each server with its default workers;
 *   4. payloads: 65,536 token ids and logprobs (~2 MB) in the final model response, time per relay.
 * Upstream runs under its own `ng_run` and `ng_collect_rollouts` on the wheel's configs; ngym under `ngym run` and
 * its collector (collectRollouts, what `ngym collect` runs). Where upstream fails, the count and the error are printed.
 * Environment: BENCH_ROLLOUTS (default 20000), BENCH_ROUNDS (default 3), BENCH_BURST (default 16384),
 * BENCH_SECONDS (default 10, per verify measurement), BENCH_TIMEOUT (default 3600 s, per collection),
 * BENCH_PARTS (default `collection,burst,verify,payloads`), BENCH_ENVS, BENCH_CONCURRENCY (default `256,4096`),
 * BENCH_VERIFY_ENVS (parity instance names; default VERIFY_ENVIRONMENTS below; instruction_following only where
 * upstream's server can run: `bash parity/setup-instruction-following.sh`).
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { SeededRandom } from 'ngym';
import { instanceOf } from '../parity/environment.ts';
import { ENVIRONMENTS as PARITY_ENVIRONMENTS } from '../parity/environments/index.ts';
import { pythonSetup, startParityGym, upstreamInstance } from '../parity/gym.ts';
import { sharedHttpClient } from '../src/client/http-client.ts';
import type { ServerClient } from '../src/client/server-client.ts';
import { startGymProcess } from '../src/testing/cli-process.ts';
import { PACKAGE_ROOT } from '../src/util/package-root.ts';
import { startBaselineServer } from './lib/baseline-process.ts';
import { format, median, percentile, runReporting } from './lib/measure.ts';
import { childPids, killTree, rssSampler, treeCpuSeconds } from '../scripts/lib/process-tree.ts';
import { type CollectorRun, collectUpstream, type StartedSystem, startUpstream } from './lib/upstream-gym.ts';

// Ray's daemons and workers, by command line (ray::IDLE, raylet, gcs_server, dashboard, ...).
const RAY = /ray::|\/site-packages\/ray\//;
const COLLECTOR = join(PACKAGE_ROOT, 'bench', 'lib', 'collector-process.ts');
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT ?? 3600) * 1000;

interface Environment {
  name: string;
  config: string;
  agent: string;
}

const ENVIRONMENTS: Environment[] = [
  { name: 'example_single_tool_call', config: 'example_single_tool_call.yaml', agent: 'example_single_tool_call_simple_agent' },
  { name: 'example_multi_step', config: 'example_multi_step.yaml', agent: 'example_multi_step_simple_agent' },
];

const rowsOf = (environment: Environment) => join(PACKAGE_ROOT, 'resources_servers', environment.name, 'data', 'example.jsonl');

interface Side {
  name: 'ngym' | 'upstream';
  start(environment: Environment, modelBaseUrl: string): Promise<StartedSystem>;
  collect(system: StartedSystem, environment: Environment, rollouts: number, concurrency: number): Promise<CollectorRun>;
}

const NGYM: Side = {
  name: 'ngym',
  start: async (environment, modelBaseUrl) => {
    const gym = await startGymProcess([
      `+config_paths=[resources_servers/${environment.name}/configs/${environment.config},responses_api_models/openai_model/configs/openai_model.yaml]`,
      `+policy_base_url=${modelBaseUrl}`,
      '+policy_api_key=bench',
      '+policy_model_name=bench-null',
    ]);
    const pid = gym.process.pid as number;
    return { pid, headPort: gym.headPort, stop: () => killTree([pid], 15_000) };
  },
  collect: async (system, environment, rollouts, concurrency) => {
    const report = await runReporting<CollectorRun>(COLLECTOR, { mode: 'ngym', rollouts, concurrency, headPort: system.headPort, agentName: environment.agent, rowsPath: rowsOf(environment) });
    return { ...report, ...(report.failures > 0 ? { error: 'see the collector output above' } : {}) };
  },
};

const UPSTREAM: Side = {
  name: 'upstream',
  start: (environment, modelBaseUrl) => startUpstream(environment.name, environment.config, modelBaseUrl),
  collect: (system, environment, rollouts, concurrency) => collectUpstream(system, environment.agent, rowsOf(environment), rollouts, concurrency, TIMEOUT_MS),
};

const SIDES = [NGYM, UPSTREAM];

interface Measured {
  rate: number;
  cpuPerRollout: number;
  peakRssMb: number;
  /** Of the peak, Ray's processes (upstream's ng_run starts a Ray cluster; ngym has none). */
  rayRssMb: number;
  p50Ms: number;
  p99Ms: number;
  firstCompletionSeconds: number;
  wallSeconds: number;
  completed: number;
  failures: number;
  error?: string;
}

/** The processes of the system under test: the children of this process but the null model and the other system. */
const systemProcesses = (others: number[]) => () => childPids(process.pid).filter((pid) => !others.includes(pid));

async function measure(side: Side, system: StartedSystem, environment: Environment, others: number[], rollouts: number, concurrency: number): Promise<Measured> {
  const serversBefore = treeCpuSeconds([system.pid]);
  const sampler = rssSampler(systemProcesses(others), RAY);
  let run: CollectorRun;
  try {
    run = await side.collect(system, environment, rollouts, concurrency);
  } catch (error) {
    run = { completed: 0, failures: rollouts, wallSeconds: Number.NaN, firstCompletionSeconds: Number.NaN, cpuSeconds: 0, p50Ms: Number.NaN, p99Ms: Number.NaN, error: String(error).slice(0, 400) };
  }
  const { peakMb: peakRssMb, partMb: rayRssMb } = sampler.stop();
  const serverCpu = treeCpuSeconds([system.pid]) - serversBefore;
  return {
    rate: run.completed / run.wallSeconds,
    cpuPerRollout: (serverCpu + run.cpuSeconds) / Math.max(1, run.completed),
    peakRssMb,
    rayRssMb,
    p50Ms: run.p50Ms,
    p99Ms: run.p99Ms,
    firstCompletionSeconds: run.firstCompletionSeconds,
    wallSeconds: run.wallSeconds,
    completed: run.completed,
    failures: run.failures,
    ...(run.error !== undefined ? { error: run.error } : {}),
  };
}

// What to stop if the bench itself is interrupted: upstream's ng_run runs in its own process group.
const running = new Set<() => Promise<void>>();
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => void Promise.allSettled([...running].map((stop) => stop())).finally(() => process.exit(130)));
}

/** Starts both systems against one null model, runs `body`, and stops everything, whatever happens. */
async function withSystems<T>(environment: Environment, model: Record<string, unknown>, body: (systems: Map<Side, StartedSystem>, others: (side: Side) => number[]) => Promise<T>): Promise<T> {
  const backend = await startBaselineServer({ role: 'model', ...model });
  const systems = new Map<Side, StartedSystem>();
  const stopAll = async () => {
    for (const system of systems.values()) await system.stop();
    await killTree([backend.child.pid as number]);
  };
  running.add(stopAll);
  try {
    for (const side of SIDES) systems.set(side, await side.start(environment, `${backend.url}/v1`));
    // What is not the system under test: the null model and the other system.
    const others = (side: Side) => [backend.child.pid as number, ...[...systems].filter(([other]) => other !== side).map(([, system]) => system.pid)];
    return await body(systems, others);
  } finally {
    running.delete(stopAll);
    await stopAll();
  }
}

const ratio = (ours: number, theirs: number) => format(ours / theirs, 2);

function row(name: string, result: Measured): string {
  return `   ${name.padEnd(9)} ${format(result.rate, 0).padStart(10)}  ${format(result.cpuPerRollout * 1000, 2).padStart(14)}  ${format(result.peakRssMb, 0).padStart(11)} (${format(result.rayRssMb, 0).padStart(4)})  ${format(result.p50Ms, 1).padStart(7)}  ${format(result.p99Ms, 1).padStart(8)}  ${String(result.failures).padStart(8)}`;
}

function medianOf(runs: Measured[]): Measured {
  const pick = (key: keyof Measured) => median(runs.map((run) => Number(run[key])));
  const errors = runs.flatMap((run) => (run.error === undefined ? [] : [run.error]));
  return {
    rate: pick('rate'),
    cpuPerRollout: pick('cpuPerRollout'),
    peakRssMb: pick('peakRssMb'),
    rayRssMb: pick('rayRssMb'),
    p50Ms: pick('p50Ms'),
    p99Ms: pick('p99Ms'),
    firstCompletionSeconds: pick('firstCompletionSeconds'),
    wallSeconds: pick('wallSeconds'),
    completed: pick('completed'),
    failures: runs.reduce((sum, run) => sum + run.failures, 0),
    ...(errors.length > 0 ? { error: errors[0] } : {}),
  };
}

async function collection(environments: Environment[], concurrencies: number[], rollouts: number, rounds: number): Promise<void> {
  process.stdout.write(`\n1. Collection: ${rollouts} rollouts, null model, ${rounds} rounds alternating the systems (both started once per environment), medians; failures summed over rounds\n`);
  for (const environment of environments) {
    await withSystems(environment, {}, async (systems, others) => {
      for (const concurrency of concurrencies) {
        // At least `concurrency` rollouts, so that many are in flight at once.
        const count = Math.max(rollouts, concurrency);
        const runs = new Map<Side, Measured[]>(SIDES.map((side) => [side, []]));
        const ratios: number[] = [];
        for (const side of SIDES) await side.collect(systems.get(side) as StartedSystem, environment, Math.min(500, rollouts), Math.min(256, concurrency)); // warm-up
        for (let round = 0; round < rounds; round++) {
          for (const side of round % 2 === 0 ? SIDES : [...SIDES].reverse()) {
            runs.get(side)?.push(await measure(side, systems.get(side) as StartedSystem, environment, others(side), count, concurrency));
          }
          ratios.push((runs.get(NGYM)?.at(-1)?.rate ?? 0) / (runs.get(UPSTREAM)?.at(-1)?.rate ?? Number.NaN));
        }
        const ours = medianOf(runs.get(NGYM) as Measured[]);
        const theirs = medianOf(runs.get(UPSTREAM) as Measured[]);
        process.stdout.write(`\n   ${environment.name}, ${count} rollouts, ${concurrency} in flight\n`);
        process.stdout.write('   system    rollouts/s  CPU ms/rollout  peak RSS MB (Ray)   p50 ms    p99 ms  failures\n');
        process.stdout.write(`${row('ngym', ours)}\n${row('upstream', theirs)}\n`);
        process.stdout.write(
          `   ngym/upstream: rollouts/s ${ratio(ours.rate, theirs.rate)} (per round [${ratios.map((value) => format(value, 2)).join(', ')}]), CPU per rollout ${ratio(ours.cpuPerRollout, theirs.cpuPerRollout)}, peak RSS ${ratio(ours.peakRssMb, theirs.peakRssMb)}, p99 ${ratio(ours.p99Ms, theirs.p99Ms)}\n`,
        );
        for (const [name, result] of [['ngym', ours], ['upstream', theirs]] as const) if (result.error !== undefined) process.stdout.write(`   ${name} error: ${result.error}\n`);
      }
    });
  }
}

async function burst(rollouts: number): Promise<void> {
  const environment = ENVIRONMENTS[0] as Environment;
  process.stdout.write(`\n2. Burst: ${rollouts} rollouts of ${environment.name} in flight at once, the model answers after 2 s (one model call per rollout)\n`);
  await withSystems(environment, { latencyMs: 2000, callTool: false }, async (systems, others) => {
    process.stdout.write('   system     completed  failed  first done s  all done s  peak RSS MB (Ray)\n');
    for (const side of SIDES) {
      const result = await measure(side, systems.get(side) as StartedSystem, environment, others(side), rollouts, rollouts);
      process.stdout.write(
        `   ${side.name.padEnd(9)} ${String(result.completed).padStart(10)}  ${String(result.failures).padStart(6)}  ${format(result.firstCompletionSeconds, 2).padStart(12)}  ${format(result.wallSeconds, 1).padStart(10)}  ${format(result.peakRssMb, 0).padStart(11)} (${format(result.rayRssMb, 0)})\n`,
      );
      if (result.error !== undefined) process.stdout.write(`   ${side.name} error: ${result.error}\n`);
    }
  });
}

interface VerifyMeasured {
  perSecond: number;
  p99: number;
  /** CPU the server's process tree spent per verify: unlike the rate, it holds on a machine other work shares. */
  cpuMicros: number;
  count: number;
  failures: number;
  error?: string;
}

async function verifyRate(url: string, serverPid: number, bodies: Record<string, unknown>[], seconds: number): Promise<VerifyMeasured> {
  const http = sharedHttpClient();
  const cpuBefore = treeCpuSeconds([serverPid]);
  const latencies: number[] = [];
  let failures = 0;
  let error: string | undefined;
  let next = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (performance.now() < deadline) {
        const begin = performance.now();
        try {
          const response = await http.request(url, { body: bodies[next++ % bodies.length] });
          if (response.status !== 200) throw new Error(`answered ${response.status}: ${response.text.slice(0, 200)}`);
          latencies.push(performance.now() - begin);
        } catch (caught) {
          failures++;
          error ??= String(caught);
        }
      }
    }),
  );
  const cpuMicros = ((treeCpuSeconds([serverPid]) - cpuBefore) / Math.max(1, latencies.length)) * 1e6;
  latencies.sort((left, right) => left - right);
  return { perSecond: latencies.length / ((performance.now() - started) / 1000), p99: percentile(latencies, 0.99), cpuMicros, count: latencies.length, failures, ...(error !== undefined ? { error } : {}) };
}

/** The verify part's environments (parity instances): the verify-heavy ones and the Nemotron mix's ports. */
const VERIFY_ENVIRONMENTS = [
  'mcqa',
  'math_with_judge',
  'structured_outputs',
  'instruction_following',
  'single_step_tool_use_with_argument_comparison',
  'equivalence_rule',
  'format_verification',
  'abstention',
  'multichallenge',
  'inverse_if',
  'nvarc',
  'terminus_judge',
];

async function verify(seconds: number, rounds: number): Promise<void> {
  // math_with_judge's library path (should_use_judge false on both sides).
  const python = pythonSetup();
  const wanted = process.env.BENCH_VERIFY_ENVS?.split(',') ?? VERIFY_ENVIRONMENTS;
  const environments = PARITY_ENVIRONMENTS.filter((environment) => {
    if (!wanted.includes(instanceOf(environment))) return false;
    const reason = environment.unavailable?.(python);
    if (reason !== undefined) process.stdout.write(`   ${instanceOf(environment)}: not compared: ${reason}\n`);
    return reason === undefined;
  });
  process.stdout.write(`\n3. Verify-heavy environments: the parity generators' /verify bodies (seed 1), 8 in flight, ${seconds} s per measurement, ${rounds} rounds alternating, medians\n`);
  const width = Math.max(22, ...environments.map((environment) => instanceOf(environment).length));
  process.stdout.write(
    `   ${'environment'.padEnd(width)} ngym verifies/s  p99 ms   upstream verifies/s  p99 ms   ratio  CPU µs/verify ngym  upstream  ratio  failures (ngym/upstream)\n`,
  );
  const gym = await startParityGym(environments, python);
  const stopGym = () => gym.stop();
  running.add(stopGym);
  try {
    const pids = await serverPids(gym.client);
    for (const environment of environments) {
      const instance = instanceOf(environment);
      const urls = { ngym: gym.client.url(instance, '/verify'), upstream: gym.client.url(upstreamInstance(instance), '/verify') };
      const servers = { ngym: pids.get(instance) as number, upstream: pids.get(upstreamInstance(instance)) as number };
      // Bodies without a session to seed that both servers score (not a row either refuses or fails on), each sent
      // once to both sides: the warm-up.
      const bodies: Record<string, unknown>[] = [];
      for (const item of environment.generate(new SeededRandom(1), 1000)) {
        if (item.seed !== undefined) continue;
        const answers = await Promise.all(Object.values(urls).map((url) => sharedHttpClient().request(url, { body: item.verify })));
        if (answers.every((answer) => answer.status === 200)) bodies.push(item.verify);
      }
      const runs: Record<'ngym' | 'upstream', VerifyMeasured[]> = { ngym: [], upstream: [] };
      for (let round = 0; round < rounds; round++) {
        for (const name of round % 2 === 0 ? (['ngym', 'upstream'] as const) : (['upstream', 'ngym'] as const)) runs[name].push(await verifyRate(urls[name], servers[name], bodies, seconds));
      }
      const [ours, theirs] = (['ngym', 'upstream'] as const).map((name) => ({
        perSecond: median(runs[name].map((run) => run.perSecond)),
        p99: median(runs[name].map((run) => run.p99)),
        cpuMicros: median(runs[name].map((run) => run.cpuMicros)),
        failures: runs[name].reduce((sum, run) => sum + run.failures, 0),
        error: runs[name].find((run) => run.error !== undefined)?.error,
      })) as [VerifyMeasured, VerifyMeasured];
      process.stdout.write(
        `   ${instance.padEnd(width)} ${format(ours.perSecond, 0).padStart(15)}  ${format(ours.p99, 1).padStart(6)}   ${format(theirs.perSecond, 0).padStart(19)}  ${format(theirs.p99, 1).padStart(6)}   ${ratio(ours.perSecond, theirs.perSecond).padStart(5)}  ${format(ours.cpuMicros, 0).padStart(18)}  ${format(theirs.cpuMicros, 0).padStart(8)}  ${ratio(theirs.cpuMicros, ours.cpuMicros).padStart(5)}  ${ours.failures}/${theirs.failures}\n`,
      );
      for (const [name, result] of [['ngym', ours], ['upstream', theirs]] as const) if (result.error !== undefined) process.stdout.write(`   ${name} error: ${result.error.slice(0, 300)}\n`);
    }
  } finally {
    running.delete(stopGym);
    await gym.stop();
  }
}

/** Each server's process id, as the head server lists them. */
async function serverPids(client: ServerClient): Promise<Map<string, number>> {
  const head = client.config.dict.head_server as { host: string; port: number };
  const listing = (await sharedHttpClient().request(`http://${head.host}:${head.port}/server_instances`)).json<{ name: string; pid: number }[]>();
  return new Map(listing.map((server) => [server.name, server.pid]));
}

async function payloads(): Promise<void> {
  const tokens = 65_536;
  const relays = 5; // null model -> openai_model -> agent -> verify -> agent -> collector
  const environment = ENVIRONMENTS[0] as Environment;
  process.stdout.write(`\n4. Training payloads: the final model response carries ${tokens} token ids and logprobs (~2 MB), ${environment.name}, one rollout at a time\n`);
  const p50 = new Map<Side, number[]>();
  const errors: string[] = [];
  for (const payloadTokens of [0, tokens]) {
    await withSystems(environment, { payloadTokens }, async (systems, others) => {
      for (const side of SIDES) {
        const system = systems.get(side) as StartedSystem;
        await side.collect(system, environment, 5, 1);
        const result = await measure(side, system, environment, others(side), 20, 1);
        if (result.error !== undefined) errors.push(`${side.name}: ${result.error}`);
        p50.set(side, [...(p50.get(side) ?? []), result.p50Ms]);
      }
    });
  }
  const perRelay = (side: Side) => {
    const [small, large] = p50.get(side) as [number, number];
    return { small, large, relay: (large - small) / relays };
  };
  for (const side of SIDES) {
    const { small, large, relay } = perRelay(side);
    process.stdout.write(`   ${side.name.padEnd(9)} rollout p50 ${format(large, 1)} ms vs ${format(small, 1)} ms without the payload: ${format(relay, 2)} ms per ~2 MB relay (${relays} relays)\n`);
  }
  process.stdout.write(`   per relay, ngym/upstream: ${ratio(perRelay(NGYM).relay, perRelay(UPSTREAM).relay)}\n`);
  for (const error of errors) process.stdout.write(`   error: ${error}\n`);
}

export default async function vsUpstreamBench(): Promise<void> {
  process.env.NGYM_LOG_LEVEL = 'error';
  const parts = (process.env.BENCH_PARTS ?? 'collection,burst,verify,payloads').split(',');
  const wanted = process.env.BENCH_ENVS?.split(',');
  const environments = ENVIRONMENTS.filter((environment) => wanted === undefined || wanted.includes(environment.name));
  const concurrencies = (process.env.BENCH_CONCURRENCY ?? '256,4096').split(',').map(Number);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  process.stdout.write(`Load average at start: ${loadavg().map((value) => value.toFixed(2)).join(', ')}\n`);
  if (parts.includes('collection')) await collection(environments, concurrencies, Number(process.env.BENCH_ROLLOUTS ?? 20_000), rounds);
  if (parts.includes('burst')) await burst(Number(process.env.BENCH_BURST ?? 16_384));
  if (parts.includes('verify')) await verify(Number(process.env.BENCH_SECONDS ?? 10), rounds);
  if (parts.includes('payloads')) await payloads();
  process.stdout.write(`\nLoad average at end: ${loadavg().map((value) => value.toFixed(2)).join(', ')}\n`);
}
