/**
 * Rollout health over a rollouts file (`gym eval health-check`, and the summary `ngym collect` prints at its
 * end): one streaming pass runs the per-rollout checks (rollout-health-checks.ts), then the checks that need the
 * whole file: duplicate (task, rollout) indexes, and per task, every repeat unhealthy or none with a successful
 * model call. A rollout is unhealthy with any finding, unobserved when a check could not look at it, else healthy.
 *
 * Reports, as upstream 0.7.0 writes them: `quality_summary.json` (per check: rollouts evaluated, unobserved,
 * ignored, and findings; verdict counts; model-call errors and token totals; per task, its repeats' verdicts)
 * and `rollout_verdicts.jsonl` (one line per rollout with its verdict and findings).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { isDict } from '../config/tree.ts';
import { NgymError } from '../errors.ts';
import { readJsonl } from './jsonl.ts';
import { checkRecord, type Finding, HEALTH_CHECKS, NO_EVIDENCE, normalizeIgnoredChecks, type RecordEvidence, subjectOf, type TaskIndex, type Verdict } from './rollout-health-checks.ts';

type Json = Record<string, unknown>;

export const QUALITY_SUMMARY_FILENAME = 'quality_summary.json';
export const ROLLOUT_VERDICTS_FILENAME = 'rollout_verdicts.jsonl';

/** Rewards are expected in [0, 1] unless the caller declares another range (upstream's scaffolds declare [0, 1]). */
const DEFAULT_REWARD_RANGE: readonly [number, number] = [0, 1];

export interface HealthCheckOptions {
  /** Check ids to leave out (comma-separated or a list). */
  ignoredChecks?: string | readonly string[];
  rewardRange?: readonly [number, number];
}

interface RolloutDigest {
  task_index: TaskIndex;
  rollout_index: TaskIndex;
  stage_index: TaskIndex | null;
  rollout_id: string;
  verdict: Verdict;
  findings: Finding[];
  unobserved: string[];
  evidence: RecordEvidence;
}

export interface HealthCheckResult {
  summary: { run: Json & { verdicts: Record<Verdict, number>; issues: Record<string, number>; ignored_checks: string[] }; tasks: Record<string, Json> };
  rollouts: RolloutDigest[];
}

const TASK = '_ng_task_index';
const ROLLOUT = '_ng_rollout_index';
const ROLLOUT_SPECS = HEALTH_CHECKS.filter((check) => check.evaluation_scope === 'rollout');

const indexOf = (value: unknown): TaskIndex | undefined => (typeof value === 'number' || typeof value === 'string' ? value : undefined);

function unreadable(path: string, line: number, error: string, ignored: ReadonlySet<string>): RolloutDigest {
  const task = `__unreadable_record__:input-0:line-${line}`;
  const findings: Finding[] = ignored.has('record_unreadable')
    ? []
    : [{ check: 'record_unreadable', subject: subjectOf(task, 0), locator: { source_file: path, line }, detail: { reason: 'rollout record is unreadable', error } }];
  const unobserved = ROLLOUT_SPECS.filter((check) => check.id !== 'record_unreadable' && !ignored.has(check.id)).map((check) => check.id);
  return { task_index: task, rollout_index: 0, stage_index: null, rollout_id: `${task}-0`, verdict: findings.length > 0 ? 'unhealthy' : 'unobserved', findings, unobserved, evidence: NO_EVIDENCE };
}

function digestOf(record: Json, ordinal: number, ignored: ReadonlySet<string>, rewardRange: readonly [number, number]): RolloutDigest {
  const task = indexOf(record[TASK]) ?? ordinal;
  const rollout = indexOf(record[ROLLOUT]) ?? 0;
  const { findings, unobserved, evidence } = checkRecord(record, subjectOf(task, rollout), { ignored, rewardRange });
  const trajectory = isDict(record.ng_trajectory) ? record.ng_trajectory : {};
  return {
    task_index: task,
    rollout_index: rollout,
    stage_index: indexOf(record.stage_index) ?? null,
    rollout_id: String(record._ng_rollout_id ?? trajectory.rollout_id ?? `${task}-${rollout}`),
    verdict: findings.length > 0 ? 'unhealthy' : unobserved.length > 0 ? 'unobserved' : 'healthy',
    findings,
    unobserved,
    evidence,
  };
}

