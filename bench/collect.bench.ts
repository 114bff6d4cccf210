/**
 * Rollout collection against the limit (issue "rollout collection at scale"):
 *   1. overhead: a null-overhead model (a tool call, then a message), a trivial environment, simple_agent
 *      and the collector; N rollouts at 256 in flight; ngym vs the same hops by hand with node:http;
 *   2. burst: 16,384 rollouts in flight against a model that answers after 2 s;
 *   3. large payloads: model responses of ~2 MB (65,536 tokens with ids and logprobs), relay time per hop;
 *   4. memory: the collector's peak RSS at 1x and 5x the input rows (it must stay flat);
 *   5. tracing: part 1's system with tracing off (as shipped), off with no `/metrics` either, on (every span
 *      exported to an OTLP/HTTP receiver in this process) and on with the endpoint unreachable, in turn each round.
 * Every server runs in its own process, as `ngym run` starts them; each collector in its own process too.
 * Environment: BENCH_ROLLOUTS (default 20000), BENCH_ROUNDS (default 3), BENCH_BURST (default 16384),
 * BENCH_MEMORY_ROWS (default 20000), BENCH_PARTS (default `overhead,burst,payloads,memory,tracing`).
 */
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import { type ConfigDict } from 'ngym';
import { globalConfigFromDict, launch, PACKAGE_ROOT, type RunningGym } from 'ngym/runtime';
import { type OtlpReceiver, simpleAgentConfig, startOtlpReceiver } from 'ngym/testing';
import { startBaselineServer } from './lib/baseline-process.ts';
import { format, median, runReporting, totalCpuSeconds } from './lib/measure.ts';

const BENCH = join(PACKAGE_ROOT, 'bench');
const COLLECTOR = join(BENCH, 'lib', 'collector-process.ts');
const HOPS_PER_ROLLOUT = 6; // collector->agent, seed_session, model, tool, model, verify

interface CollectorReport {
  wallSeconds: number;
  completed: number;
  failures: number;
  cpuSeconds: number;
  firstCompletionSeconds: number;
  p50Ms: number;
  p99Ms: number;
  peakRssMb: number;
}

interface System {
  pids: number[];
  collect(rollouts: number, concurrency: number): Promise<CollectorReport>;
  stop(): Promise<void>;
}

async function startNgym(model: { latency_ms?: number; payload_tokens?: number; call_tool?: boolean }, telemetry?: ConfigDict): Promise<System> {
  const dict: ConfigDict = {
    head_server: { host: '127.0.0.1', port: 0 },
    ...(telemetry === undefined ? {} : { telemetry }),
    ...simpleAgentConfig({
      resources: { name: 'bench_env', implementation: 'bench_trivial' },
      agent: 'bench_agent',
      model: { implementation: 'bench_null_model', config: model },
    }),
  };
  const gym: RunningGym = await launch({
    globalConfig: globalConfigFromDict(dict, { searchRoots: [join(BENCH, 'servers'), PACKAGE_ROOT] }),
    output: () => {},
  });
  const headPort = Number(new URL(gym.headUrl).port);
  return {
    pids: gym.instances.map((instance) => instance.pid as number),
    collect: (rollouts, concurrency) => runReporting<CollectorReport>(COLLECTOR, { mode: 'ngym', rollouts, concurrency, headPort, agentName: 'bench_agent' }),
    stop: () => gym.stop(),
  };
}

async function startBaseline(model: { latencyMs?: number; payloadTokens?: number }): Promise<System> {
  const modelServer = await startBaselineServer({ role: 'model', ...model });
  const resources = await startBaselineServer({ role: 'resources' });
  const agent = await startBaselineServer({ role: 'agent', modelUrl: modelServer.url, resourcesUrl: resources.url });
  const children = [modelServer.child, resources.child, agent.child];
  return {
    pids: children.map((child) => child.pid as number),
    collect: (rollouts, concurrency) => runReporting<CollectorReport>(COLLECTOR, { mode: 'baseline', rollouts, concurrency, agentUrl: agent.url }),
    stop: async () => {
      for (const child of children) child.kill('SIGTERM');
    },
  };
}

/** Warms up, then measures one run: throughput, whole-system CPU per rollout, latency. */
async function measure(system: System, rollouts: number, concurrency: number) {
  await system.collect(Math.min(2000, rollouts), concurrency);
  const serversBefore = totalCpuSeconds(system.pids);
  const report = await system.collect(rollouts, concurrency);
  const serverCpu = totalCpuSeconds(system.pids) - serversBefore;
  return { ...report, rate: report.completed / report.wallSeconds, cpuPerRollout: (serverCpu + report.cpuSeconds) / Math.max(1, report.completed) };
}

type Measured = Awaited<ReturnType<typeof measure>>;

/** Medians of each figure over the rounds. */
function medians(runs: Measured[]): Measured {
  const keys = Object.keys(runs[0] as Measured) as (keyof Measured)[];
  return Object.fromEntries(keys.map((key) => [key, median(runs.map((run) => run[key]))])) as Measured;
}

