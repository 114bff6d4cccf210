/**
 * Seeded SWE-bench test logs for the grading differential test: for every log parser swebench 4.1.0 maps a
 * repository to, a run of tests in that runner's format (passes, failures, errors, skips, xfail/xpass,
 * parametrized ids with spaces, brackets and non-ASCII), wrapped as an evaluation log, then damaged the ways
 * real logs are (truncated, interleaved with test output, markers missing, a patch that did not apply, CRLF,
 * colour codes), with the row's FAIL_TO_PASS / PASS_TO_PASS drawn from the tests, a few never run.
 */
import { LogMarker, type LogParserName, PARSER_OF_REPOSITORY } from '../../resources_servers/swebench/grading/index.ts';
import type { SeededRandom as Random } from 'ngym';

export interface GradingCase {
  id: number;
  /** How the log was made (`<parser>:<damage>`): disagreements are grouped by it. */
  kind: string;
  instance: { instance_id: string; repo: string; version: string; FAIL_TO_PASS: string[]; PASS_TO_PASS: string[] };
  log: string;
  model_patch: string | null;
}

type Outcome = 'pass' | 'fail' | 'error' | 'skip' | 'xfail' | 'xpass';
interface Test {
  /** The name as the log prints it. */
  name: string;
  outcome: Outcome;
}

/** A version swebench 4.1.0 has specs for, per repository (its grading looks the version up). */
const VERSION_OF: Record<string, string> = {};
export function setVersions(versions: Record<string, string>): void {
  Object.assign(VERSION_OF, versions);
}

const OUTCOMES: readonly Outcome[] = ['pass', 'pass', 'pass', 'fail', 'fail', 'error', 'skip', 'xfail', 'xpass'];
const WORDS = ['alpha', 'beta', 'parse', 'render', 'io', 'ünïcode', 'café', 'λ_calc', 'x2', 'empty'];
const PARAMETERS = ['1-2', 'a', 'True-None', 'a b', 'x[y]', '/tmp/data/file.txt', '//net/share', '/a/*.py', 'ünï-√', 'MouseButton.LEFT', 'MouseButton.RIGHT', 'a - b', 'ok', '日本', 'emoji-😀', 'tab\there', '', 'FAILED', '[1]'];

function word(random: Random): string {
  return random.pick(WORDS);
}

function pytestNames(random: Random, count: number): string[] {
  const names = new Set<string>();
  while (names.size < count) {
    const base = `tests/test_${word(random)}.py::${random.chance(0.4) ? `Test${word(random)}::` : ''}test_${word(random)}_${random.int(0, 99)}`;
    names.add(random.chance(0.45) ? `${base}[${random.pick(PARAMETERS)}]` : base);
  }
  return [...names];
}

function plainNames(random: Random, count: number, shape: (random: Random, index: number) => string): string[] {
  const names = new Set<string>();
  for (let index = 0; names.size < count; index++) names.add(shape(random, index));
  return [...names];
}

const SENTENCE = (random: Random, index: number) => `${random.chance(0.5) ? 'handles' : 'renders'} ${word(random)} ${random.chance(0.3) ? `[${word(random)}] ` : ''}case ${index}`;

/** The pytest `-rA` summary word for an outcome. */
const PYTEST_WORD: Record<Outcome, string> = { pass: 'PASSED', fail: 'FAILED', error: 'ERROR', skip: 'SKIPPED', xfail: 'XFAIL', xpass: 'XPASS' };

