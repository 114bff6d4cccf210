/**
 * Parsers of the JavaScript repositories' test logs (SWE-bench Multilingual), as swebench 4.1.0 grades them:
 * Jest (verbose and a JSON-to-lines form), Vitest, Karma, TAP, Mocha failure lists (marked, p5.js),
 * Karma's Chrome lines (Chart.js), and Calypso's and react-pdf's own forms.
 */
import { pythonRstrip, pythonStrip } from 'ngym/python-compat';
import { TestStatus } from '../constants.ts';
import { countOf, group, indentOf, lineResultParser, type LogParser, LogParserError, PythonPattern } from './python-text.ts';

const ANSI_ESCAPE = new PythonPattern(String.raw`\x1B(?:[@-Z\\-_]|\[[0-?]*[ -/]*[@-~])`);
const MILLISECONDS = new PythonPattern(String.raw`\(\d+ms\)`);
/** Calypso's test lines by mark, with and without a `(12ms)` timing at the end. */
const CALYPSO_TEST: Record<'✓' | '✕', { timed: PythonPattern; untimed: PythonPattern }> = {
  '✓': { timed: new PythonPattern(String.raw`^\s+✓\s(.*)\(\d+ms\)$`), untimed: new PythonPattern(String.raw`^\s+✓\s(.*)`) },
  '✕': { timed: new PythonPattern(String.raw`^\s+✕\s(.*)\(\d+ms\)$`), untimed: new PythonPattern(String.raw`^\s+✕\s(.*)`) },
};
const CHROME_FAILURE = new PythonPattern(String.raw`Chrome\s[\d\.]+[^\S\r\n]\(.+?\)[^\S\r\n](.*)FAILED$`, { multiline: true });
const MOCHA_FAILURE = new PythonPattern(String.raw`^\d+\)\s(.*)`);
const P5JS_FAILURE = new PythonPattern(String.raw`^\s*(\d+)\)(.{0,1000}?):`, { multiline: true, dotAll: true });
const XML_BLOCK = new PythonPattern(String.raw`<(\w+)>[\s\S]*?<\/\1>`);
const JEST_RESULT = new PythonPattern(String.raw`^\s*(✓|✕|○)\s(.+?)(?:\s\((\d+\s*m?s)\))?$`);
const JEST_JSON_RESULT = new PythonPattern(String.raw`^\[(PASSED|FAILED)\]\s(.+)$`);
const VITEST_RESULT = new PythonPattern(String.raw`^\s*(✓|×|↓)\s(.+?)(?:\s(\d+\s*m?s?|\[skipped\]))?$`);
const KARMA_LINE = new PythonPattern(String.raw`^(\s*)?([✔✖])?\s(.*)$`);
const TAP_RESULT = new PythonPattern(String.raw`^(ok|not ok) (\d+) (.+)$`);

/** ANSI escape sequences removed (colour codes, cursor moves), as swebench's `ansi_escape`. */
function removeAnsiEscapes(text: string): string {
  return ANSI_ESCAPE.remove(text);
}

/** Jest run per file under Calypso: suites by indentation, `✓`/`✕` tests, up to the summary. */
export const parseCalypso: LogParser = (log) => {
  const statuses = new Map<string, string>();
  // The suite stack persists from one jest run to the next, as in swebench.
  let suite: { name: string; indent: number }[] = [];
  const testName = (pattern: PythonPattern, line: string): string =>
    pythonStrip([suite.map((entry) => entry.name).join(' - '), group(pattern.match(line), 1, 'Calypso test line')].join(' - '));
  for (const run of log.split(' ./node_modules/.bin/jest ').slice(1)) {
    for (const line of run.split('\n')) {
      if (line.startsWith('Test Suites') || line.startsWith('  ● ')) break;
      const stripped = pythonStrip(line);
      if (stripped.startsWith('✓') || stripped.startsWith('✕')) {
        const symbol = stripped.startsWith('✓') ? '✓' : '✕';
        const pattern = MILLISECONDS.search(line) !== null ? CALYPSO_TEST[symbol].timed : CALYPSO_TEST[symbol].untimed;
        statuses.set(testName(pattern, line), symbol === '✓' ? TestStatus.PASSED : TestStatus.FAILED);
      } else if (indentOf(line) > 0) {
        const indent = indentOf(line);
        if (suite.length === 0) suite = [{ name: stripped, indent }];
        else {
          while (suite.length > 0 && (suite.at(-1) as { indent: number }).indent >= indent) suite.pop();
          suite.push({ name: stripped, indent });
        }
      }
    }
  }
  return statuses;
};

