/**
 * Evaluating a SWE-bench-style instance the way SWE-bench's harness does: an eval script resets the test
 * files the test patch touches, applies the test patch, runs the tests between two markers and resets them
 * again; the log between the markers is parsed into test statuses (pytest's `-rA` summary lines), and the
 * report says which FAIL_TO_PASS and PASS_TO_PASS tests passed. `resolved` when all of them did.
 */
import { pythonSplit } from 'ngym/python-compat';

export const START_TEST_OUTPUT = '>>>>> Start Test Output';
export const END_TEST_OUTPUT = '>>>>> End Test Output';
const FAILURE_MARKERS = ['>>>>> Patch Apply Failed', '>>>>> Reset Failed', '>>>>> Tests Errored', '>>>>> Tests Timed Out'];
const HEREDOC = 'EOF_114329324912';
/** Files of a test patch that are not tests (SWE-bench's list), left out of the test command. */
const NOT_TESTS = ['.json', '.png', 'csv', '.txt', '.md', '.jpg', '.jpeg', '.pkl', '.yml', '.yaml', '.toml'];
const STATUSES = ['FAILED', 'PASSED', 'SKIPPED', 'ERROR', 'XFAIL'];

export const DEFAULT_TEST_COMMAND = 'python3 -m pytest -rA -p no:cacheprovider';

export interface Instance {
  instance_id: string;
  base_commit: string;
  test_patch: string;
  FAIL_TO_PASS: string[];
  PASS_TO_PASS: string[];
  /** The whole eval script (SWE-bench's own, for its images); otherwise one is made from `test_cmd`. */
  eval_script?: string;
  test_cmd?: string;
}

/** SWE-bench rows keep the test lists as JSON-encoded strings; NeMo Gym's as lists. */
export function testList(value: unknown, field: string): string[] {
  const list = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
  if (!Array.isArray(list) || !list.every((entry) => typeof entry === 'string')) throw new TypeError(`${field} must be a list of test ids (or its JSON)`);
  return list;
}

/** The files a patch modifies (`--- a/<file>`) and the test files it touches (`diff --git a/... b/<file>`). */
function patchFiles(patch: string): { modified: string[]; tests: string[] } {
  const modified = [...patch.matchAll(/^--- a\/(.*)$/gm)].map((match) => match[1] as string);
  const tests = [...patch.matchAll(/^diff --git a\/.* b\/(.*)$/gm)].map((match) => match[1] as string).filter((file) => !NOT_TESTS.some((ending) => file.endsWith(ending)));
  return { modified, tests };
}

/** The eval script of an instance: its own, or SWE-bench's layout around `test_cmd` and the patch's test files. */
export function evalScript(instance: Instance, workdir: string): string {
  if (instance.eval_script !== undefined) return instance.eval_script;
  const { modified, tests } = patchFiles(instance.test_patch);
  const reset = modified.length > 0 ? `git checkout ${instance.base_commit} ${modified.join(' ')}` : ':';
  return [
    'set -uxo pipefail',
    `cd ${workdir}`,
    reset,
    `git apply -v - <<'${HEREDOC}'`,
    instance.test_patch,
    HEREDOC,
    `: '${START_TEST_OUTPUT}'`,
    [instance.test_cmd ?? DEFAULT_TEST_COMMAND, ...tests].join(' '),
    `: '${END_TEST_OUTPUT}'`,
    reset,
    '',
  ].join('\n');
}

/** SWE-bench's pytest log parser: `STATUS test_id` lines (FAILED lines drop their ` - message`). */
export function parsePytestLog(log: string): Map<string, string> {
  const statuses = new Map<string, string>();
  for (let line of log.split('\n')) {
    if (!STATUSES.some((status) => line.startsWith(status))) continue;
    if (line.startsWith('FAILED')) line = line.replaceAll(' - ', ' ');
    const parts = pythonSplit(line);
    if (parts.length <= 1) continue;
    statuses.set(parts[1] as string, parts[0] as string);
  }
  return statuses;
}

/** The statuses of the eval log, or null when the script failed before the tests (no markers, a failure marker). */
function logStatuses(log: string): Map<string, string> | null {
  if (FAILURE_MARKERS.some((marker) => log.includes(marker))) return null;
  if (!log.includes(START_TEST_OUTPUT) || !log.includes(END_TEST_OUTPUT)) return null;
  const between = (log.split(START_TEST_OUTPUT)[1] as string).split(END_TEST_OUTPUT)[0] as string;
  const statuses = parsePytestLog(between);
  return statuses.size > 0 ? statuses : parsePytestLog(log);
}

interface TestsStatus {
  FAIL_TO_PASS: { success: string[]; failure: string[] };
  PASS_TO_PASS: { success: string[]; failure: string[] };
  FAIL_TO_FAIL: { success: string[]; failure: string[] };
  PASS_TO_FAIL: { success: string[]; failure: string[] };
}

export interface InstanceReport {
  patch_is_None: boolean;
  patch_exists: boolean;
  patch_successfully_applied: boolean;
  resolved: boolean;
  tests_status?: TestsStatus;
  error?: string;
  timeout?: boolean;
}

/** SWE-bench's `get_eval_report(..., include_tests_status=True)` for one instance. */
export function evalReport(instance: Instance, modelPatch: string | null, log: string): Record<string, InstanceReport> {
  const report: InstanceReport = { patch_is_None: modelPatch === null, patch_exists: modelPatch !== null, patch_successfully_applied: false, resolved: false };
  const statuses = modelPatch === null ? null : logStatuses(log);
  if (statuses === null) return { [instance.instance_id]: report };
  report.patch_successfully_applied = true;
  const passed = (test: string) => statuses.get(test) === 'PASSED' || statuses.get(test) === 'XFAIL';
  const failed = (test: string) => !statuses.has(test) || ['FAILED', 'ERROR', 'SKIPPED'].includes(statuses.get(test) as string);
  const tests: TestsStatus = {
    FAIL_TO_PASS: { success: [], failure: [] },
    PASS_TO_PASS: { success: [], failure: [] },
    FAIL_TO_FAIL: { success: [], failure: [] },
    PASS_TO_FAIL: { success: [], failure: [] },
  };
  for (const test of instance.FAIL_TO_PASS) {
    if (passed(test)) tests.FAIL_TO_PASS.success.push(test);
    else if (failed(test)) tests.FAIL_TO_PASS.failure.push(test);
  }
  for (const test of instance.PASS_TO_PASS) {
    // A skipped test counts as kept passing.
    if (passed(test) || statuses.get(test) === 'SKIPPED') tests.PASS_TO_PASS.success.push(test);
    else if (failed(test)) tests.PASS_TO_PASS.failure.push(test);
  }
  // SWE-bench's FULL resolution: every FAIL_TO_PASS and PASS_TO_PASS test passes (an empty list counts as passing).
  report.resolved = tests.FAIL_TO_PASS.failure.length === 0 && tests.PASS_TO_PASS.failure.length === 0;
  report.tests_status = tests;
  return { [instance.instance_id]: report };
}

/** Upstream's reward rule: resolved, with a report that lists at least one FAIL_TO_PASS or PASS_TO_PASS test. */
export function isResolved(instanceId: string, reports: Record<string, InstanceReport>): boolean {
  const report = reports[instanceId];
  if (report === undefined || !report.resolved || report.tests_status === undefined) return false;
  const { FAIL_TO_PASS, PASS_TO_PASS } = report.tests_status;
  return FAIL_TO_PASS.success.length + FAIL_TO_PASS.failure.length + PASS_TO_PASS.success.length + PASS_TO_PASS.failure.length > 0;
}
