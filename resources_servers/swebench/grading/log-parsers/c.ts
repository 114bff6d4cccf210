/**
 * Parsers of the C and C++ repositories' test logs (SWE-bench Multilingual), as swebench 4.1.0 grades them:
 * Redis/Valkey's Tcl runner, jq's, doctest's XML reporter (nlohmann/json), MicroPython's run-tests and
 * GoogleTest (fmt).
 */
import { pythonStrip } from 'ngym/python-compat';
import { TestStatus } from '../constants.ts';
import { parseDoctestXml, type XmlElement } from './doctest-xml.ts';
import { lineResultParser, type LogParser, PythonPattern } from './python-text.ts';

const REDIS_RESULT = new PythonPattern(String.raw`^\[(ok|err|skip|ignore)\]:\s(.+?)(?:\s\((\d+\s*m?s)\))?$`);
const REDIS_FILE_SUFFIX = new PythonPattern(String.raw`\s+in\s+\S+$`);
const JQ_RESULT = new PythonPattern(String.raw`^\s*(PASS|FAIL):\s(.+)$`);
const MICROPYTHON_RESULT = new PythonPattern(String.raw`^(pass|FAIL|skip)\s+(.+)$`);
const GOOGLETEST_RESULT = new PythonPattern(String.raw`^.*\[\s*(OK|FAILED)\s*\]\s(.*)\s\(.*\)$`);

/** `[ok]: name (12 ms)`, `[err]: name in tests/file.tcl`, `[skip]:`/`[ignore]:`. */
export const parseRedis: LogParser = (log) => {
  const statuses = new Map<string, string>();
  for (const line of log.split('\n')) {
    const match = REDIS_RESULT.match(pythonStrip(line));
    if (match === null) continue;
    const [status, name = ''] = match.groups;
    if (status === 'ok') statuses.set(name, TestStatus.PASSED);
    // A failure names the file it ran from; the test's name is the part before it.
    else if (status === 'err') statuses.set(REDIS_FILE_SUFFIX.remove(name), TestStatus.FAILED);
    else statuses.set(name, TestStatus.SKIPPED);
  }
  return statuses;
};

/** jq: `PASS: name` / `FAIL: name`. */
export const parseJq: LogParser = lineResultParser(JQ_RESULT, 2, 1, { PASS: TestStatus.PASSED, FAIL: TestStatus.FAILED });

/**
 * doctest run with `-s -r=xml`: each SubCase of each TestCase, `TestCase > SubCase`, passes when every
 * Expression in it succeeded. XML that does not parse fails the grading, as in swebench.
 */
export const parseDoctest: LogParser = (log) => {
  const statuses = new Map<string, string>();
  const start = log.indexOf('<doctest');
  // swebench's end index is find() + len: a missing `</doctest>` gives a short slice that then fails to parse.
  const end = start === -1 ? -1 : log.indexOf('</doctest>', start) + '</doctest>'.length;
  if (start === -1 || end === -1) return statuses;
  const root = parseDoctestXml(pythonSlice(log, start, end));
  for (const testCase of descendants(root, 'TestCase')) {
    for (const subCase of descendants(testCase, 'SubCase')) {
      const name = `${testCase.attributes.get('name') ?? 'None'} > ${subCase.attributes.get('name') ?? 'None'}`;
      const passed = descendants(subCase, 'Expression').every((expression) => expression.attributes.get('success') === 'true');
      statuses.set(name, passed ? TestStatus.PASSED : TestStatus.FAILED);
    }
  }
  return statuses;
};

/** `log[start:end]` with Python's meaning of an end before the start (empty). */
function pythonSlice(text: string, start: number, end: number): string {
  return end <= start ? '' : text.slice(start, end);
}

/** ElementTree's `.//tag`: every element of that tag below `element`, in document order. */
function descendants(element: XmlElement, tag: string): XmlElement[] {
  const found: XmlElement[] = [];
  const walk = (parent: XmlElement) => {
    for (const child of parent.children) {
      if (child.tag === tag) found.push(child);
      walk(child);
    }
  };
  walk(element);
  return found;
}

/** MicroPython's run-tests: `pass name`, `FAIL name`, `skip name`. */
export const parseMicropython: LogParser = lineResultParser(MICROPYTHON_RESULT, 2, 1, { pass: TestStatus.PASSED, FAIL: TestStatus.FAILED, skip: TestStatus.SKIPPED });

/** GoogleTest: `[       OK ] Suite.Test (0 ms)`, `[  FAILED  ] Suite.Test (1 ms)`. */
export const parseGoogletest: LogParser = lineResultParser(GOOGLETEST_RESULT, 2, 1, { OK: TestStatus.PASSED, FAILED: TestStatus.FAILED });