/** Chart.js (Karma on Chrome): only failures are listed, one per `Chrome <version> (<os>) <name> FAILED` line. */
export const parseChartJs: LogParser = (log) => {
  const statuses = new Map<string, string>();
  for (const match of CHROME_FAILURE.finditer(removeAnsiEscapes(log))) {
    statuses.set(match.groups[0] ?? '', TestStatus.FAILED);
  }
  return statuses;
};

/** marked (Mocha): only failures, as numbered `1) name` lines. */
export const parseMarked: LogParser = (log) => {
  const statuses = new Map<string, string>();
  for (const line of log.split('\n')) {
    const match = MOCHA_FAILURE.search(line);
    if (match !== null) statuses.set(pythonStrip(match.groups[0] ?? ''), TestStatus.FAILED);
  }
  return statuses;
};

/** p5.js (Mocha): numbered failures whose title spans indented lines, after JSON and XML blocks in the output are dropped. */
export const parseP5js: LogParser = (log) => {
  const text = removeXmlBlocks(removeJsonBlocks(removeAnsiEscapes(log)));
  const statuses = new Map<string, string>();
  for (const match of P5JS_FAILURE.finditer(text)) {
    const title = match.groups[1] ?? '';
    if (!indentedFurtherEachLine(title)) continue;
    statuses.set(title.split('\n').map((part) => pythonStrip(part)).join(':'), TestStatus.FAILED);
  }
  return statuses;
};

function removeJsonBlocks(text: string): string {
  const kept: string[] = [];
  let inObject = false;
  let inList = false;
  for (const line of text.split('\n')) {
    const trimmed = pythonRstrip(line);
    if (trimmed.endsWith('{')) {
      inObject = true;
      continue;
    }
    if (trimmed.endsWith('[')) {
      inList = true;
      continue;
    }
    if (trimmed === '}' && inObject) {
      inObject = false;
      continue;
    }
    if (trimmed === ']' && inList) {
      inList = false;
      continue;
    }
    if (inObject || inList) continue;
    if (trimmed.startsWith('{') && trimmed.endsWith('}')) continue;
    if (trimmed.startsWith('[') && trimmed.endsWith(']')) continue;
    kept.push(line);
  }
  return kept.join('\n');
}

/** Each `<tag>...</tag>` block (shortest first) removed, leaving the block's unclosed inner openings of the same tag. */
function removeXmlBlocks(text: string): string {
  let match = XML_BLOCK.search(text);
  while (match !== null) {
    const opening = `<${match.groups[0] ?? ''}>`;
    const left = Math.max(countOf(match.text, opening) - 1, 0);
    text = text.slice(0, match.start) + opening.repeat(left) + text.slice(match.end);
    match = XML_BLOCK.search(text);
  }
  return text;
}

/** A failure title is valid when every line is indented further than the one before (the first more than 0). */
function indentedFurtherEachLine(title: string): boolean {
  let last = 0;
  for (const line of title.split('\n')) {
    const indent = indentOf(line);
    if (indent <= last) return false;
    last = indent;
  }
  return true;
}

