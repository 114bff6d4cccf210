/**
 * Upstream's benchmarks end to end under ngym, as a user runs them: `gym eval prepare --benchmark <name>` runs the
 * benchmark's own prepare.py (from the installed nemo-gym's wheel, copied to a scratch root so the wheel stays
 * untouched) against local stand-ins of the Hugging Face Hub and of the other HTTPS sites it downloads from, then
 * `gym eval run --benchmark <name>` collects with a scripted model (scripted-policy.ts). compare_benchmark.py then
 * checks, with upstream's own code, that the run's aggregate metrics and rendered prompts are upstream's.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { composeWithoutModel, inspectBenchmark } from '../../src/cli/gym/benchmark.ts';
import { benchmarkRoots, findBenchmark } from '../../src/data/benchmarks.ts';
import { type CliResult, runCli } from '../../src/testing/cli-process.ts';
import { type HttpsStandIn, startHttpsStandIn } from '../../src/testing/https-stand-in.ts';
import { type HubStandIn, startHubStandIn } from '../../src/testing/hub-stand-in.ts';
import type { UpstreamWheel } from '../../src/testing/upstream-wheel.ts';
import { PACKAGE_ROOT } from '../../src/util/package-root.ts';
import { SeededRandom } from '../../src/util/seeded-random.ts';
import { type ScriptedPolicy, startScriptedPolicy } from './scripted-policy.ts';
import type { BenchmarkCase } from './stand-in-data.ts';

export interface Workspace {
  directory: string;
  /** The scratch root holding the copied `benchmarks/<folder>`s (passed as --search-dir). */
  root: string;
  hub: HubStandIn;
  https: HttpsStandIn;
  policy: ScriptedPolicy;
  wheel: UpstreamWheel;
  gym: string;
  env: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

