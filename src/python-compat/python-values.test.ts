import { describe, expect, it } from 'vitest';
import { pyFloat } from './python-json.ts';
import { parsePythonFloat, PythonError, pythonCompare, pythonContains, pythonEquals, pythonInt, pythonRepr, pythonStr, pythonTruthy } from './python-values.ts';

function pythonErrorOf(run: () => unknown): { type: string; message: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof PythonError) return { type: error.type, message: error.message };
    throw error;
  }
  throw new Error('expected a PythonError');
}

describe('Python builtins', () => {
  it('truthiness: nan is true, empty containers and zero are false', () => {
    expect([null, false, 0, pyFloat(0), '', [], {}].map(pythonTruthy)).toEqual([false, false, false, false, false, false, false]);
    expect([true, 2, pyFloat(NaN), ' ', [0], { a: null }].map(pythonTruthy)).toEqual([true, true, true, true, true, true]);
  });

  it('str and repr', () => {
    expect([null, true, 7, pyFloat(7), pyFloat(NaN), 'a', ['a', 1.5 as never], { k: pyFloat(1e-5) }].map(pythonRepr)).toEqual([
      'None', 'True', '7', '7.0', 'nan', "'a'", "['a', 1.5]", "{'k': 1e-05}",
    ]);
    expect(pythonStr('a')).toBe('a');
    expect(pythonStr(pyFloat(0))).toBe('0.0');
  });

  it('== as Python: numbers across int/float/bool, no str/int coercion, nan unequal', () => {
    expect(pythonEquals(1, pyFloat(1))).toBe(true);
    expect(pythonEquals(true, 1)).toBe(true);
    expect(pythonEquals('1', 1)).toBe(false);
    expect(pythonEquals(pyFloat(NaN), pyFloat(NaN))).toBe(false);
    expect(pythonEquals({ a: [1, 'x'] }, { a: [pyFloat(1), 'x'] })).toBe(true);
    expect(pythonEquals({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    const nan = pyFloat(NaN);
    expect(pythonEquals([nan], [nan])).toBe(true);
  });

  it('int() parses like Python and raises its errors', () => {
    expect(pythonInt(' 60 ')).toBe(60);
    expect(pythonInt('+1_000')).toBe(1000);
    expect(pythonInt(pyFloat(-2.7))).toBe(-2);
    expect(pythonInt(true)).toBe(1);
    expect(pythonErrorOf(() => pythonInt('60.0'))).toEqual({ type: 'ValueError', message: "invalid literal for int() with base 10: '60.0'" });
    expect(pythonErrorOf(() => pythonInt(pyFloat(NaN))).type).toBe('ValueError');
    expect(pythonErrorOf(() => pythonInt(pyFloat(Infinity))).type).toBe('OverflowError');
    expect(pythonErrorOf(() => pythonInt([]))).toEqual({
      type: 'TypeError',
      message: "int() argument must be a string, a bytes-like object or a real number, not 'list'",
    });
  });

  it('ordering compares str by code point and raises TypeError across types', () => {
    expect(pythonCompare('2023-11-01', '>=', '2023-10-31')).toBe(true);
    expect(pythonErrorOf(() => pythonCompare('2023', '>=', 5))).toEqual({ type: 'TypeError', message: "'>=' not supported between instances of 'str' and 'int'" });
    expect(pythonCompare(pyFloat(2.5), '<', true)).toBe(false);
  });

  it('in', () => {
    expect(pythonContains('a@b.c', '@')).toBe(true);
    expect(pythonContains(['x', 1], pyFloat(1))).toBe(true);
    expect(pythonErrorOf(() => pythonContains(5, '@'))).toEqual({ type: 'TypeError', message: "argument of type 'int' is not iterable" });
  });
});

describe('parsePythonFloat', () => {
  it("parses what Python's float() parses", () => {
    expect(parsePythonFloat(' 1_000.5 ')).toBe(1000.5);
    expect(parsePythonFloat('\u2003-.5e1\n')).toBe(-5);
    expect(parsePythonFloat('٣.٥')).toBe(3.5);
    expect(parsePythonFloat('𝟗𝟘')).toBe(90);
    expect(parsePythonFloat('-Infinity')).toBe(-Infinity);
    expect(parsePythonFloat('NaN')).toBeNaN();
    for (const invalid of ['', '.', '1__0', '_1', '1e', 'e5', '0x10', '1.5.2']) expect(parsePythonFloat(invalid), invalid).toBeUndefined();
  });
});
