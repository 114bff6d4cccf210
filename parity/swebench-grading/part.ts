/**
 * `npm run parity -- swebench-grading`: ngym's SWE-bench grader (resources_servers/swebench/grading) against the
 * `swebench` 4.1.0 package from the venv, on the same seeded logs. Compared per case, field by field: the parsed
 * status map and `found` (get_logs_eval), whether grading completed, the report's fields (patch_is_None,
 * patch_exists, patch_successfully_applied, resolved, tests_status) and the resolution status.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { join } from 'node:path';
import { gradeSwebenchLog, logsEval, type SwebenchGradeReport } from '../../resources_servers/swebench/grading/index.ts';
import { PACKAGE_ROOT } from '../../src/util/package-root.ts';
import type { EnvironmentResult } from '../harness.ts';
import { pythonSetup } from '../gym.ts';
import { type GradingCase, generateGradingCases, setVersions } from './generate.ts';
import type { SeededRandom as Random } from 'ngym';

const PEER = join(PACKAGE_ROOT, 'parity', 'swebench-grading', 'swebench_peer.py');
export const PART_NAME = 'swebench-grading';

interface PeerAnswer {
  id: number;
  statuses?: [string, string][];
  found?: boolean;
  logs_eval_error?: string;
  completed: boolean;
  error?: string;
  report?: Record<string, unknown>;
  resolution_status?: string;
}

export interface SwebenchFacts {
  /** Repository to swebench's parser function name. */
  parsers: Record<string, string>;
  /** Repository to a version swebench has specs for. */
  versions: Record<string, string>;
}

/** The venv's Python with swebench importable, or why not (the part is then skipped with that reason). */
export function swebenchPython(): { executable: string } | { unavailable: string } {
  let executable: string;
  try {
    executable = pythonSetup().executable;
  } catch (error) {
    return { unavailable: (error as Error).message };
  }
  const probe = spawnSync(executable, ['-c', 'import swebench.harness.grading'], { encoding: 'utf8' });
  if (probe.status !== 0) return { unavailable: `swebench is not importable in the venv (run \`npm run setup:python\`; python/requirements.txt pins swebench==4.1.0): ${probe.stderr.trim().split('\n').at(-1) ?? ''}` };
  return { executable };
}

function peer(executable: string, args: string[], input?: string): string {
  const run = spawnSync(executable, [PEER, ...args], { input, encoding: 'utf8', maxBuffer: 1 << 30 });
  if (run.status !== 0) throw new Error(`swebench peer failed (exit ${run.status}): ${run.stderr.slice(-2000)}`);
  return run.stdout;
}

export function swebenchFacts(executable: string): SwebenchFacts {
  return JSON.parse(peer(executable, ['--facts'])) as SwebenchFacts;
}

/** Cases for a seed, with the versions swebench has specs for. */
export function gradingCases(facts: SwebenchFacts, random: Random, count: number): GradingCase[] {
  setVersions(facts.versions);
  return generateGradingCases(random, count);
}

/** swebench's answers to the cases, in case order. */
export function swebenchAnswers(executable: string, cases: readonly GradingCase[]): PeerAnswer[] {
  const output = peer(executable, [], cases.map((item) => JSON.stringify(item)).join('\n') + '\n');
  return output.trim().split('\n').map((line) => JSON.parse(line) as PeerAnswer);
}

/** ngym's answer to a case in the peer's shape, so the two compare field by field. */
export function ngymAnswer(item: GradingCase): PeerAnswer {
  const answer: PeerAnswer = { id: item.id, completed: true };
  try {
    const evaluation = logsEval(item.instance, item.log);
    answer.statuses = [...evaluation.statuses];
    answer.found = evaluation.found;
  } catch (error) {
    answer.logs_eval_error = (error as Error).name;
  }
  const report: SwebenchGradeReport = gradeSwebenchLog({ instance: item.instance, log: item.log, modelPatch: item.model_patch });
  answer.completed = report.evaluation_completed;
  if (report.evaluation_completed) {
    answer.report = {
      patch_is_None: report.patch_is_None,
      patch_exists: report.patch_exists,
      patch_successfully_applied: report.patch_successfully_applied,
      resolved: report.resolved,
      ...(report.tests_status === undefined ? {} : { tests_status: report.tests_status }),
    };
    if (report.resolution_status !== undefined) answer.resolution_status = report.resolution_status;
  }
  return answer;
}

/** The fields on which the two answers differ (an exception on both sides agrees whatever its class). */
export function differingFields(ngym: PeerAnswer, upstream: PeerAnswer): string[] {
  const fields: string[] = [];
  if ((ngym.logs_eval_error === undefined) !== (upstream.logs_eval_error === undefined)) fields.push('logs_eval_raised');
  else if (ngym.logs_eval_error === undefined) {
    if (!isDeepStrictEqual(ngym.statuses, upstream.statuses)) fields.push('statuses');
    if (ngym.found !== upstream.found) fields.push('found');
  }
  if (ngym.completed !== upstream.completed) fields.push('completed');
  else if (ngym.completed) {
    for (const key of ['patch_is_None', 'patch_exists', 'patch_successfully_applied', 'resolved', 'tests_status']) {
      if (!isDeepStrictEqual(ngym.report?.[key], upstream.report?.[key])) fields.push(key);
    }
    if (ngym.resolution_status !== upstream.resolution_status) fields.push('resolution_status');
  }
  return fields;
}

/** Runs the part: every case through both graders; disagreements (case and both answers) to `disagreementsPath`. */
export function runSwebenchGrading(options: { executable: string; count: number; disagreementsPath: string; random: Random }): EnvironmentResult {
  const facts = swebenchFacts(options.executable);
  const cases = gradingCases(facts, options.random, options.count);
  const upstream = swebenchAnswers(options.executable, cases);
  const result: EnvironmentResult = { environment: PART_NAME, total: cases.length, agree: 0, rewardAgree: 0, upstreamPositive: 0, causes: new Map() };
  cases.forEach((item, index) => {
    const theirs = upstream[index] as PeerAnswer;
    const ours = ngymAnswer(item);
    const differing = differingFields(ours, theirs);
    if (theirs.report?.resolved === true) result.upstreamPositive += 1;
    if (ours.report?.resolved === theirs.report?.resolved && ours.completed === theirs.completed) result.rewardAgree += 1;
    if (differing.length === 0) {
      result.agree += 1;
      return;
    }
    const cause = `${item.kind} ${differing.join(',')}`;
    result.causes.set(cause, (result.causes.get(cause) ?? 0) + 1);
    appendFileSync(options.disagreementsPath, `${JSON.stringify({ case: item, ngym: ours, upstream: theirs, differing })}\n`);
  });
  return result;
}
