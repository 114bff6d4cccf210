/**
 * `ngym prepare-data` (upstream `ng_prepare_data`, spec gym-core 6): for every agent's datasets of the
 * mode's types, check (or download) the files, validate every row, compute the dataset metrics, compare
 * them with the committed `<stem>_metrics.json`, then collate each type into `<output>/<type>.jsonl`
 * with `agent_ref` stamped on every row, and `<output>/<type>_metrics.json`.
 *
 * Where we differ from upstream v0.1.1 (docs/decisions/0007): invalid rows are reported with file, line
 * and reason and stop the run unless `skip_invalid_rows` (then they are left out of the collated data
 * too); only agents with in-scope datasets are processed (HEAD's fix); an up-to-date metrics file is left
 * untouched (HEAD); the output folder is created with its parents.
 */
import { once } from 'node:events';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, isAbsolute, join, resolve } from 'node:path';
import { finished, pipeline } from 'node:stream/promises';
import type { GlobalConfig } from '../config/global-config.ts';
import { resolveAt } from '../config/interpolation.ts';
import { DatasetConfig, type DatasetType } from '../config/schemas.ts';
import { configPathOf } from '../config/server-instances.ts';
import { NgymError } from '../errors.ts';
import { pythonJsonDumpIndented, pythonJsonDumps } from '../python-compat/python-json.ts';
import { pythonJsonLoads } from '../python-compat/python-json-loads.ts';
import { type AggregatedDatasetMetrics, DatasetMetrics, DatasetTypeMetrics } from './dataset-metrics.ts';
import { formatInvalidRow, type InvalidRow, readDatasetLines } from './dataset-rows.ts';
import { downloadHubFile, downloadHubSplit, type HuggingFaceOptions } from './huggingface.ts';
import { diffMetrics } from './metrics-conflicts.ts';

export const PREPARE_MODES = ['train_preparation', 'example_validation'] as const;
export type PrepareMode = (typeof PREPARE_MODES)[number];
export const DATA_SOURCES = ['huggingface', 'local', 'gitlab'] as const;
export type DataSource = (typeof DATA_SOURCES)[number];

export function inScopeTypes(mode: PrepareMode): DatasetType[] {
  return mode === 'train_preparation' ? ['train', 'validation'] : ['example'];
}

export interface AgentDatasets {
  agent: string;
  datasets: DatasetConfig[];
}

export interface PrepareDataOptions {
  globalConfig: GlobalConfig;
  outputDir: string;
  mode: PrepareMode;
  shouldDownload?: boolean;
  dataSource?: DataSource;
  /** Leave invalid rows out (reported) instead of stopping. */
  skipInvalidRows?: boolean;
  /** Replace committed metrics that differ instead of writing `*_conflict.json` and failing. */
  overwriteMetricsConflicts?: boolean;
  /** Base of relative dataset paths (default: the current directory). */
  cwd?: string;
  /** Hub access for downloads; the token defaults to the config's `hf_token`. */
  huggingFace?: Partial<HuggingFaceOptions>;
  print?: (text: string) => void;
}

export interface PrepareDataResult {
  /** Collated file per dataset type. */
  outputs: Partial<Record<DatasetType, string>>;
  invalidRows: InvalidRow[];
  metrics: Partial<Record<DatasetType, AggregatedDatasetMetrics>>;
}

function title(text: string): string {
  const bar = '#'.repeat(100);
  return `\n\n${bar}\n#\n# ${text}\n#\n${bar}\n`;
}

/** `Path(p).stem` */
function stem(path: string): string {
  return basename(path, extname(path));
}

/** The per-dataset part of a metrics file, with upstream's keys and order. */
function datasetDump(dataset: DatasetConfig): Record<string, unknown> {
  const gitlab = dataset.gitlab_identifier;
  const huggingFace = dataset.huggingface_identifier;
  return {
    name: dataset.name,
    type: dataset.type,
    jsonl_fpath: dataset.jsonl_fpath,
    num_repeats: dataset.num_repeats,
    gitlab_identifier: gitlab === null ? null : { dataset_name: gitlab.dataset_name, version: gitlab.version, artifact_fpath: gitlab.artifact_fpath },
    huggingface_identifier: huggingFace === null ? null : { repo_id: huggingFace.repo_id, artifact_fpath: huggingFace.artifact_fpath ?? null },
    license: dataset.license,
  };
}

/** The content of a dataset's `<stem>_metrics.json`: its config, then its metrics. */
export function datasetMetricsFile(dataset: DatasetConfig, metrics: DatasetMetrics): Record<string, unknown> {
  return { ...datasetDump(dataset), ...metrics.aggregate() };
}

