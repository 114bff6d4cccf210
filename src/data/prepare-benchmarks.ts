/**
 * `gym eval prepare`: runs each benchmark's `prepare.py` (upstream's Python, which downloads its data from the
 * Hugging Face Hub or the web and writes the benchmark's JSONL) with a Python interpreter that has nemo-gym.
 * The script is imported as upstream imports it (`benchmarks.<name>.prepare`, with its root first on the path)
 * and its `prepare(**prepare_script_args)` called; it gets the composed config as `NEMO_GYM_CONFIG_DICT` (as a
 * server does: `hf_token` is read from it), and `hf_endpoint`/`hf_token` as HF_ENDPOINT/HF_TOKEN.
 *
 * Everything the script prints goes to `<data file stem>_prepare.log` beside the data it writes (and to the
 * terminal). A script that fails, returns another path, or leaves no data is an error naming the script and that log.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, extname, isAbsolute, join, resolve } from 'node:path';
import type { GlobalConfig } from '../config/global-config.ts';
import { NgymError } from '../errors.ts';
import { type DeclaredDataset, declaredDatasets, isPreparableDataset } from './benchmark-datasets.ts';

/** Imports the script as upstream does and writes the path its `prepare()` returned to the result file. */
const DRIVER = `
import importlib, importlib.util, json, sys
from pathlib import Path
root, module_name, script, arguments, result = sys.argv[1:6]
if root:
    sys.path.insert(0, root)
    module = importlib.import_module(module_name)
else:
    spec = importlib.util.spec_from_file_location("ngym_prepare_script", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
if not hasattr(module, "prepare"):
    sys.exit(f"{script} has no prepare() function")
output = module.prepare(**json.loads(arguments))
Path(result).write_text("" if output is None else str(Path(output).absolute()))
`;

export interface PrepareBenchmarksOptions {
  globalConfig: GlobalConfig;
  /** Where relative prepare scripts are looked up (benchmarkRoots). */
  roots: readonly string[];
  python: string;
  /** Skip datasets whose file already exists (upstream's use_cached_prepared_benchmarks). */
  useCached?: boolean;
  /** Scripts run at once. */
  processes?: number;
  /** Keyword arguments of every `prepare()`. */
  scriptArgs?: Record<string, unknown>;
  print?: (text: string) => void;
}

export interface PreparedDataset {
  dataset: DeclaredDataset;
  script: string;
  /** The data file (absolute). */
  output: string;
  /** Undefined when the dataset was already prepared and skipped. */
  log?: string;
}

interface Job {
  dataset: DeclaredDataset;
  script: string;
  /** The root the script's relative path starts at (so its module name is that path), or undefined for an absolute path. */
  root: string | undefined;
  output: string;
}

/** The first root holding a relative prepare script: the benchmark's data and prompts are relative to it too. */
export function scriptRoot(script: string, roots: readonly string[]): string | undefined {
  return isAbsolute(script) ? undefined : roots.find((candidate) => existsSync(join(candidate, script)));
}

/** Where the dataset's script is, and where its data must land: both relative to the root that holds the script. */
function locate(dataset: DeclaredDataset, roots: readonly string[]): Job | undefined {
  const script = dataset.prepare_script as string;
  const root = scriptRoot(script, roots);
  const path = root === undefined ? script : join(root, script);
  if (!existsSync(path) || !statSync(path).isFile()) return undefined;
  const output = isAbsolute(dataset.jsonl_fpath) ? dataset.jsonl_fpath : join(root ?? process.cwd(), dataset.jsonl_fpath);
  return { dataset, script: path, root, output };
}

function prepareLogPath(output: string): string {
  return join(dirname(output), `${basename(output, extname(output))}_prepare.log`);
}

function lastLines(path: string, count: number): string {
  const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
  return lines.slice(-count).map((line) => `    ${line}`).join('\n');
}

function installDependencies(job: Job, python: string, print: (text: string) => void): void {
  const packages = job.dataset.prepare_dependencies;
  if (packages.length === 0) return;
  print(`Installing prepare dependencies for ${job.dataset.name}: ${packages.join(' ')}\n`);
  const uv = spawnSync('uv', ['--version'], { stdio: 'ignore' }).status === 0;
  const [command, args] = uv ? ['uv', ['pip', 'install', '--python', python, ...packages]] : [python, ['-m', 'pip', 'install', ...packages]];
  const answer = spawnSync(command, args, { stdio: 'inherit' });
  if (answer.status !== 0) throw new NgymError('NGYM_INPUT_INVALID', `Could not install the prepare dependencies of dataset '${job.dataset.name}' (${packages.join(' ')}) with \`${command} ${args.join(' ')}\`.`);
}

function scriptEnvironment(options: PrepareBenchmarksOptions): NodeJS.ProcessEnv {
  const value = (key: string) => {
    const found = options.globalConfig.resolvedValue([key]);
    return typeof found === 'string' && found !== '' ? found : undefined;
  };
  const hub: NodeJS.ProcessEnv = {};
  const endpoint = value('hf_endpoint');
  const token = value('hf_token');
  if (endpoint !== undefined) hub.HF_ENDPOINT = endpoint;
  if (token !== undefined && process.env.HF_TOKEN === undefined) hub.HF_TOKEN = token;
  return { ...process.env, ...hub, NEMO_GYM_CONFIG_DICT: options.globalConfig.toYaml(), PYTHONUNBUFFERED: '1' };
}

