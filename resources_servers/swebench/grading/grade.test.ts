/**
 * The grader's rules on hand-written logs (each expectation is what swebench 4.1.0 answers for the same log;
 * parity/swebench-grading/ checks thousands of generated logs against the package itself).
 */
import { describe, expect, it } from 'vitest';
import { gradeSwebenchLog, LOG_PARSERS, LogMarker, logsEval, type SwebenchInstance } from './index.ts';

const wrap = (...lines: string[]) => ['+ cd /testbed', LogMarker.START_TEST_OUTPUT, ...lines, LogMarker.END_TEST_OUTPUT, '+ git checkout'].join('\n');
const row = (repo: string, failToPass: string[], passToPass: string[] = [], instanceId = 'owner__repo-1'): SwebenchInstance => ({ instance_id: instanceId, repo, version: '1.0', FAIL_TO_PASS: failToPass, PASS_TO_PASS: passToPass });

describe('pytest summaries', () => {
  it('reads -rA lines, folding a FAILED line\'s " - " message into the id as swebench does', () => {
    const log = wrap('PASSED tests/a.py::test_x[1-2]', 'FAILED tests/a.py::test_y - AssertionError: 1 != 2', 'FAILED tests/a.py::test_z[a - b] - boom', 'XFAIL tests/a.py::test_w - reason', 'SKIPPED [1] tests/a.py:3: needs io');
    const { statuses, found } = logsEval(row('pytest-dev/pytest', []), log);
    expect(found).toBe(true);
    expect([...statuses]).toEqual([
      ['tests/a.py::test_x[1-2]', 'PASSED'],
      ['tests/a.py::test_y', 'FAILED'],
      ['tests/a.py::test_z[a', 'FAILED'],
      ['tests/a.py::test_w', 'XFAIL'],
      ['[1]', 'SKIPPED'],
    ]);
  });

  it('resolves when every FAIL_TO_PASS and PASS_TO_PASS test passed (XFAIL counts as passed), and writes report.json\'s fields', () => {
    const log = wrap('PASSED tests/a.py::test_fix', 'XFAIL tests/a.py::test_known', 'PASSED tests/a.py::test_old');
    const report = gradeSwebenchLog({ instance: row('pydata/xarray', ['tests/a.py::test_fix'], ['tests/a.py::test_known', 'tests/a.py::test_old']), log });
    expect(report).toMatchObject({ patch_is_None: false, patch_exists: true, patch_successfully_applied: true, resolved: true, resolution_status: 'RESOLVED_FULL', evaluation_completed: true, log_parser: 'pytest' });
    expect(report.tests_status?.FAIL_TO_PASS).toEqual({ success: ['tests/a.py::test_fix'], failure: [] });
    expect(report.tests_status?.FAIL_TO_FAIL).toEqual({ success: [], failure: [] });
  });

  it('is PARTIAL when some FAIL_TO_PASS pass and all PASS_TO_PASS do; a test never run fails; SKIPPED is in neither list', () => {
    const log = wrap('PASSED tests/a.py::one', 'FAILED tests/a.py::two', 'SKIPPED tests/a.py::three', 'PASSED tests/a.py::kept');
    const report = gradeSwebenchLog({ instance: row('pydata/xarray', ['tests/a.py::one', 'tests/a.py::two', 'tests/a.py::three'], ['tests/a.py::kept']), log });
    expect(report.tests_status?.FAIL_TO_PASS).toEqual({ success: ['tests/a.py::one'], failure: ['tests/a.py::two'] });
    expect(report).toMatchObject({ resolved: false, resolution_status: 'RESOLVED_PARTIAL' });
    // Only SKIPPED tests listed: no success, no failure, so the group counts as complete.
    expect(gradeSwebenchLog({ instance: row('pydata/xarray', ['tests/a.py::three']), log }).resolved).toBe(true);
    expect(gradeSwebenchLog({ instance: row('pydata/xarray', ['tests/a.py::never']), log }).tests_status?.FAIL_TO_PASS.failure).toEqual(['tests/a.py::never']);
  });

  it('shortens a path-like parametrize id to its last component for requests, pylint and pydicom', () => {
    const log = wrap('PASSED tests/test_r.py::test_file[/tmp/data/file.txt]', 'PASSED tests/test_r.py::test_net[//net/share]');
    expect([...logsEval(row('psf/requests', []), log).statuses.keys()]).toEqual(['tests/test_r.py::test_file[/file.txt]', 'tests/test_r.py::test_net[//net/share]']);
  });

  it('reads the verbose form, without colour codes, for astropy, scikit-learn and sphinx', () => {
    const log = wrap('\u001b[32mtests/test_s.py::test_ok PASSED\u001b[0m', 'tests/test_s.py::test_bad FAILED');
    expect([...logsEval(row('sphinx-doc/sphinx', []), log).statuses]).toEqual([['tests/test_s.py::test_ok', 'PASSED'], ['tests/test_s.py::test_bad', 'FAILED']]);
  });
});

