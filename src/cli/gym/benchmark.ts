/**
 * Upstream's benchmarks in the `gym` tree: `--benchmark <name>` loads `benchmarks/<name>/config.yaml` of an
 * installed NeMo Gym (src/data/benchmarks.ts), `gym eval prepare` runs the benchmarks' prepare scripts, and
 * `gym eval run --benchmark <name>` collects the prepared data: its rows go to the benchmark's agent, built by
 * its prompt config as they are read, `num_repeats` times the benchmark's own repeats (as upstream collates them).
 */
import { existsSync } from 'node:fs';
import { basename, dirname, extname, isAbsolute, join } from 'node:path';
import * as z from 'zod';
import { type GlobalConfig, loadGlobalConfig } from '../../config/global-config.ts';
import { defaultSearchRoots, findServerDirectory } from '../../config/server-instances.ts';
import { ConfigError, NgymError } from '../../errors.ts';
import { type DeclaredDataset, declaredDatasets, isBenchmarkDataset } from '../../data/benchmark-datasets.ts';
import { benchmarkRoots, findBenchmark, findUnderRoots } from '../../data/benchmarks.ts';
import { benchmarkPython } from '../../data/benchmark-python.ts';
import { prepareBenchmarks, scriptRoot } from '../../data/prepare-benchmarks.ts';
import { readParameters } from '../command.ts';
import { mergeConfigPaths } from './flags.ts';

export interface BenchmarkSelection {
  /** `--benchmark` values, in order. */
  benchmarks: string[];
  /** `--search-dir` values. */
  searchDirs: string[];
}

export function benchmarkSelection(options: Record<string, unknown>): BenchmarkSelection {
  const list = (value: unknown) => (Array.isArray(value) ? value.map(String) : typeof value === 'string' ? [value] : []);
  return { benchmarks: list(options.benchmark), searchDirs: list(options.searchDir) };
}

/** The roots for this invocation: its `--search-dir`s, then the usual ones with the user's python settings. */
function rootsFor(overrides: readonly string[], selection: BenchmarkSelection): string[] {
  const settings = loadGlobalConfig({ overrides: overrides.filter((override) => !override.startsWith('+config_paths=')) }).dict;
  return benchmarkRoots(settings, { searchDirs: selection.searchDirs });
}

/**
 * The overrides with each `--benchmark`'s config added to `config_paths` (after `--config`'s, as upstream orders
 * them), and the server-relative files those configs name made absolute (serverRelativeFiles).
 */
export function withBenchmarkConfigs(overrides: readonly string[], selection: BenchmarkSelection): string[] {
  if (selection.benchmarks.length === 0) return [...overrides];
  const roots = rootsFor(overrides, selection);
  const paths = selection.benchmarks.map((name) => findBenchmark(name, roots).configPath);
  const composed = mergeConfigPaths([...overrides, `+config_paths=[${paths.join(',')}]`]);
  return [...composed, ...serverRelativeFiles(composeWithoutModel(composed, selection), roots)];
}

/**
 * Upstream's server configs name some files relative to the server's folder (equivalence_llm_judge's
 * `judge_prompt_template_fpath: ../../benchmarks/hle/prompts/judge.txt`). When ngym's TypeScript port of the
 * server runs it, such a `*_fpath` that its own folder lacks is taken from upstream's folder of the same server.
 */
function serverRelativeFiles(globalConfig: GlobalConfig, roots: readonly string[]): string[] {
  const overrides: string[] = [];
  for (const server of globalConfig.servers) {
    if (server.serverType !== 'resources_servers' || String(server.config.entrypoint).endsWith('.py')) continue;
    const own = findServerDirectory(server, globalConfig.searchRoots);
    for (const [key, value] of Object.entries(server.config)) {
      if (!key.endsWith('_fpath') || typeof value !== 'string' || isAbsolute(value) || (own !== undefined && existsSync(join(own, value)))) continue;
      const upstream = roots.map((root) => join(root, server.serverType, server.impl, value)).find((candidate) => existsSync(candidate));
      if (upstream !== undefined) overrides.push(`++${server.name}.${server.serverType}.${server.impl}.${key}=${JSON.stringify(upstream)}`);
    }
  }
  return overrides;
}

function configRoots(selection: BenchmarkSelection): string[] {
  return [...selection.searchDirs, ...defaultSearchRoots()];
}

const NO_MODEL = { policy_base_url: '', policy_api_key: '', policy_model_name: '' };
/** Upstream's stand-in policy model when a command reads datasets and no model was chosen (it starts nothing). */
const PLACEHOLDER_MODEL = { policy_model: { responses_api_models: { dummy_model: { entrypoint: 'app.py' } } } };

/** Unset values (`???`) a command that starts no server may pass over, as upstream's listing does; more is a real error. */
const MAX_PLACEHOLDERS = 20;

/**
 * The composed config for reading datasets (nothing is started): with the placeholder model unless the config
 * brings its own, and each value still unset (a judge the user picks when running) filled with a placeholder.
 */