function pytestLines(random: Random, tests: Test[], verbose: boolean): string[] {
  const lines: string[] = [];
  if (verbose || random.chance(0.3)) {
    tests.forEach((test, index) => {
      const percent = `[${String(Math.round((100 * (index + 1)) / tests.length)).padStart(3)}%]`;
      lines.push(`${test.name} ${PYTEST_WORD[test.outcome]}${random.chance(0.5) ? ` ${percent}` : ''}`);
    });
  }
  lines.push('=========================== short test summary info ============================');
  for (const test of tests) {
    const status = PYTEST_WORD[test.outcome];
    if (test.outcome === 'skip') lines.push(random.chance(0.5) ? `SKIPPED [1] ${test.name.split('::')[0]}:${random.int(1, 300)}: needs ${word(random)}` : `SKIPPED ${test.name}`);
    else if (test.outcome === 'fail' || test.outcome === 'error') lines.push(`${status} ${test.name}${random.chance(0.7) ? ` - AssertionError: ${word(random)} - ${random.int(0, 9)} != ${random.int(0, 9)}` : ''}`);
    else if (test.outcome === 'xfail') lines.push(`XFAIL ${test.name}${random.chance(0.5) ? ` - reason: ${word(random)}` : ''}`);
    else lines.push(`${status} ${test.name}`);
  }
  lines.push(`========== ${tests.filter((test) => test.outcome === 'pass').length} passed, ${tests.filter((test) => test.outcome === 'fail').length} failed in ${random.int(1, 90)}.${random.int(10, 99)}s ==========`);
  return lines;
}

function djangoLines(random: Random, tests: Test[]): string[] {
  const lines: string[] = ['Testing against Django installed in \'/testbed/django\' with up to 2 processes', 'System check identified no issues (0 silenced).'];
  for (const test of tests) {
    const variant = random.int(0, 9);
    if (test.outcome === 'pass' && variant === 0) lines.push(`${test.name} ... `, `printed ${word(random)}`, 'ok');
    else if (test.outcome === 'pass' && variant === 1) lines.push(`${test.name} ... System check identified no issues (0 silenced).`, 'ok');
    else if (test.outcome === 'pass' && variant === 2) lines.push(`${test.name} ... Internal Server Error: /${word(random)}/`, 'ok');
    else if (test.outcome === 'pass' && variant === 3) lines.push(`${test.name} ... Testing against Django installed in '/testbed/django' with up to 4 processes`, 'Found 3 test(s).', 'System check identified no issues (0 silenced).', 'ok');
    else if (test.outcome === 'pass') lines.push(`${test.name} ... ${random.pick(['ok', 'OK', ' OK'])}`);
    else if (test.outcome === 'fail') lines.push(`${test.name} ... FAIL`);
    else if (test.outcome === 'error') lines.push(`${test.name} ... ERROR`);
    else lines.push(`${test.name} ... skipped '${word(random)} not installed'`);
  }
  if (random.chance(0.2)) lines.push('--version is equivalent to version');
  for (const test of tests.filter((each) => each.outcome === 'fail' || each.outcome === 'error')) {
    lines.push('======================================================================', `${test.outcome === 'fail' ? 'FAIL' : 'ERROR'}: ${test.name}`, '----------------------------------------------------------------------', 'Traceback (most recent call last):', '  AssertionError');
  }
  lines.push('----------------------------------------------------------------------', `Ran ${tests.length} tests in 0.${random.int(100, 999)}s`);
  return lines;
}

function sympyLines(random: Random, tests: Test[]): string[] {
  const file = `sympy/${word(random)}/tests/test_${word(random)}.py`;
  const lines = [`${file}[${tests.length}] `];
  for (const test of tests) lines.push(`${test.name} ${test.outcome === 'pass' ? 'ok' : test.outcome === 'error' ? 'E' : test.outcome === 'skip' ? 's' : 'F'}`);
  for (const test of tests.filter((each) => each.outcome === 'fail')) lines.push(`________________________________ ${file}:${test.name} ________________________________`, 'AssertionError');
  lines.push(`============= tests finished: ${random.int(1, 9)} passed, ${random.int(0, 3)} failed, in 0.5 seconds =============`);
  return lines;
}

function seabornLines(random: Random, tests: Test[]): string[] {
  const lines = tests.map((test) => (random.chance(0.5) ? `${test.name} ${PYTEST_WORD[test.outcome]}${random.chance(0.5) ? ' [ 50%]' : ''}` : `${PYTEST_WORD[test.outcome]} ${test.name}`));
  return lines;
}

function jestLikeLines(random: Random, tests: Test[], marks: Record<Outcome, string>, duration: (random: Random) => string): string[] {
  const lines = [`PASS packages/${word(random)}/test/index.js`, `  ${word(random)} suite`];
  for (const test of tests) lines.push(`    ${marks[test.outcome]} ${test.name}${random.chance(0.6) ? ` ${duration(random)}` : ''}`);
  lines.push('', `Tests:       ${tests.length} total`);
  return lines;
}

