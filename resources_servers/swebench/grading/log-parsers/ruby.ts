/** Ruby repositories' test logs (SWE-bench Multilingual): minitest, Cucumber's progress format, test-unit, RSpec's JSON turned into lines. */
import { TestStatus } from '../constants.ts';
import { item, lineResultParser, type LogParser, LogParserError, PythonPattern } from './python-text.ts';

const MINITEST_RESULT = new PythonPattern(String.raw`^(.+)\. .*=.*(\.|F|E).*$`);
const CUCUMBER_RESULT = new PythonPattern(String.raw`^(.*) \.+(\.|F)`);
const RUBY_UNIT_RESULT = new PythonPattern(String.raw`^\s*(?:test: )?(.+):\s+(\.|E\b|F\b|O\b)`);
const RSPEC_RESULT = new PythonPattern(String.raw`(.+) - (passed|failed)`);

/** minitest verbose: `Class#test_name = 0.01 s = .` (`.` passed, `F`/`E` failed). */
export const parseMinitest: LogParser = lineResultParser(MINITEST_RESULT, 1, 2, { '.': TestStatus.PASSED, F: TestStatus.FAILED, E: TestStatus.FAILED });

/** Cucumber with `--format progress`: `name ....F`. */
export const parseCucumber: LogParser = lineResultParser(CUCUMBER_RESULT, 1, 2, { '.': TestStatus.PASSED, F: TestStatus.FAILED });

/** test-unit verbose: `test: name: .` or `name: F` (`O` omitted counts as skipped). */
export const parseRubyUnit: LogParser = lineResultParser(RUBY_UNIT_RESULT, 1, 2, { '.': TestStatus.PASSED, E: TestStatus.FAILED, F: TestStatus.FAILED, O: TestStatus.SKIPPED });

/** RSpec's JSON turned into `full description - passed|failed` lines. */
export const parseRspecTransformedJson: LogParser = lineResultParser(RSPEC_RESULT, 1, 2, { passed: TestStatus.PASSED, failed: TestStatus.FAILED });

/** jekyll's instances ran different runners: the pull request number (the id's second `-` part) picks the parser. */
export const parseJekyll: LogParser = (log, instance) => {
  const pullRequest = item(instance.instance_id.split('-'), 1, `jekyll instance id ${JSON.stringify(instance.instance_id)}`);
  if (['9141', '8047', '8167'].includes(pullRequest)) return parseMinitest(log, instance);
  if (['8761', '8771'].includes(pullRequest)) return parseCucumber(log, instance);
  throw new LogParserError(`Unknown instance id: ${instance.instance_id} (jekyll instances other than 8047, 8167, 8761, 8771 and 9141 have no log parser)`);
};