export function composeWithoutModel(overrides: readonly string[], selection: BenchmarkSelection): GlobalConfig {
  const searchRoots = configRoots(selection);
  let initialConfig: Record<string, unknown> = { ...NO_MODEL, ...PLACEHOLDER_MODEL };
  const placeholders: string[] = [];
  for (;;) {
    try {
      return loadGlobalConfig({ overrides: [...overrides, ...placeholders], initialConfig: initialConfig as never, searchRoots });
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      if (error.key === 'policy_model' && 'policy_model' in initialConfig) {
        // The config has its own policy model: with the placeholder it would have two implementations.
        initialConfig = { ...NO_MODEL };
        continue;
      }
      if (error.code !== 'NGYM_CONFIG_MISSING_VALUE' || error.key === undefined || placeholders.length >= MAX_PLACEHOLDERS) throw error;
      // A server reference's name must name a server: the placeholder model (judges are models); other values any text.
      placeholders.push(`++${error.key}=${error.key.endsWith('_server.name') ? 'policy_model' : 'unset'}`);
    }
  }
}

const PrepareParameters = z.object({
  use_cached_prepared_benchmarks: z.boolean().default(false),
  num_prepare_benchmark_processes: z.number().int().min(1).default(1),
  prepare_script_args: z.record(z.string(), z.unknown()).default({}),
});

/** `gym eval prepare`: every preparable dataset of the composed config. */
export async function prepareCommand(overrides: readonly string[], selection: BenchmarkSelection): Promise<number> {
  const composed = withBenchmarkConfigs(overrides, selection);
  if (!composed.some((override) => override.startsWith('+config_paths='))) {
    throw new NgymError('NGYM_USAGE', 'gym eval prepare needs a benchmark: --benchmark <name> (see `gym list benchmarks`) or --config <config with a benchmark dataset>.');
  }
  const globalConfig = composeWithoutModel(composed, selection);
  const parameters = readParameters(globalConfig, PrepareParameters);
  const roots = benchmarkRoots(globalConfig.dict, { searchDirs: selection.searchDirs });
  await prepareBenchmarks({
    globalConfig,
    roots,
    python: benchmarkPython(globalConfig.dict),
    useCached: parameters.use_cached_prepared_benchmarks,
    processes: parameters.num_prepare_benchmark_processes,
    scriptArgs: parameters.prepare_script_args,
  });
  return 0;
}

/** A benchmark's prepared data and prompt config: relative to its prepare script's root first (where the script writes). */
function benchmarkFiles(dataset: DeclaredDataset, roots: readonly string[], promptOverride: string | undefined): { input: string; prompt: string | undefined } {
  const root = dataset.prepare_script === undefined ? undefined : scriptRoot(dataset.prepare_script, roots);
  const ordered = root === undefined ? roots : [root, ...roots];
  const input = isAbsolute(dataset.jsonl_fpath) ? dataset.jsonl_fpath : root !== undefined ? join(root, dataset.jsonl_fpath) : (findUnderRoots(dataset.jsonl_fpath, roots) ?? join(process.cwd(), dataset.jsonl_fpath));
  // A --prompt-config is the user's: looked up from the working directory first, as upstream does.
  const prompt = promptOverride === undefined ? dataset.prompt_config && (findUnderRoots(dataset.prompt_config, ordered) ?? dataset.prompt_config) : (findUnderRoots(promptOverride, roots) ?? promptOverride);
  return { input, prompt };
}

/** Keys `gym eval run --benchmark` sets per collection (a user's value of the same key is read first). */
const PER_COLLECTION_KEYS = ['input_jsonl_fpath', 'agent_name', 'num_repeats', 'prompt_config', 'output_jsonl_fpath'];
const keyOf = (override: string) => /^\+{0,2}([^=]+)=/.exec(override)?.[1];

const RunParameters = z.object({
  output_jsonl_fpath: z.string().min(1),
  num_repeats: z.number().int().min(1).nullable().default(1),
  agent_name: z.string().min(1).optional(),
  prompt_config: z.string().min(1).optional(),
  input_jsonl_fpath: z.string().optional(),
  split: z.string().optional(),
});

export interface BenchmarkRun {
  /** The composed overrides (with the benchmarks' configs), which start the gym. */
  overrides: string[];
  /** The user's overrides without the benchmarks' configs: for collecting from a gym already running. */
  collectOnly: string[];
  /** Per benchmark dataset: the overrides of its collection. */
  collections: string[][];
}

/**
 * What `gym eval run --benchmark` collects: one collection per benchmark dataset of the composed config (several
 * `--benchmark`s write `<output stem>_<dataset>.jsonl` each), with the dataset's prepared data, agent, prompt config
 * and `num_repeats` (times `--num-repeats`, as upstream collates repeats).
 */
