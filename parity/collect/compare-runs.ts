/**
 * What `npm run parity:collect` compares between the two collectors' runs of one case, aspect by aspect:
 *   exit_code          the collectors' exit codes;
 *   rows               the output rows by (_ng_task_index, _ng_rollout_index): every field, the response as its
 *                      text; upstream's `_ng_environment_server` / `_ng_result_type` aside (its rows go through
 *                      an environment server, ngym's straight to the agent);
 *   order              the order rows were written in (cases with one rollout in flight);
 *   failures           the failure sidecar's rollouts by (task, rollout) with their agent;
 *   aggregate_metrics  `<stem>_aggregate_metrics.json` per agent (agent, key, group and repeat-level metrics);
 *   plan               the rollouts upstream planned (`<stem>_materialized_inputs.jsonl`: task, rollout, agent,
 *                      request) against those ngym ran (rows, failures), when both runs finished;
 *   warnings           the lines a user is warned with (overridden agents, unused repeats keys, EVAL FAILED,
 *                      refusals naming a key).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readJsonlRows } from '../../src/testing/jsonl-rows.ts';
import { equalValues } from '../compare.ts';
import type { Aspect, CollectCase } from './cases.ts';
import { type CollectorRun, OUTPUT_NAME } from './collectors.ts';

type Row = Record<string, unknown>;

export interface AspectResult {
  aspect: Aspect;
  status: 'agree' | 'known' | 'differ';
  /** The first differences, when they differ; the reason, when known. */
  detail?: string;
}

const stem = OUTPUT_NAME.replace(/\.jsonl$/, '');

/** A JSONL file's rows; none when the collector did not write it. */
const readRows = (path: string): Row[] => (existsSync(path) ? readJsonlRows<Row>(path) : []);

const keyOf = (row: Row) => `${String(row._ng_task_index)}/${String(row._ng_rollout_index)}`;
const agentOf = (row: Row) => (row.agent_ref as { name?: unknown } | undefined)?.name ?? null;

function responseText(row: Row): unknown {
  const output = (row.response as { output?: { content?: { text?: unknown }[] }[] } | undefined)?.output;
  return output?.flatMap((item) => item.content ?? []).map((part) => part.text);
}

/** A row as compared: every field, the response reduced to its text, upstream's environment-server stamps aside. */
function rowView(row: Row): Row {
  const { response: _response, _ng_environment_server: _server, _ng_result_type: _type, ...rest } = row;
  return { ...rest, response_text: responseText(row) };
}

function byKey(rows: Row[], view: (row: Row) => unknown): Map<string, unknown> {
  return new Map(rows.map((row) => [keyOf(row), view(row)]));
}

/** The first few differences between two keyed maps, or none. */
function mapDifferences(upstream: Map<string, unknown>, ngym: Map<string, unknown>): string[] {
  const differences: string[] = [];
  for (const key of new Set([...upstream.keys(), ...ngym.keys()])) {
    if (!upstream.has(key)) differences.push(`${key} only in ngym`);
    else if (!ngym.has(key)) differences.push(`${key} only upstream`);
    else if (!equalValues(upstream.get(key), ngym.get(key))) differences.push(`${key}: upstream ${JSON.stringify(upstream.get(key)).slice(0, 300)} ngym ${JSON.stringify(ngym.get(key)).slice(0, 300)}`);
  }
  return differences;
}

/** Per agent: the metrics both sides' servers computed, without upstream's environment-server name and ngym's perf summary. */
function aggregateView(path: string): Map<string, unknown> | undefined {
  if (!existsSync(path)) return undefined;
  const entries = JSON.parse(readFileSync(path, 'utf8')) as Row[];
  return new Map(entries.map((entry) => [String(agentOf(entry)), { agent_metrics: entry.agent_metrics, key_metrics: entry.key_metrics, group_level_metrics: entry.group_level_metrics, repeat_level_metrics: entry.repeat_level_metrics }]));
}

/** The lines that warn or refuse, with the run's folder and Python's warning prefix taken out. */
const WARNING_PATTERNS = [
  /agent_map overrode agent_ref values[^\n]*/g,
  /num_repeats dict contains agent names[^\n]*/g,
  /num_repeats dict has no entry[^\n]*/g,
  /EVAL FAILED: \d+\/\d+ samples completed/g,
  /Rows reference agents not present[^\n]*/g,
  /No agent specified for rows[^\n]*/g,
  /agent_name='[^']*' conflicts with agent_map[^\n]*/g,
];