function groupBy<Key, Item>(items: Iterable<Item>, key: (item: Item) => Key): Map<Key, Item[]> {
  const groups = new Map<Key, Item[]>();
  for (const item of items) {
    const group = groups.get(key(item));
    if (group === undefined) groups.set(key(item), [item]);
    else group.push(item);
  }
  return groups;
}

/** Several lines claiming one rollout: every copy is unhealthy. */
function markDuplicates(digests: readonly RolloutDigest[]): void {
  for (const copies of groupBy(digests, (digest) => JSON.stringify([digest.stage_index, digest.task_index, digest.rollout_index])).values()) {
    if (copies.length < 2) continue;
    for (const digest of copies) {
      digest.findings.push({ check: 'rollout_duplicate_identity', subject: subjectOf(digest.task_index, digest.rollout_index), detail: { duplicate_count: copies.length } });
      digest.verdict = 'unhealthy';
    }
  }
}

interface TaskRepeat {
  verdict: Verdict;
  observed: boolean;
  successfulModelCalls: number;
}

/** One entry per repeat (duplicate lines of a repeat agree, or the repeat is unobserved). */
function repeatsOf(digests: readonly RolloutDigest[]): TaskRepeat[] {
  return [...groupBy(digests, (digest) => digest.rollout_index).values()].map((copies) => {
    const verdicts = new Set(copies.map((copy) => copy.verdict));
    return {
      verdict: verdicts.size === 1 ? (copies[0] as RolloutDigest).verdict : 'unobserved',
      observed: copies.every((copy) => copy.evidence.responseObserved),
      successfulModelCalls: Math.max(...copies.map((copy) => copy.evidence.successfulModelCalls)),
    };
  });
}

type Coverage = Record<string, { evaluated: number; unobserved: number; ignored: number }>;

function taskFindings(task: TaskIndex, repeats: readonly TaskRepeat[], ignored: ReadonlySet<string>, coverage: Coverage): Finding[] {
  const findings: Finding[] = [];
  const count = (check: string, outcome: 'evaluated' | 'unobserved' | 'ignored') => (coverage[check] as Coverage[string])[outcome]++;
  if (ignored.has('task_consistently_unhealthy')) count('task_consistently_unhealthy', 'ignored');
  else {
    const computable = repeats.filter((repeat) => repeat.verdict !== 'unobserved');
    count('task_consistently_unhealthy', computable.length >= 2 ? 'evaluated' : 'unobserved');
    if (computable.length >= 2 && computable.every((repeat) => repeat.verdict === 'unhealthy')) {
      findings.push({ check: 'task_consistently_unhealthy', subject: subjectOf(task), detail: { computable_repeats: computable.length } });
    }
  }
  if (ignored.has('task_no_successful_model_calls')) count('task_no_successful_model_calls', 'ignored');
  else {
    const observed = repeats.length > 0 && repeats.every((repeat) => repeat.observed);
    count('task_no_successful_model_calls', observed ? 'evaluated' : 'unobserved');
    if (observed && !repeats.some((repeat) => repeat.successfulModelCalls > 0)) {
      findings.push({ check: 'task_no_successful_model_calls', subject: subjectOf(task), detail: { repeats: repeats.length } });
    }
  }
  return findings;
}

/** Integers first, in order, then the rest by text. */
function compareIndexes(a: TaskIndex | null, b: TaskIndex | null): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'number') return -1;
  if (typeof b === 'number') return 1;
  return String(a).localeCompare(String(b));
}

