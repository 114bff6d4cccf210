/**
 * SWE-bench grading of one test log, with swebench 4.1.0's rules: the log's test-output section parsed by the
 * repository's parser (the whole log when that section yields nothing), FAIL_TO_PASS and PASS_TO_PASS each
 * split into success and failure, the resolution status (FULL / PARTIAL / NO), and the report fields
 * swebench's `report.json` holds for the instance.
 */
import { NgymError } from 'ngym';
import { BAD_RUN_MARKERS, FAIL_ONLY_REPOS, LogMarker, ResolvedStatus, type ResolvedStatusValue, TestStatus } from './constants.ts';
import { LOG_PARSERS, type LogParserName, PARSER_OF_REPOSITORY } from './log-parsers/index.ts';
import { LogParserError } from './log-parsers/python-text.ts';

/** The fields of a SWE-bench row that grading reads. Test lists may be arrays or the JSON strings the datasets carry. */
export interface SwebenchInstance {
  instance_id: string;
  repo: string;
  version?: string;
  FAIL_TO_PASS: string | readonly string[];
  PASS_TO_PASS: string | readonly string[];
}

export interface GradeSwebenchLogInput {
  instance: SwebenchInstance;
  /** The evaluation's whole output (stdout then stderr), as swebench writes test_output.txt. */
  log: string;
  /** The patch graded; `null` when the model gave none (swebench's `patch_is_None`). Default: a patch was given. */
  modelPatch?: string | null;
  /** The parser by name, for a repository swebench does not map (a task built from another project). */
  parser?: LogParserName;
}

interface TestGroupResult {
  success: string[];
  failure: string[];
}

interface TestsStatus {
  FAIL_TO_PASS: TestGroupResult;
  PASS_TO_PASS: TestGroupResult;
  /** Always empty: swebench's report lists these groups without computing them. */
  FAIL_TO_FAIL: TestGroupResult;
  PASS_TO_FAIL: TestGroupResult;
}

export interface SwebenchGradeReport {
  instance_id: string;
  /** swebench's report.json fields for the instance. */
  patch_is_None: boolean;
  patch_exists: boolean;
  patch_successfully_applied: boolean;
  resolved: boolean;
  /** Present when the tests were graded (the patch applied and the log has its test-output section). */
  tests_status?: TestsStatus;
  resolution_status?: ResolvedStatusValue;
  /** False when the log could not be graded (its parser failed on it): upstream's `evaluation_completed` is false then. */
  evaluation_completed: boolean;
  /** Why grading did not complete, or why the tests were not graded (a bad-run marker, missing test-output markers). */
  reason?: string;
  log_parser: LogParserName;
}

interface LogsEvaluation {
  /** Test name to status word, in the order the log first named each test. */
  statuses: Map<string, string>;
  /** False when the log shows the run never produced gradable test output (swebench's `found`). */
  found: boolean;
  reason?: string;
}

/** The repository's parser, or the one named; a clear error for a repository swebench has no parser for. */
function logParserFor(instance: Pick<SwebenchInstance, 'repo'>, parser?: LogParserName): LogParserName {
  if (parser !== undefined) {
    if (!Object.hasOwn(LOG_PARSERS, parser)) throw new NgymError('NGYM_INVALID_REQUEST', `Unknown SWE-bench log parser ${JSON.stringify(parser)}; known: ${Object.keys(LOG_PARSERS).join(', ')}`, { status: 422 });
    return parser;
  }
  const mapped = Object.hasOwn(PARSER_OF_REPOSITORY, instance.repo) ? PARSER_OF_REPOSITORY[instance.repo] : undefined;
  if (mapped === undefined) {
    throw new NgymError('NGYM_INVALID_REQUEST', `No SWE-bench log parser for repository ${JSON.stringify(instance.repo)}: name one (one of ${Object.keys(LOG_PARSERS).join(', ')})`, { status: 422 });
  }
  return mapped;
}

/**
 * swebench's `get_logs_eval`: `found` is false when a bad-run marker appears anywhere or either test-output
 * marker is missing; otherwise the statuses parsed from between the markers, or from the whole log when that
 * part yields none. Line endings are read as Python's text mode reads the log file (`\r\n` and `\r` as `\n`).
 * Throws LogParserError where swebench's parser raises.
 */
export function logsEval(instance: SwebenchInstance, log: string, parser: LogParserName = logParserFor(instance)): LogsEvaluation {
  const content = log.replace(/\r\n?/g, '\n');
  const marker = BAD_RUN_MARKERS.find((candidate) => content.includes(candidate));
  if (marker !== undefined) return { statuses: new Map(), found: false, reason: `the log says ${JSON.stringify(marker)}` };
  if (!content.includes(LogMarker.START_TEST_OUTPUT) || !content.includes(LogMarker.END_TEST_OUTPUT)) {
    return { statuses: new Map(), found: false, reason: `the log lacks the test-output markers (${JSON.stringify(LogMarker.START_TEST_OUTPUT)} ... ${JSON.stringify(LogMarker.END_TEST_OUTPUT)})` };
  }
  const testOutput = (content.split(LogMarker.START_TEST_OUTPUT)[1] as string).split(LogMarker.END_TEST_OUTPUT)[0] as string;
  const parse = LOG_PARSERS[parser];
  const statuses = parse(testOutput, instance);
  // Output that went to stderr lands outside the markers: the whole log is read when the section had nothing.
  return { statuses: statuses.size > 0 ? statuses : parse(content, instance), found: true };
}

