/** The row's image, its test files and its evaluation script, without an engine. */
import { describe, expect, it } from 'vitest';
import { evaluationScript, instanceImageKey, logParserOf, testFilesOf } from './instance.ts';

const row = {
  instance_id: 'astropy__astropy-12907',
  repo: 'astropy/astropy',
  base_commit: 'd16bfe05a744909de4b27f5875fe0d4ed41ce607',
  test_patch: 'diff --git a/astropy/modeling/tests/test_separable.py b/astropy/modeling/tests/test_separable.py\n--- a/astropy/modeling/tests/test_separable.py\n+++ b/astropy/modeling/tests/test_separable.py\n',
  FAIL_TO_PASS: '["astropy/modeling/tests/test_separable.py::test_separable[compound_model6-result6]"]',
  PASS_TO_PASS: ['astropy/modeling/tests/test_core.py::test_x', 'not a file id', '../escape.py::test'],
  test_cmd: 'pytest -rA astropy/modeling/tests/test_separable.py',
};

describe('swebench instance', () => {
  it("names swebench 4.1.0's instance image (lower case, __ as _1776_, namespace swebench, tag latest)", () => {
    expect(instanceImageKey('astropy__astropy-12907')).toBe('docker.io/swebench/sweb.eval.x86_64.astropy_1776_astropy-12907:latest');
    expect(instanceImageKey('Django__Django-11099', 'arm64')).toBe('docker.io/swebench/sweb.eval.arm64.django_1776_django-11099:latest');
  });

  it('restores the test patch files and the files of the graded ids, never a path that climbs out', () => {
    expect(testFilesOf(row)).toEqual(['astropy/modeling/tests/test_core.py', 'astropy/modeling/tests/test_separable.py']);
  });

  it('applies the patch with the three tries, restores the tests, then runs the test command between the markers', () => {
    const script = evaluationScript(row, true);
    const order = ['git apply --verbose /tmp/ngym_model.patch', 'patch --batch --fuzz=5', `git checkout '${row.base_commit}'`, 'git apply --verbose /tmp/ngym_test.patch', '>>>>> Start Test Output', row.test_cmd, '>>>>> End Test Output'];
    const positions = order.map((part) => script.indexOf(part));
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(evaluationScript(row, false)).not.toContain('/tmp/ngym_model.patch');
  });

  it("reads the repository's parser from swebench's map, or the row's, and refuses an unknown one", () => {
    expect(logParserOf(row)).toBe('pytest_v2');
    expect(logParserOf({ ...row, repo: 'pypi/six', log_parser: 'pytest' })).toBe('pytest');
    expect(() => logParserOf({ ...row, repo: 'pypi/six' })).toThrow(/no log parser for "pypi\/six"/);
  });
});