function calypsoLines(random: Random, tests: Test[]): string[] {
  const lines = ['> calypso@0.17.0 test-client', `+ yarn run ./node_modules/.bin/jest --config=test/client/jest.config.js`, ` ./node_modules/.bin/jest client/${word(random)}`];
  lines.push(`  ${word(random)}`, `    ${word(random)} block`);
  for (const test of tests) lines.push(`      ${test.outcome === 'pass' ? '✓' : '✕'} ${test.name}${random.chance(0.6) ? ` (${random.int(1, 400)}ms)` : ''}`);
  lines.push(random.chance(0.5) ? '  ● failing › explained' : 'Test Suites: 1 passed, 1 total', `      ✓ after the summary (${random.int(1, 9)}ms)`);
  return lines;
}

function karmaLines(random: Random, tests: Test[]): string[] {
  const lines = ['Karma v6.4.1 server started', 'Starting browser ChromeHeadless', `  ${word(random)}`];
  tests.forEach((test, index) => {
    if (index % 3 === 0 && index > 0) lines.push(`    ${word(random)} nested`);
    lines.push(`${index % 3 === 0 ? '    ' : '      '}${test.outcome === 'pass' ? '✔' : '✖'} ${test.name}`);
  });
  lines.push('SUMMARY:', `✔ ${tests.length} tests completed`);
  return lines;
}

function doctestXml(random: Random, tests: Test[]): string[] {
  const escape = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('"', '&quot;');
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<doctest binary="tests/test-unicode">', '  <Options order_by="file" rand_seed="0" first="0" last="4294967295" abort_after="0" subcase_filter_levels="2147483647" case_sensitive="false" no_throw="false" no_skip="false"/>'];
  const cases = new Map<string, Test[]>();
  for (const test of tests) {
    const [caseName = '', subName = ''] = test.name.split(' > ');
    cases.set(caseName, [...(cases.get(caseName) ?? []), { name: subName, outcome: test.outcome }]);
  }
  for (const [caseName, subs] of cases) {
    lines.push(`  <TestSuite name="${escape(word(random))}">`, `    <TestCase name="${escape(caseName)}" filename="tests/src/unit.cpp" line="${random.int(1, 999)}">`);
    for (const sub of subs) {
      lines.push(`      <SubCase name="${escape(sub.name)}" filename="tests/src/unit.cpp" line="${random.int(1, 999)}">`);
      const expressions = random.int(0, 2);
      for (let index = 0; index < expressions; index++) lines.push(`        <Expression success="${sub.outcome === 'pass' || index > 0 ? 'true' : 'false'}" type="CHECK"><Original>j == ${index}</Original></Expression>`);
      if (sub.outcome !== 'pass' && expressions === 0) lines.push('        <Expression success="false" type="CHECK"><Original>a &lt; b</Original><Expanded>1 &lt; 0</Expanded></Expression>');
      lines.push('      </SubCase>');
    }
    lines.push(`      <OverallResultsAsserts successes="1" failures="0" test_case_success="true"/>`, '    </TestCase>', '  </TestSuite>');
  }
  lines.push('  <OverallResultsAsserts successes="10" failures="0"/>', '  <OverallResultsTestCases successes="1" failures="0"/>', '</doctest>');
  return lines;
}

function p5jsLines(random: Random, tests: Test[]): string[] {
  const lines = ['  p5.prototype', `    ✓ ${word(random)}`, '{', '  "stats": 1', '}', '<div>', '  <p>markup</p>', '</div>', '  [1, 2]'];
  tests.filter((test) => test.outcome !== 'pass').forEach((test, index) => {
    const [suite = '', name = ''] = test.name.split(':');
    lines.push(`  ${index + 1}) ${suite}`, `       ${name}:`, `     Error: expected ${word(random)}`);
  });
  return lines;
}

interface Format {
  names(random: Random, count: number): string[];
  lines(random: Random, tests: Test[]): string[];
  /** The names the row lists for a test (default: the name as printed); pytest's options form shortens paths. */
  listed?(name: string): string;
}

