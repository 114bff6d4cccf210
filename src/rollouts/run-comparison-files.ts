/**
 * The files of `gym eval compare`: each run's metrics, read from (first found)
 *
 *   the aggregate-metrics file given (`--baseline-agg-metrics`, `--candidates-agg-metrics`)
 *   `<stem>_aggregate_metrics.json` beside the rollouts (upstream's collection and `gym eval aggregate` write it)
 *   the `aggregate_metrics` of `<stem>_metrics.json` (what `ngym collect` asked each agent's /aggregate_metrics)
 *   the rollouts JSONL itself, profiled here as `gym eval profile` does
 *
 * and which tasks each run ran, so two runs over different tasks are refused, naming the difference, instead of
 * compared: the task indices must be the same; then the dataset `ngym collect` recorded in `<stem>_run.json`
 * (same contents: the same tasks, whatever prompt rendered them), or without one, what each task asked (its
 * last user message, from the rollouts JSONL). Upstream joins tasks on their index alone and counts the indices
 * only one run has; `+allow_task_mismatch=true` does that here. Then the agents to compare, the
 * comparison itself (src/metrics/run-comparison.ts), and the report files.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { isDict } from '../config/tree.ts';
import { NgymError } from '../errors.ts';
import { type ComparisonResult, findRegressions, JSON_REPORT_NAME, MARKDOWN_REPORT_NAME, renderMarkdown, type RunFile } from '../metrics/comparison-report.ts';
import { computeAggregateMetrics } from '../metrics/reward-profile.ts';
import { type AgentComparison, compareRuns, type LoadedRun, loadedRun } from '../metrics/run-comparison.ts';
import { didYouMean } from '../util/did-you-mean.ts';
import { readJsonl } from './jsonl.ts';
import { outputPathsFor, type RunManifest } from './output-files.ts';
import { rewardProfiles, rolloutAgentName, verifyResponseOf } from './reward-profiles.ts';

type Json = Record<string, unknown>;

export interface ComparisonConfig {
  baseline_rollouts_jsonl_fpath: string;
  candidate_rollouts_jsonl_fpaths: string[];
  baseline_aggregate_metrics_fpath?: string;
  candidate_aggregate_metrics_fpaths?: string[];
  agent_name?: string;
  baseline_agent_name?: string;
  candidate_agent_names?: string[];
  /** Default: the (last) candidate's directory. */
  output_dirpath?: string;
  report_format: 'md' | 'json' | 'both';
  /** Compare runs over different tasks on their common task indices (upstream's behaviour) instead of refusing. */
  allow_task_mismatch?: boolean;
}

/** What a task asked, short enough to keep one per task: a digest to compare, an excerpt to show. */
interface TaskPrompt {
  digest: string;
  excerpt: string;
}

interface Run {
  file: RunFile;
  entries: Map<string, Json>;
  /** Per agent, per task index: its prompt; absent when the rollouts file is not there. */
  prompts: Map<string, Map<number, TaskPrompt>> | undefined;
  /** The dataset `ngym collect` recorded in `<stem>_run.json`, when there is one. */
  input: { path: string; fingerprint: string } | undefined;
}

const TASK = '_ng_task_index';

/** The last user message of the row's input (the whole input when there is none): what the task asks. */
function taskPrompt(row: Json): TaskPrompt | undefined {
  const params = row.responses_create_params;
  if (!isDict(params)) return undefined;
  const input = params.input;
  const last = Array.isArray(input) ? (input.findLast((item) => isDict(item) && item.role === 'user') ?? input) : input;
  const content = isDict(last) ? last.content : last;
  const text = typeof content === 'string' ? content : JSON.stringify(content ?? null);
  return { digest: createHash('sha256').update(text).digest('base64'), excerpt: text.replace(/\s+/g, ' ').slice(0, 80) };
}

/** One pass over the rollouts: each task's prompt per agent, and the verify responses when the metrics must be computed here. */
async function readRollouts(path: string, keepVerifyResponses: boolean) {
  const prompts = new Map<string, Map<number, TaskPrompt>>();
  const verifyResponses: Json[] = [];
  for await (const { line, value } of readJsonl(path)) {
    if (!isDict(value)) throw new NgymError('NGYM_INPUT_INVALID', `${path}:${line}: a rollout must be a JSON object.`);
    const agent = rolloutAgentName(value);
    const tasks = prompts.get(agent) ?? new Map<number, TaskPrompt>();
    prompts.set(agent, tasks);
    const prompt = taskPrompt(value);
    if (typeof value[TASK] === 'number' && prompt !== undefined && !tasks.has(value[TASK])) tasks.set(value[TASK], prompt);
    if (keepVerifyResponses) verifyResponses.push(verifyResponseOf(value));
  }
  return { prompts, verifyResponses };
}

function readJsonFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new NgymError('NGYM_INPUT_INVALID', `Cannot read metrics file ${path}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new NgymError('NGYM_INPUT_INVALID', `${path} is not valid JSON: ${(error as Error).message}`);
  }
}

/** Upstream's list of per-agent entries (each with `agent_ref.name`), or ngym's object keyed by agent name. */
function agentEntries(payload: unknown, path: string): Map<string, Json> {
  const entries = new Map<string, Json>();
  if (Array.isArray(payload)) {
    payload.forEach((entry, position) => {
      if (!isDict(entry)) throw new NgymError('NGYM_INPUT_INVALID', `${path}: entry ${position} is not an object (an aggregate-metrics file is a list of per-agent entries).`);
      const name = isDict(entry.agent_ref) ? entry.agent_ref.name : undefined;
      if (typeof name !== 'string' || name === '') throw new NgymError('NGYM_INPUT_INVALID', `${path}: entry ${position} has no agent_ref.name.`);
      if (entries.has(name)) throw new NgymError('NGYM_INPUT_INVALID', `${path}: two entries for agent '${name}'.`);
      entries.set(name, entry);
    });
  } else if (isDict(payload)) {
    for (const [name, entry] of Object.entries(payload)) {
      if (!isDict(entry) || !isDict(entry.agent_metrics)) throw new NgymError('NGYM_INPUT_INVALID', `${path}: the entry of agent '${name}' has no agent_metrics.`);
      entries.set(name, entry);
    }
  } else {
    throw new NgymError('NGYM_INPUT_INVALID', `${path} is not an aggregate-metrics file (a list of per-agent entries, or an object keyed by agent).`);
  }
  if (entries.size === 0) throw new NgymError('NGYM_INPUT_INVALID', `${path} has no agent entries.`);
  return entries;
}

/** An entry written before repeat-level metrics existed gets them from its per-rollout summaries, as upstream does. */
function withRepeatMetrics(entry: Json): Json {
  if ('repeat_level_metrics' in entry) return entry;
  const groups = Array.isArray(entry.group_level_metrics) ? entry.group_level_metrics.filter(isDict) : [];
  const infos = groups.flatMap((group) => (Array.isArray(group.rollout_infos) ? group.rollout_infos.filter(isDict) : []));
  const computed = computeAggregateMetrics(infos);
  return { ...entry, agent_metrics: { ...computed.agent_metrics, ...(isDict(entry.agent_metrics) ? entry.agent_metrics : {}) }, repeat_level_metrics: computed.repeat_level_metrics };
}

/** The input file and its content fingerprint from an `ngym collect` run manifest. */
function recordedInput(path: string): Run['input'] {
  if (!existsSync(path)) return undefined;
  const manifest = readJsonFile(path) as Partial<RunManifest> | null;
  return isDict(manifest) && typeof manifest.input_fingerprint === 'string' && manifest.input_fingerprint !== '' ? { path: String(manifest.input), fingerprint: manifest.input_fingerprint } : undefined;
}

function collectMetricsOf(path: string): Map<string, Json> | undefined {
  if (!existsSync(path)) return undefined;
  const answers = (readJsonFile(path) as Json | null)?.aggregate_metrics;
  return isDict(answers) && Object.keys(answers).length > 0 ? agentEntries(answers, `${path} (aggregate_metrics)`) : undefined;
}

interface MetricsSource {
  source: RunFile['metrics_source'];
  path: string;
  /** Read from the file; absent when the rollouts themselves are to be profiled. */
  entries: Map<string, Json> | undefined;
}

/** The first of the places this file's header lists that has the run's metrics. */
function findMetrics(rollouts: string, role: RunFile['role'], override: string | undefined): MetricsSource {
  if (override !== undefined) {
    const path = resolve(override);
    if (!existsSync(path)) throw new NgymError('NGYM_INPUT_INVALID', `Aggregate metrics not found: ${path} (the ${role}'s metrics file given).`);
    return { source: 'aggregate_metrics', path, entries: agentEntries(readJsonFile(path), path) };
  }
  const aggregatePath = outputPathsFor(rollouts).aggregateMetrics;
  if (existsSync(aggregatePath)) return { source: 'aggregate_metrics', path: aggregatePath, entries: agentEntries(readJsonFile(aggregatePath), aggregatePath) };
  const metricsPath = outputPathsFor(rollouts).metrics;
  const collected = collectMetricsOf(metricsPath);
  if (collected !== undefined) return { source: 'collect_metrics', path: metricsPath, entries: collected };
  if (existsSync(rollouts)) return { source: 'rollouts', path: rollouts, entries: undefined };
  throw new NgymError(
    'NGYM_INPUT_INVALID',
    `No metrics for the ${role} run ${rollouts}: none of it, ${aggregatePath} or ${metricsPath} (with aggregate_metrics) exists. Check the path, or give the metrics file with --${role === 'baseline' ? 'baseline-agg-metrics' : 'candidates-agg-metrics'}.`,
  );
}

