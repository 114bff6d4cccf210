/**
 * Verify throughput of the judged environments, mcqa, math_with_judge and equivalence_llm_judge, through
 * their HTTP surface (each in-process, 8 verify requests in flight for a few seconds, over our example
 * rollouts plus upstream's recorded ones when ../shared is present); the judge is a scripted model server
 * that answers at once, so the figures are the environments' own cost. Then the latency of single math
 * library checks, pathological inputs included, to show p99 is bounded by the time limit.
 * Environment: BENCH_SECONDS (default 5) per workload, BENCH_MATH_TIMEOUT (default 1) seconds.
 */
import { existsSync, readFileSync } from 'node:fs';
import { sharedHttpClient } from '../src/client/http-client.ts';
import type { ConfigDict } from '../src/config/tree.ts';
import { MathVerifier } from '../src/math/index.ts';
import { assistantMessage, scriptedModel } from '../src/server/scripted-model.ts';
import { sharedFixture } from '../src/testing/shared-fixtures.ts';
import { type InProcessGym, startInProcessGym } from '../src/gym/in-process.ts';
import { format, percentile } from './lib/measure.ts';

const CONCURRENCY = 8;
const DURATION_MS = Number(process.env.BENCH_SECONDS ?? 5) * 1000;
const MATH_TIMEOUT_SECONDS = Number(process.env.BENCH_MATH_TIMEOUT ?? 1);

type Row = Record<string, any>;

function readJsonl(path: string): Row[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Row);
}

const local = (env: string, file: string) => new URL(`../resources_servers/${env}/data/${file}`, import.meta.url).pathname;
const lastUserText = (row: Row): string => row.responses_create_params.input.findLast((item: any) => item.role === 'user').content;

/** Verify requests: each rollout's response on its row (upstream rollouts drop row fields, so join them back). */
function verifyBodies(env: string, pairs: [rows: string, rollouts: string][]): Row[] {
  const ours = readJsonl(local(env, 'example_rollouts.jsonl')).map(({ reward: _reward, ...rest }) => rest);
  const upstream = pairs.flatMap(([rowsFile, rolloutsFile]) => {
    const rows = new Map(readJsonl(sharedFixture(env, rowsFile)).map((row) => [lastUserText(row), row]));
    return readJsonl(sharedFixture(env, rolloutsFile)).flatMap((rollout) => {
      const row = rows.get(lastUserText(rollout));
      return row === undefined ? [] : [{ ...row, response: rollout.response }];
    });
  });
  return [...ours, ...upstream];
}

interface Measured {
  perSecond: number;
  p50: number;
  p99: number;
  count: number;
}

async function measure(url: string, bodies: Row[]): Promise<Measured> {
  const http = sharedHttpClient();
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  const deadline = started + DURATION_MS;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline) {
        const body = bodies[next++ % bodies.length];
        const begin = performance.now();
        const response = await http.request(url, { body });
        if (response.status !== 200) throw new Error(`verify answered ${response.status}: ${response.text.slice(0, 300)}`);
        latencies.push(performance.now() - begin);
      }
    }),
  );
  latencies.sort((left, right) => left - right);
  return { perSecond: latencies.length / ((performance.now() - started) / 1000), p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), count: latencies.length };
}

function line(label: string, measured: Measured): string {
  return `${label.padEnd(58)} ${format(measured.perSecond, 0).padStart(6)} verifies/s   p50 ${format(measured.p50)} ms   p99 ${format(measured.p99)} ms   (${measured.count})`;
}

const judgeConfig = { judge_model_server: { type: 'responses_api_models', name: 'judge_model' } };

async function startEnvironments(judgeReply: () => string): Promise<InProcessGym> {
  const judge = scriptedModel(() => [assistantMessage(judgeReply())]);
  const config: ConfigDict = {
    mcqa: { resources_servers: { mcqa: { entrypoint: 'app.ts', domain: 'knowledge' } } },
    math_library: { resources_servers: { math_with_judge: { entrypoint: 'app.ts', domain: 'math', ...judgeConfig, should_use_judge: false, math_timeout_seconds: MATH_TIMEOUT_SECONDS } } },
    math_judged: { resources_servers: { math_with_judge: { entrypoint: 'app.ts', domain: 'math', ...judgeConfig, should_use_judge: true, math_timeout_seconds: MATH_TIMEOUT_SECONDS } } },
    equivalence_llm_judge: { resources_servers: { equivalence_llm_judge: { entrypoint: 'app.ts', domain: 'knowledge', ...judgeConfig, check_twice_swap: true } } },
    judge_model: { responses_api_models: { scripted: { entrypoint: 'app.ts' } } },
  };
  return startInProcessGym({ config, definitions: { judge_model: judge.definition } });
}

/** Answers whose library check fails, so math_with_judge asks the judge (twice when it says equal). */
function judgedMathBodies(bodies: Row[]): Row[] {
  return bodies.map((body) => ({
    ...body,
    response: { ...body.response, output: [assistantMessage('I believe the answer is \\boxed{\\text{the value computed above}}')] },
  }));
}