const REACT_PDF_PATTERNS: readonly [PythonPattern, string][] = (
  [
  [String.raw`^PASS\s(.*)\s\([\d\.]+ms\)`, TestStatus.PASSED],
  [String.raw`^PASS\s(.*)\s\([\d\.]+\ss\)`, TestStatus.PASSED],
  [String.raw`^PASS\s(.*)\s\([\d\.]+s\)`, TestStatus.PASSED],
  [String.raw`^PASS\s(.*)`, TestStatus.PASSED],
  [String.raw`^FAIL\s(.*)\s\([\d\.]+ms\)`, TestStatus.FAILED],
  [String.raw`^FAIL\s(.*)\s\([\d\.]+\ss\)`, TestStatus.FAILED],
  [String.raw`^FAIL\s(.*)\s\([\d\.]+s\)`, TestStatus.FAILED],
  [String.raw`^FAIL\s(.*)`, TestStatus.FAILED],
  ] as const
).map(([source, status]) => [new PythonPattern(source), status]);

/** react-pdf: Jest's per-file `PASS path (1.2 s)` / `FAIL path` lines, the file being the test. */
export const parseReactPdf: LogParser = (log) => {
  const statuses = new Map<string, string>();
  for (const line of log.split('\n')) {
    for (const [pattern, status] of REACT_PDF_PATTERNS) {
      const match = pattern.match(line);
      if (match === null) continue;
      statuses.set(match.groups[0] ?? '', status);
      break;
    }
  }
  return statuses;
};

/** Jest with --verbose: `✓ name (5 ms)`, `✕ name`, `○ name` (skipped). */
export const parseJest: LogParser = lineResultParser(JEST_RESULT, 2, 1, { '✓': TestStatus.PASSED, '✕': TestStatus.FAILED, '○': TestStatus.SKIPPED });

/** Jest's --json output turned into `[PASSED] name` / `[FAILED] name` lines. */
export const parseJestJson: LogParser = lineResultParser(JEST_JSON_RESULT, 2, 1, { PASSED: TestStatus.PASSED, FAILED: TestStatus.FAILED });

/** Vitest with --reporter=verbose: `✓ name 5ms`, `× name`, `↓ name [skipped]`. */
export const parseVitest: LogParser = lineResultParser(VITEST_RESULT, 2, 1, { '✓': TestStatus.PASSED, '×': TestStatus.FAILED, '↓': TestStatus.SKIPPED });

/** Karma's spec reporter: after `Starting browser`, suites by indentation, `✔`/`✖` tests named `suite > ... > test`, up to `SUMMARY:`. */
export const parseKarma: LogParser = (log) => {
  const statuses = new Map<string, string>();
  let currentIndent = -1;
  const currentSuite: string[] = [];
  let started = false;
  for (const line of log.split('\n')) {
    if (line.startsWith('SUMMARY:')) return statuses;
    if (line.includes('Starting browser')) {
      started = true;
      continue;
    }
    if (!started) continue;
    const match = KARMA_LINE.match(line);
    if (match === null) continue;
    const [indent, status, name = ''] = match.groups;
    if (indent && !status) {
      if (indent.length > currentIndent) {
        currentIndent = indent.length;
        currentSuite.push(name);
      } else if (indent.length < currentIndent) {
        currentIndent = indent.length;
        if (currentSuite.pop() === undefined) throw new LogParserError('Karma log: a suite ends that never began (IndexError: pop from empty list)');
        continue;
      }
    }
    if (status === '✔' || status === '✖') statuses.set([...currentSuite, name].join(' > '), status === '✔' ? TestStatus.PASSED : TestStatus.FAILED);
  }
  return statuses;
};

/** TAP: `ok 1 name` / `not ok 2 name`. */
export const parseTap: LogParser = lineResultParser(TAP_RESULT, 3, 1, { ok: TestStatus.PASSED, 'not ok': TestStatus.FAILED });

/** immutable-js's instances ran different runners: the pull request number picks the parser. */
export const parseImmutableJs: LogParser = (log, instance) => {
  const pullRequest = instance.instance_id.split('-').at(-1);
  if (pullRequest === '2006') return parseJest(log, instance);
  if (pullRequest === '2005') return parseJestJson(log, instance);
  throw new LogParserError(`Unknown instance id: ${instance.instance_id} (immutable-js instances other than 2005 and 2006 have no log parser)`);
};