async function run(job: Job, options: PrepareBenchmarksOptions, print: (text: string) => void): Promise<PreparedDataset> {
  const { dataset } = job;
  mkdirSync(dirname(job.output), { recursive: true });
  const log = prepareLogPath(job.output);
  const scratch = mkdtempSync(join(tmpdir(), 'ngym-prepare-'));
  const result = join(scratch, 'output-path');
  print(`Preparing dataset: ${dataset.name} (${job.script}; log: ${log})\n`);
  const module = job.root === undefined ? '' : (dataset.prepare_script as string).replace(/\.py$/, '').split('/').filter((part) => part !== '' && part !== '.').join('.');
  const args = ['-c', DRIVER, job.root ?? '', module, job.script, JSON.stringify(options.scriptArgs ?? {}), result];
  const logStream = createWriteStream(log);
  const child = spawn(options.python, args, { cwd: process.cwd(), env: scriptEnvironment(options), stdio: ['ignore', 'pipe', 'pipe'] });
  const prefix = (options.processes ?? 1) > 1 ? `[${dataset.name}] ` : '';
  for (const stream of [child.stdout, child.stderr]) {
    stream.on('data', (chunk: Buffer) => {
      logStream.write(chunk);
      print(prefix === '' ? chunk.toString() : chunk.toString().replace(/^(?=.)/gm, prefix));
    });
  }
  const code = await new Promise<number | null>((resolveExit, reject) => {
    child.on('error', (error) => reject(new NgymError('NGYM_INPUT_INVALID', `Could not start ${options.python} to run ${job.script}: ${error.message}. Set python_executable to a Python with nemo-gym (npm run setup:python).`)));
    child.on('close', resolveExit);
  });
  await new Promise((resolveLog) => logStream.end(resolveLog));
  try {
    if (code !== 0) {
      throw new NgymError('NGYM_INPUT_INVALID', `The prepare script of dataset '${dataset.name}' failed (${job.script}, exit ${code}); its output is in ${log}. Last lines:\n${lastLines(log, 5)}`);
    }
    const returned = existsSync(result) ? readFileSync(result, 'utf8') : '';
    if (returned !== '' && resolve(returned) !== resolve(job.output)) {
      throw new NgymError('NGYM_INPUT_INVALID', `The prepare script of dataset '${dataset.name}' (${job.script}) wrote ${returned}, but the config's jsonl_fpath is ${job.output}; they must match (log: ${log}).`);
    }
    if (!existsSync(job.output)) {
      throw new NgymError('NGYM_INPUT_INVALID', `The prepare script of dataset '${dataset.name}' (${job.script}) finished without writing ${job.output}; see its log ${log}.`);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  print(`Dataset prepared at: ${job.output}\n`);
  return { dataset, script: job.script, output: job.output, log };
}

/** Prepares every preparable dataset of the composed config; checks all of them before running any. */
export async function prepareBenchmarks(options: PrepareBenchmarksOptions): Promise<PreparedDataset[]> {
  const print = options.print ?? ((text: string) => process.stdout.write(text));
  const datasets = declaredDatasets(options.globalConfig, isPreparableDataset);
  if (datasets.length === 0) {
    throw new NgymError('NGYM_USAGE', 'No preparable dataset in the config: no server declares a `type: benchmark` dataset or another with a `prepare_script`. Pass one with `gym eval prepare --benchmark <name>` or `--config <path>`.');
  }
  const withoutScript = datasets.filter((dataset) => dataset.prepare_script === undefined);
  if (withoutScript.length > 0) throw new NgymError('NGYM_CONFIG_INVALID', `Dataset '${withoutScript[0]?.name}' has no prepare_script.`);
  const located = datasets.map((dataset) => ({ dataset, job: locate(dataset, options.roots) }));
  const missing = located.filter((entry) => entry.job === undefined);
  if (missing.length > 0) {
    throw new NgymError('NGYM_CONFIG_INVALID', `Did not prepare any datasets: these prepare scripts do not exist (looked in ${options.roots.join(', ')}):\n${missing.map(({ dataset }) => `- ${dataset.name}: ${dataset.prepare_script}`).join('\n')}`);
  }
  const prepared: PreparedDataset[] = [];
  const jobs: Job[] = [];
  for (const { job } of located as { job: Job }[]) {
    if (options.useCached && existsSync(job.output)) {
      print(`Already prepared (use_cached_prepared_benchmarks=true): ${job.dataset.name}: ${job.output}\n`);
      prepared.push({ dataset: job.dataset, script: job.script, output: job.output });
    } else {
      jobs.push(job);
    }
  }
  for (const job of jobs) installDependencies(job, options.python, print);
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < jobs.length; index = next++) prepared.push(await run(jobs[index] as Job, options, print));
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.processes ?? 1, jobs.length)) }, worker));
  return prepared;
}
