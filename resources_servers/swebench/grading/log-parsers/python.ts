/**
 * Parsers of the Python repositories' test logs, as swebench 4.1.0 grades them: pytest's `-rA` summary lines
 * (`PASSED tests/x.py::test_y`), its options form that shortens path-like parametrize ids, its verbose
 * form (`tests/x.py::test_y PASSED`), Django's runner, SymPy's `bin/test`, and seaborn's and matplotlib's
 * variants. The odd corners (a FAILED line's ` - ` reason folded into the name, the status word taken
 * verbatim) are kept, since a grade depends on them.
 */
import { pythonSplit, pythonStrip } from 'ngym/python-compat';
import { TEST_STATUS_WORDS, TestStatus } from '../constants.ts';
import { item, type LogParser, PythonPattern } from './python-text.ts';

const PARAMETRIZED_ID = new PythonPattern(String.raw`(.*?)\[(.*)\]`);
const COLOUR_CODE = new PythonPattern(String.raw`\[(\d+)m`);
const SYMPY_FAILURE_HEADER = new PythonPattern(String.raw`(_*) (.*)\.py:(.*) (_*)`);

const startsWithStatus = (line: string): boolean => TEST_STATUS_WORDS.some((word) => line.startsWith(word));
const endsWithStatus = (line: string): boolean => TEST_STATUS_WORDS.some((word) => line.endsWith(word));

/** `-rA` summary lines as (status word, test id): a FAILED line's ` - message` joins the id's line first, as swebench reads it. */
function* summaryEntries(log: string): Generator<[status: string, id: string]> {
  for (let line of log.split('\n')) {
    if (!startsWithStatus(line)) continue;
    if (line.startsWith(TestStatus.FAILED)) line = line.replaceAll(' - ', ' ');
    const parts = pythonSplit(line);
    if (parts.length > 1) yield [parts[0] as string, parts[1] as string];
  }
}

/** `-rA` summary lines: the status word, then the test id. */
export const parsePytest: LogParser = (log) => {
  const statuses = new Map<string, string>();
  for (const [status, id] of summaryEntries(log)) statuses.set(id, status);
  return statuses;
};

/** As parsePytest, with a parametrize id that is an absolute path shortened to its last component. */
export const parsePytestOptions: LogParser = (log) => {
  const statuses = new Map<string, string>();
  for (const [status, id] of summaryEntries(log)) {
    const withOption = PARAMETRIZED_ID.search(id);
    let name = id;
    if (withOption !== null) {
      const [main = '', found = ''] = withOption.groups;
      const option = found.startsWith('/') && !found.startsWith('//') && !found.includes('*') ? `/${found.split('/').at(-1)}` : found;
      name = `${main}[${option}]`;
    }
    statuses.set(name, status);
  }
  return statuses;
};

/** Later pytest: colour codes and control characters removed; the status first (`-rA`) or last (verbose). */
export const parsePytestV2: LogParser = (log) => {
  const statuses = new Map<string, string>();
  for (const raw of log.split('\n')) {
    // Control characters 1..31 go (tab included); NUL and DEL stay, as in swebench's translate table.
    let line = COLOUR_CODE.remove(raw).replace(/[\x01-\x1f]/g, '');
    if (startsWithStatus(line)) {
      if (line.startsWith(TestStatus.FAILED)) line = line.replaceAll(' - ', ' ');
      const parts = pythonSplit(line);
      if (parts.length >= 2) statuses.set(parts[1] as string, parts[0] as string);
    } else if (endsWithStatus(line)) {
      const parts = pythonSplit(line);
      if (parts.length >= 2) statuses.set(parts[0] as string, parts[1] as string);
    }
  }
  return statuses;
};

/** matplotlib's ids name mouse buttons by number where the log prints the enum. */
export const parseMatplotlib: LogParser = (log, instance) =>
  parsePytest(log.replaceAll('MouseButton.LEFT', '1').replaceAll('MouseButton.RIGHT', '3'), instance);

/** seaborn: FAILED lines, and PASSED either before the id or right after it. */
export const parseSeaborn: LogParser = (log) => {
  const statuses = new Map<string, string>();
  for (const line of log.split('\n')) {
    if (line.startsWith(TestStatus.FAILED)) {
      statuses.set(item(pythonSplit(line), 1, 'seaborn FAILED line'), TestStatus.FAILED);
    } else if (line.includes(` ${TestStatus.PASSED} `)) {
      const parts = pythonSplit(line);
      if (item(parts, 1, 'seaborn PASSED line') === TestStatus.PASSED) statuses.set(parts[0] as string, TestStatus.PASSED);
    } else if (line.startsWith(TestStatus.PASSED)) {
      statuses.set(item(pythonSplit(line), 1, 'seaborn PASSED line'), TestStatus.PASSED);
    }
  }
  return statuses;
};

