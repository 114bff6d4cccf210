import { describe, expect, it } from 'vitest';
import { DEFAULT_TEST_COMMAND, END_TEST_OUTPUT, evalReport, evalScript, type Instance, isResolved, parsePytestLog, START_TEST_OUTPUT, testList } from './evaluation.ts';

const TEST_PATCH = `diff --git a/tests/test_a.py b/tests/test_a.py
index 1111111..2222222 100644
--- a/tests/test_a.py
+++ b/tests/test_a.py
@@ -1 +1,2 @@
 x
+y
diff --git a/tests/test_new.py b/tests/test_new.py
new file mode 100644
--- /dev/null
+++ b/tests/test_new.py
@@ -0,0 +1 @@
+z
diff --git a/tests/data.json b/tests/data.json
--- a/tests/data.json
+++ b/tests/data.json
@@ -1 +1 @@
-1
+2
`;

const instance: Instance = {
  instance_id: 'owner__repo-1',
  base_commit: 'abc123',
  test_patch: TEST_PATCH,
  FAIL_TO_PASS: ['tests/test_new.py::test_fixed'],
  PASS_TO_PASS: ['tests/test_a.py::test_kept', 'tests/test_a.py::test_skipped'],
};

const log = (body: string) => `+ git apply\n+ : '${START_TEST_OUTPUT}'\n${body}\n+ : '${END_TEST_OUTPUT}'\n`;

describe('SWE-bench evaluation', () => {
  it('builds the eval script as SWE-bench lays it out', () => {
    expect(evalScript(instance, '/testbed')).toBe(
      [
        'set -uxo pipefail',
        'cd /testbed',
        'git checkout abc123 tests/test_a.py tests/data.json',
        "git apply -v - <<'EOF_114329324912'",
        TEST_PATCH,
        'EOF_114329324912',
        `: '${START_TEST_OUTPUT}'`,
        `${DEFAULT_TEST_COMMAND} tests/test_a.py tests/test_new.py`,
        `: '${END_TEST_OUTPUT}'`,
        'git checkout abc123 tests/test_a.py tests/data.json',
        '',
      ].join('\n'),
    );
    expect(evalScript({ ...instance, eval_script: 'run it' }, '/testbed')).toBe('run it');
    expect(evalScript({ ...instance, test_cmd: 'pytest -x' }, '/testbed')).toContain('\npytest -x tests/test_a.py tests/test_new.py\n');
  });

  it("parses pytest's -rA summary lines", () => {
    const statuses = parsePytestLog('PASSED tests/a.py::t1\nFAILED tests/a.py::t2 - AssertionError: x - y\nERROR tests/a.py::t3\nSKIPPED [1] tests/a.py:9: why\nXFAIL tests/a.py::t5\nPASSED\nnoise PASSED x');
    expect(Object.fromEntries(statuses)).toEqual({ 'tests/a.py::t1': 'PASSED', 'tests/a.py::t2': 'FAILED', 'tests/a.py::t3': 'ERROR', '[1]': 'SKIPPED', 'tests/a.py::t5': 'XFAIL' });
  });

  it('reports resolved when every FAIL_TO_PASS and PASS_TO_PASS test passes (a skipped PASS_TO_PASS counts)', () => {
    const reports = evalReport(instance, 'diff', log('PASSED tests/test_new.py::test_fixed\nPASSED tests/test_a.py::test_kept\nSKIPPED tests/test_a.py::test_skipped'));
    expect(reports).toEqual({
      'owner__repo-1': {
        patch_is_None: false,
        patch_exists: true,
        patch_successfully_applied: true,
        resolved: true,
        tests_status: {
          FAIL_TO_PASS: { success: ['tests/test_new.py::test_fixed'], failure: [] },
          PASS_TO_PASS: { success: ['tests/test_a.py::test_kept', 'tests/test_a.py::test_skipped'], failure: [] },
          FAIL_TO_FAIL: { success: [], failure: [] },
          PASS_TO_FAIL: { success: [], failure: [] },
        },
      },
    });
    expect(isResolved('owner__repo-1', reports)).toBe(true);
  });

  it('is not resolved when a test fails or is missing, or the script failed before the tests', () => {
    const failing = evalReport(instance, 'diff', log('FAILED tests/test_new.py::test_fixed - assert 1 == 2\nPASSED tests/test_a.py::test_kept'));
    expect(failing['owner__repo-1']).toMatchObject({ resolved: false, tests_status: { FAIL_TO_PASS: { failure: ['tests/test_new.py::test_fixed'] }, PASS_TO_PASS: { failure: ['tests/test_a.py::test_skipped'] } } });
    expect(isResolved('owner__repo-1', failing)).toBe(false);
    const noMarkers = evalReport(instance, 'diff', 'PASSED tests/test_new.py::test_fixed');
    expect(noMarkers['owner__repo-1']).toEqual({ patch_is_None: false, patch_exists: true, patch_successfully_applied: false, resolved: false });
    expect(evalReport(instance, 'diff', `${log('PASSED x')}>>>>> Patch Apply Failed`)['owner__repo-1']?.patch_successfully_applied).toBe(false);
    expect(evalReport(instance, null, log('PASSED x'))['owner__repo-1']).toMatchObject({ patch_is_None: true, patch_exists: false });
  });

  it('needs at least one listed test for the reward', () => {
    const empty = { ...instance, FAIL_TO_PASS: [], PASS_TO_PASS: [] };
    const reports = evalReport(empty, 'diff', log('PASSED other'));
    expect(reports['owner__repo-1']?.resolved).toBe(true);
    expect(isResolved('owner__repo-1', reports)).toBe(false);
  });

  it('reads test lists as lists or as their JSON (SWE-bench rows)', () => {
    expect(testList('["a", "b"]', 'FAIL_TO_PASS')).toEqual(['a', 'b']);
    expect(testList(['a'], 'FAIL_TO_PASS')).toEqual(['a']);
    expect(() => testList('{"a": 1}', 'FAIL_TO_PASS')).toThrow(/FAIL_TO_PASS must be a list/);
  });
});