export function benchmarkRun(overrides: readonly string[], selection: BenchmarkSelection): BenchmarkRun {
  const composed = withBenchmarkConfigs(overrides, selection);
  // Only read here (the servers, if started, compose it again in full): a running gym's model need not be named.
  const globalConfig = composeWithoutModel(composed, selection);
  const parameters = readParameters(globalConfig, RunParameters);
  if (parameters.input_jsonl_fpath !== undefined) {
    throw new NgymError('NGYM_USAGE', '--input is not used with --benchmark: the input is the benchmark\'s prepared data (`gym eval prepare`). Drop --input, or run without --benchmark.');
  }
  if (parameters.split !== undefined && parameters.split !== 'benchmark') {
    throw new NgymError('NGYM_USAGE', `--split ${parameters.split}: with --benchmark the split is \`benchmark\`.`);
  }
  const datasets = declaredDatasets(globalConfig, isBenchmarkDataset);
  if (datasets.length === 0) throw new NgymError('NGYM_USAGE', 'The composed config declares no `type: benchmark` dataset to run.');
  const roots = benchmarkRoots(globalConfig.dict, { searchDirs: selection.searchDirs });
  const output = parameters.output_jsonl_fpath;
  const stem = join(dirname(output), basename(output, extname(output)));
  const perCollection = (override: string) => PER_COLLECTION_KEYS.includes(keyOf(override) ?? '');
  const kept = composed.filter((override) => !perCollection(override));
  // Each dataset's own output file: named after the dataset, or its agent when two datasets share a name.
  const suffixOf = (dataset: DeclaredDataset) => (datasets.filter((other) => other.name === dataset.name).length > 1 ? dataset.agent : dataset.name);
  const collections = datasets.map((dataset) => {
    const { input, prompt } = benchmarkFiles(dataset, roots, parameters.prompt_config);
    if (!existsSync(input)) {
      throw new NgymError('NGYM_USAGE', `Dataset '${dataset.name}' is not prepared: ${input} does not exist. Run \`gym eval prepare${selection.benchmarks.map((name) => ` --benchmark ${name}`).join('')}\` first.`);
    }
    return [
      `++input_jsonl_fpath=${JSON.stringify(input)}`,
      `++agent_name=${parameters.agent_name ?? dataset.agent}`,
      `++num_repeats=${dataset.num_repeats * (parameters.num_repeats ?? 1)}`,
      `++output_jsonl_fpath=${JSON.stringify(datasets.length === 1 ? output : `${stem}_${suffixOf(dataset)}.jsonl`)}`,
      ...(prompt === undefined ? [] : [`++prompt_config=${JSON.stringify(prompt)}`]),
    ];
  });
  return { overrides: kept, collectOnly: overrides.filter((override) => !perCollection(override)), collections };
}

export interface BenchmarkDetails {
  dataset_name: string;
  /** The agent instance that runs it, and its implementation. */
  agent: string;
  agent_type: string;
  num_repeats: number;
  dataset: string;
  prepared: boolean;
  prompt_config?: string;
  prepare_script?: string;
  /** Its resources servers and what runs them: ngym's TypeScript port, or upstream's Python (hosted by ngym). */
  resources_servers: { instance: string; implementation: string; runs: 'typescript' | 'python' }[];
}

/** What `gym list benchmarks <name>` shows beyond the manifest: the composed benchmark's dataset and servers. */
export function inspectBenchmark(configPath: string, selection: BenchmarkSelection): BenchmarkDetails {
  const globalConfig = composeWithoutModel([`+config_paths=[${configPath}]`], selection);
  const [dataset] = declaredDatasets(globalConfig, isBenchmarkDataset);
  if (dataset === undefined) throw new NgymError('NGYM_CONFIG_INVALID', `${configPath} declares no benchmark dataset once composed.`);
  const roots = benchmarkRoots(globalConfig.dict, { searchDirs: selection.searchDirs });
  const { input, prompt } = benchmarkFiles(dataset, roots, undefined);
  const details: BenchmarkDetails = {
    dataset_name: dataset.name,
    agent: dataset.agent,
    agent_type: globalConfig.server(dataset.agent)?.impl ?? '',
    num_repeats: dataset.num_repeats,
    dataset: input,
    prepared: existsSync(input),
    resources_servers: globalConfig.servers
      .filter((server) => server.serverType === 'resources_servers')
      .map((server) => ({ instance: server.name, implementation: server.impl, runs: String(server.config.entrypoint).endsWith('.py') ? 'python' : 'typescript' })),
  };
  if (prompt !== undefined) details.prompt_config = prompt;
  const script = dataset.prepare_script === undefined ? undefined : findUnderRoots(dataset.prepare_script, roots);
  if (script !== undefined) details.prepare_script = script;
  return details;
}

/** The domain and description of a benchmark without a manifest: its composed config's resources server's, as upstream reads them. */
export function composedMetadata(configPath: string, selection: BenchmarkSelection): { domain?: string; description?: string } {
  let globalConfig: GlobalConfig;
  try {
    globalConfig = composeWithoutModel([`+config_paths=[${configPath}]`], selection);
  } catch {
    return {}; // listed all the same; `gym list benchmarks <name>` says what is wrong with it
  }
  const servers = [...globalConfig.servers].sort((a, b) => Number(b.serverType === 'resources_servers') - Number(a.serverType === 'resources_servers'));
  const first = (key: string) => servers.map((server) => server.config[key]).find((value): value is string => typeof value === 'string');
  return { domain: first('domain'), description: first('description') };
}
