/**
 * Harness parity: a corpus of solutions covering every rule of upstream's LiveCodeBench harness (output
 * comparison, stdin forms, timeouts, errors, the disabled functions, call-based equality) graded by our
 * sandboxed grader and by upstream NeMo Gym 0.7.0's own harness (python/parity/code_gen_upstream.py in
 * the venv of `npm run setup:python`) gives the same per-test results and metadata. Tracebacks (file
 * paths) and execution times are the only fields not compared.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bubblewrapUnavailableReason, Sandbox } from 'ngym';
import { PACKAGE_ROOT } from 'ngym/runtime';
import { upstreamWheel } from 'ngym/testing';
import { type Grade, Grader, type UnitTests } from './grade.ts';

const VENV_PYTHON = upstreamWheel().python;
const skip = !existsSync(VENV_PYTHON) ? `no upstream venv at ${VENV_PYTHON} (npm run setup:python)` : bubblewrapUnavailableReason();

interface Case {
  name: string;
  code: string;
  tests: UnitTests;
  timeout?: number;
}

const stdio = (inputs: string[], outputs: string[]): UnitTests => ({ inputs, outputs });
const call = (fn_name: string, inputs: string[], outputs: string[]): UnitTests => ({ inputs, outputs, fn_name });

const CASES: Case[] = [
  { name: 'correct', code: 'a, b = map(int, input().split())\nprint(a + b)', tests: stdio(['1 2\n', '3 4\n', '-1 1\n'], ['3\n', '7\n', '0\n']) },
  { name: 'wrong line', code: 'a, b = map(int, input().split())\nprint(a * b)', tests: stdio(['1 2\n', '3 4\n'], ['2\n', '7\n']) },
  { name: 'wrong line count', code: 'print(1)\nprint(2)', tests: stdio(['\n'], ['1\n']) },
  { name: 'float tolerance', code: 'print(1 / 3)\nprint(2.0000001)', tests: stdio(['\n', '\n'], ['0.3333333 2\n', '0.333333333\n2.0\n']) },
  { name: 'float too far', code: 'print(0.334)', tests: stdio(['\n'], ['0.333\n']) },
  { name: 'int vs float tokens', code: 'print("5.0 7 1e3")', tests: stdio(['\n'], ['5 7 1000\n']) },
  { name: 'yes/no in any case', code: 'print("YES")\nprint("No")', tests: stdio(['\n'], ['yes\nNO\n']) },
  { name: 'signalling NaN ends the grading', code: 'print("sNaN")', tests: stdio(['\n'], ['1\n']) },
  { name: 'infinity and nan tokens', code: 'print("inf nan 1.5")', tests: stdio(['\n'], ['Infinity NaN 1.5\n']) },
  { name: 'runtime error on the second test', code: 'n = int(input())\nprint(10 // n)', tests: stdio(['2\n', '0\n', '5\n'], ['5\n', '0\n', '2\n']) },
  { name: 'time limit', code: 'n = int(input())\nwhile n == 0:\n    pass\nprint(n)', tests: stdio(['1\n', '0\n'], ['1\n', '0\n']), timeout: 1 },
  { name: 'exit() ends a test quietly', code: 'print(42)\nexit()\nprint(43)', tests: stdio(['\n'], ['42\n']) },
  { name: 'quit is disabled', code: 'print(1)\nquit()', tests: stdio(['\n'], ['1\n']) },
  { name: 'os.getcwd is disabled', code: 'import os\nprint(os.getcwd())', tests: stdio(['\n'], ['/\n']) },
  { name: 'input past the end', code: 'input()\ninput()\nprint(1)', tests: stdio(['only line'], ['1\n']) },
  {
    name: 'every way to read stdin',
    code: 'import sys\nfirst = sys.stdin.readline()\nrest = sys.stdin.read()\nlines = sys.stdin.readlines()\nraw = sys.stdin.buffer.read()\nopened = open(0).read()\nprint(repr(first), repr(rest), len(lines), raw.split(), opened.split())',
    tests: stdio(['a b\nc\n'], ["'a b\\n' 'a b\\nc\\n' 3 [b'a', b'b', b'c'] ['a', 'b', 'c']\n"]),
  },
  { name: 'iterating stdin', code: 'import sys\nfor line in sys.stdin:\n    print(line.strip().upper())', tests: stdio(['x\ny\n'], ['X\nY\n']) },
  { name: 'main guard', code: 'def main():\n    print(int(input()) + 1)\n\nif __name__ == "__main__":\n    main()', tests: stdio(['1\n'], ['2\n']) },
  { name: 'class Solution in a stdin program', code: 'class Solution:\n    pass\nprint(1)', tests: stdio(['\n'], ['1\n']) },
  { name: 'syntax error', code: 'print(1', tests: stdio(['\n'], ['1\n']) },
  { name: 'state carried between tests', code: 'import sys\nsys.counter = getattr(sys, "counter", 0) + 1\nprint(sys.counter)', tests: stdio(['\n', '\n', '\n'], ['1\n', '2\n', '3\n']) },
  { name: 'writes past sys.stdout are lost', code: 'import sys, os\nsys.__stdout__.write("lost\\n")\nprint("kept", file=sys.stderr)\nprint("ok")', tests: stdio(['\n'], ['ok\n']) },
  { name: 'unicode and blank lines', code: 'print("  héllo wörld  ")\nprint()\nprint("end")', tests: stdio(['\n'], ['héllo wörld\n\nend']) },
  { name: 'no output', code: 'x = 1', tests: stdio(['\n'], ['\n']) },
  { name: 'no tests', code: 'print(1)', tests: stdio([], []) },
  {
    name: 'call: correct',
    code: 'class Solution:\n    def twoSum(self, nums: List[int], target: int) -> List[int]:\n        seen = {}\n        for i, n in enumerate(nums):\n            if target - n in seen:\n                return [seen[target - n], i]\n            seen[n] = i',
    tests: call('twoSum', ['[2, 7, 11, 15]\n9', '[3, 2, 4]\n6'], ['[0, 1]', '[1, 2]']),
  },
  { name: 'call: tuple and nested tuples', code: 'class Solution:\n    def f(self, x):\n        return (x, [(x, x)])', tests: call('f', ['1'], ['[1, [[1, 1]]]']) },
  { name: 'call: float close', code: 'class Solution:\n    def f(self, x):\n        return x / 3', tests: call('f', ['1', '2'], ['0.333333333', '0.7']) },
  { name: 'call: list of floats close', code: 'class Solution:\n    def f(self, x):\n        return [x / 3, 1]', tests: call('f', ['1'], ['[0.33333333, 1.0]']) },
  { name: 'call: a set is not a list', code: 'class Solution:\n    def f(self, x):\n        return {x}', tests: call('f', ['1'], ['[1]']) },
  { name: 'call: dict with int keys', code: 'class Solution:\n    def f(self, x):\n        return {x: "a"}', tests: call('f', ['1'], ['{"1": "a"}']) },
  { name: 'call: bool and int, None', code: 'class Solution:\n    def f(self, x):\n        return True if x else None', tests: call('f', ['1', '0'], ['1', 'null']) },
  { name: 'call: big ints', code: 'class Solution:\n    def f(self, x):\n        return 3 ** x', tests: call('f', ['200'], [(3n ** 200n).toString()]) },
  { name: 'call: missing method', code: 'class Solution:\n    def g(self):\n        return 1', tests: call('f', ['1'], ['1']) },
  { name: 'call: bad input JSON', code: 'class Solution:\n    def f(self, x):\n        return x', tests: call('f', ['[1,'], ['1']) },
  { name: 'call: bad output JSON', code: 'class Solution:\n    def f(self, x):\n        return x', tests: call('f', ['1'], ['{oops']) },
  { name: 'call: exception', code: 'class Solution:\n    def f(self, x):\n        return 1 // x', tests: call('f', ['1', '0'], ['1', '0']) },
  { name: 'call: wrong answer', code: 'class Solution:\n    def f(self, x):\n        return [x, x]', tests: call('f', ['1'], ['[1, 2]']) },
  { name: 'call: time limit', code: 'class Solution:\n    def f(self, x):\n        while True:\n            pass', tests: call('f', ['1'], ['1']), timeout: 1 },
  { name: 'call: plain function', code: 'def f(x):\n    return x * 2', tests: call('f', ['21'], ['42']) },
  { name: 'call: numpy scalars', code: 'import numpy as np\nclass Solution:\n    def f(self, x):\n        return [np.int64(x), np.float64(x / 2), np.bool_(x > 0)]', tests: call('f', ['3', '-1'], ['[3, 1.5, true]', '[-1, -0.5, false]']) },
];

/** What both harnesses must agree on: the result list and metadata without tracebacks and timings. */
function comparable(grade: Grade): unknown {
  const metadata = grade.metadata === null ? null : Object.fromEntries(Object.entries(grade.metadata).filter(([key]) => key !== 'traceback' && key !== 'execution time'));
  return { result: grade.result, metadata };
}