function warnings(run: CollectorRun): string[] {
  const found = new Set<string>();
  for (const pattern of WARNING_PATTERNS) for (const match of run.output.matchAll(pattern)) found.add(match[0].replaceAll(run.folder, '<folder>').trim());
  return [...found].sort();
}

function planView(run: CollectorRun): Map<string, unknown> {
  const view = (row: Row) => ({ agent: agentOf(row), responses_create_params: row.responses_create_params });
  if (run.side === 'upstream') return byKey(readRows(join(run.folder, `${stem}_materialized_inputs.jsonl`)), view);
  return byKey([...readRows(join(run.folder, OUTPUT_NAME)), ...readRows(join(run.folder, `${stem}_failures.jsonl`))], view);
}

export function compareRuns(testCase: CollectCase, upstream: CollectorRun, ngym: CollectorRun): AspectResult[] {
  const results: AspectResult[] = [];
  const judge = (aspect: Aspect, differences: string[]) => {
    const known = testCase.known?.[aspect];
    if (differences.length === 0) results.push({ aspect, status: 'agree', ...(known === undefined ? {} : { detail: `declared known but agreed: ${known}` }) });
    else if (known !== undefined) results.push({ aspect, status: 'known', detail: known });
    else results.push({ aspect, status: 'differ', detail: differences.slice(0, 5).join('; ') });
  };
  judge('exit_code', upstream.exitCode === ngym.exitCode ? [] : [`upstream ${upstream.exitCode}, ngym ${ngym.exitCode}`]);

  const upstreamRows = readRows(join(upstream.folder, OUTPUT_NAME));
  const ngymRows = readRows(join(ngym.folder, OUTPUT_NAME));
  const rowDifferences = mapDifferences(byKey(upstreamRows, rowView), byKey(ngymRows, rowView));
  if (upstreamRows.length !== new Set(upstreamRows.map(keyOf)).size) rowDifferences.push('upstream wrote a rollout twice');
  if (ngymRows.length !== new Set(ngymRows.map(keyOf)).size) rowDifferences.push('ngym wrote a rollout twice');
  judge('rows', rowDifferences);

  if (testCase.ordered) {
    const upstreamOrder = upstreamRows.map(keyOf).join(' ');
    const ngymOrder = ngymRows.map(keyOf).join(' ');
    judge('order', upstreamOrder === ngymOrder ? [] : [`upstream ${upstreamOrder}; ngym ${ngymOrder}`]);
  }

  const failureView = (row: Row) => ({ agent: agentOf(row) });
  judge('failures', mapDifferences(byKey(readRows(join(upstream.folder, `${stem}_failures.jsonl`)), failureView), byKey(readRows(join(ngym.folder, `${stem}_failures.jsonl`)), failureView)));

  const upstreamAggregate = aggregateView(join(upstream.folder, `${stem}_aggregate_metrics.json`));
  const ngymAggregate = aggregateView(join(ngym.folder, `${stem}_aggregate_metrics.json`));
  if (upstreamAggregate === undefined || ngymAggregate === undefined) {
    judge('aggregate_metrics', upstreamAggregate === ngymAggregate ? [] : [`aggregate metrics file written by ${upstreamAggregate === undefined ? 'ngym' : 'upstream'} only`]);
  } else {
    judge('aggregate_metrics', mapDifferences(upstreamAggregate, ngymAggregate));
  }

  // Upstream writes its plan before it starts; ngym's plan shows in what it wrote, so only a finished run has it all.
  if (upstream.exitCode === 0 && ngym.exitCode === 0) judge('plan', mapDifferences(planView(upstream), planView(ngym)));

  const upstreamWarnings = warnings(upstream);
  const ngymWarnings = warnings(ngym);
  judge('warnings', JSON.stringify(upstreamWarnings) === JSON.stringify(ngymWarnings) ? [] : [`upstream ${JSON.stringify(upstreamWarnings)}; ngym ${JSON.stringify(ngymWarnings)}`]);
  return results;
}