describe('the log around the tests', () => {
  const instance = row('pytest-dev/pytest', ['tests/a.py::t']);

  it('is not graded when a bad-run marker appears anywhere or a test-output marker is missing', () => {
    for (const log of [`${LogMarker.APPLY_PATCH_FAIL}:\nerror: patch failed`, wrap('PASSED tests/a.py::t', LogMarker.TESTS_TIMEOUT), `${LogMarker.START_TEST_OUTPUT}\nPASSED tests/a.py::t`]) {
      const report = gradeSwebenchLog({ instance, log });
      expect(report).toMatchObject({ patch_exists: true, patch_successfully_applied: false, resolved: false, evaluation_completed: true });
      expect(report.tests_status).toBeUndefined();
      expect(report.reason).toBeDefined();
    }
  });

  it('reads the whole log when the section between the markers has no results (output sent to stderr)', () => {
    const log = [LogMarker.START_TEST_OUTPUT, '+ pytest -rA', LogMarker.END_TEST_OUTPUT, 'PASSED tests/a.py::t'].join('\n');
    expect(gradeSwebenchLog({ instance, log }).resolved).toBe(true);
  });

  it('reads CRLF and CR line ends as Python\'s text mode does', () => {
    expect(gradeSwebenchLog({ instance, log: wrap('PASSED tests/a.py::t').replaceAll('\n', '\r\n') }).resolved).toBe(true);
    expect(gradeSwebenchLog({ instance, log: wrap('PASSED tests/a.py::t').replaceAll('\n', '\r') }).resolved).toBe(true);
  });

  it('says patch_is_None for a missing patch, and takes the test lists as the JSON strings datasets carry', () => {
    expect(gradeSwebenchLog({ instance, log: '', modelPatch: null })).toMatchObject({ patch_is_None: true, patch_exists: false, resolved: false });
    const fromStrings = gradeSwebenchLog({ instance: { ...instance, FAIL_TO_PASS: '["tests/a.py::t"]', PASS_TO_PASS: '[]' }, log: wrap('PASSED tests/a.py::t') });
    expect(fromStrings.resolved).toBe(true);
  });

  it('refuses rows it cannot grade, naming the problem', () => {
    expect(() => gradeSwebenchLog({ instance: row('someone/project', []), log: '' })).toThrow(/No SWE-bench log parser for repository "someone\/project"/);
    expect(() => gradeSwebenchLog({ instance: { ...instance, FAIL_TO_PASS: 'not json' }, log: '' })).toThrow(/FAIL_TO_PASS is not a JSON list/);
    // A project swebench does not map is graded with the parser it names.
    expect(gradeSwebenchLog({ instance: row('someone/project', ['tests/a.py::t']), log: wrap('PASSED tests/a.py::t'), parser: 'pytest' }).resolved).toBe(true);
  });
});

