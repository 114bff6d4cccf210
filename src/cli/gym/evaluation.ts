/**
 * The `gym eval` commands ngym builds itself:
 *   aggregate  merge rollout shards (in (task, rollout) order), compute their metrics and health-check them, as
 *              `ngym collect` does;
 *   reverify   re-score recorded rollouts through a running gym's resources servers: each rollout's session is
 *              seeded, its tool calls replayed (so a stateful environment reaches the same state) and /verify
 *              asked again; rollouts that cannot be re-scored are listed as failures, never scored 0;
 *   profile    upstream's reward profile (what /aggregate_metrics answers by default) of a rollouts file.
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import * as z from 'zod';
import { CookieJar } from '../../client/cookies.ts';
import { raiseForStatus, ServerClient } from '../../client/server-client.ts';
import { loadGlobalConfig } from '../../config/global-config.ts';
import { isDict } from '../../config/tree.ts';
import { NgymError } from '../../errors.ts';
import { readJsonl } from '../../rollouts/jsonl.ts';
import { JsonlAppender, outputPathsFor } from '../../rollouts/output-files.ts';
import { aggregateMetricsEntry, rewardProfiles } from '../../rollouts/reward-profiles.ts';
import { checkRolloutsHealth, formatHealthReport } from '../../rollouts/rollout-health.ts';
import { computeMetrics } from '../../metrics/rollout-metrics.ts';
import { headServerClient, readParameters } from '../command.ts';

type Row = Record<string, unknown>;
const write = (text: string) => process.stdout.write(text);

async function readRows(path: string): Promise<Row[]> {
  if (!existsSync(path)) throw new NgymError('NGYM_USAGE', `No such rollouts file: ${path}`);
  const rows: Row[] = [];
  for await (const { line, value } of readJsonl(path)) {
    if (!isDict(value)) throw new NgymError('NGYM_INPUT_INVALID', `${path}:${line}: a rollout must be a JSON object.`);
    rows.push(value);
  }
  return rows;
}

/** Files matching a glob whose wildcards (`*`, `?`) may be in any path segment, sorted. */
function expandGlob(pattern: string, cwd = process.cwd()): string[] {
  const absolute = isAbsolute(pattern) ? pattern : join(cwd, pattern);
  const segments = absolute.split('/');
  let paths = [segments[0] === '' ? '/' : (segments[0] as string)];
  for (const segment of segments.slice(1)) {
    if (segment === '') continue;
    if (!/[*?]/.test(segment)) {
      paths = paths.map((path) => join(path, segment)).filter(existsSync);
      continue;
    }
    const matcher = new RegExp(`^${segment.replace(/[.+^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*').replaceAll('?', '.')}$`);
    paths = paths.flatMap((path) => (existsSync(path) ? readdirSync(path).filter((name) => matcher.test(name)).map((name) => join(path, name)) : []));
  }
  return paths.sort();
}

const taskOrder = (a: Row, b: Row) => Number(a._ng_task_index ?? 0) - Number(b._ng_task_index ?? 0) || Number(a._ng_rollout_index ?? 0) - Number(b._ng_rollout_index ?? 0);
const agentOf = (row: Row) => (isDict(row.agent_ref) && typeof row.agent_ref.name === 'string' ? row.agent_ref.name : undefined);

function metricsOf(rows: Row[]): ReturnType<typeof computeMetrics> {
  const repeats = new Map<unknown, number>();
  for (const row of rows) repeats.set(row._ng_task_index, (repeats.get(row._ng_task_index) ?? 0) + 1);
  return computeMetrics(rows, { numRepeats: Math.max(1, ...repeats.values()) });
}

const formatMetrics = (metrics: Record<string, number>) => Object.entries(metrics).map(([key, value]) => `${key}=${Number(value.toFixed(4))}`).join(' ');

const AggregateParameters = z.object({
  input_glob: z.string().min(1),
  output_jsonl_fpath: z.string().min(1),
  merge_shards: z.boolean().default(true),
  disable_health_check: z.boolean().default(false),
  health_check_ignored_checks: z.union([z.string(), z.array(z.string())]).optional(),
});

