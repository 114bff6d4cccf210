/**
 * Rule parity with upstream NeMo Gym 0.7.0 (python/parity/math_with_code_upstream.py in the venv of
 * `npm run setup:python`): answer extraction and comparison on a corpus of texts, and the tool's answers
 * to sequences of code run in one session, by upstream's own worker and by ours in the sandbox.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bubblewrapUnavailableReason, CookieJar, sharedHttpClient } from 'ngym';
import { PACKAGE_ROOT } from 'ngym/runtime';
import { type InProcessGym, startInProcessGym, upstreamWheel } from 'ngym/testing';
import { answersMatch, extractBoxedAnswer } from './app.ts';

const VENV_PYTHON = upstreamWheel().python;
const skip = !existsSync(VENV_PYTHON) ? `no upstream venv at ${VENV_PYTHON} (npm run setup:python)` : bubblewrapUnavailableReason();

const ANSWERS: [string, string][] = [
  ['so \\boxed{42}.', '42'],
  ['\\boxed{41} then \\boxed{ 42.0 }', '42'],
  ['\\boxed{\\frac{1}{2}}', '\\(\\frac{1}{2}\\)'],
  ['\\boxed{\\frac{1}{2}}', '0.5'],
  ['\\boxed{$x+1$}', 'x+1'],
  ['\\boxed{\\text{yes}}', 'yes'],
  ['\\boxed{ a   b }', 'a b'],
  ['\\boxed{1e3}', '1000'],
  ['\\boxed{1_000}', '1000'],
  ['\\boxed{inf}', 'Infinity'],
  ['\\boxed{nan}', 'nan'],
  ['\\boxed{-0}', '0'],
  ['\\boxed{}', 'None'],
  ['\\boxed{\\sqrt{2}', '\\sqrt{2}'],
  ['no box', 'None'],
  ['\\boxed{{}}}', '{}'],
  ['\\boxed{3.0000001}', '3'],
  ['\\boxed{ ٣ }', '3'],
  ['\\boxed{\u00a0x\u2003}', 'x'],
];

const SESSIONS: string[][] = [
  ['x = 21\nprint("set")', 'x * 2', 'y = [i * i for i in range(4)]\ny', 'print(len(y), file=__import__("sys").stderr)'],
  ['sorted([2, 1])', 'import math\nmath.factorial(6)', 'round(2.5)', 'a = 1\ndef f():\n    return a\nf()'],
  ['print(np.arange(3).sum(), pd.Series([1.5]).sum())', 'import numpy as np2\nnp2.float64(1) / 3', '1 / 0', 'undefined_name'],
  ['for i in range(2):\n    print(i)', 'if True:\n    z = 5', 'z', 'class A:\n    pass', '"text"', 'print("a")\n"b"'],
];

describe.skipIf(skip !== null)('math_with_code: upstream 0.7.0 rules', () => {
  let gym: InProcessGym;
  let upstream: { answers: [string | null, boolean][]; sessions: Record<string, unknown>[][] };
  beforeAll(async () => {
    upstream = JSON.parse(
      execFileSync(VENV_PYTHON, [join(PACKAGE_ROOT, 'python', 'parity', 'math_with_code_upstream.py')], {
        input: JSON.stringify({ answers: ANSWERS, sessions: SESSIONS, timeout: 10 }),
        encoding: 'utf8',
      }),
    );
    gym = await startInProcessGym({ config: { math_with_code: { resources_servers: { math_with_code: { entrypoint: 'app.ts', domain: 'math', sandbox: { pool_size: 2 } } } } } });
  });
  afterAll(async () => gym?.close());

  it('extracts and compares answers as upstream does', () => {
    for (const [index, [text, expected]] of ANSWERS.entries()) {
      const extracted = extractBoxedAnswer(text);
      expect([extracted, answersMatch(extracted, expected)], text).toEqual(upstream.answers[index]);
    }
  });

  it("answers each session's calls as upstream's worker does", async () => {
    for (const [index, codes] of SESSIONS.entries()) {
      const cookies = new CookieJar();
      for (const [step, code] of codes.entries()) {
        const reply = await sharedHttpClient().request(gym.url('math_with_code', '/execute_python'), { body: { code }, cookies });
        cookies.merge(reply.cookies);
        expect(reply.json(), `session ${index}, call ${step}: ${code}`).toEqual(upstream.sessions[index]?.[step]);
      }
    }
  });
});

describe.skipIf(skip === null)('math_with_code: upstream 0.7.0 rules', () => {
  it.skip(`skipped: ${skip ?? ''}`, () => {});
});