function summarize(digests: readonly RolloutDigest[], ignoredChecks: readonly string[]): HealthCheckResult['summary'] {
  const ignored = new Set(ignoredChecks);
  const coverage: Coverage = Object.fromEntries(HEALTH_CHECKS.map((check) => [check.id, { evaluated: 0, unobserved: 0, ignored: 0 }]));
  for (const digest of digests) {
    const unobserved = new Set(digest.unobserved);
    for (const check of ROLLOUT_SPECS) (coverage[check.id] as Coverage[string])[ignored.has(check.id) ? 'ignored' : unobserved.has(check.id) ? 'unobserved' : 'evaluated']++;
  }
  const issues: Record<string, number> = Object.fromEntries(HEALTH_CHECKS.map((check) => [check.id, 0]));
  for (const digest of digests) for (const found of digest.findings) issues[found.check] = (issues[found.check] ?? 0) + 1;
  const tasks: Record<string, Json> = {};
  const byTask = groupBy(digests, (digest) => digest.task_index);
  for (const task of [...byTask.keys()].sort(compareIndexes)) {
    const repeats = repeatsOf(byTask.get(task) as RolloutDigest[]);
    const flags = taskFindings(task, repeats, ignored, coverage);
    for (const found of flags) issues[found.check] = (issues[found.check] ?? 0) + 1;
    const verdictCount = (verdict: Verdict) => repeats.filter((repeat) => repeat.verdict === verdict).length;
    tasks[String(task)] = { repeats: repeats.length, healthy: verdictCount('healthy'), unhealthy: verdictCount('unhealthy'), unobserved: verdictCount('unobserved'), flags: flags.map((found) => found.check) };
  }
  const count = (verdict: Verdict) => digests.filter((digest) => digest.verdict === verdict).length;
  const sum = (value: (evidence: RecordEvidence) => number) => digests.reduce((total, digest) => total + value(digest.evidence), 0);
  const failedStatuses = groupBy(
    digests.filter((digest) => digest.evidence.failureStatus !== null),
    (digest) => digest.evidence.failureStatus as string,
  );
  return {
    run: {
      ignored_checks: [...ignored].sort(),
      artifacts: { records: digests.length, captures: digests.filter((digest) => digest.evidence.responseObserved).length, coverage },
      verdicts: { healthy: count('healthy'), unhealthy: count('unhealthy'), unobserved: count('unobserved') },
      issues,
      stats: {
        model_call_errors: {
          total: sum((evidence) => evidence.failedModelCalls),
          by_status: Object.fromEntries([...failedStatuses].sort(([a], [b]) => a.localeCompare(b)).map(([status, copies]) => [status, copies.length])),
          rollouts_affected: digests.filter((digest) => digest.evidence.failedModelCalls > 0).length,
          ended_on_error: digests.filter((digest) => digest.evidence.failedModelCalls > 0).length,
        },
        tokens: { prompt: sum((evidence) => evidence.promptTokens), completion: sum((evidence) => evidence.completionTokens) },
      },
    },
    tasks,
  };
}

function checkedRange(range: readonly [number, number]): readonly [number, number] {
  const [low, high] = range;
  if (!Number.isFinite(low) || !Number.isFinite(high) || low > high) throw new NgymError('NGYM_USAGE', `reward_range must be [low, high] with finite low <= high, got [${low}, ${high}].`);
  return range;
}

/** Checks every rollout of a JSONL file. */
export async function checkRolloutsHealth(path: string, options: HealthCheckOptions = {}): Promise<HealthCheckResult> {
  const ignoredChecks = normalizeIgnoredChecks(options.ignoredChecks);
  const ignored = new Set(ignoredChecks);
  const rewardRange = checkedRange(options.rewardRange ?? DEFAULT_REWARD_RANGE);
  const digests: RolloutDigest[] = [];
  for await (const entry of readJsonl(path, { skipInvalid: true })) {
    if (entry instanceof Error) digests.push(unreadable(path, entry.line, 'not valid JSON', ignored));
    else if (!isDict(entry.value)) digests.push(unreadable(path, entry.line, 'not a JSON object', ignored));
    else digests.push(digestOf(entry.value, digests.length, ignored, rewardRange));
  }
  if (!ignored.has('rollout_duplicate_identity')) markDuplicates(digests);
  return { summary: summarize(digests, ignoredChecks), rollouts: digests };
}