export async function aggregateRollouts(args: string[]): Promise<number> {
  const parameters = readParameters(loadGlobalConfig({ overrides: args }), AggregateParameters);
  const shards = expandGlob(parameters.input_glob).filter((path) => outputPathsFor(path).output !== outputPathsFor(parameters.output_jsonl_fpath).output);
  if (shards.length === 0) throw new NgymError('NGYM_USAGE', `No rollout shards match --input-glob ${parameters.input_glob}.`);
  const rows = (await Promise.all(shards.map(readRows))).flat().sort(taskOrder);
  write(`Aggregating ${shards.length} shard(s), ${rows.length} rollouts:\n${shards.map((path) => `  - ${path}\n`).join('')}`);
  const paths = outputPathsFor(parameters.output_jsonl_fpath);
  if (parameters.merge_shards) writeFileSync(paths.output, rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
  const metrics = metricsOf(rows);
  writeFileSync(paths.metrics, `${JSON.stringify(metrics, null, 2)}\n`);
  const aggregatePath = paths.aggregateMetrics;
  const entries = Object.entries(rewardProfiles(rows)).map(([agent, profile]) => aggregateMetricsEntry(agent, profile as unknown as Record<string, unknown>));
  writeFileSync(aggregatePath, `${JSON.stringify(entries, null, 2)}\n`);
  write(`${metrics.rollouts} rollouts over ${metrics.tasks} tasks: ${formatMetrics(metrics.metrics)}\n`);
  write(`${parameters.merge_shards ? `Rollouts: ${paths.output}\n` : ''}Metrics: ${paths.metrics}\nAggregate metrics: ${aggregatePath}\n`);
  if (parameters.merge_shards && !parameters.disable_health_check) {
    write(`${formatHealthReport(await checkRolloutsHealth(paths.output, { ignoredChecks: parameters.health_check_ignored_checks })).join('\n')}\n`);
  }
  return 0;
}

const ProfileParameters = z.object({ rollouts_jsonl_fpath: z.string().min(1), materialized_inputs_jsonl_fpath: z.string().min(1).optional() });

export async function profileRollouts(args: string[]): Promise<number> {
  const parameters = readParameters(loadGlobalConfig({ overrides: args }), ProfileParameters);
  const rows = await readRows(parameters.rollouts_jsonl_fpath);
  const profiles = rewardProfiles(rows);
  const path = outputPathsFor(parameters.rollouts_jsonl_fpath).output.replace(/\.jsonl$/, '_reward_profile.json');
  writeFileSync(path, `${JSON.stringify(profiles, null, 2)}\n`);
  for (const [agent, profile] of Object.entries(profiles)) write(`${agent}: ${JSON.stringify((profile as { key_metrics: unknown }).key_metrics)}\n`);
  write(`Reward profile: ${path}\n`);
  return 0;
}

const ReverifyParameters = z.object({
  rollouts_jsonl_fpath: z.string().min(1),
  output_jsonl_fpath: z.string().min(1),
  agent_name: z.string().min(1).optional(),
  num_samples_in_parallel: z.number().int().min(1).default(16),
  limit: z.number().int().min(0).optional(),
  overwrite: z.boolean().default(false),
});

/** The fields a verify answer adds to the task row; they are recomputed, not sent. */
const VERIFY_OUTPUT_FIELDS = new Set(['reward', '_ng_perf']);

async function reverifyOne(client: ServerClient, row: Row, agentName: string | undefined): Promise<Row> {
  const agent = agentOf(row) ?? agentName;
  if (agent === undefined) throw new NgymError('NGYM_USAGE', 'the rollout has no agent_ref; pass --agent <name> (+agent_name).');
  const resources = client.config.resolvedServerConfig(agent).resources_server;
  if (!isDict(resources) || typeof resources.name !== 'string') throw new NgymError('NGYM_USAGE', `agent '${agent}' has no resources_server to verify with.`);
  const server = resources.name;
  const task = Object.fromEntries(Object.entries(row).filter(([key]) => !VERIFY_OUTPUT_FIELDS.has(key)));
  const cookies = new CookieJar();
  cookies.merge(raiseForStatus(await client.post(server, '/seed_session', task, { cookies })).cookies);
  const output = isDict(row.response) && Array.isArray(row.response.output) ? row.response.output : [];
  for (const item of output) {
    if (!isDict(item) || item.type !== 'function_call' || typeof item.name !== 'string') continue;
    // The agent's tool calls again, in order, so the session's state is what it was when the rollout was verified.
    let body: unknown;
    try {
      body = JSON.parse(String(item.arguments));
    } catch {
      continue; // the agent never sent an unparsable call either
    }
    cookies.merge((await client.post(server, `/${item.name}`, body, { cookies })).cookies);
  }
  const verified = raiseForStatus(await client.post(server, '/verify', task, { cookies })).json<Row>();
  return { ...row, ...verified };
}

export async function reverifyRollouts(args: string[]): Promise<number> {
  const globalConfig = loadGlobalConfig({ overrides: args });
  const parameters = readParameters(globalConfig, ReverifyParameters);
  const paths = outputPathsFor(parameters.output_jsonl_fpath);
  if (existsSync(paths.output) && !parameters.overwrite) {
    throw new NgymError('NGYM_USAGE', `${paths.output} exists; pass --overwrite to replace it.`);
  }
  const rows = (await readRows(parameters.rollouts_jsonl_fpath)).slice(0, parameters.limit);
  const client = await headServerClient(globalConfig);
  const results: (Row | undefined)[] = new Array(rows.length);
  const failures: Row[] = [];
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < rows.length; index = next++) {
      const row = rows[index] as Row;
      try {
        results[index] = await reverifyOne(client, row, parameters.agent_name);
      } catch (error) {
        failures.push({ _ng_task_index: row._ng_task_index, _ng_rollout_index: row._ng_rollout_index, line: index + 1, error: (error as Error).message });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(parameters.num_samples_in_parallel, rows.length) }, worker));
  const verified = results.filter((row): row is Row => row !== undefined);
  const appender = await JsonlAppender.open(paths.output, { truncate: true });
  for (const row of verified) appender.append(JSON.stringify(row));
  await appender.close();
  const failuresAppender = await JsonlAppender.open(paths.failures, { truncate: true, lazy: true });
  for (const failure of failures) failuresAppender.append(JSON.stringify(failure));
  await failuresAppender.close();
  const changed = results.filter((row, index) => row !== undefined && row.reward !== rows[index]?.reward).length;
  const mean = (values: Row[]) => (values.length === 0 ? NaN : values.reduce((sum, row) => sum + Number(row.reward), 0) / values.length);
  write(`Re-verified ${verified.length} / ${rows.length} rollouts: mean reward ${Number(mean(rows).toFixed(4))} recorded, ${Number(mean(verified).toFixed(4))} now; ${changed} changed.\n`);
  write(`Rollouts: ${paths.output}\n`);
  if (failures.length > 0) {
    write(`${failures.length} rollouts could not be re-verified (listed in ${paths.failures}; not in the output), e.g. line ${failures[0]?.line}: ${failures[0]?.error}\n`);
    return 1;
  }
  return 0;
}