async function loadRun(rolloutsPath: string, role: RunFile['role'], index: number, override: string | undefined): Promise<Run> {
  const rollouts = resolve(rolloutsPath);
  const { source, path, entries: fileEntries } = findMetrics(rollouts, role, override);
  const haveRollouts = existsSync(rollouts);
  const read = haveRollouts ? await readRollouts(rollouts, source === 'rollouts') : undefined;
  let entries = fileEntries;
  if (entries === undefined) {
    const profiles = rewardProfiles(read?.verifyResponses ?? []);
    if (Object.keys(profiles).length === 0) throw new NgymError('NGYM_INPUT_INVALID', `${rollouts} has no rollouts to compare.`);
    entries = new Map(Object.entries(profiles).map(([agent, profile]) => [agent, profile as unknown as Json]));
  }
  const byAgent = new Map([...entries].map(([agent, entry]) => [agent, withRepeatMetrics(entry)]));
  return {
    file: {
      role,
      index,
      rollouts_jsonl_fpath: rollouts,
      aggregate_metrics_fpath: path,
      label: basename(dirname(rollouts)) || basename(rollouts, '.jsonl'),
      agent_names: [...byAgent.keys()].sort(),
      metrics_source: source,
    },
    entries: byAgent,
    prompts: read?.prompts,
    input: recordedInput(outputPathsFor(rollouts).manifest),
  };
}

const sideLabel = (file: RunFile) => (file.role === 'candidate' ? `candidate[${file.index}]` : 'baseline');

function soleAgent(run: Run): string {
  if (run.entries.size === 1) return run.file.agent_names[0] as string;
  throw new NgymError(
    'NGYM_USAGE',
    `The ${run.file.role} run's metrics (${run.file.aggregate_metrics_fpath}) have ${run.entries.size} agents: ${run.file.agent_names.join(', ')}. ` +
      'Pick one with --agent (both sides), or --baseline-agent / --candidate-agents (per side).',
  );
}

function requireAgent(run: Run, agent: string): void {
  if (!run.entries.has(agent)) {
    throw new NgymError('NGYM_USAGE', `Agent '${agent}' is not in the ${sideLabel(run.file)} run's metrics (${run.file.aggregate_metrics_fpath}); it has ${run.file.agent_names.join(', ')}${didYouMean(agent, run.file.agent_names)}.`);
  }
}

interface AgentSelection {
  baseline: string;
  candidates: string[];
}