async function overhead(rollouts: number, rounds: number): Promise<void> {
  process.stdout.write(`\n1. Overhead vs the limit: ${rollouts} rollouts, 256 in flight, null model, trivial environment; ${rounds} rounds alternating ngym and baseline, medians\n`);
  const systems = [
    ['ngym', () => startNgym({})],
    ['baseline (node:http)', () => startBaseline({})],
  ] as const;
  const runs: Record<string, Measured[]> = { ngym: [], 'baseline (node:http)': [] };
  const ratios: number[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const [name, start] of systems) {
      const system = await start();
      try {
        runs[name]?.push(await measure(system, rollouts, 256));
      } finally {
        await system.stop();
      }
    }
    // The machine's speed drifts; a ratio within one round compares like with like.
    ratios.push((runs.ngym?.at(-1)?.rate ?? 0) / (runs['baseline (node:http)']?.at(-1)?.rate ?? 1));
  }
  process.stdout.write('   system                 rollouts/s  CPU ms/rollout  p50 ms/rollout  p99 ms/rollout  p50 ms/hop  p99 ms/hop  failures\n');
  const results: Record<string, Measured> = {};
  for (const [name] of systems) {
    const result = medians(runs[name] as Measured[]);
    results[name] = result;
    process.stdout.write(
      `   ${name.padEnd(22)} ${format(result.rate, 0).padStart(10)}  ${format(result.cpuPerRollout * 1000, 2).padStart(14)}  ${format(result.p50Ms, 1).padStart(14)}  ${format(result.p99Ms, 1).padStart(14)}  ${format(result.p50Ms / HOPS_PER_ROLLOUT, 2).padStart(10)}  ${format(result.p99Ms / HOPS_PER_ROLLOUT, 2).padStart(10)}  ${String(result.failures).padStart(8)}\n`,
    );
  }
  const ngym = results.ngym as Measured;
  const baseline = results['baseline (node:http)'] as Measured;
  process.stdout.write(`   ngym/baseline throughput ratio: median ${format(median(ratios), 2)} over rounds [${ratios.map((ratio) => format(ratio, 2)).join(', ')}] (goal >= 0.7)\n`);
  process.stdout.write(`   CPU per rollout, ngym/baseline: ${format(ngym.cpuPerRollout / baseline.cpuPerRollout, 2)}\n`);
  process.stdout.write(`   latency ngym adds per hop at this load: p50 ${format((ngym.p50Ms - baseline.p50Ms) / HOPS_PER_ROLLOUT, 2)} ms, p99 ${format((ngym.p99Ms - baseline.p99Ms) / HOPS_PER_ROLLOUT, 2)} ms\n`);
  for (const [name, start] of systems) {
    const system = await start();
    try {
      const unloaded = await measure(system, 2000, 1);
      process.stdout.write(`   one at a time, ${name}: ${format(unloaded.p50Ms / HOPS_PER_ROLLOUT, 3)} ms/hop p50, ${format(unloaded.p99Ms / HOPS_PER_ROLLOUT, 3)} ms/hop p99\n`);
    } finally {
      await system.stop();
    }
  }
}

async function burst(rollouts: number): Promise<void> {
  process.stdout.write(`\n2. Burst: ${rollouts} rollouts in flight at once, the model answers after 2 s (one model call per rollout)\n`);
  const system = await startNgym({ latency_ms: 2000, call_tool: false });
  try {
    const report = await system.collect(rollouts, rollouts);
    process.stdout.write(
      `   completed ${report.completed}/${rollouts}, failures ${report.failures}, first completed rollout after ${format(report.firstCompletionSeconds, 2)} s (goal <= 3 s), all done after ${format(report.wallSeconds, 1)} s, collector peak RSS ${format(report.peakRssMb, 0)} MB\n`,
    );
  } finally {
    await system.stop();
  }
}

/** The collector's memory must not grow with the input: the same run at 1x and 5x the rows. */
async function memory(rollouts: number): Promise<void> {
  process.stdout.write(`\n4. Collector memory vs input size: ${rollouts} and ${rollouts * 5} rows, 256 in flight, null model\n`);
  const system = await startNgym({});
  try {
    for (const size of [rollouts, rollouts * 5]) {
      const report = await system.collect(size, 256);
      process.stdout.write(`   ${String(size).padStart(7)} rows: collector peak RSS ${format(report.peakRssMb, 0)} MB, ${format(report.completed / report.wallSeconds, 0)} rollouts/s, failures ${report.failures}\n`);
    }
  } finally {
    await system.stop();
  }
}

