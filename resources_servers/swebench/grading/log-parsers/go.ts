/** `go test -v` logs (SWE-bench Multilingual's Go repositories), as swebench 4.1.0 grades them. */
import { TestStatus } from '../constants.ts';
import { lineResultParser, type LogParser, PythonPattern } from './python-text.ts';

const GO_RESULT = new PythonPattern(String.raw`^--- (PASS|FAIL|SKIP): (.+) \((.+)\)$`);

/** `--- PASS: TestName (0.01s)`, `--- FAIL: ...`, `--- SKIP: ...`; subtests keep their `Parent/sub` names. */
export const parseGoTest: LogParser = lineResultParser(GO_RESULT, 2, 1, { PASS: TestStatus.PASSED, FAIL: TestStatus.FAILED, SKIP: TestStatus.SKIPPED });
