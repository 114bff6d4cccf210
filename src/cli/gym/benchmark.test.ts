/**
 * Benchmarks in the `gym` tree, on a root laid out like NeMo Gym's (src/testing/benchmark-fixture.ts, passed with
 * --search-dir): listing and inspecting them, `gym eval prepare` running their prepare.py (and each way one goes
 * wrong), then collecting one with `gym eval run --benchmark` against a scripted model, its prompt config applied
 * as rows are read. Last, a sample of upstream's own benchmarks end to end (parity/benchmarks/, whose
 * `npm run parity:benchmarks` runs them all), checked against upstream 0.7.0's aggregate metrics and prompts.
 */
import { existsSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureOutput } from './__fixtures__/captured-output.ts';
import { compareRuns, openWorkspace, runCase, type Workspace } from '../../../parity/benchmarks/harness.ts';
import { BENCHMARK_CASES } from '../../../parity/benchmarks/stand-in-data.ts';
import { writeBenchmarkFixture } from '../../testing/benchmark-fixture.ts';
import { runCli, startGymProcess } from '../../testing/cli-process.ts';
import { assistantMessage, modelResponse } from '../../server/scripted-model.ts';
import { type FakeEndpoint, startFakeEndpoint } from '../../testing/fake-endpoint.ts';
import { readJsonlRows } from '../../testing/jsonl-rows.ts';
import { upstreamWheel } from '../../testing/upstream-wheel.ts';
import { mainGym } from './tree.ts';

const root = writeBenchmarkFixture();
afterAll(() => rmSync(root, { recursive: true, force: true }));
// The fixture's prepare scripts need no package: any python3 runs them, without asking the venv for its benchmarks.
const ROOT_FLAGS = ['--search-dir', root, '+python_executable=python3'];
const data = (name: string) => join(root, 'benchmarks', name, 'data', `${name}_benchmark.jsonl`);