async function largePayloads(): Promise<void> {
  const tokens = 65_536;
  process.stdout.write(`\n3. Large payloads: final model response with ${tokens} token ids and logprobs, one rollout at a time\n`);
  const relays = 4; // model->agent, agent->verify, verify->agent, agent->collector
  for (const [name, start] of [
    ['ngym', (payload: number) => startNgym({ payload_tokens: payload })],
    ['baseline (node:http)', (payload: number) => startBaseline({ payloadTokens: payload })],
  ] as const) {
    const small = await start(0);
    const smallReport = await measure(small, 200, 1).finally(() => small.stop());
    const large = await start(tokens);
    const largeReport = await measure(large, 100, 1).finally(() => large.stop());
    process.stdout.write(
      `   ${name.padEnd(22)} rollout p50 ${format(largeReport.p50Ms, 1)} ms vs ${format(smallReport.p50Ms, 1)} ms without the payload: ${format((largeReport.p50Ms - smallReport.p50Ms) / relays, 2)} ms per ~2 MB relay\n`,
    );
  }
}

/** Spans a rollout of this system makes with tracing on (simple_agent, a tool call, two model calls). */
const SPANS_PER_ROLLOUT = 18;

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * What telemetry costs: the overhead system as shipped (tracing off, metrics on), with metrics off too, with tracing
 * on (exported to a receiver here, which decodes every body) and on towards an endpoint nothing listens on.
 */
async function tracing(rollouts: number, rounds: number): Promise<void> {
  process.stdout.write(`\n5. Tracing: ${rollouts} rollouts, 256 in flight, null model, trivial environment; tracing off (as shipped), off with metrics off too, on, and on with the OTLP endpoint unreachable; ${rounds} rounds, medians\n`);
  const receiver: OtlpReceiver = await startOtlpReceiver({ keepSpans: false });
  const unreachable = `http://127.0.0.1:${await closedPort()}`;
  const variants = [
    ['off', undefined],
    ['off, no /metrics', { metrics_enabled: false }],
    ['on (OTLP receiver)', { enabled: true, otlp_endpoint: receiver.url }],
    ['on (unreachable)', { enabled: true, otlp_endpoint: unreachable }],
  ] as const;
  const runs = new Map<string, Measured[]>(variants.map(([name]) => [name, []]));
  const ratios = new Map<string, number[]>(variants.map(([name]) => [name, []]));
  let received = 0;
  let tracedRollouts = 0;
  try {
    for (let round = 0; round < rounds; round++) {
      for (const [name, telemetry] of variants) {
        const before = receiver.spanCount;
        const system = await startNgym({}, telemetry);
        let measured: Measured;
        try {
          measured = await measure(system, rollouts, 256);
        } finally {
          // Servers export what they still hold when they stop.
          await system.stop();
        }
        runs.get(name)?.push(measured);
        if (name === 'on (OTLP receiver)') {
          received += receiver.spanCount - before;
          tracedRollouts += measured.completed + Math.min(2000, rollouts);
        }
      }
      const off = runs.get('off')?.at(-1)?.rate ?? Number.NaN;
      for (const [name] of variants) ratios.get(name)?.push((runs.get(name)?.at(-1)?.rate ?? Number.NaN) / off);
    }
  } finally {
    await receiver.close();
  }
  process.stdout.write('   tracing                rollouts/s  CPU ms/rollout  p50 ms/rollout  p99 ms/rollout  failures  rate / off (per round)\n');
  for (const [name] of variants) {
    const result = medians(runs.get(name) as Measured[]);
    const perRound = ratios.get(name) as number[];
    process.stdout.write(
      `   ${name.padEnd(22)} ${format(result.rate, 0).padStart(10)}  ${format(result.cpuPerRollout * 1000, 2).padStart(14)}  ${format(result.p50Ms, 1).padStart(14)}  ${format(result.p99Ms, 1).padStart(14)}  ${String(result.failures).padStart(8)}  ${format(median(perRound), 2)} [${perRound.map((ratio) => format(ratio, 2)).join(', ')}]\n`,
    );
  }
  process.stdout.write(
    `   spans received with tracing on: ${received} for ${tracedRollouts} rollouts (warm-up included): ${format(received / Math.max(1, tracedRollouts), 2)} a rollout of ${SPANS_PER_ROLLOUT} made (the rest dropped when the receiver fell behind)\n`,
  );
}

export default async function collectBench(): Promise<void> {
  process.env.NGYM_LOG_LEVEL = 'error';
  const parts = (process.env.BENCH_PARTS ?? 'overhead,burst,payloads,memory,tracing').split(',');
  if (parts.includes('overhead')) await overhead(Number(process.env.BENCH_ROLLOUTS ?? 20_000), Number(process.env.BENCH_ROUNDS ?? 3));
  if (parts.includes('burst')) await burst(Number(process.env.BENCH_BURST ?? 16_384));
  if (parts.includes('payloads')) await largePayloads();
  if (parts.includes('memory')) await memory(Number(process.env.BENCH_MEMORY_ROWS ?? 20_000));
  if (parts.includes('tracing')) await tracing(Number(process.env.BENCH_ROLLOUTS ?? 20_000), Number(process.env.BENCH_ROUNDS ?? 3));
}