/** Writes quality_summary.json and rollout_verdicts.jsonl (lines in task, rollout order). */
export function writeHealthReports(result: HealthCheckResult, summaryPath: string, verdictsPath: string): void {
  try {
    mkdirSync(dirname(summaryPath), { recursive: true });
    writeFileSync(summaryPath, `${JSON.stringify(result.summary, null, 2)}\n`);
    const ordered = [...result.rollouts].sort(
      (a, b) => compareIndexes(a.task_index, b.task_index) || compareIndexes(a.rollout_index, b.rollout_index) || compareIndexes(a.stage_index, b.stage_index),
    );
    const lines = ordered.map((digest) => {
      const row: Json = {
        [TASK]: digest.task_index,
        [ROLLOUT]: digest.rollout_index,
        rollout_id: digest.rollout_id,
        verdict: digest.verdict,
        findings: digest.findings.map(({ subject: _subject, ...rest }) => rest),
        unobserved: digest.unobserved,
      };
      if (digest.stage_index !== null) row.stage_index = digest.stage_index;
      return `${JSON.stringify(row)}\n`;
    });
    writeFileSync(verdictsPath, lines.join(''));
  } catch (error) {
    throw new NgymError('NGYM_OUTPUT_WRITE', `Cannot write the health reports (${summaryPath}): ${(error as Error).message}`);
  }
}

function findingText(found: Finding): string {
  const where = found.locator === undefined ? '' : ` (${Object.entries(found.locator).map(([key, value]) => `${key} ${value}`).join(', ')})`;
  return `${found.check}${where}`;
}

/** The verdict counts, the checks that found something, and the first unhealthy rollouts and tasks. */
export function formatHealthReport(result: HealthCheckResult, maxRows = 20): string[] {
  const { verdicts, issues, ignored_checks: ignored } = result.summary.run;
  const checked = verdicts.healthy + verdicts.unhealthy + verdicts.unobserved;
  const lines = [
    `Rollout health: ${checked} checked, ${verdicts.healthy} healthy, ${verdicts.unhealthy} unhealthy, ${verdicts.unobserved} unobserved${ignored.length > 0 ? ` (ignored: ${ignored.join(', ')})` : ''}`,
  ];
  const found = Object.entries(issues).filter(([, count]) => count > 0);
  if (found.length > 0) lines.push(`  issues: ${found.map(([check, count]) => `${check} ${count}`).join(', ')}`);
  const unhealthy = result.rollouts.filter((digest) => digest.verdict === 'unhealthy');
  for (const digest of unhealthy.slice(0, maxRows)) lines.push(`  task ${digest.task_index} rollout ${digest.rollout_index}: ${digest.findings.map(findingText).join(', ')}`);
  if (unhealthy.length > maxRows) lines.push(`  ... and ${unhealthy.length - maxRows} more unhealthy rollouts`);
  const flagged = Object.entries(result.summary.tasks).filter(([, task]) => Array.isArray(task.flags) && task.flags.length > 0);
  for (const [task, entry] of flagged.slice(0, maxRows)) lines.push(`  task ${task}: ${(entry.flags as string[]).join(', ')}`);
  if (flagged.length > maxRows) lines.push(`  ... and ${flagged.length - maxRows} more flagged tasks`);
  if (verdicts.unobserved > 0 && result.rollouts.some((digest) => digest.verdict === 'unobserved' && !digest.evidence.responseObserved)) {
    lines.push('  unobserved: rollouts without a response (output items) could only be checked for their reward and identity');
  }
  return lines;
}

/** The health of a finished run's output, for `ngym collect`'s summary: a failing check pass is reported, never fatal to the run. */
export async function checkOutputHealth(path: string, options: HealthCheckOptions, warn: (message: string) => void): Promise<HealthCheckResult | undefined> {
  try {
    return await checkRolloutsHealth(path, options);
  } catch (error) {
    warn(`Rollout health checks failed (the rollouts are written): ${(error as Error).message}`);
    return undefined;
  }
}