describe.skipIf(skip !== null)('code_gen: our grader and upstream 0.7.0 harness agree', () => {
  const sandbox = new Sandbox({ poolSize: 4, limits: { memoryBytes: 4 * 1024 ** 3, outputBytes: 64 * 1024 ** 2 } });
  afterAll(async () => sandbox.close());

  it(`grades ${CASES.length} solutions the same`, async () => {
    const upstream = JSON.parse(
      execFileSync(VENV_PYTHON, [join(PACKAGE_ROOT, 'python', 'parity', 'code_gen_upstream.py')], {
        input: JSON.stringify(CASES.map((entry) => ({ code: entry.code, tests: entry.tests, timeout: entry.timeout ?? 2 }))),
        encoding: 'utf8',
        maxBuffer: 64 * 1024 ** 2,
      }),
    ) as Grade[];
    const graders = new Map<number, Grader>();
    const ours = await Promise.all(
      CASES.map((entry) => {
        const timeout = entry.timeout ?? 2;
        if (!graders.has(timeout)) graders.set(timeout, new Grader(sandbox, timeout));
        return (graders.get(timeout) as Grader).grade(entry.code, entry.tests);
      }),
    );
    for (const grader of graders.values()) grader.close();
    for (const [index, entry] of CASES.entries()) {
      expect(comparable(ours[index] as Grade), entry.name).toEqual(comparable(upstream[index] as Grade));
    }
  });
});

describe.skipIf(bubblewrapUnavailableReason() !== null)('code_gen: where we differ from upstream on purpose', () => {
  const sandbox = new Sandbox({ poolSize: 1 });
  afterAll(async () => sandbox.close());

  it('an object that claims to equal anything does not pass a call-based test', async () => {
    // Upstream compares inside the solution's process with the solution's own __eq__, so this passes there.
    const grader = new Grader(sandbox, 2);
    const code = 'class Anything:\n    def __eq__(self, other):\n        return True\nclass Solution:\n    def f(self, x):\n        return Anything()';
    const grade = await grader.grade(code, call('f', ['1'], ['42']));
    grader.close();
    expect(grade.result).toEqual([false]);
    expect(grade.metadata).toMatchObject({ error_code: -2, error_message: 'Wrong Answer' });
  });
});

describe.skipIf(skip === null)('code_gen: our grader and upstream 0.7.0 harness agree', () => {
  it.skip(`skipped: ${skip ?? ''}`, () => {});
});
