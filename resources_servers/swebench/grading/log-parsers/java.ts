/** Java repositories' test logs (SWE-bench Multilingual): Maven one test per run, Ant's JUnit, a Gradle config that prints each test. */
import { pythonStrip } from 'ngym/python-compat';
import { TestStatus } from '../constants.ts';
import { lineResultParser, type LogParser, PythonPattern } from './python-text.ts';

const MAVEN_TEST_NAME = new PythonPattern(String.raw`^.*-Dtest=(\S+).*$`);
const MAVEN_RESULT = new PythonPattern(String.raw`^.*BUILD (SUCCESS|FAILURE)$`);
const ANT_RESULT = new PythonPattern(String.raw`^\s*\[junit\]\s+\[(PASS|FAIL|ERR)\]\s+(.*)$`);
const GRADLE_RESULT = new PythonPattern(String.raw`^([^>].+)\s+(PASSED|FAILED)$`);

/**
 * Maven prints no passing tests, so each test runs on its own under `set -x`: the `-Dtest=Name` of the command
 * names the test and the run's `BUILD SUCCESS|FAILURE` is its result.
 */
export const parseMaven: LogParser = (log) => {
  const statuses = new Map<string, string>();
  let current = '---NO TEST NAME FOUND YET---';
  for (const raw of log.split('\n')) {
    const line = pythonStrip(raw);
    const named = MAVEN_TEST_NAME.match(line);
    if (named !== null) current = named.groups[0] ?? '';
    const result = MAVEN_RESULT.match(line);
    if (result !== null) statuses.set(current, result.groups[0] === 'SUCCESS' ? TestStatus.PASSED : TestStatus.FAILED);
  }
  return statuses;
};

/** Ant: `[junit] [PASS] name`, `[FAIL]`, `[ERR]` (a failure). */
export const parseAnt: LogParser = lineResultParser(ANT_RESULT, 2, 1, { PASS: TestStatus.PASSED, FAIL: TestStatus.FAILED, ERR: TestStatus.FAILED });

/** Gradle with swebench's pre-install config: `Class > method PASSED|FAILED`, lines starting `>` excluded. */
export const parseGradleCustom: LogParser = lineResultParser(GRADLE_RESULT, 1, 2, { PASSED: TestStatus.PASSED, FAILED: TestStatus.FAILED });
