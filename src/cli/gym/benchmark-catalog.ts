/**
 * `gym list benchmarks [name]` (and `gym search benchmarks`, `gym list environments --kind benchmark`): the
 * benchmarks of an installed NeMo Gym (src/data/benchmarks.ts) with upstream's catalog fields (its manifest's,
 * else the domain and description of the servers the config includes); one benchmark also shows what ngym
 * runs: its agent, repeats, prompt config, data (prepared or not) and whether its resources servers are ngym's
 * TypeScript ports or upstream's Python.
 */
import { relative } from 'node:path';
import { loadGlobalConfig } from '../../config/global-config.ts';
import { type Benchmark, benchmarkRoots, discoverBenchmarks, findBenchmark } from '../../data/benchmarks.ts';
import { type BenchmarkSelection, composedMetadata, inspectBenchmark } from './benchmark.ts';
import { type FacetValues, filterByFacets, manifestFacets } from './catalog-facets.ts';

interface BenchmarkEntry {
  name: string;
  kind: 'benchmark';
  status?: string;
  domain: string;
  description: string;
  version?: string;
  integration_profile?: string;
  modality?: string;
  licensing?: string;
  lifecycle?: string;
}

export interface BenchmarkListing {
  name?: string;
  query?: string;
  domain?: string;
  json: boolean;
  searchDirs?: string[];
  facets?: FacetValues;
}

function entryOf(benchmark: Benchmark, selection: BenchmarkSelection): BenchmarkEntry {
  const manifest = benchmark.manifest;
  const described = manifest?.domain !== undefined && manifest.description !== undefined ? undefined : composedMetadata(benchmark.configPath, selection);
  const entry: BenchmarkEntry = { name: benchmark.name, kind: 'benchmark', domain: manifest?.domain ?? described?.domain ?? '', description: manifest?.description ?? described?.description ?? '' };
  Object.assign(entry, manifestFacets(manifest as Record<string, unknown> | undefined));
  for (const key of ['version', 'integration_profile'] as const) if (manifest?.[key] !== undefined) entry[key] = manifest[key];
  return entry;
}

function printTable(entries: BenchmarkEntry[], write: (text: string) => void): void {
  const width = (key: 'name' | 'status' | 'domain') => Math.max(key.length, ...entries.map((entry) => (entry[key] ?? '').length));
  const [name, status, domain] = [width('name'), width('status'), width('domain')];
  write(`${'name'.padEnd(name)}  ${'status'.padEnd(status)}  ${'domain'.padEnd(domain)}  description\n`);
  for (const entry of entries) write(`${entry.name.padEnd(name)}  ${(entry.status ?? '').padEnd(status)}  ${entry.domain.padEnd(domain)}  ${entry.description}\n`);
}

export function printBenchmarks(request: BenchmarkListing, write: (text: string) => void, cwd: string): number {
  const selection: BenchmarkSelection = { benchmarks: [], searchDirs: request.searchDirs ?? [] };
  const roots = benchmarkRoots(loadGlobalConfig({ cwd }).dict, { searchDirs: selection.searchDirs, cwd });
  if (request.name !== undefined) {
    const benchmark = findBenchmark(request.name, roots);
    const entry = entryOf(benchmark, selection);
    const details = inspectBenchmark(benchmark.configPath, selection);
    const usage = [`gym eval prepare --benchmark ${benchmark.name}`, `gym eval run --benchmark ${benchmark.name} --model-type vllm_model -o results/${benchmark.name.replaceAll('/', '_')}_rollouts.jsonl`];
    if (request.json) {
      write(`${JSON.stringify({ ...entry, config: benchmark.configPath, manifest: benchmark.manifest?.path ?? null, ...details, usage_example: usage.join('\n') }, null, 2)}\n`);
      return 0;
    }
    const lines = [`${entry.name} (benchmark${entry.domain ? `, domain: ${entry.domain}` : ''})`, ...(entry.description ? [`  ${entry.description}`] : []), `  config: ${benchmark.configPath}`];
    if (benchmark.manifest !== undefined) lines.push(`  manifest: ${benchmark.manifest.path}`);
    for (const key of ['status', 'version', 'modality', 'licensing', 'lifecycle'] as const) if (entry[key] !== undefined) lines.push(`  ${key}: ${entry[key]}`);
    lines.push(`  agent: ${details.agent} (${details.agent_type})`, `  num repeats: ${details.num_repeats}`);
    lines.push(`  dataset: ${relative(cwd, details.dataset).startsWith('..') ? details.dataset : relative(cwd, details.dataset)} (${details.prepared ? 'prepared' : 'not prepared yet'})`);
    if (details.prompt_config !== undefined) lines.push(`  prompt config: ${details.prompt_config}`);
    if (details.prepare_script !== undefined) lines.push(`  prepare script: ${details.prepare_script}`);
    for (const server of details.resources_servers) lines.push(`  resources server: ${server.instance} (${server.implementation}, ${server.runs === 'typescript' ? "ngym's TypeScript port" : "upstream's Python, hosted by ngym"})`);
    lines.push('  usage:', ...usage.map((line) => `    ${line}`));
    write(`${lines.join('\n')}\n`);
    return 0;
  }
  const needle = request.query?.toLowerCase();
  const entries = filterByFacets(
    discoverBenchmarks(roots)
      .map((benchmark) => entryOf(benchmark, selection))
      .filter((entry) => (needle === undefined || [entry.name, entry.domain, entry.description].some((text) => text.toLowerCase().includes(needle))) && (request.domain === undefined || entry.domain === request.domain)),
    request.facets ?? {},
  );
  if (request.json) write(`${JSON.stringify(entries)}\n`);
  else if (entries.length === 0) write(needle === undefined ? `No benchmarks found in ${roots.join(', ')}: install nemo-gym (npm run setup:python) or name its folder with +python_server_roots=[...].\n` : `No benchmarks match '${request.query}'.\n`);
  else printTable(entries, write);
  return 0;
}
