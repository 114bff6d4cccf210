/** `go test -v` logs (SWE-bench Multilingual's Go repositories), as swebench 4.1.0 grades them. */
import { pythonStrip } from 'ngym/python-compat';
import { TestStatus } from '../constants.ts';
import { type LogParser, PythonPattern } from './python-text.ts';

const GO_RESULT = new PythonPattern(String.raw`^--- (PASS|FAIL|SKIP): (.+) \((.+)\)$`);

/** `--- PASS: TestName (0.01s)`, `--- FAIL: ...`, `--- SKIP: ...`; subtests keep their `Parent/sub` names. */
export const parseGoTest: LogParser = (log) => {
  const statuses = new Map<string, string>();
  const byWord: Record<string, string> = { PASS: TestStatus.PASSED, FAIL: TestStatus.FAILED, SKIP: TestStatus.SKIPPED };
  for (const line of log.split('\n')) {
    const match = GO_RESULT.match(pythonStrip(line));
    if (match !== null) statuses.set(match.groups[1] ?? '', byWord[match.groups[0] ?? ''] as string);
  }
  return statuses;
};