/** Copies the cases' benchmark folders out of the wheel, writes their stand-in data and starts the stand-ins. */
export async function openWorkspace(cases: readonly BenchmarkCase[], wheel: UpstreamWheel, seed: number): Promise<Workspace> {
  const directory = mkdtempSync(join(tmpdir(), 'ngym-benchmarks-'));
  const root = join(directory, 'root');
  for (const folder of new Set(cases.map((entry) => entry.folder))) {
    // Without the wheel's caches and prepared data, so what is there after prepare was written by this run.
    cpSync(join(wheel.sitePackages, 'benchmarks', folder), join(root, 'benchmarks', folder), {
      recursive: true,
      filter: (source) => basename(source) !== '__pycache__' && !(basename(dirname(source)) === 'data' && source.endsWith('.jsonl')),
    });
  }
  const random = new SeededRandom(seed);
  const web = new Map<string, string | Buffer>();
  for (const entry of cases) {
    const data = entry.data(random);
    for (const [repo, files] of Object.entries(data.hub ?? {})) {
      for (const [path, content] of Object.entries(files)) {
        mkdirSync(dirname(join(directory, 'hub', repo, path)), { recursive: true });
        writeFileSync(join(directory, 'hub', repo, path), content);
      }
    }
    for (const [url, content] of Object.entries(data.web ?? {})) web.set(url, content);
  }
  mkdirSync(join(directory, 'hub'), { recursive: true });
  const hub = await startHubStandIn(join(directory, 'hub'));
  const https = await startHttpsStandIn(web.size > 0 ? web : new Map([['https://stand-in.invalid/', '']]));
  const policy = await startScriptedPolicy();
  const gym = join(directory, 'gym');
  symlinkSync(join(PACKAGE_ROOT, 'bin', 'ngym.js'), gym);
  // benchmarks/judge_luna.yaml's judge (arxivmath) reads its endpoint from these; the runs grade symbolically, so it starts but is not asked.
  const judge = { JUDGE_BASE_URL: `${policy.url}/v1`, JUDGE_API_KEY: 'stand-in', JUDGE_MODEL: 'judge' };
  const env = { HF_HOME: join(directory, 'hf-home'), HF_HUB_DISABLE_TELEMETRY: '1', NO_PROXY: '127.0.0.1,localhost', ...https.environment, ...judge };
  return {
    directory,
    root,
    hub,
    https,
    policy,
    wheel,
    gym,
    env,
    close: async () => {
      await Promise.all([hub.close(), https.close(), policy.close()]);
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

const flags = (workspace: Workspace) => ['--search-dir', workspace.root, `+python_executable=${workspace.wheel.python}`, `+hf_endpoint=${workspace.hub.url}`];

export interface CaseRun {
  benchmark: string;
  prepare: CliResult;
  run?: CliResult;
  /** What compare_benchmark.py checks. */
  job?: Record<string, unknown>;
}

/** The composed benchmark's resources server that its agent uses, with its resolved config. */
function resourcesServerOf(configPath: string, root: string, agent: string) {
  const globalConfig = composeWithoutModel([`+config_paths=[${configPath}]`], { benchmarks: [], searchDirs: [root] });
  const reference = globalConfig.resolvedServerConfig(agent).resources_server as { name: string };
  const server = globalConfig.server(reference.name);
  if (server === undefined) throw new Error(`agent ${agent} uses ${reference.name}, which is not in the config`);
  return { instance: server.name, implementation: server.impl, config: globalConfig.resolvedServerConfig(server.name) };
}

/** Prepares and runs one benchmark; `out` receives its rollouts (`<out>/<name>.jsonl` and the metrics beside it). */
export async function runCase(workspace: Workspace, entry: BenchmarkCase, out: string): Promise<CaseRun> {
  const options = { bin: workspace.gym, env: workspace.env };
  const prepare = await runCli(['eval', 'prepare', '--benchmark', entry.name, ...flags(workspace)], options);
  if (prepare.code !== 0) return { benchmark: entry.name, prepare };
  const configPath = findBenchmark(entry.name, benchmarkRoots({}, { searchDirs: [workspace.root] })).configPath;
  const details = inspectBenchmark(configPath, { benchmarks: [], searchDirs: [workspace.root] });
  for (const line of readFileSync(details.dataset, 'utf8').split('\n')) {
    const marker = /\[\[q\d+\]\]/.exec(line)?.[0];
    if (marker !== undefined) workspace.policy.tasks.set(marker, { expected: String((JSON.parse(line) as { expected_answer?: unknown }).expected_answer ?? ''), style: entry.style });
  }
  const server = resourcesServerOf(configPath, workspace.root, details.agent);
  const key = `${server.instance}.resources_servers.${server.implementation}`;
  const overrides: string[] = [];
  if (server.implementation === 'math_with_judge') overrides.push(`++${key}.should_use_judge=false`, `++${key}.judge_model_server.name=policy_model`);
  workspace.policy.judge = server.implementation === 'equivalence_llm_judge' ? { equal: String(server.config.judge_equal_label ?? '[[A=B]]'), notEqual: String(server.config.judge_not_equal_label ?? '[[A!=B]]') } : undefined;
  const output = join(out, `${entry.name.replaceAll('/', '__')}.jsonl`);
  for (const stale of [output, output.replace(/\.jsonl$/, '_metrics.json'), output.replace(/\.jsonl$/, '_failures.jsonl')]) rmSync(stale, { force: true });
  // Benchmarks that repeat each task fewer than 4 times are run 4 times as often, so pass@k has repeats to count.
  const repeats = details.num_repeats < 4 ? ['--num-repeats', '4'] : [];
  const model = ['--model-type', 'openai_model', '--model', 'policy', '--model-url', `${workspace.policy.url}/v1`, '--model-api-key', 'stand-in'];
  const run = await runCli(['eval', 'run', '--benchmark', entry.name, ...flags(workspace), ...model, ...repeats, '-o', output, '+num_samples_in_parallel=32', '++head_server={host: 127.0.0.1, port: 0}', ...overrides], options);
  const job = {
    benchmark: entry.name,
    rollouts: output,
    metrics: output.replace(/\.jsonl$/, '_metrics.json'),
    agent: details.agent,
    implementation: server.implementation,
    server_config: server.config,
    prompt_config: details.prompt_config ?? null,
  };
  return { benchmark: entry.name, prepare, run, job: existsSync(output) ? job : undefined };
}

export interface Comparison {
  benchmark: string;
  rollouts: number;
  tasks: number;
  mean_reward: number | null;
  aggregate_equal: boolean;
  aggregate_differences: string[];
  prompts_checked: number;
  prompt_mismatches: unknown[];
  key_metrics: Record<string, unknown> | null;
}

/** Upstream's verdict on the runs (compare_benchmark.py in the wheel's venv). */
export async function compareRuns(workspace: Workspace, jobs: readonly Record<string, unknown>[]): Promise<Comparison[]> {
  const path = join(workspace.directory, 'jobs.json');
  writeFileSync(path, JSON.stringify(jobs));
  const { spawnSync } = await import('node:child_process');
  const answer = spawnSync(workspace.wheel.python, [join(PACKAGE_ROOT, 'parity', 'benchmarks', 'compare_benchmark.py'), path], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (answer.status !== 0) throw new Error(`compare_benchmark.py failed (exit ${answer.status}):\n${answer.stderr}`);
  return answer.stdout.split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as Comparison);
}