const PATHOLOGICAL: [string, string, string][] = [
  ['factorial of 99999', '1', '\\boxed{99999!}'],
  ['sum of a million terms', '1', '\\boxed{\\sum_{n=1}^{1000000} n}'],
  ['tower of powers', '1', '\\boxed{2^{2^{2^{2^{2^{10}}}}}}'],
  ['200 nested fractions', '1', `\\boxed{${'\\frac{'.repeat(200)}1${'}{2}'.repeat(200)}}`],
  ['20 KB of brackets', '1', `\\boxed{${'('.repeat(10_000)}${')'.repeat(10_000)}}`],
];

async function mathLatency(): Promise<string[]> {
  const verifier = new MathVerifier({ timeoutSeconds: MATH_TIMEOUT_SECONDS, threads: 2 });
  await verifier.warmUp();
  const corpus = readJsonl(new URL('../src/math/__fixtures__/equivalence-corpus.jsonl', import.meta.url).pathname).map((entry): [string, string] => [entry.expected_answer, entry.generated]);
  const upstream = readJsonl(sharedFixture('math_with_judge', 'example_rollouts.jsonl')).map((rollout): [string, string] => [
    rollout.expected_answer,
    rollout.response.output.filter((item: any) => item.type === 'message').flatMap((item: any) => item.content.map((part: any) => part.text ?? '')).join(''),
  ]);
  const ordinary = [...corpus, ...upstream];
  // Ordinary answers, 20 passes, with one pathological answer every 50 checks (2% of the load).
  const checks: { expected: string; generated: string; pathological: boolean }[] = [];
  for (let pass = 0; pass < 20; pass++) for (const [expected, generated] of ordinary) checks.push({ expected, generated, pathological: false });
  for (let index = 0; index < checks.length; index += 50) {
    const [, expected, generated] = PATHOLOGICAL[(index / 50) % PATHOLOGICAL.length] as [string, string, string];
    checks.splice(index, 0, { expected, generated, pathological: true });
  }
  const latencies: number[] = [];
  const pathological: number[] = [];
  let timedOut = 0;
  for (const check of checks) {
    const result = await verifier.check(check.expected, check.generated);
    latencies.push(result.elapsedMs);
    if (check.pathological) pathological.push(result.elapsedMs);
    if (result.failure === 'timeout') timedOut++;
  }
  latencies.sort((left, right) => left - right);
  pathological.sort((left, right) => left - right);
  const each = [];
  for (const [label, expected, generated] of PATHOLOGICAL) {
    const result = await verifier.check(expected, generated);
    each.push(`  ${label.padEnd(26)} ${format(result.elapsedMs, 0).padStart(6)} ms  ${result.failure ?? `reward ${result.reward}`}`);
  }
  await verifier.close();
  return [
    `math library checks, one at a time, limit ${MATH_TIMEOUT_SECONDS} s: ${latencies.length} checks (${pathological.length} pathological), ${timedOut} hit the limit`,
    `  all:          p50 ${format(percentile(latencies, 0.5))} ms   p99 ${format(percentile(latencies, 0.99))} ms   max ${format(latencies.at(-1) ?? Number.NaN)} ms`,
    `  pathological: p50 ${format(percentile(pathological, 0.5))} ms   max ${format(pathological.at(-1) ?? Number.NaN)} ms`,
    '  each pathological input alone:',
    ...each,
  ];
}

export default async function verifyJudgedBenchmark(): Promise<void> {
  let reply = '[[A=B]] they are equivalent';
  const gym = await startEnvironments(() => reply);
  try {
    const mcqa = verifyBodies('mcqa', [['example.jsonl', 'example_rollouts.jsonl']]);
    const math = verifyBodies('math_with_judge', [['example.jsonl', 'example_rollouts.jsonl']]).map(({ library_reward: _l, extracted_answer: _e, judge_evaluations: _j, ...body }) => body);
    const equivalence = verifyBodies('equivalence_llm_judge', [
      ['example.jsonl', 'example_rollouts.jsonl'],
      ['example_openqa.jsonl', 'example_rollouts_openqa.jsonl'],
    ]).map(({ judge_evaluations: _j, ...body }) => body);
    const url = (name: string) => gym.url(name, '/verify');
    // Warm-up: worker threads start, compiled regexes and the Compute Engine load.
    for (const [name, bodies] of [['mcqa', mcqa], ['math_library', math], ['math_judged', judgedMathBodies(math)], ['equivalence_llm_judge', equivalence]] as const) {
      for (const body of bodies) await sharedHttpClient().request(url(name), { body });
    }
    process.stdout.write(`${CONCURRENCY} requests in flight, ${DURATION_MS / 1000} s per workload; the judge answers at once\n`);
    process.stdout.write(`${line(`mcqa (${mcqa.length} rollouts)`, await measure(url('mcqa'), mcqa))}\n`);
    process.stdout.write(`${line(`math_with_judge, library only (${math.length} rollouts)`, await measure(url('math_library'), math))}\n`);
    process.stdout.write(`${line('math_with_judge, library misses + judge in both orders', await measure(url('math_judged'), judgedMathBodies(math)))}\n`);
    process.stdout.write(`${line(`equivalence_llm_judge, equal + swap (${equivalence.length} rollouts)`, await measure(url('equivalence_llm_judge'), equivalence))}\n`);
    reply = '[[A!=B]] they are not equivalent';
    process.stdout.write(`${line('equivalence_llm_judge, not equal (+ rescue on regex rows)', await measure(url('equivalence_llm_judge'), equivalence))}\n`);
  } finally {
    await gym.close();
  }
  for (const text of await mathLatency()) process.stdout.write(`${text}\n`);
}