/** The agents with datasets of the mode's types, each with only those datasets. */
export function agentDatasets(globalConfig: GlobalConfig, mode: PrepareMode): AgentDatasets[] {
  const types = inScopeTypes(mode);
  const out: AgentDatasets[] = [];
  for (const instance of globalConfig.servers) {
    if (instance.serverType !== 'responses_api_agents' || !('datasets' in instance.config)) continue;
    const raw = resolveAt({ root: globalConfig.dict, sources: globalConfig.sources }, [...configPathOf(instance), 'datasets']);
    if (!Array.isArray(raw)) continue;
    const datasets = raw.map((entry) => DatasetConfig.parse(entry)).filter((dataset) => types.includes(dataset.type));
    if (datasets.length > 0) out.push({ agent: instance.name, datasets });
  }
  return out;
}

function listing(agents: { agent: string; datasets: DatasetConfig[] }[]): string {
  return agents.map(({ agent, datasets }) => `\n- ${agent}${datasets.map((dataset) => `\n  - ${dataset.name} (${dataset.type})`).join('')}`).join('');
}

async function downloadDataset(dataset: DatasetConfig, destination: string, source: DataSource, hub: HuggingFaceOptions): Promise<void> {
  const identifier = dataset.huggingface_identifier;
  if (identifier !== null && source !== 'local') {
    if (identifier.artifact_fpath) await downloadHubFile({ repoId: identifier.repo_id, path: identifier.artifact_fpath }, destination, hub);
    else await downloadHubSplit(identifier.repo_id, dataset.type, destination, hub);
    return;
  }
  if (dataset.gitlab_identifier !== null) {
    throw new NgymError(
      'NGYM_USAGE',
      `dataset '${dataset.name}' has only a gitlab_identifier; ngym downloads from Hugging Face only. Add huggingface_identifier: {repo_id, artifact_fpath} or provide ${dataset.jsonl_fpath} locally.`,
    );
  }
  throw new NgymError('NGYM_USAGE', `dataset '${dataset.name}' has no huggingface_identifier to download it from; provide ${dataset.jsonl_fpath} locally.`);
}

/** Checks that every dataset file exists; downloads the missing ones when allowed (spec gym-core 6.2 step 2). */
async function ensureDatasets(agents: AgentDatasets[], options: PrepareDataOptions, pathOf: (dataset: DatasetConfig) => string): Promise<void> {
  const print = options.print ?? (() => {});
  const found = agents.map(({ agent, datasets }) => ({ agent, datasets: datasets.filter((dataset) => existsSync(pathOf(dataset))) }));
  const missing = agents
    .map(({ agent, datasets }) => ({ agent, datasets: datasets.filter((dataset) => !existsSync(pathOf(dataset))) }))
    .filter(({ datasets }) => datasets.length > 0);
  print(`FOUND the following datasets at their local paths:${listing(found.filter(({ datasets }) => datasets.length > 0))}\n\n`);
  print(`MISSING the following datasets:${listing(missing)}\n\n`);
  if (missing.length === 0) return;
  const paths = missing.flatMap(({ datasets }) => datasets.map((dataset) => dataset.jsonl_fpath)).join(', ');
  if (options.mode === 'example_validation') {
    throw new NgymError('NGYM_INPUT_INVALID', `You must provide the above missing example jsonl files! (${paths})`);
  }
  if (!options.shouldDownload || options.dataSource === 'local') {
    const how = options.dataSource === 'local' ? 'Use +data_source=huggingface with +should_download=true' : 'Run with `+should_download=true`';
    throw new NgymError(
      'NGYM_INPUT_INVALID',
      `Missing local datasets (${paths}). You must provide local datasets since download is disabled. ${how} to enable downloading.`,
    );
  }
  if (options.dataSource === 'gitlab') {
    throw new NgymError('NGYM_USAGE', 'data_source=gitlab (the MLflow registry) is not supported by ngym; use +data_source=huggingface.');
  }
  const token = options.huggingFace?.token ?? options.globalConfig.resolvedValue(['hf_token']);
  if (typeof token !== 'string' || token === '') {
    throw new NgymError('NGYM_USAGE', 'Downloading from Hugging Face needs `hf_token` (put `hf_token: hf_...` in env.yaml, or pass +hf_token=...).');
  }
  const endpoint = options.huggingFace?.endpoint ?? options.globalConfig.resolvedValue(['hf_endpoint']);
  const hub: HuggingFaceOptions = { ...options.huggingFace, token, endpoint: typeof endpoint === 'string' ? endpoint : undefined };
  for (const { agent, datasets } of missing) {
    for (const dataset of datasets) {
      print(`Downloading dataset \`${dataset.name}\` of \`${agent}\` from Hugging Face to ${dataset.jsonl_fpath}\n`);
      await downloadDataset(dataset, pathOf(dataset), options.dataSource ?? 'huggingface', hub);
    }
  }
}