/** Which agent each side is read for: a per-side name, else --agent, else every agent all runs have. */
function selectAgents(baseline: Run, candidates: readonly Run[], config: ComparisonConfig) {
  const warnings: string[] = [];
  const skipped: Record<string, string[]> = {};
  if (config.baseline_agent_name !== undefined || config.candidate_agent_names !== undefined) {
    const baselineAgent = config.baseline_agent_name ?? config.agent_name ?? soleAgent(baseline);
    requireAgent(baseline, baselineAgent);
    const candidateAgents = candidates.map((run, position) => {
      const agent = config.candidate_agent_names?.[position] ?? config.agent_name ?? soleAgent(run);
      requireAgent(run, agent);
      return agent;
    });
    return { selections: [{ baseline: baselineAgent, candidates: candidateAgents }], warnings, skipped };
  }
  if (config.agent_name !== undefined) {
    for (const run of [baseline, ...candidates]) requireAgent(run, config.agent_name);
    return { selections: [{ baseline: config.agent_name, candidates: candidates.map(() => config.agent_name as string) }], warnings, skipped };
  }
  const shared = baseline.file.agent_names.filter((agent) => candidates.every((run) => run.entries.has(agent)));
  if (shared.length === 0) {
    const listing = [baseline, ...candidates].map((run) => `${sideLabel(run.file)} (${run.file.aggregate_metrics_fpath}): ${run.file.agent_names.join(', ')}`).join('; ');
    throw new NgymError('NGYM_USAGE', `No agent is in every run, so there is nothing to compare: ${listing}. Pick one with --agent, or --baseline-agent / --candidate-agents.`);
  }
  for (const run of [baseline, ...candidates]) {
    const extras = run.file.agent_names.filter((agent) => !shared.includes(agent));
    if (extras.length === 0) continue;
    skipped[sideLabel(run.file)] = extras;
    warnings.push(`Agent(s) ${extras.join(', ')} are only in ${sideLabel(run.file)} and were not compared.`);
  }
  return { selections: shared.map((agent): AgentSelection => ({ baseline: agent, candidates: candidates.map(() => agent) })), warnings, skipped };
}

function listed(tasks: readonly number[]): string {
  if (tasks.length === 0) return 'none';
  return tasks.length <= 8 ? tasks.join(', ') : `${tasks.slice(0, 8).join(', ')} and ${tasks.length - 8} more`;
}

/** Why two sides of a comparison do not cover the same tasks, or undefined when they do. */
function taskDifference(baseline: { run: Run; loaded: LoadedRun }, candidate: { run: Run; loaded: LoadedRun }): string | undefined {
  const promptsOf = (side: { run: Run; loaded: LoadedRun }) => side.run.prompts?.get(side.loaded.agent_name);
  const indicesOf = (side: { run: Run; loaded: LoadedRun }) =>
    new Set(promptsOf(side)?.keys() ?? side.loaded.group_level_metrics.flatMap((group) => (typeof group[TASK] === 'number' ? [group[TASK] as number] : [])));
  const before = indicesOf(baseline);
  const after = indicesOf(candidate);
  const onlyBefore = [...before].filter((task) => !after.has(task)).sort((a, b) => a - b);
  const onlyAfter = [...after].filter((task) => !before.has(task)).sort((a, b) => a - b);
  if (onlyBefore.length > 0 || onlyAfter.length > 0) {
    return `the baseline ran ${before.size} tasks and ${sideLabel(candidate.run.file)} ${after.size}; only in the baseline: ${listed(onlyBefore)}; only in ${sideLabel(candidate.run.file)}: ${listed(onlyAfter)}`;
  }
  // Runs `ngym collect` recorded name their dataset: the same rows under another prompt (a prompt sweep) are the same tasks.
  const [beforeInput, afterInput] = [baseline.run.input, candidate.run.input];
  if (beforeInput !== undefined && afterInput !== undefined) {
    return beforeInput.fingerprint === afterInput.fingerprint ? undefined : `they read different datasets: the baseline ${beforeInput.path}, ${sideLabel(candidate.run.file)} ${afterInput.path}`;
  }
  const beforePrompts = promptsOf(baseline);
  const afterPrompts = promptsOf(candidate);
  if (beforePrompts === undefined || afterPrompts === undefined) return undefined;
  const differing = [...beforePrompts].filter(([task, prompt]) => afterPrompts.has(task) && afterPrompts.get(task)?.digest !== prompt.digest).sort(([a], [b]) => a - b);
  if (differing.length === 0) return undefined;
  const [task, prompt] = differing[0] as [number, TaskPrompt];
  return `${differing.length} of ${before.size} tasks ask something else; task ${task}: the baseline asks "${prompt.excerpt}", ${sideLabel(candidate.run.file)} asks "${afterPrompts.get(task)?.excerpt}"`;
}

export interface ComparisonOptions {
  /** The invocation, recorded in the report. */
  command: string;
  /** The tool that writes the report, recorded in it. */
  generator: string;
  now?: Date;
}

/** Python's `datetime.isoformat(timespec="seconds")` of a UTC time, as upstream stamps its reports. */
const isoSeconds = (date: Date) => `${date.toISOString().slice(0, 19)}+00:00`;