/** SymPy's bin/test: `test_x ok|F|E` lines, and the `___ path.py:test_x ___` headers of failure reports. */
export const parseSympy: LogParser = (log) => {
  const statuses = new Map<string, string>();
  for (const match of SYMPY_FAILURE_HEADER.finditer(log)) {
    statuses.set(`${match.groups[1] ?? ''}.py:${match.groups[2] ?? ''}`, TestStatus.FAILED);
  }
  for (const raw of log.split('\n')) {
    const line = pythonStrip(raw);
    if (!line.startsWith('test_')) continue;
    const name = pythonSplit(line)[0] as string;
    if (line.endsWith(' E')) statuses.set(name, TestStatus.ERROR);
    if (line.endsWith(' F')) statuses.set(name, TestStatus.FAILED);
    if (line.endsWith(' ok')) statuses.set(name, TestStatus.PASSED);
  }
  return statuses;
};

const DJANGO_PASS_SUFFIXES = [' ... ok', ' ... OK', ' ...  OK'];
/** A test's `ok` that a long multi-line print pushed onto the next line, in the three forms seen in Django's logs. */
const DJANGO_INTERRUPTED_PASSES = [
  String.raw`^(.*?)\s\.\.\.\sTesting\ against\ Django\ installed\ in\ ((?s:.*?))\ silenced\)\.\nok$`,
  String.raw`^(.*?)\s\.\.\.\sInternal\ Server\ Error:\ \/(.*)\/\nok$`,
  String.raw`^(.*?)\s\.\.\.\sSystem check identified no issues \(0 silenced\)\nok$`,
].map((source) => new PythonPattern(source, { multiline: true }));

/** Django's runner at verbosity 2: `name (module.Class) ... ok|skipped|FAIL|ERROR`, and the FAIL:/ERROR: report headers. */
export const parseDjango: LogParser = (log) => {
  const statuses = new Map<string, string>();
  let previousTest: string | undefined;
  for (const raw of log.split('\n')) {
    let line = pythonStrip(raw);
    if (line.includes('--version is equivalent to version')) statuses.set('--version is equivalent to version', TestStatus.PASSED);
    if (line.includes(' ... ')) previousTest = line.split(' ... ')[0] as string;
    for (const suffix of DJANGO_PASS_SUFFIXES) {
      if (!line.endsWith(suffix)) continue;
      // One instance (django__django-7188) prints a migration line before its test on the same line.
      if (pythonStrip(line).startsWith('Applying sites.0002_alter_domain_unique...test_no_migrations')) {
        line = pythonStrip(line.slice(line.indexOf('...') + 3));
      }
      statuses.set(beforeLast(line, suffix), TestStatus.PASSED);
      break;
    }
    if (line.includes(' ... skipped')) statuses.set(line.split(' ... skipped')[0] as string, TestStatus.SKIPPED);
    if (line.endsWith(' ... FAIL')) statuses.set(line.split(' ... FAIL')[0] as string, TestStatus.FAILED);
    if (line.startsWith('FAIL:')) statuses.set(pythonStrip(item(pythonSplit(line), 1, 'Django FAIL: line')), TestStatus.FAILED);
    if (line.endsWith(' ... ERROR')) statuses.set(line.split(' ... ERROR')[0] as string, TestStatus.ERROR);
    if (line.startsWith('ERROR:')) statuses.set(pythonStrip(item(pythonSplit(line), 1, 'Django ERROR: line')), TestStatus.ERROR);
    // An `ok` on a line of its own: the test's output came between its `...` and its result.
    if (line.startsWith('ok') && previousTest !== undefined) statuses.set(previousTest, TestStatus.PASSED);
  }
  for (const pattern of DJANGO_INTERRUPTED_PASSES) {
    for (const match of pattern.finditer(log)) statuses.set(match.groups[0] ?? '', TestStatus.PASSED);
  }
  return statuses;
};

/** `text.rsplit(suffix, 1)[0]`. */
function beforeLast(text: string, suffix: string): string {
  const at = text.lastIndexOf(suffix);
  return at === -1 ? text : text.slice(0, at);
}