/** Validates every row of a dataset and accumulates its metrics; each row counts `num_repeats` times. */
export async function computeDatasetMetrics(path: string, numRepeats = 1): Promise<{ metrics: DatasetMetrics; invalidRows: InvalidRow[] }> {
  const metrics = new DatasetMetrics();
  const invalidRows: InvalidRow[] = [];
  for await (const entry of readDatasetLines(path)) {
    if ('invalid' in entry) invalidRows.push(entry.invalid);
    else for (let repeat = 0; repeat < numRepeats; repeat++) metrics.observe(entry.row);
  }
  return { metrics, invalidRows };
}

type MetricsWrite = { status: 'written' | 'unchanged' } | { status: 'conflict'; conflictPath: string; diffs: string[] };

/** Writes metrics unless a committed file disagrees (then `<stem>_conflict.json` gets the new ones). */
function writeMetrics(path: string, metrics: Record<string, unknown>, overwriteConflicts: boolean): MetricsWrite {
  const text = pythonJsonDumpIndented(metrics);
  if (existsSync(path)) {
    let previous: unknown;
    try {
      previous = JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      throw new NgymError('NGYM_INPUT_INVALID', `${path} is not valid JSON (${(error as Error).message}); delete it and run again.`);
    }
    const diffs = diffMetrics(previous, metrics);
    if (diffs.length === 0) return { status: 'unchanged' };
    if (!overwriteConflicts) {
      const conflictPath = join(dirname(path), `${stem(path)}_conflict.json`);
      writeFileSync(conflictPath, text);
      return { status: 'conflict', conflictPath, diffs };
    }
  }
  writeFileSync(path, text);
  return { status: 'written' };
}

function conflictError(conflicts: string[]): NgymError {
  return new NgymError(
    'NGYM_INPUT_INVALID',
    `Found conflicting aggregate metrics that need to be corrected:${conflicts.map((path) => `\n- ${path}`).join('')}\n\n` +
      'This could be due to a change in how metrics are calculated, leading to outdated metrics, or to changed data. ' +
      `Compare the files, then delete the below file(s) and run again (or pass +overwrite_metrics_conflicts=true):${conflicts
        .map((path) => `\n- ${path.replace(/_conflict\.json$/, '.json')}`)
        .join('')}`,
  );
}

/** Writes `<stem>_prepare.jsonl`: every valid row, repeated, with `agent_ref` set, as Python's json.dumps prints it. */
async function writePrepareFile(source: string, target: string, agent: string, numRepeats: number): Promise<void> {
  const output = createWriteStream(target);
  try {
    for await (const entry of readDatasetLines(source)) {
      if ('invalid' in entry) continue;
      // Python's json.loads, so that rewriting the row keeps `1.0` a float and big ints exact.
      const row = pythonJsonLoads(entry.text, { floats: true, bigInts: true }) as Record<string, unknown>;
      row.agent_ref = { type: 'responses_api_agents', name: agent };
      const line = `${pythonJsonDumps(row)}\n`;
      for (let repeat = 0; repeat < numRepeats; repeat++) {
        if (!output.write(line)) await once(output, 'drain');
      }
    }
  } finally {
    output.end();
    await finished(output);
  }
}

