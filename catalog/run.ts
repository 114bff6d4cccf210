/**
 * `npm run catalog -- [names...|all] [--jobs N] [--out DIR] [--cold] [--check]`: every server of upstream NeMo Gym
 * 0.7.0's wheel under `ngym run` (docs/environments/catalog.md). A resources server is checked against its own
 * recording (check-resources-server.ts); an agent, model server or environment server is started with its own
 * config (check-start.ts). Results go to `<out>/catalog.json` (default results/catalog/), merged with those of
 * earlier runs for servers not named now, and docs/environments/catalog.md is rendered from them. `--check` exits
 * 1 when a named resources server does not equal its recording nor (drawing at random) run within its declared reward
 * range, or a named other server does not start;
 * `--render` only renders the doc from an existing catalog.json.
 *
 * Names: `all`; a resources server's folder name; `<kind>/<name>` for any server (`responses_api_agents/tau2`); or a
 * kind (`resources_servers`, `responses_api_agents`, `responses_api_models`, `environment_servers`) for all of it.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, release, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { upstreamWheel } from '../src/testing/upstream-wheel.ts';
import { PACKAGE_ROOT } from '../src/util/package-root.ts';
import { checkResourcesServer, type RunOptions, type ServerResult } from './check-resources-server.ts';
import { checkStart } from './check-start.ts';
import { stopAllSessions } from './gym-session.ts';
import { type Catalog, type Machine, renderCatalog, summaryOf } from './render.ts';
import { planResourcesServer, SERVER_KINDS, type ServerKind, serverFolders } from './upstream-servers.ts';

const USAGE = 'Usage: npm run catalog -- [all | <resources server> | <kind>/<name> | <kind> ...] [--jobs N] [--out DIR] [--cold] [--check] [--render] [--start-timeout S] [--collect-timeout S]';
const DOC = join(PACKAGE_ROOT, 'docs', 'environments', 'catalog.md');

interface Job {
  kind: ServerKind;
  name: string;
}

function positiveInteger(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new Error(`--${flag} must be a whole number >= 1, got ${JSON.stringify(value)}\n${USAGE}`);
  return parsed;
}

function selectJobs(names: readonly string[], sitePackages: string): Job[] {
  const folders = new Map(SERVER_KINDS.map((kind) => [kind, serverFolders(sitePackages, kind)]));
  const all = (kind: ServerKind) => (folders.get(kind) ?? []).map((name) => ({ kind, name }));
  const jobs: Job[] = [];
  for (const name of names) {
    if (name === 'all') jobs.push(...SERVER_KINDS.flatMap(all));
    else if ((SERVER_KINDS as readonly string[]).includes(name)) jobs.push(...all(name as ServerKind));
    else {
      const [kind, folder] = name.includes('/') ? (name.split('/', 2) as [ServerKind, string]) : (['resources_servers', name] as [ServerKind, string]);
      if (!folders.get(kind)?.includes(folder)) {
        throw new Error(`Upstream 0.7.0 has no server ${kind}/${folder} in ${sitePackages} (upstream's rule: a folder whose configs/*.yaml declares that kind's block; see serverFolders).\n${USAGE}`);
      }
      jobs.push({ kind, name: folder });
    }
  }
  const seen = new Set<string>();
  return jobs.filter((job) => !seen.has(`${job.kind}/${job.name}`) && seen.add(`${job.kind}/${job.name}`));
}

function machine(): Machine {
  const osRelease = existsSync('/etc/os-release') ? /^PRETTY_NAME="?([^"\n]+)"?/m.exec(readFileSync('/etc/os-release', 'utf8'))?.[1] : undefined;
  return { cpus: cpus().length, memoryGiB: Math.round(totalmem() / 2 ** 30), os: `${osRelease ?? process.platform} (Linux ${release()})`, node: process.version };
}

function progressLine(index: number, total: number, result: ServerResult): string {
  const where = result.kind === 'resources_servers' ? result.name : `${result.kind}/${result.name}`;
  const parts = [result.hosting ?? '-'];
  if (result.status === 'equal' || result.status === 'differs' || result.status === 'in-range') parts.push(`${result.equal}/${result.total} equal${result.status === 'equal' && result.weak === true ? ' (weak: every recorded reward the same)' : ''}`);
  if (result.status === 'in-range' && result.rewardRange !== undefined) parts.push(`every row within ${result.rewardRange.lower}..${result.rewardRange.upper}`);
  if (result.status === 'started') parts.push('started');
  if (result.readySeconds !== undefined) parts.push(`ready ${result.readySeconds.toFixed(1)} s`);
  const built = Object.entries(result.builds ?? {}).map(([folder, seconds]) => `built ${folder} in ${seconds.toFixed(1)} s`);
  const reason = result.status === 'equal' || result.status === 'started' || result.status === 'in-range' ? '' : ` — ${result.reason?.category ?? 'failed'}: ${result.reason?.text ?? ''}`;
  return `[${index}/${total}] ${where}: ${[...parts, ...built].join(', ')}${reason}\n`;
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    options: {
      jobs: { type: 'string' },
      out: { type: 'string' },
      cold: { type: 'boolean' },
      check: { type: 'boolean' },
      render: { type: 'boolean' },
      'start-timeout': { type: 'string' },
      'collect-timeout': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const wheel = upstreamWheel();
  if (wheel.skipReason !== null) throw new Error(wheel.skipReason);
  if (values.render === true) {
    const path = join(resolve(values.out ?? join(PACKAGE_ROOT, 'results', 'catalog')), 'catalog.json');
    if (!existsSync(path)) throw new Error(`--render: no ${path}; run the catalog first.`);
    writeFileSync(DOC, renderCatalog(JSON.parse(readFileSync(path, 'utf8')) as Catalog));
    process.stdout.write(`${DOC} rendered from ${path}\n`);
    return 0;
  }
  const jobs = selectJobs(positionals.length === 0 ? ['all'] : positionals, wheel.sitePackages);
  const out = resolve(values.out ?? join(PACKAGE_ROOT, 'results', 'catalog'));
  mkdirSync(out, { recursive: true });
  const options = (job: Job): RunOptions => ({
    sitePackages: wheel.sitePackages,
    workFolder: join(out, 'work', job.kind, job.name),
    cold: values.cold === true,
    startTimeoutMs: positiveInteger(values['start-timeout'], 'start-timeout', 900) * 1000,
    collectTimeoutMs: positiveInteger(values['collect-timeout'], 'collect-timeout', 300) * 1000,
  });
  const concurrency = positiveInteger(values.jobs, 'jobs', 2);

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      process.stderr.write(`\n${signal}: stopping every ngym run the catalog started...\n`);
      void stopAllSessions().finally(() => process.exit(130));
    });
  }

  const started = Date.now();
  const results: ServerResult[] = [];
  let done = 0;
  const catalogPath = join(out, 'catalog.json');
  const earlier = existsSync(catalogPath) ? (JSON.parse(readFileSync(catalogPath, 'utf8')) as Catalog) : undefined;
  const key = (result: ServerResult) => `${result.kind}/${result.name}`;
  // Written after every server, so an interrupted run keeps what it measured.
  const catalogNow = (): Catalog => {
    const now = new Set(results.map(key));
    return {
      date: new Date().toISOString().slice(0, 10),
      machine: machine(),
      upstream: `nemo-gym 0.7.0 (${wheel.sitePackages.replace(PACKAGE_ROOT + '/', '')})`,
      results: [...(earlier?.results ?? []).filter((result) => !now.has(key(result))), ...results].sort((a, b) => key(a).localeCompare(key(b))),
    };
  };
  // Resources servers first: the agents their runs start count as started.
  const resources = jobs.filter((job) => job.kind === 'resources_servers');
  const others = jobs.filter((job) => job.kind !== 'resources_servers');
  const finish = (result: ServerResult) => {
    results.push(result);
    done++;
    process.stdout.write(progressLine(done, jobs.length, result));
    writeFileSync(catalogPath, `${JSON.stringify(catalogNow(), null, 2)}\n`);
  };
  await pool(resources, concurrency, async (job) => finish(await checkResourcesServer(planResourcesServer(wheel.sitePackages, job.name), options(job))));
  // Earlier runs' resources servers count too: a run of agents alone (`npm run catalog -- responses_api_agents`) must
  // not lose the agents that started only as part of a resources server's run.
  const known = catalogNow().results;
  const startedAgents = new Map<string, string>();
  for (const result of known) if (result.kind === 'resources_servers' && result.readySeconds !== undefined && result.agentImpl !== undefined && !startedAgents.has(result.agentImpl)) startedAgents.set(result.agentImpl, result.name);
  const replayFile = join(wheel.sitePackages, 'resources_servers', 'blackjack', 'data', 'example_rollouts.jsonl');
  await pool(others, concurrency, async (job) => {
    const via = job.kind === 'responses_api_agents' ? startedAgents.get(job.name) : undefined;
    if (via !== undefined) finish({ name: job.name, kind: job.kind, status: 'started', via, hosting: hostingOf(known, via) });
    else finish(await checkStart(job.kind as Exclude<ServerKind, 'resources_servers'>, job.name, replayFile, options(job)));
  });

  const catalog = catalogNow();
  writeFileSync(catalogPath, `${JSON.stringify(catalog, null, 2)}\n`);
  if (values.out === undefined) writeFileSync(DOC, renderCatalog(catalog));
  const summary = summaryOf(results);
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  const inRange = summary.inRange > 0 ? `, ${summary.inRange} more run every row within their declared reward range (random)` : '';
  const weak = summary.weak > 0 ? ` (${summary.weak} of them weak evidence: every recorded reward the same)` : '';
  process.stdout.write(`\n${summary.equal} of ${summary.total} resources servers equal their recordings under strict replay, every field compared${weak}${inRange} (this run, ${minutes} min). ${catalogPath}${values.out === undefined ? `, ${DOC}` : ''}\n`);
  if (values.check === true) {
    const unequal = results.filter((result) => (result.kind === 'resources_servers' ? result.status !== 'equal' && result.status !== 'in-range' : result.status !== 'started'));
    if (unequal.length > 0) {
      process.stdout.write(`--check: ${unequal.map((result) => `${result.name} (${result.reason?.text ?? result.status})`).join('; ')}\n`);
      return 1;
    }
  }
  return 0;
}

/** The hosting of an agent as its resources server's run showed it. */
function hostingOf(results: readonly ServerResult[], server: string): ServerResult['hosting'] {
  const result = results.find((candidate) => candidate.kind === 'resources_servers' && candidate.name === server);
  const runs = result?.agent === undefined ? undefined : result.runs?.[result.agent];
  return runs === undefined ? undefined : runs === 'TypeScript' ? 'TypeScript' : 'Python';
}

async function pool<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) await work(items[next++] as T);
    }),
  );
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    void stopAllSessions().finally(() => process.exit(2));
  },
);