/** Loads the runs, picks the agents, checks they ran the same tasks, and compares them. */
export async function buildComparison(config: ComparisonConfig, options: ComparisonOptions): Promise<ComparisonResult> {
  const count = config.candidate_rollouts_jsonl_fpaths.length;
  if (count === 0) throw new NgymError('NGYM_USAGE', 'Give the candidate run(s) with --candidates <rollouts.jsonl>[,<rollouts.jsonl>...].');
  for (const [name, value] of [['--candidates-agg-metrics', config.candidate_aggregate_metrics_fpaths], ['--candidate-agents', config.candidate_agent_names]] as const) {
    if (value !== undefined && value.length !== count) throw new NgymError('NGYM_USAGE', `${name} has ${value.length} entries for ${count} candidate run(s): give one per candidate, in --candidates order.`);
  }
  const baseline = await loadRun(config.baseline_rollouts_jsonl_fpath, 'baseline', 0, config.baseline_aggregate_metrics_fpath);
  const candidates: Run[] = [];
  for (const [index, path] of config.candidate_rollouts_jsonl_fpaths.entries()) candidates.push(await loadRun(path, 'candidate', index, config.candidate_aggregate_metrics_fpaths?.[index]));
  const { selections, warnings, skipped } = selectAgents(baseline, candidates, config);

  const comparisons: AgentComparison[] = selections.map((selection) => {
    const base = { run: baseline, loaded: loadedRun(selection.baseline, baseline.entries.get(selection.baseline) as Json) };
    const sides = candidates.map((run, index) => ({ run, loaded: loadedRun(selection.candidates[index] as string, run.entries.get(selection.candidates[index] as string) as Json) }));
    for (const side of sides) {
      const difference = taskDifference(base, side);
      if (difference === undefined) continue;
      const agents = side.loaded.agent_name === base.loaded.agent_name ? `agent ${base.loaded.agent_name}` : `agents ${base.loaded.agent_name} and ${side.loaded.agent_name}`;
      if (config.allow_task_mismatch !== true) {
        throw new NgymError(
          'NGYM_INPUT_INVALID',
          `The runs did not run the same tasks (${agents}): ${difference}. Compare runs of the same dataset, split and --limit ` +
            '(a run that lost tasks to failures is completed with +resume=true), or pass +allow_task_mismatch=true to compare them on the task indices they share.',
        );
      }
      warnings.push(`Different tasks (${agents}): ${difference}. Flips cover the common task indices; each run's metrics cover its own tasks.`);
    }
    return compareRuns(
      base.loaded,
      sides.map((side) => side.loaded),
    );
  });
  return {
    schema_version: '1',
    generated_at: isoSeconds(options.now ?? new Date()),
    nemo_gym_version: options.generator,
    command: options.command,
    baseline: baseline.file,
    candidates: candidates.map((run) => run.file),
    comparisons,
    skipped_agents: skipped,
    warnings,
    regressions: findRegressions(comparisons),
  };
}

/** `--output-dir`, or the directory of the (last) candidate's rollouts. */
export function reportDirectory(config: ComparisonConfig): string {
  return config.output_dirpath !== undefined ? resolve(config.output_dirpath) : dirname(resolve(config.candidate_rollouts_jsonl_fpaths.at(-1) as string));
}

/** Writes compare_report.md and/or compare_report.json; returns the paths written. */
export function writeComparisonReports(result: ComparisonResult, directory: string, format: ComparisonConfig['report_format']): string[] {
  if (existsSync(directory) && !statSync(directory).isDirectory()) throw new NgymError('NGYM_USAGE', `--output-dir ${directory} exists and is not a directory.`);
  const written: string[] = [];
  try {
    mkdirSync(directory, { recursive: true });
    if (format !== 'json') {
      written.push(join(directory, MARKDOWN_REPORT_NAME));
      writeFileSync(join(directory, MARKDOWN_REPORT_NAME), renderMarkdown(result));
    }
    if (format !== 'md') {
      written.push(join(directory, JSON_REPORT_NAME));
      writeFileSync(join(directory, JSON_REPORT_NAME), `${JSON.stringify(result, null, 2)}\n`);
    }
  } catch (error) {
    throw new NgymError('NGYM_OUTPUT_WRITE', `Cannot write the comparison report into ${directory}: ${(error as Error).message}`);
  }
  return written;
}