export async function prepareData(options: PrepareDataOptions): Promise<PrepareDataResult> {
  const print = options.print ?? (() => {});
  const cwd = options.cwd ?? process.cwd();
  const pathOf = (dataset: DatasetConfig) => (isAbsolute(dataset.jsonl_fpath) ? dataset.jsonl_fpath : resolve(cwd, dataset.jsonl_fpath));
  const types = inScopeTypes(options.mode);

  print(title('Load and validate server instance configs'));
  const agents = agentDatasets(options.globalConfig, options.mode);
  print(`In scope dataset types for \`${options.mode}\` mode: ${types.join(', ')}\nFound ${agents.length} agent(s) with in-scope datasets:${listing(agents)}\n`);
  if (agents.length === 0) {
    throw new NgymError(
      'NGYM_USAGE',
      `No agent in the config has datasets of type ${types.join(' or ')}. Pass the environment's config with +config_paths=[...] (its agent lists them under \`datasets:\`).`,
    );
  }

  print(title(`Load datasets. Missing datasets ${options.shouldDownload ? '**WILL**' : 'will **NOT**'} be downloaded.`));
  await ensureDatasets(agents, options, pathOf);

  print(title('Validate samples and aggregate metrics'));
  const perType = new Map<DatasetType, DatasetTypeMetrics>();
  const computed: { dataset: DatasetConfig; metrics: DatasetMetrics }[] = [];
  const invalidRows: InvalidRow[] = [];
  for (const { datasets } of agents) {
    for (const dataset of datasets) {
      const result = await computeDatasetMetrics(pathOf(dataset), dataset.num_repeats);
      invalidRows.push(...result.invalidRows.map((row) => ({ ...row, path: dataset.jsonl_fpath })));
      for (const field of result.metrics.mixedKindFields) {
        print(`Warning: ${dataset.jsonl_fpath}: field \`${field}\` holds both numbers and strings; the metrics count only the kind seen first.\n`);
      }
      computed.push({ dataset, metrics: result.metrics });
    }
  }
  if (invalidRows.length > 0) {
    const report = invalidRows.map((row) => `  ${formatInvalidRow(row)}`).join('\n');
    if (!options.skipInvalidRows) {
      throw new NgymError(
        'NGYM_INPUT_INVALID',
        `${invalidRows.length} invalid row(s):\n${report}\nFix them, or pass +skip_invalid_rows=true to leave them out of the metrics and the prepared data.`,
      );
    }
    print(`Skipping ${invalidRows.length} invalid row(s) (left out of the metrics and the prepared data):\n${report}\n`);
  }
  const conflicts: string[] = [];
  for (const { dataset, metrics } of computed) {
    let typeMetrics = perType.get(dataset.type);
    if (typeMetrics === undefined) perType.set(dataset.type, (typeMetrics = new DatasetTypeMetrics()));
    typeMetrics.add(metrics);
    const metricsPath = join(dirname(pathOf(dataset)), `${stem(dataset.jsonl_fpath)}_metrics.json`);
    const write = writeMetrics(metricsPath, datasetMetricsFile(dataset, metrics), options.overwriteMetricsConflicts ?? false);
    if (write.status === 'conflict') {
      print(`Differences found in aggregate metrics of ${metricsPath}:\n${write.diffs.map((diff) => `  - ${diff}`).join('\n')}\n`);
      conflicts.push(write.conflictPath);
    } else {
      print(`Aggregate metrics for ${metricsPath}${write.status === 'unchanged' ? ' (up to date, not rewritten)' : ''}\n`);
    }
  }
  if (conflicts.length > 0) throw conflictError(conflicts);

  print(title('Collate samples and aggregate metrics'));
  const outputDir = resolve(cwd, options.outputDir);
  mkdirSync(outputDir, { recursive: true });
  const result: PrepareDataResult = { outputs: {}, invalidRows, metrics: {} };
  for (const type of types) {
    const typeMetrics = perType.get(type);
    if (typeMetrics === undefined) continue;
    const aggregated = typeMetrics.aggregate();
    const metricsPath = join(outputDir, `${type}_metrics.json`);
    const write = writeMetrics(metricsPath, aggregated, options.overwriteMetricsConflicts ?? false);
    if (write.status === 'conflict') {
      print(`Differences found in aggregate metrics of ${metricsPath}:\n${write.diffs.map((diff) => `  - ${diff}`).join('\n')}\n`);
      conflicts.push(write.conflictPath);
      continue;
    }
    const prepared: string[] = [];
    for (const { agent, datasets } of agents) {
      for (const dataset of datasets.filter((candidate) => candidate.type === type)) {
        const target = join(dirname(pathOf(dataset)), `${stem(dataset.jsonl_fpath)}_prepare.jsonl`);
        await writePrepareFile(pathOf(dataset), target, agent, dataset.num_repeats);
        prepared.push(target);
      }
    }
    const collated = join(outputDir, `${type}.jsonl`);
    const partial = `${collated}.partial`;
    for (const [index, path] of prepared.entries()) {
      await pipeline(createReadStream(path), createWriteStream(partial, { flags: index === 0 ? 'w' : 'a' }));
    }
    renameSync(partial, collated);
    result.outputs[type] = collated;
    result.metrics[type] = aggregated;
    print(`Aggregate metrics for ${metricsPath}\n`);
  }
  if (conflicts.length > 0) throw conflictError(conflicts);

  print(title('Finished!'));
  print(`View your final data!${Object.entries(result.outputs).map(([type, path]) => `\n- ${type}: ${path}`).join('')}\n`);
  return result;
}
