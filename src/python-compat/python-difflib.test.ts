/**
 * The difflib port against CPython 3.11: ratios written down from running `difflib.SequenceMatcher(None, a, b).ratio()`
 * (autojunk cases included, where a long `b` makes the ratio collapse), and, when the upstream venv is installed,
 * generated pairs scored by its Python and by the port.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { upstreamWheel } from '../testing/upstream-wheel.ts';
import { pythonSequenceRatio } from './python-difflib.ts';

const PYTHON = upstreamWheel().python;

describe('pythonSequenceRatio', () => {
  it('equals CPython 3.11 on written-down pairs', () => {
    const cases: [string, string, number][] = [
      ['hello world', 'hello', 0.625],
      ['abc', 'xyz', 0],
      ['', '', 1],
      ['', 'abc', 0],
      ['the answer is 42', '42', 0.2222222222222222],
      ['abcdefghij tail', 'abcdefghij diff', 0.8],
      // Code points, not UTF-16 units: each emoji is one element.
      ['😀 smile 😀', 'smile 😀', 0.875],
      // autojunk: `b` of 200 elements or more leaves out the ones seen more than 1% (+1) of the time.
      ['a'.repeat(150) + 'b'.repeat(150), 'ab'.repeat(150), 0.0033333333333333335],
      ['x' + 'e'.repeat(300), 'e'.repeat(300) + 'y', 0],
      ['oatcakes for six: 200 g oatmeal'.repeat(10), 'cheese oatcakes: add 50 g of grated hard cheese'.repeat(8), 0],
    ];
    for (const [a, b, ratio] of cases) expect(pythonSequenceRatio(a, b), `${a.slice(0, 20)} / ${b.slice(0, 20)}`).toBe(ratio);
  });

  it.skipIf(!existsSync(PYTHON))("equals the venv's difflib on generated pairs, short and past the autojunk length", () => {
    // Few distinct characters, so strings past 200 have popular ones; a wide alphabet too, where few are popular.
    const narrow = fc.constantFrom('a', 'b', ' ', 'é', '😀');
    const wide = fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 });
    const text = (minLength: number, maxLength: number) => fc.string({ unit: fc.oneof(narrow, wide), minLength, maxLength });
    const side = fc.oneof(text(0, 30), text(200, 450));
    const pairs = fc.sample(fc.tuple(side, side), { seed: 7, numRuns: 400 });
    const script = 'import difflib, json, sys\nprint(json.dumps([difflib.SequenceMatcher(None, a, b).ratio() for a, b in json.load(sys.stdin)]))';
    const expected = JSON.parse(execFileSync(PYTHON, ['-c', script], { input: JSON.stringify(pairs), encoding: 'utf8' })) as number[];
    expect(pairs.map(([a, b]) => pythonSequenceRatio(a, b))).toEqual(expected);
  });
});