describe('gym list benchmarks, gym eval prepare (in process)', () => {
  const printed = captureOutput();

  it('lists the benchmarks with their manifest, inspects one, and suggests a name for a typo', async () => {
    expect(await mainGym(['list', 'benchmarks', ...ROOT_FLAGS, '--json']), printed.err).toBe(0);
    const listed = JSON.parse(printed.out) as { name: string; status?: string; domain: string }[];
    expect(listed.find((entry) => entry.name === 'tiny')).toEqual({ name: 'tiny', kind: 'benchmark', status: 'experimental', domain: 'knowledge', description: 'Two colour questions on mcqa', version: '0.1.0', modality: 'text', licensing: 'MIT', lifecycle: 'active' });
    expect(listed.find((entry) => entry.name === 'failing')).toMatchObject({ status: 'no-manifest', domain: 'knowledge' });
    printed.out = '';
    expect(await mainGym(['list', 'benchmarks', 'tiny', ...ROOT_FLAGS]), printed.err).toBe(0);
    expect(printed.out).toContain('agent: tiny_mcqa_simple_agent (simple_agent)');
    expect(printed.out).toContain('num repeats: 2');
    expect(printed.out).toContain(`prompt config: ${join(root, 'benchmarks/tiny/prompts/default.yaml')}`);
    expect(printed.out).toContain("resources server: tiny_mcqa_resources_server (mcqa, ngym's TypeScript port)");
    expect(await mainGym(['list', 'benchmarks', 'tinny', ...ROOT_FLAGS])).toBe(1);
    expect(printed.err).toContain("No benchmark named 'tinny' (did you mean `tiny`?)");
    expect(await mainGym(['eval', 'prepare', '--benchmark', 'tinny', ...ROOT_FLAGS])).toBe(1);
    expect(printed.err).toContain("No benchmark named 'tinny' (did you mean `tiny`?)");
  });

  it("prepare runs the benchmark's prepare.py with its arguments, logs its output beside the data, and skips prepared data on request", async () => {
    expect(await mainGym(['eval', 'prepare', '--benchmark', 'tiny', ...ROOT_FLAGS, '+prepare_script_args={count: 3}']), printed.err).toBe(0);
    expect(readJsonlRows(data('tiny')).map((row) => row.expected_answer)).toEqual(['B', 'C', 'B']);
    expect(readFileSync(join(root, 'benchmarks/tiny/data/tiny_benchmark_prepare.log'), 'utf8')).toContain('Writing 3 questions');
    expect(printed.out).toContain(`Dataset prepared at: ${data('tiny')}`);
    printed.out = '';
    expect(await mainGym(['list', 'benchmarks', 'tiny', ...ROOT_FLAGS])).toBe(0);
    expect(printed.out).toContain('(prepared)');
    printed.out = '';
    expect(await mainGym(['eval', 'prepare', '--benchmark', 'tiny', ...ROOT_FLAGS, '+use_cached_prepared_benchmarks=true']), printed.err).toBe(0);
    expect(printed.out).toContain('Already prepared');
  }, 60_000);

  it('names the script and its log when a prepare script fails, writes another file, writes nothing or is missing', async () => {
    expect(await mainGym(['eval', 'prepare', '--benchmark', 'failing', ...ROOT_FLAGS])).toBe(1);
    const log = join(root, 'benchmarks/failing/data/failing_benchmark_prepare.log');
    expect(printed.err).toContain(`The prepare script of dataset 'failing' failed (${join(root, 'benchmarks/failing/prepare.py')}, exit 1); its output is in ${log}`);
    expect(printed.err).toContain('ConnectionError: the Hub cannot be reached');
    expect(readFileSync(log, 'utf8')).toContain('Traceback');
    expect(await mainGym(['eval', 'prepare', '--benchmark', 'elsewhere', ...ROOT_FLAGS])).toBe(1);
    expect(printed.err).toMatch(/\(.*benchmarks\/elsewhere\/prepare\.py\) wrote .*other\.jsonl, but the config's jsonl_fpath is .*elsewhere_benchmark\.jsonl; they must match/);
    expect(await mainGym(['eval', 'prepare', '--benchmark', 'nodata', ...ROOT_FLAGS])).toBe(1);
    expect(printed.err).toMatch(/finished without writing .*nodata_benchmark\.jsonl; see its log .*nodata_benchmark_prepare\.log/);
    expect(await mainGym(['eval', 'prepare', '--benchmark', 'missing', ...ROOT_FLAGS])).toBe(1);
    expect(printed.err).toContain('these prepare scripts do not exist');
    expect(printed.err).toContain('- missing: benchmarks/missing/prepare.py');
  }, 60_000);

  it('refuses to run a benchmark that is not prepared, naming the command that prepares it', async () => {
    expect(await mainGym(['eval', 'run', '--no-serve', '--benchmark', 'elsewhere', ...ROOT_FLAGS, '-o', join(root, 'out.jsonl')])).toBe(1);
    expect(printed.err).toContain("Dataset 'elsewhere' is not prepared");
    expect(printed.err).toContain('Run `gym eval prepare --benchmark elsewhere` first');
  });
});

describe('gym eval run --benchmark against a scripted model', () => {
  let model: FakeEndpoint;
  const gymBin = join(root, 'gym');
  beforeAll(async () => {
    symlinkSync(join(import.meta.dirname, '..', '..', '..', 'bin', 'ngym.js'), gymBin);
    // Answers B, whatever the question: right for the even questions, wrong for the odd ones.
    model = await startFakeEndpoint(() => ({ body: modelResponse([assistantMessage('Thinking.\nAnswer: B')]) }));
    expect(await runCli(['eval', 'prepare', '--benchmark', 'tiny', ...ROOT_FLAGS], { bin: gymBin })).toMatchObject({ code: 0 });
  }, 60_000);
  afterAll(async () => model?.close());

  const MODEL = () => ['--model-type', 'openai_model', '--model', 'm', '--model-url', `${model.url}/v1`, '--model-api-key', 'k'];

  it("collects the prepared rows through the benchmark's agent, prompt config and repeats, then stops the servers", async () => {
    const output = join(root, 'results', 'tiny.jsonl');
    const result = await runCli(['eval', 'run', '--benchmark', 'tiny', ...ROOT_FLAGS, ...MODEL(), '--num-repeats', '2', '-o', output, '++head_server={host: 127.0.0.1, port: 0}'], { bin: gymBin });
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    const rows = readJsonlRows(output);
    // 2 questions, the benchmark's 2 repeats times --num-repeats 2.
    expect(rows).toHaveLength(8);
    expect(new Set(rows.map((row) => row.agent_ref.name))).toEqual(new Set(['tiny_mcqa_simple_agent']));
    const first = rows.find((row) => row._ng_task_index === 0);
    expect(first?.responses_create_params.input).toEqual([{ role: 'user', content: "Answer with a line 'Answer: <letter>'.\n\nQuestion 0: which colour?\nA: red\nB: green\nC: blue\nD: black" }]);
    expect(rows.filter((row) => row.reward === 1)).toHaveLength(4);
    const metrics = JSON.parse(readFileSync(join(root, 'results', 'tiny_metrics.json'), 'utf8'));
    expect(metrics.aggregate_metrics.tiny_mcqa_simple_agent.key_metrics).toBeDefined();
  }, 240_000);

  it('on servers started with `env start --benchmark`: a prompt sweep with --prompt-config, and the dataset\'s own prompt for its file', async () => {
    const gym = await startGymProcess(['--benchmark', 'tiny', ...ROOT_FLAGS, ...MODEL()], { bin: gymBin, command: ['env', 'start'] });
    try {
      const head = `++head_server={host: 127.0.0.1, port: ${gym.headPort}}`;
      const sweep = join(root, 'results', 'terse.jsonl');
      const swept = await runCli(['eval', 'run', '--no-serve', '--benchmark', 'tiny', ...ROOT_FLAGS, '--prompt-config', join(root, 'benchmarks/tiny/prompts/terse.yaml'), '-o', sweep, head], { bin: gymBin });
      expect(swept.code, swept.stderr).toBe(0);
      expect(readJsonlRows(sweep)[0]?.responses_create_params.input).toEqual([
        { role: 'system', content: 'Be terse.' },
        { role: 'user', content: expect.stringMatching(/^Question \d\? Answer: <letter>$/) },
      ]);
      // Upstream's README flow: the prepared file by its path in the benchmark's root, with the agent; the prompt
      // config is the one its dataset entry declares.
      const plain = join(root, 'results', 'plain.jsonl');
      const direct = await runCli(['eval', 'run', '--no-serve', '--agent', 'tiny_mcqa_simple_agent', '--input', 'benchmarks/tiny/data/tiny_benchmark.jsonl', '-o', plain, head], { bin: gymBin, env: { NEMO_GYM_EXTRA_ROOTS: root } });
      expect(direct.code, direct.stderr).toBe(0);
      expect(direct.stdout).toContain("(dataset 'tiny' of tiny_mcqa_simple_agent)");
      expect(readJsonlRows(plain)[0]?.responses_create_params.input[0].content).toMatch(/^Answer with a line 'Answer: <letter>'/);
    } finally {
      await gym.stop();
    }
  }, 240_000);
});

const wheel = upstreamWheel();
const SAMPLE = ['aime24', 'gpqa', 'ifeval', 'hle'];

describe.skipIf(wheel.skipReason !== null)("upstream's benchmarks end to end (a sample of npm run parity:benchmarks)", () => {
  let workspace: Workspace;
  const parityFolder = join(root, 'parity');
  beforeAll(async () => {
    workspace = await openWorkspace(BENCHMARK_CASES.filter((entry) => SAMPLE.includes(entry.name)), wheel, 7);
  }, 60_000);
  afterAll(async () => workspace?.close());

  it.each(SAMPLE)('%s: prepared from the stand-ins and run; aggregate metrics and prompts are upstream\'s', async (name) => {
    const run = await runCase(workspace, BENCHMARK_CASES.find((entry) => entry.name === name) as (typeof BENCHMARK_CASES)[number], parityFolder);
    expect(run.prepare.code, `${run.prepare.stdout}\n${run.prepare.stderr}`).toBe(0);
    expect(run.run?.code, `${run.run?.stdout}\n${run.run?.stderr}`).toBe(0);
    expect(existsSync(run.job?.rollouts as string)).toBe(true);
    const [comparison] = await compareRuns(workspace, [run.job as Record<string, unknown>]);
    expect(comparison?.rollouts).toBeGreaterThan(0);
    expect(comparison?.aggregate_differences).toEqual([]);
    expect(comparison?.prompt_mismatches).toEqual([]);
    // The scripted model answers some tasks right and some wrong: the metrics are not trivially equal.
    expect(comparison?.mean_reward).toBeGreaterThan(0);
    expect(comparison?.mean_reward).toBeLessThan(1);
  }, 300_000);
});
