/**
 * Upstream NeMo Gym's benchmarks where they are installed: `benchmarks/<name>/config.yaml` (plus `manifest.yaml`,
 * `prepare.py`, `prompts/`) under a root laid out like NeMo Gym's, read in place, never copied. The roots, first
 * match of a name wins (so a user's benchmark shadows a built-in one, as upstream): `--search-dir` folders and
 * `NEMO_GYM_EXTRA_ROOTS` (upstream's variable), the working directory, the ngym package, then the installed
 * upstream NeMo Gym (src/config/upstream-roots.ts: `python_server_roots`, else the nemo-gym of benchmarkPython's
 * interpreter, a wheel's site-packages or a git checkout).
 *
 * A benchmark is a config declaring exactly one dataset of `type: benchmark`, found by content as upstream does;
 * its name is its path under `benchmarks/` without `.yaml` (`aime24` for `aime24/config.yaml`,
 * `livecodebench/v5_2408_2502` for `livecodebench/v5_2408_2502/config.yaml`, `apex25/config_with_system`).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { defaultSearchRoots } from '../config/server-instances.ts';
import { isDict } from '../config/tree.ts';
import { type UpstreamRootSettings, upstreamRoots } from '../config/upstream-roots.ts';
import { NgymError } from '../errors.ts';
import { benchmarkPython } from './benchmark-python.ts';
import { didYouMean } from '../util/did-you-mean.ts';

const BENCHMARKS_FOLDER = 'benchmarks';
const MANIFEST = 'manifest.yaml';

export interface BenchmarkRootOptions {
  /** `--search-dir` folders, searched first. */
  searchDirs?: readonly string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

/** The roots benchmarks (and the relative paths in their configs) are looked up in, in order. */
export function benchmarkRoots(settings: UpstreamRootSettings, options: BenchmarkRootOptions = {}): string[] {
  const cwd = resolve(options.cwd ?? process.cwd());
  const extra = (options.env ?? process.env).NEMO_GYM_EXTRA_ROOTS?.split(delimiter).filter((root) => root !== '') ?? [];
  const roots = [...(options.searchDirs ?? []), ...extra].map((root) => resolve(cwd, root));
  // The nemo-gym of the Python that runs the benchmarks' scripts, unless python_server_roots names the roots.
  const python = { ...settings, python_executable: benchmarkPython(settings, cwd) };
  return [...new Set([...roots, ...defaultSearchRoots(cwd), ...upstreamRoots(python, cwd)])];
}

/** A relative path (`benchmarks/prompts/generic/math.yaml`) in the first root that has it; an absolute one as is. */
export function findUnderRoots(path: string, roots: readonly string[]): string | undefined {
  if (isAbsolute(path)) return existsSync(path) ? path : undefined;
  return roots.map((root) => join(root, path)).find((candidate) => existsSync(candidate));
}

/** What a benchmark's `manifest.yaml` says about it (upstream's catalog metadata). */
interface BenchmarkManifest {
  path: string;
  /** The manifest's folder under `benchmarks/`: the benchmark's name. */
  name: string;
  version?: string;
  experimental?: boolean;
  domain?: string;
  description?: string;
  modality?: string;
  licensing?: string;
  lifecycle?: string;
  integration_profile?: string;
}

export interface Benchmark {
  name: string;
  configPath: string;
  /** The root holding its `benchmarks/` folder: relative paths in its config (data, prompts, prepare script) start here. */
  root: string;
  manifest?: BenchmarkManifest;
}

/** How many `type: benchmark` datasets a config declares in its own text (includes are not followed). */
function benchmarkDatasetCount(node: unknown): number {
  if (Array.isArray(node)) return node.reduce((sum: number, item) => sum + benchmarkDatasetCount(item), 0);
  if (!isDict(node)) return 0;
  return (node.type === 'benchmark' ? 1 : 0) + Object.values(node).reduce((sum: number, value) => sum + benchmarkDatasetCount(value), 0);
}