const pytestFormat = (verbose = false): Format => ({ names: pytestNames, lines: (random, tests) => pytestLines(random, tests, verbose) });
const simple = (shape: (random: Random, index: number) => string, line: (test: Test, random: Random) => string | string[]): Format => ({
  names: (random, count) => plainNames(random, count, shape),
  lines: (random, tests) => tests.flatMap((test) => line(test, random)),
});
const passOrFail = (test: Test) => test.outcome === 'pass' || test.outcome === 'xfail';

const FORMATS: Record<LogParserName, Format> = {
  pytest: pytestFormat(),
  // The row lists a path-like parametrize id by its last component, as this parser reads it back.
  pytest_options: { ...pytestFormat(), listed: (name) => name.replace(/\[\/(?!\/)([^*\]]*\/)?([^/*\]]*)\]$/, (_whole, _folders, last: string) => `[/${last}]`) },
  pytest_v2: pytestFormat(true),
  matplotlib: pytestFormat(),
  django: simple((random, index) => `test_${word(random)}_${index} (${word(random)}.tests.${word(random)}Tests${random.chance(0.3) ? `.test_${index}` : ''})`, () => []),
  sympy: simple((random, index) => `test_${word(random)}_${index}`, () => []),
  seaborn: simple((random, index) => `tests/test_${word(random)}.py::Test${word(random)}::test_${index}${random.chance(0.3) ? `[${random.pick(PARAMETERS)}]` : ''}`, () => []),
  calypso: simple(SENTENCE, () => []),
  chart_js: simple(SENTENCE, (test, random) => (test.outcome === 'pass' ? `${word(random)} passed` : `\u001b[31mChrome 91.0.4472.${random.int(0, 99)} (Linux x86_64) ${test.name} FAILED\u001b[39m`)),
  marked: simple(SENTENCE, (test, random) => (passOrFail(test) ? `  ✓ ${test.name}` : [`${random.int(1, 20)}) ${test.name}`, `   Error: ${word(random)}`])),
  p5js: simple((random, index) => `${word(random)} suite:${word(random)} works ${index}`, () => []),
  react_pdf: simple((random, index) => `tests/${word(random)}_${index}.test.js`, (test, random) => `${passOrFail(test) ? 'PASS' : 'FAIL'} ${test.name}${random.pick(['', ` (${random.int(1, 9)}.${random.int(1, 99)} s)`, ` (${random.int(5, 900)}ms)`, ` (${random.int(1, 9)}s)`])}`),
  jest: simple(SENTENCE, () => []),
  jest_json: simple(SENTENCE, (test) => `[${passOrFail(test) ? 'PASSED' : 'FAILED'}] ${test.name}`),
  vitest: simple(SENTENCE, () => []),
  karma: simple(SENTENCE, () => []),
  tap: simple(SENTENCE, (test, random) => `${passOrFail(test) ? 'ok' : 'not ok'} ${random.int(1, 500)} ${test.name}${test.outcome === 'skip' ? ' # SKIP' : ''}`),
  immutable_js: simple(SENTENCE, () => []),
  redis: simple(SENTENCE, (test, random) => (test.outcome === 'skip' ? `[${random.pick(['skip', 'ignore'])}]: ${test.name}` : passOrFail(test) ? `[ok]: ${test.name} (${random.int(0, 900)} ms)` : `[err]: ${test.name} in tests/unit/${word(random)}.tcl`)),
  jq: simple((random, index) => `Test #${index}: '${word(random)}' at line number ${random.int(1, 900)}`, (test) => `${passOrFail(test) ? 'PASS' : 'FAIL'}: ${test.name}`),
  doctest: simple((random, index) => `${random.chance(0.5) ? 'Unicode' : 'json'} case ${index % 3} > ${SENTENCE(random, index)}${random.chance(0.2) ? ' & <more> "quoted"' : ''}`, () => []),
  micropython_test: simple((random, index) => `basics/${word(random)}_${index}.py`, (test) => `${test.outcome === 'skip' ? 'skip' : passOrFail(test) ? 'pass' : 'FAIL'} ${test.name}`),
  googletest: simple((random, index) => `${word(random)}Test.${word(random)}_${index}`, (test, random) => `[${passOrFail(test) ? '       OK ' : '  FAILED  '}] ${test.name} (${random.int(0, 90)} ms)`),
  gotest: simple((random, index) => `Test${word(random)}${index}${random.chance(0.3) ? `/${word(random)}_case` : ''}`, (test, random) => `${random.chance(0.3) ? '    ' : ''}--- ${test.outcome === 'skip' ? 'SKIP' : passOrFail(test) ? 'PASS' : 'FAIL'}: ${test.name} (0.${random.int(0, 99)}s)`),
  maven: simple((random, index) => `${word(random)}Test#test${index}`, (test, random) => [`+ mvn test -B -Dtest=${test.name} -DfailIfNoTests=false`, `[INFO] Tests run: 1, Failures: ${passOrFail(test) ? 0 : 1}`, `[INFO] BUILD ${passOrFail(test) ? 'SUCCESS' : 'FAILURE'}`, random.chance(0.2) ? '[INFO] Total time: 3 s' : '']),
  ant: simple((random, index) => `lombok.${word(random)}Test${index}`, (test) => `    [junit] [${passOrFail(test) ? 'PASS' : test.outcome === 'error' ? 'ERR' : 'FAIL'}] ${test.name}`),
  gradle_custom: simple((random, index) => `org.apache.${word(random)}.Test${index} > test${word(random)}`, (test) => `${test.name} ${passOrFail(test) ? 'PASSED' : 'FAILED'}`),
  phpunit: simple(SENTENCE, () => []),
  jekyll: simple((random, index) => `Test${word(random)}#test_${word(random)}_${index}`, () => []),
  minitest: simple((random, index) => `Test${word(random)}#test_${word(random)}_${index}`, (test, random) => `${test.name} = 0.${random.int(0, 99)} s = ${passOrFail(test) ? '.' : random.pick(['F', 'E'])}`),
  cucumber: simple((random, index) => `features/${word(random)}.feature:${index + 1}`, (test, random) => `${test.name} ${'.'.repeat(random.int(1, 6))}${passOrFail(test) ? '.' : 'F'}`),
  ruby_unit: simple((random, index) => `test_${word(random)}_${index}(Test${word(random)})`, (test, random) => `${random.chance(0.5) ? 'test: ' : '  '}${test.name}:\t${test.outcome === 'skip' ? 'O' : passOrFail(test) ? '.' : random.pick(['F', 'E'])}: (0.00${random.int(1, 9)})`),
  rspec_transformed_json: simple((random, index) => `Fastlane::${word(random)} ${SENTENCE(random, index)}`, (test) => `${test.name} - ${passOrFail(test) ? 'passed' : 'failed'}`),
  cargo: simple((random, index) => `${word(random)}::tests::${word(random)}_${index}`, (test) => `test ${test.name} ... ${test.outcome === 'skip' ? 'ignored' : passOrFail(test) ? 'ok' : 'FAILED'}`),
};

/** A run's lines in its runner's format (formats with suites or summaries take all the tests at once). */
function renderTests(parser: LogParserName, random: Random, tests: Test[], instanceId: string): string[] {
  const jestMarks: Record<Outcome, string> = { pass: '✓', xfail: '✓', fail: '✕', error: '✕', xpass: '✕', skip: '○' };
  switch (parser) {
    case 'django':
      return djangoLines(random, tests);
    case 'sympy':
      return sympyLines(random, tests);
    case 'seaborn':
      return seabornLines(random, tests);
    case 'calypso':
      return calypsoLines(random, tests);
    case 'karma':
      return karmaLines(random, tests);
    case 'doctest':
      return doctestXml(random, tests);
    case 'p5js':
      return p5jsLines(random, tests);
    case 'jest':
      return jestLikeLines(random, tests, jestMarks, (r) => `(${r.int(1, 900)} ms)`);
    case 'vitest':
      return jestLikeLines(random, tests, { pass: '✓', xfail: '✓', fail: '×', error: '×', xpass: '×', skip: '↓' }, (r) => (r.chance(0.2) ? '[skipped]' : `${r.int(1, 900)}ms`));
    case 'immutable_js':
      return instanceId.endsWith('-2005') ? FORMATS.jest_json.lines(random, tests) : jestLikeLines(random, tests, jestMarks, (r) => `(${r.int(1, 900)} ms)`);
    case 'phpunit': {
      const lines = [`${word(random)} ${word(random)} (Tests\\Unit\\${word(random)}Test)`];
      for (const test of tests) lines.push(` ${test.outcome === 'skip' ? '↩' : passOrFail(test) ? '✔' : '✘'} ${test.name}`);
      return lines;
    }
    case 'jekyll':
      return (instanceId.endsWith('-8761') || instanceId.endsWith('-8771') ? FORMATS.cucumber : FORMATS.minitest).lines(random, tests);
    default:
      return FORMATS[parser].lines(random, tests);
  }
}

/** The name a row lists for a test: as the log prints it, or as the format's parser reads it back. */
const listedName = (parser: LogParserName, name: string): string => FORMATS[parser].listed?.(name) ?? name;

const NOISE = [
  'Traceback (most recent call last):', '  File "/testbed/x.py", line 3, in <module>', 'DeprecationWarning: deprecated', 'PASSED', 'FAILED', 'ERROR', 'FAIL:', 'ok',
  'test_orphan', 'tests/test_io.py::test_read PASSED', 'PASSED:', 'XPASS tests/test_x.py::test_xp', '   ', '', 'test_inline ok', 'random print ünïcode ✓ ✕ ✔',
  '[ok]: orphan test (1 ms)', '--- PASS: TestOrphan (0.00s)', '{', '}', 'Starting browser', '1) stray failure', '<doctest', '+ git apply -v /tmp/patch.diff',
];

const PRE = ['+ source /opt/miniconda3/bin/activate', '+ conda activate testbed', '+ cd /testbed', '+ git checkout abc123 tests/test_x.py', 'Updated 1 path from 7c3e2a1'];

type Damage = 'clean' | 'noise' | 'truncated' | 'no_start' | 'no_end' | 'apply_failed' | 'bad_marker' | 'outside_markers' | 'crlf' | 'ansi' | 'no_patch' | 'double_start' | 'empty' | 'odd_spaces' | 'mutated';
const DAMAGES: readonly Damage[] = ['clean', 'clean', 'clean', 'noise', 'noise', 'truncated', 'no_start', 'no_end', 'apply_failed', 'bad_marker', 'outside_markers', 'crlf', 'ansi', 'no_patch', 'double_start', 'empty', 'odd_spaces', 'mutated'];

/** Whitespace where Python and JavaScript disagree (\x1c-\x1f and \x85 are Python whitespace, \ufeff is not; \u2028 is no line break to split('\n')). */
const ODD_SPACES = ['\u00a0', '\u2028', '\u2029', '\x1c', '\x1f', '\x85', '\ufeff', '\u3000', '\t', '\v', '\f', '\u200b', '\x00', '\x7f'];

/** One small edit of a line: a character dropped, doubled, or an odd space or a status word put in. */
function mutate(random: Random, line: string): string {
  const at = random.int(0, line.length);
  switch (random.int(0, 4)) {
    case 0:
      return line.slice(0, at) + line.slice(at + 1);
    case 1:
      return line.slice(0, at) + line.charAt(at) + line.slice(at);
    case 2:
      return line.slice(0, at) + random.pick(ODD_SPACES) + line.slice(at);
    case 3:
      return line.slice(0, at) + random.pick([' - ', ' ... ', '[', ']', ':', ' ok', ' F', 'PASSED ', ' FAILED', '✓ ', '(1 ms)', '.py:']) + line.slice(at);
    default:
      return random.chance(0.5) ? `${random.pick(ODD_SPACES)}${line}` : `${line}${random.pick(ODD_SPACES)}`;
  }
}

const REPOSITORIES = Object.keys(PARSER_OF_REPOSITORY);

function instanceIdFor(repo: string, random: Random): string {
  const base = repo.replace('/', '__');
  if (repo === 'immutable-js/immutable-js') return `${base}-${random.pick(['2005', '2006', '2006', '2005', '1999'])}`;
  if (repo === 'jekyll/jekyll') return `${base}-${random.pick(['9141', '8047', '8167', '8761', '8771', '7000'])}`;
  return `${base}-${random.int(1000, 29999)}`;
}

/** `count` cases from the seeded source, cycling through the repositories so that every parser is covered. */
export function generateGradingCases(random: Random, count: number): GradingCase[] {
  if (Object.keys(VERSION_OF).length === 0) throw new Error('generateGradingCases: call setVersions first (the versions swebench has specs for)');
  const cases: GradingCase[] = [];
  for (let id = 0; id < count; id++) {
    const repo = REPOSITORIES[id % REPOSITORIES.length] as string;
    const parser = PARSER_OF_REPOSITORY[repo] as LogParserName;
    const instanceId = instanceIdFor(repo, random);
    const format = FORMATS[parser];
    const names = format.names(random, random.int(1, 12));
    const tests: Test[] = names.map((name) => ({ name, outcome: random.pick(OUTCOMES) }));
    const damage = random.pick(DAMAGES);
    let body = renderTests(parser, random, tests, instanceId).filter((line, index, all) => line !== '' || index < all.length - 1);
    if (damage === 'noise') {
      body = body.flatMap((line) => (random.chance(0.25) ? [random.pick(NOISE), line] : [line]));
    }
    if (damage === 'odd_spaces') body = body.map((line) => (random.chance(0.3) ? line.replaceAll(' ', random.pick(ODD_SPACES)) : line));
    if (damage === 'mutated') body = body.map((line) => (random.chance(0.3) ? mutate(random, line) : line));
    if (damage === 'ansi') body = body.map((line) => (random.chance(0.5) ? `\u001b[${random.pick(['32', '31', '1', '0'])}m${line}\u001b[0m` : line));
    if (damage === 'empty') body = [];
    const pre = PRE.slice(0, random.int(0, PRE.length));
    let lines: string[];
    if (damage === 'outside_markers') lines = [...pre, LogMarker.START_TEST_OUTPUT, `+ ${word(random)} tests`, LogMarker.END_TEST_OUTPUT, ...body];
    else lines = [...pre, LogMarker.START_TEST_OUTPUT, ...body, LogMarker.END_TEST_OUTPUT, '+ git checkout abc123 tests/test_x.py'];
    if (damage === 'no_start') lines = lines.filter((line) => line !== LogMarker.START_TEST_OUTPUT);
    if (damage === 'no_end') lines = lines.filter((line) => line !== LogMarker.END_TEST_OUTPUT);
    if (damage === 'double_start') lines.splice(random.int(1, lines.length - 1), 0, LogMarker.START_TEST_OUTPUT);
    if (damage === 'apply_failed') lines = [`${LogMarker.APPLY_PATCH_FAIL}:`, 'error: patch failed: src/x.py:12', 'error: src/x.py: patch does not apply'];
    if (damage === 'bad_marker') lines.splice(random.int(0, lines.length), 0, random.pick([LogMarker.RESET_FAILED, LogMarker.TESTS_ERROR, LogMarker.TESTS_TIMEOUT]));
    let log = lines.join('\n') + (random.chance(0.5) ? '\n' : '');
    if (damage === 'truncated') log = log.slice(0, random.int(Math.floor(log.length / 3), log.length));
    if (damage === 'crlf') log = random.chance(0.8) ? log.replaceAll('\n', '\r\n') : log.replaceAll('\n', '\r');
    // Some rows list only tests that ran green (a resolving patch), so that resolved runs are common enough to compare.
    const green = random.chance(0.35);
    const listed = tests.filter((test) => !green || test.outcome === 'pass' || test.outcome === 'xfail').map((test) => listedName(parser, test.name));
    const shuffled = random.shuffled(listed);
    const split = random.int(0, shuffled.length);
    const failToPass = shuffled.slice(0, Math.min(split, random.int(1, 4)));
    const passToPass = shuffled.slice(split);
    if (random.chance(0.2)) (random.chance(0.5) ? failToPass : passToPass).push(`${listed[0] ?? 'test_missing'}_never_run`);
    cases.push({
      id,
      kind: `${parser}:${damage}`,
      instance: { instance_id: instanceId, repo, version: VERSION_OF[repo] ?? '0.0', FAIL_TO_PASS: failToPass, PASS_TO_PASS: passToPass },
      log,
      model_patch: damage === 'no_patch' ? null : `diff --git a/x b/x\n`,
    });
  }
  return cases;
}