const passed = (status: string | undefined): boolean => status === TestStatus.PASSED || status === TestStatus.XFAIL;
const failed = (status: string | undefined): boolean => status === undefined || status === TestStatus.FAILED || status === TestStatus.ERROR;

/**
 * swebench's `get_eval_tests_report`. A test passes when its status is PASSED or XFAIL and fails when it is absent,
 * FAILED or ERROR; any other status (SKIPPED, a raw word such as `XPASS`) puts it in neither list. Fail-only
 * repositories count a test failed only when its status is FAILED.
 */
function testsReport(statuses: ReadonlyMap<string, string>, failToPass: readonly string[], passToPass: readonly string[], failOnly = false): TestsStatus {
  const group = (tests: readonly string[]): TestGroupResult => {
    const result: TestGroupResult = { success: [], failure: [] };
    for (const test of tests) {
      const status = statuses.get(test);
      if (failOnly) (status === TestStatus.FAILED ? result.failure : result.success).push(test);
      else if (passed(status)) result.success.push(test);
      else if (failed(status)) result.failure.push(test);
    }
    return result;
  };
  return { FAIL_TO_PASS: group(failToPass), PASS_TO_PASS: group(passToPass), FAIL_TO_FAIL: { success: [], failure: [] }, PASS_TO_FAIL: { success: [], failure: [] } };
}

/** The share of a group that succeeded; an empty group (or one whose tests are all in neither list) counts as 1. */
const shareSucceeded = (group: TestGroupResult): number => {
  const total = group.success.length + group.failure.length;
  return total === 0 ? 1 : group.success.length / total;
};

/** swebench's `get_resolution_status`: FULL when both groups fully succeed, PARTIAL when some FAIL_TO_PASS do and all PASS_TO_PASS do. */
function resolutionStatus(report: TestsStatus): ResolvedStatusValue {
  const failToPass = shareSucceeded(report.FAIL_TO_PASS);
  const passToPass = shareSucceeded(report.PASS_TO_PASS);
  if (failToPass === 1 && passToPass === 1) return ResolvedStatus.FULL;
  if (failToPass > 0 && failToPass < 1 && passToPass === 1) return ResolvedStatus.PARTIAL;
  return ResolvedStatus.NO;
}

/** A test list from a row: an array of names, or the JSON string of one. */
function testList(value: string | readonly string[], field: string, instanceId: string): readonly string[] {
  if (typeof value !== 'string') return value;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    throw new NgymError('NGYM_INVALID_REQUEST', `${instanceId}: ${field} is not a JSON list of test names (${(error as Error).message})`, { status: 422 });
  }
  if (!Array.isArray(parsed) || !parsed.every((name) => typeof name === 'string')) {
    throw new NgymError('NGYM_INVALID_REQUEST', `${instanceId}: ${field} must be a list of test names, got ${value.slice(0, 200)}`, { status: 422 });
  }
  return parsed as string[];
}

/**
 * Grades one evaluation log as swebench 4.1.0's `get_eval_report` does, and says whether grading completed
 * (a log its parser fails on does not, as in upstream's server). Bad rows (no parser for the repository, test
 * lists that are not lists) throw NgymError rather than grade.
 */
export function gradeSwebenchLog(input: GradeSwebenchLogInput): SwebenchGradeReport {
  const { instance, log } = input;
  const parser = logParserFor(instance, input.parser);
  const failToPass = testList(instance.FAIL_TO_PASS, 'FAIL_TO_PASS', instance.instance_id);
  const passToPass = testList(instance.PASS_TO_PASS, 'PASS_TO_PASS', instance.instance_id);
  const report: SwebenchGradeReport = {
    instance_id: instance.instance_id,
    patch_is_None: false,
    patch_exists: false,
    patch_successfully_applied: false,
    resolved: false,
    evaluation_completed: true,
    log_parser: parser,
  };
  if (input.modelPatch === null) return { ...report, patch_is_None: true, reason: 'no patch was given' };
  report.patch_exists = true;
  let evaluation: LogsEvaluation;
  try {
    evaluation = logsEval(instance, log, parser);
  } catch (error) {
    if (!(error instanceof LogParserError)) throw error;
    return { ...report, evaluation_completed: false, reason: `the ${parser} log parser could not read the log: ${error.message}` };
  }
  if (!evaluation.found) return { ...report, ...(evaluation.reason === undefined ? {} : { reason: evaluation.reason }) };
  report.patch_successfully_applied = true;
  const tests = testsReport(evaluation.statuses, failToPass, passToPass, FAIL_ONLY_REPOS.has(instance.repo));
  const status = resolutionStatus(tests);
  return { ...report, resolved: status === ResolvedStatus.FULL, tests_status: tests, resolution_status: status };
}