function readYamlLoosely(path: string): unknown {
  try {
    return parseYaml(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

function yamlFiles(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.yaml'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

function manifestOf(path: string, folder: string): { configPath: string; manifest: BenchmarkManifest } | undefined {
  const raw = readYamlLoosely(path);
  if (!isDict(raw) || raw.kind !== 'benchmark') return undefined;
  const configPath = resolve(dirname(path), text(raw.config_path) ?? 'config.yaml');
  if (!existsSync(configPath)) return undefined;
  const manifest: BenchmarkManifest = { path, name: relative(folder, dirname(path)) };
  for (const key of ['version', 'domain', 'description', 'modality', 'licensing', 'lifecycle', 'integration_profile'] as const) {
    const value = text(raw[key]);
    if (value !== undefined) manifest[key] = value;
  }
  if (typeof raw.experimental === 'boolean') manifest.experimental = raw.experimental;
  return { configPath, manifest };
}

/** The benchmarks under one root's `benchmarks/` folder, by name. */
function benchmarksIn(root: string): Map<string, Benchmark> {
  const folder = join(root, BENCHMARKS_FOLDER);
  const found = new Map<string, Benchmark>();
  if (!existsSync(folder)) return found;
  const files = yamlFiles(folder);
  const manifests = new Map<string, BenchmarkManifest>();
  for (const file of files.filter((path) => path.endsWith(`/${MANIFEST}`))) {
    const entry = manifestOf(file, folder);
    if (entry !== undefined) manifests.set(entry.configPath, entry.manifest);
  }
  for (const file of files) {
    if (file.endsWith(`/${MANIFEST}`) || !readFileSync(file, 'utf8').includes('benchmark')) continue;
    if (benchmarkDatasetCount(readYamlLoosely(file)) !== 1) continue;
    const manifest = manifests.get(file);
    // Upstream's names: the manifest's folder, else the path without `.yaml` (`<name>/config.yaml` is `<name>`).
    const path = relative(folder, file).replace(/\.yaml$/, '');
    const name = manifest?.name ?? (/^[^/]+\/config$/.test(path) ? path.slice(0, -'/config'.length) : path);
    found.set(name, { name, configPath: file, root, ...(manifest === undefined ? {} : { manifest }) });
  }
  return found;
}

/** Every benchmark over the roots, sorted by name; a name in an earlier root hides the same name in a later one. */
export function discoverBenchmarks(roots: readonly string[]): Benchmark[] {
  const all = new Map<string, Benchmark>();
  for (const root of roots) for (const [name, benchmark] of benchmarksIn(root)) if (!all.has(name)) all.set(name, benchmark);
  // Upstream's order: by the case-folded name, code point by code point.
  return [...all.values()].sort((a, b) => (a.name.toLowerCase() < b.name.toLowerCase() ? -1 : a.name.toLowerCase() > b.name.toLowerCase() ? 1 : 0));
}

/** The benchmark of this name; an unknown name is an error with the nearest names and where they were looked for. */
export function findBenchmark(name: string, roots: readonly string[]): Benchmark {
  const benchmarks = discoverBenchmarks(roots);
  // Also as upstream's `--benchmark` resolves it: `benchmarks/<name>/config.yaml` or `benchmarks/<name>.yaml`.
  const configOf = (benchmark: Benchmark) => [join(benchmark.root, BENCHMARKS_FOLDER, name, 'config.yaml'), join(benchmark.root, BENCHMARKS_FOLDER, `${name}.yaml`)];
  const found = benchmarks.find((benchmark) => benchmark.name === name) ?? benchmarks.find((benchmark) => configOf(benchmark).includes(benchmark.configPath));
  if (found !== undefined) return found;
  const names = benchmarks.map((benchmark) => benchmark.name);
  // A folder that only groups benchmarks (livecodebench) is not one itself: point at what is under it.
  const under = names.filter((candidate) => candidate.startsWith(`${name}/`)).sort((a, b) => a.length - b.length);
  const hint = under.length > 0 ? ` (did you mean \`${under[0]}\`?)` : didYouMean(name, names);
  const folders = roots.map((root) => join(root, BENCHMARKS_FOLDER)).filter((folder) => existsSync(folder));
  const where = folders.length === 0 ? `No benchmarks/ folder was found in ${roots.join(', ')}: install nemo-gym (npm run setup:python), or name its folder with +python_server_roots=[...]` : `Benchmarks are read from ${folders.join(', ')}`;
  throw new NgymError('NGYM_USAGE', `No benchmark named '${name}'${hint}. ${where}; \`gym list benchmarks\` lists them.`);
}
