/**
 * The words SWE-bench's grading reads and writes (swebench 4.1.0's harness constants): test statuses as the
 * log parsers record them, resolution statuses, and the markers the evaluation script and the harness print
 * into a test log.
 */

/** A test's status in a parsed log. Parsers may also record other words (a raw pytest token such as `PASSED:`). */
export const TestStatus = {
  FAILED: 'FAILED',
  PASSED: 'PASSED',
  SKIPPED: 'SKIPPED',
  ERROR: 'ERROR',
  XFAIL: 'XFAIL',
} as const;

/** The pytest summary prefixes the pytest parsers look for, in swebench's order. */
export const TEST_STATUS_WORDS: readonly string[] = Object.values(TestStatus);

export const ResolvedStatus = {
  NO: 'RESOLVED_NO',
  PARTIAL: 'RESOLVED_PARTIAL',
  FULL: 'RESOLVED_FULL',
} as const;
export type ResolvedStatusValue = (typeof ResolvedStatus)[keyof typeof ResolvedStatus];

/** Markers in a test log (the evaluation script prints the first two; the harness writes the others). */
export const LogMarker = {
  START_TEST_OUTPUT: '>>>>> Start Test Output',
  END_TEST_OUTPUT: '>>>>> End Test Output',
  APPLY_PATCH_FAIL: '>>>>> Patch Apply Failed',
  APPLY_PATCH_PASS: '>>>>> Applied Patch',
  RESET_FAILED: '>>>>> Reset Failed',
  TESTS_ERROR: '>>>>> Tests Errored',
  TESTS_TIMEOUT: '>>>>> Tests Timed Out',
} as const;

/** Any of these anywhere in a log means the run did not get as far as tests worth grading. */
export const BAD_RUN_MARKERS: readonly string[] = [LogMarker.APPLY_PATCH_FAIL, LogMarker.RESET_FAILED, LogMarker.TESTS_ERROR, LogMarker.TESTS_TIMEOUT];

/** Repositories graded only on failures: a listed test passes unless the log says it FAILED. */
export const FAIL_ONLY_REPOS: ReadonlySet<string> = new Set(['chartjs/Chart.js', 'processing/p5.js', 'markedjs/marked']);
