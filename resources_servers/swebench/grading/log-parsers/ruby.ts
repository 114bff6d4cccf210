/** Ruby repositories' test logs (SWE-bench Multilingual): minitest, Cucumber's progress format, test-unit, RSpec's JSON turned into lines. */
import { pythonStrip } from 'ngym/python-compat';
import { TestStatus } from '../constants.ts';
import { item, type LogParser, LogParserError, PythonPattern } from './python-text.ts';

const MINITEST_RESULT = new PythonPattern(String.raw`^(.+)\. .*=.*(\.|F|E).*$`);
const CUCUMBER_RESULT = new PythonPattern(String.raw`^(.*) \.+(\.|F)`);
const RUBY_UNIT_RESULT = new PythonPattern(String.raw`^\s*(?:test: )?(.+):\s+(\.|E\b|F\b|O\b)`);
const RSPEC_RESULT = new PythonPattern(String.raw`(.+) - (passed|failed)`);

/** minitest verbose: `Class#test_name = 0.01 s = .` (`.` passed, `F`/`E` failed). */
export const parseMinitest: LogParser = (log) => {
  const statuses = new Map<string, string>();
  for (const line of log.split('\n')) {
    const match = MINITEST_RESULT.match(pythonStrip(line));
    if (match === null) continue;
    const [name = '', outcome] = match.groups;
    if (outcome === '.') statuses.set(name, TestStatus.PASSED);
    else statuses.set(name, TestStatus.FAILED);
  }
  return statuses;
};

/** Cucumber with `--format progress`: `name ....F`. */
export const parseCucumber: LogParser = (log) => {
  const statuses = new Map<string, string>();
  for (const line of log.split('\n')) {
    const match = CUCUMBER_RESULT.match(pythonStrip(line));
    if (match !== null) statuses.set(match.groups[0] ?? '', match.groups[1] === '.' ? TestStatus.PASSED : TestStatus.FAILED);
  }
  return statuses;
};

/** test-unit verbose: `test: name: .` or `name: F` (`O` omitted counts as skipped). */
export const parseRubyUnit: LogParser = (log) => {
  const statuses = new Map<string, string>();
  const byMark: Record<string, string> = { '.': TestStatus.PASSED, E: TestStatus.FAILED, F: TestStatus.FAILED, O: TestStatus.SKIPPED };
  for (const line of log.split('\n')) {
    const match = RUBY_UNIT_RESULT.match(pythonStrip(line));
    if (match !== null) statuses.set(match.groups[0] ?? '', byMark[match.groups[1] ?? ''] as string);
  }
  return statuses;
};

/** RSpec's JSON turned into `full description - passed|failed` lines. */
export const parseRspecTransformedJson: LogParser = (log) => {
  const statuses = new Map<string, string>();
  for (const line of log.split('\n')) {
    const match = RSPEC_RESULT.match(pythonStrip(line));
    if (match !== null) statuses.set(match.groups[0] ?? '', match.groups[1] === 'passed' ? TestStatus.PASSED : TestStatus.FAILED);
  }
  return statuses;
};

/** jekyll's instances ran different runners: the pull request number (the id's second `-` part) picks the parser. */
export const parseJekyll: LogParser = (log, instance) => {
  const pullRequest = item(instance.instance_id.split('-'), 1, `jekyll instance id ${JSON.stringify(instance.instance_id)}`);
  if (['9141', '8047', '8167'].includes(pullRequest)) return parseMinitest(log, instance);
  if (['8761', '8771'].includes(pullRequest)) return parseCucumber(log, instance);
  throw new LogParserError(`Unknown instance id: ${instance.instance_id} (jekyll instances other than 8047, 8167, 8761, 8771 and 9141 have no log parser)`);
};
