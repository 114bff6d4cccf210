/** PHPUnit with --testdox (SWE-bench Multilingual's PHP repositories), as swebench 4.1.0 grades it. */
import { TestStatus } from '../constants.ts';
import { type LogParser, PythonPattern } from './python-text.ts';

const PHPUNIT_SUITE = new PythonPattern(String.raw`^(\w.+) \(.+\)$`);
const PHPUNIT_TEST = new PythonPattern(String.raw`^\s*([✔✘↩])\s*(.*)$`);

/** `Suite Name (Fully\Qualified\Class)` opens a suite; `✔ test`, `✘ test`, `↩ test` (skipped) are named `Suite > test`. */
export const parsePhpunit: LogParser = (log) => {
  const statuses = new Map<string, string>();
  // Tests before any suite line are filed under Python's None, as in swebench.
  let suite = 'None';
  const byMark: Record<string, string> = { '✔': TestStatus.PASSED, '✘': TestStatus.FAILED, '↩': TestStatus.SKIPPED };
  for (const line of log.split('\n')) {
    const suiteMatch = PHPUNIT_SUITE.match(line);
    if (suiteMatch !== null) {
      suite = suiteMatch.groups[0] ?? '';
      continue;
    }
    const test = PHPUNIT_TEST.match(line);
    if (test !== null) statuses.set(`${suite} > ${test.groups[1] ?? ''}`, byMark[test.groups[0] ?? ''] as string);
  }
  return statuses;
};
