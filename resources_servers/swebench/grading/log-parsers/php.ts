/** PHPUnit with --testdox (SWE-bench Multilingual's PHP repositories), as swebench 4.1.0 grades it. */
import { TestStatus } from '../constants.ts';
import { type LogParser, reMatch } from './python-text.ts';

/** `Suite Name (Fully\Qualified\Class)` opens a suite; `✔ test`, `✘ test`, `↩ test` (skipped) are named `Suite > test`. */
export const parsePhpunit: LogParser = (log) => {
  const statuses = new Map<string, string>();
  // Tests before any suite line are filed under Python's None, as in swebench.
  let suite = 'None';
  const byMark: Record<string, string> = { '✔': TestStatus.PASSED, '✘': TestStatus.FAILED, '↩': TestStatus.SKIPPED };
  for (const line of log.split('\n')) {
    const suiteMatch = reMatch(String.raw`^(\w.+) \(.+\)$`, line);
    if (suiteMatch !== null) {
      suite = suiteMatch.groups[0] ?? '';
      continue;
    }
    const test = reMatch(String.raw`^\s*([✔✘↩])\s*(.*)$`, line);
    if (test !== null) statuses.set(`${suite} > ${test.groups[1] ?? ''}`, byMark[test.groups[0] ?? ''] as string);
  }
  return statuses;
};
