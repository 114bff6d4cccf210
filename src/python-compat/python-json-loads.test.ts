import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PythonFloat, pythonJsonDumps } from './python-json.ts';
import { pythonJsonLoads, pythonJsonLoadsWithFloats } from './python-json-loads.ts';
import { PythonError } from './python-values.ts';

/** What `pythonJsonLoadsWithFloats(text)` raises (a PythonError), as `{ type, message }`. */
function raised(text: string): { type: string; message: string } {
  try {
    pythonJsonLoadsWithFloats(text);
  } catch (error) {
    expect(error).toBeInstanceOf(PythonError);
    return { type: (error as PythonError).type, message: (error as PythonError).message };
  }
  throw new Error(`${JSON.stringify(text)} parsed`);
}

describe('pythonJsonLoads (plain numbers, SyntaxError)', () => {
  it('parses standard JSON like JSON.parse', () => {
    expect(pythonJsonLoads(' {"a": [1, 2.5, "x", null, true, false]} ')).toEqual({ a: [1, 2.5, 'x', null, true, false] });
  });

  it("accepts Python's NaN, Infinity and -Infinity literals, also nested", () => {
    const value = pythonJsonLoads('{"a": NaN, "b": [Infinity, -Infinity], "c": "NaN stays text"}') as Record<string, unknown>;
    expect(value.a).toBeNaN();
    expect(value.b).toEqual([Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]);
    expect(value.c).toBe('NaN stays text');
  });

  it('rejects what Python rejects, naming the position', () => {
    expect(() => pythonJsonLoads('```json\n{}\n```')).toThrow(SyntaxError);
    expect(() => pythonJsonLoads('{"a": NaN, "b": nan}')).toThrow(/position 16/);
    expect(() => pythonJsonLoads('[NaN,]')).toThrow(/Expecting value/);
    expect(() => pythonJsonLoads('NaN NaN')).toThrow(/Extra data/);
    expect(() => pythonJsonLoads('')).toThrow(SyntaxError);
    expect(() => pythonJsonLoads('[NaN 1]')).toThrow("Expecting ',' delimiter at position 5");
    expect(() => pythonJsonLoads('[NaN, "a\\x"]')).toThrow('Invalid \\escape at position 8');
    expect(() => pythonJsonLoads('[NaN, "ab')).toThrow('Unterminated string starting at position 6');
  });

  it('keeps a "__proto__" key as data', () => {
    const value = pythonJsonLoads('{"__proto__": NaN}') as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(['__proto__']);
  });

  it('reads any JSON as JSON.parse does, on the fast path and on the scanner alike', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        const expected = JSON.parse(text) as unknown;
        expect(pythonJsonLoads(text)).toStrictEqual(expected);
        // `[..., NaN]` sends the same text through the scanner.
        expect((pythonJsonLoads(`[${text}, NaN]`) as unknown[])[0]).toStrictEqual(expected);
      }),
    );
  });
});

describe('pythonJsonLoads with floats and big ints (as prepare-data reads rows)', () => {
  const readRow = (text: string) => pythonJsonLoads(text, { floats: true, bigInts: true });

  it('floats stay floats, big ints stay exact, a repeated key keeps its first place', () => {
    const text = '{"a": 1.0, "b": 1, "c": 1e5, "d": 12345678901234567890, "e": -0, "f": 1.5E-7, "a": 2.50}';
    expect(pythonJsonDumps(readRow(text))).toBe('{"a": 2.5, "b": 1, "c": 100000.0, "d": 12345678901234567890, "e": 0, "f": 1.5e-07}');
    expect(pythonJsonDumps(readRow('[NaN, -Infinity, "q\\"\\\\", {}]'))).toBe('[NaN, -Infinity, "q\\"\\\\", {}]');
    expect(() => readRow('{"a": 1,}')).toThrow(SyntaxError);
    expect(() => readRow('{"a": 1} x')).toThrow(/Extra data/);
  });

  it('without bigInts a big int rounds, as Python-with-floats callers had it', () => {
    expect(pythonJsonLoadsWithFloats('12345678901234567890')).toBe(Number('12345678901234567890'));
    expect(readRow('12345678901234567890')).toBe(12345678901234567890n);
  });
});

describe('pythonJsonLoadsWithFloats (floats kept, Python errors)', () => {
  it('keeps floats apart from ints, so they print back as Python floats', () => {
    const value = pythonJsonLoadsWithFloats('{"a": 60, "b": 60.0, "c": 1e2, "d": [NaN, -Infinity], "e": "x\\u00e9\\n"}');
    expect(pythonJsonDumps(value)).toBe('{"a": 60, "b": 60.0, "c": 100.0, "d": [NaN, -Infinity], "e": "x\\u00e9\\n"}');
    expect((value as Record<string, unknown>).b).toBeInstanceOf(PythonFloat);
  });

  it('treats a "__proto__" key as data and the last duplicate key wins', () => {
    const value = pythonJsonLoadsWithFloats('{"__proto__": 1, "k": 1, "k": 2}') as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(['__proto__', 'k']);
    expect(value.k).toBe(2);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
  });

  it('raises JSONDecodeError with the messages and positions of CPython', () => {
    expect(raised('')).toEqual({ type: 'JSONDecodeError', message: 'Expecting value: line 1 column 1 (char 0)' });
    expect(raised('{"a": 1} x').message).toBe('Extra data: line 1 column 10 (char 9)');
    expect(raised("{'a': 1}").message).toMatch(/^Expecting property name enclosed in double quotes/);
    expect(raised('"a\tb"').message).toBe('Invalid control character at: line 1 column 3 (char 2)');
    expect(raised('[1,\n 2 3]').message).toBe("Expecting ',' delimiter: line 2 column 4 (char 7)");
    expect(raised('{"a" 1}').message).toBe("Expecting ':' delimiter: line 1 column 6 (char 5)");
    expect(raised('["\\q"]').message).toBe('Invalid \\escape: line 1 column 3 (char 2)');
    expect(raised('"\\u12x4"').message).toBe('Invalid \\uXXXX escape: line 1 column 3 (char 2)');
    expect(raised('"abc\\').message).toBe('Unterminated string starting at: line 1 column 1 (char 0)');
  });

  it('raises RecursionError past 1000 levels of nesting, as Python does', () => {
    expect(pythonJsonLoadsWithFloats(`${'['.repeat(1001)}${']'.repeat(1001)}`)).toHaveLength(1);
    expect(raised(`${'['.repeat(1002)}${']'.repeat(1002)}`).type).toBe('RecursionError');
  });
});
