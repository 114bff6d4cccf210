/**
 * The `gym eval` commands ngym builds itself:
 *   aggregate  merge rollout shards (in (task, rollout) order), compute their metrics and health-check them, as
 *              `ngym collect` does;
 *   (reverify is src/cli/gym/reverify.ts)
 *   profile    upstream's reward profile (what /aggregate_metrics answers by default) of a rollouts file, and with
 *              --inputs upstream's completion accounting against the materialized inputs.
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import * as z from 'zod';
import { loadGlobalConfig } from '../../config/global-config.ts';
import { isDict } from '../../config/tree.ts';
import { NgymError } from '../../errors.ts';
import { readJsonl } from '../../rollouts/jsonl.ts';
import { outputPathsFor } from '../../rollouts/output-files.ts';
import { aggregateMetricsEntry, rewardProfiles, rolloutAgentName } from '../../rollouts/reward-profiles.ts';
import { checkRolloutsHealth, formatHealthReport } from '../../rollouts/rollout-health.ts';
import { computeMetrics } from '../../metrics/rollout-metrics.ts';
import { readParameters } from '../command.ts';

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

function metricsOf(rows: Row[]): ReturnType<typeof computeMetrics> {
  // Repeats per task under one agent: a fanned-out task runs under several (metrics group by both).
  const repeats = new Map<string, number>();
  for (const row of rows) {
    const key = JSON.stringify([row._ng_task_index, (row.agent_ref as { name?: unknown } | undefined)?.name]);
    repeats.set(key, (repeats.get(key) ?? 0) + 1);
  }
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
  writeAggregateMetrics(rows, aggregatePath);
  write(`${metrics.rollouts} rollouts over ${metrics.tasks} tasks: ${formatMetrics(metrics.metrics)}\n`);
  write(`${parameters.merge_shards ? `Rollouts: ${paths.output}\n` : ''}Metrics: ${paths.metrics}\nAggregate metrics: ${aggregatePath}\n`);
  if (parameters.merge_shards && !parameters.disable_health_check) {
    write(`${formatHealthReport(await checkRolloutsHealth(paths.output, { ignoredChecks: parameters.health_check_ignored_checks })).join('\n')}\n`);
  }
  return 0;
}

/** Upstream's `<stem>_aggregate_metrics.json`: one entry per agent, computed locally (no server is asked). */
export function writeAggregateMetrics(rows: Row[], path: string): void {
  const entries = Object.entries(rewardProfiles(rows)).map(([agent, profile]) => aggregateMetricsEntry(agent, profile as unknown as Record<string, unknown>));
  writeFileSync(path, `${JSON.stringify(entries, null, 2)}\n`);
}

const ProfileParameters = z.object({ rollouts_jsonl_fpath: z.string().min(1), materialized_inputs_jsonl_fpath: z.string().min(1).optional() });

export async function profileRollouts(args: string[]): Promise<number> {
  const parameters = readParameters(loadGlobalConfig({ overrides: args }), ProfileParameters);
  const rows = await readRows(parameters.rollouts_jsonl_fpath);
  const profiles = rewardProfiles(rows);
  const path = outputPathsFor(parameters.rollouts_jsonl_fpath).output.replace(/\.jsonl$/, '_reward_profile.json');
  writeFileSync(path, `${JSON.stringify(profiles, null, 2)}\n`);
  for (const [agent, profile] of Object.entries(profiles)) write(`${agent}: ${JSON.stringify((profile as { key_metrics: unknown }).key_metrics)}\n`);
  if (parameters.materialized_inputs_jsonl_fpath !== undefined) write(completionSummary(await readRows(parameters.materialized_inputs_jsonl_fpath), rows));
  write(`Reward profile: ${path}\n`);
  return 0;
}

/**
 * Upstream's completion accounting of `--inputs`: how many of the materialized rollouts have a result, and how many
 * input rows (per task and agent, since fan-out gives one task several agents) are complete, partial or missing.
 */
function completionSummary(inputs: Row[], results: Row[]): string {
  const keyOf = (row: Row) => `${String(row._ng_task_index)}/${String(row._ng_rollout_index)}`;
  const done = new Set(results.map(keyOf));
  const groups = new Map<string, { expected: number; completed: number }>();
  for (const input of inputs) {
    const group = `${String(input._ng_task_index)}/${rolloutAgentName(input)}`;
    const counts = groups.get(group) ?? { expected: 0, completed: 0 };
    counts.expected++;
    if (done.has(keyOf(input))) counts.completed++;
    groups.set(group, counts);
  }
  const completed = inputs.filter((input) => done.has(keyOf(input))).length;
  const percent = inputs.length === 0 ? 100 : (100 * completed) / inputs.length;
  const count = (test: (counts: { expected: number; completed: number }) => boolean) => [...groups.values()].filter(test).length;
  return (
    `Reward profile completion: ${completed}/${inputs.length} rollout rows (${percent.toFixed(2)}%)\n` +
    `Input rows: ${groups.size} total; ${count((c) => c.completed === c.expected)} complete; ${count((c) => c.completed > 0 && c.completed < c.expected)} partial; ${count((c) => c.completed === 0)} without rollouts.\n`
  );
}