describe('other runners', () => {
  it('Django: results on the test\'s line, on a later line after its output, and in the FAIL:/ERROR: headers', () => {
    const log = wrap('test_a (app.tests.T) ... ok', 'test_b (app.tests.T) ... some output', 'more output', 'ok', 'test_c (app.tests.T) ... skipped "no db"', 'test_d (app.tests.T) ... System check identified no issues (0 silenced).', 'ok', 'ERROR: test_e (app.tests.T)');
    expect(Object.fromEntries(logsEval(row('django/django', []), log).statuses)).toEqual({ 'test_a (app.tests.T)': 'PASSED', 'test_b (app.tests.T)': 'PASSED', 'test_c (app.tests.T)': 'SKIPPED', 'test_d (app.tests.T)': 'PASSED', test_e: 'ERROR' });
  });

  it('a line a parser cannot read ends grading as not completed, as swebench\'s parser raises there', () => {
    const report = gradeSwebenchLog({ instance: row('django/django', ['t']), log: wrap('FAIL:') });
    expect(report).toMatchObject({ evaluation_completed: false, resolved: false, patch_successfully_applied: false });
    expect(report.reason).toMatch(/django log parser/);
    expect(gradeSwebenchLog({ instance: row('nlohmann/json', []), log: wrap('<doctest binary="x"><TestCase name="a">') }).evaluation_completed).toBe(false);
  });

  it('SymPy: `test_x ok|F|E` lines and the failure report headers', () => {
    const log = wrap('test_one ok', 'test_two F', '________ sympy/core/tests/test_x.py:test_three ________');
    expect(Object.fromEntries(logsEval(row('sympy/sympy', []), log).statuses)).toEqual({ 'sympy/core/tests/test_x.py:test_three': 'FAILED', test_one: 'PASSED', test_two: 'FAILED' });
  });

  it('fail-only repositories count a listed test failed only when the log says FAILED', () => {
    const log = wrap('1) renders lists');
    const report = gradeSwebenchLog({ instance: row('markedjs/marked', ['renders tables'], ['renders lists']), log });
    expect(report.tests_status?.FAIL_TO_PASS).toEqual({ success: ['renders tables'], failure: [] });
    expect(report.tests_status?.PASS_TO_PASS).toEqual({ success: [], failure: ['renders lists'] });
  });

  it('doctest XML: each SubCase passes when all its Expressions succeeded, entities resolved', () => {
    const xml = '<doctest binary="t"><TestCase name="a &amp; b"><SubCase name="x"><Expression success="true"/></SubCase><SubCase name="y"><Expression success="false"/></SubCase></TestCase></doctest>';
    expect(Object.fromEntries(logsEval(row('nlohmann/json', []), wrap(xml)).statuses)).toEqual({ 'a & b > x': 'PASSED', 'a & b > y': 'FAILED' });
  });

  it('picks the runner by pull request where a repository used several (immutable-js, jekyll)', () => {
    expect([...logsEval(row('immutable-js/immutable-js', [], [], 'immutable-js__immutable-js-2005'), wrap('[PASSED] Map sets')).statuses]).toEqual([['Map sets', 'PASSED']]);
    expect(gradeSwebenchLog({ instance: row('jekyll/jekyll', [], [], 'jekyll__jekyll-1'), log: wrap('x') }).evaluation_completed).toBe(false);
  });

  it('Go, cargo, Jest, TAP, PHPUnit: one line per test', () => {
    expect([...logsEval(row('gin-gonic/gin', []), wrap('    --- FAIL: TestX/sub (0.01s)')).statuses]).toEqual([['TestX/sub', 'FAILED']]);
    expect([...logsEval(row('sharkdp/bat', []), wrap('test a::b ... ok', 'test a::c ... ignored')).statuses]).toEqual([['a::b', 'PASSED']]);
    expect([...logsEval(row('babel/babel', []), wrap('  ✓ parses x (5 ms)', '  ○ skipped y')).statuses]).toEqual([['parses x', 'PASSED'], ['skipped y', 'SKIPPED']]);
    expect([...logsEval(row('axios/axios', []), wrap('not ok 3 rejects')).statuses]).toEqual([['rejects', 'FAILED']]);
    expect([...logsEval(row('laravel/framework', []), wrap('Cache (Tests\\Cache)', ' ✔ stores')).statuses]).toEqual([['Cache > stores', 'PASSED']]);
    expect(Object.keys(LOG_PARSERS)).toContain('pytest_options');
  });
});
