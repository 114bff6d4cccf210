import { describe, expect, it } from 'vitest';
import { pyFloat, pythonExceptionRepr, pythonFloatRepr, pythonJsonDumps, pythonStringRepr } from './python-json.ts';

describe('Python renderings', () => {
  it('prints floats as Python repr does', () => {
    const cases: [number, string][] = [
      [9, '9.0'], [17.2, '17.2'], [1073741824, '1073741824.0'], [1e-5, '1e-05'], [1e16, '1e+16'], [1.5e16, '1.5e+16'],
      [0.0001, '0.0001'], [123456789012345.6, '123456789012345.6'], [-0.5, '-0.5'], [0, '0.0'], [-0, '-0.0'], [1e22, '1e+22'],
      [Number.NaN, 'NaN'], [Infinity, 'Infinity'], [2.5e-7, '2.5e-07'], [0.1 + 0.2, '0.30000000000000004'],
    ];
    for (const [value, expected] of cases) expect(pythonFloatRepr(value), String(value)).toBe(expected);
  });

  it('dumps JSON with Python separators, ints as ints, marked floats as floats', () => {
    expect(pythonJsonDumps({ a: 1, b: [1, 2.5, pyFloat(3)], c: null, d: true, e: 'x', f: {} , g: [] })).toBe('{"a": 1, "b": [1, 2.5, 3.0], "c": null, "d": true, "e": "x", "f": {}, "g": []}');
    expect(pythonJsonDumps({ big: 1e21 })).toBe('{"big": 1000000000000000000000}');
  });

  it('escapes like json.dumps, with and without ensure_ascii', () => {
    expect(pythonJsonDumps('café "q" \\ \n\t\u0001 😀')).toBe('"caf\\u00e9 \\"q\\" \\\\ \\n\\t\\u0001 \\ud83d\\ude00"');
    expect(pythonJsonDumps('café 😀\u007f', { ensureAscii: false })).toBe('"café 😀\u007f"');
    expect(pythonJsonDumps('\u007f')).toBe('"\\u007f"');
  });

  it('renders repr() of strings and exceptions', () => {
    expect(pythonStringRepr('bad')).toBe("'bad'");
    expect(pythonStringRepr("can't")).toBe('"can\'t"');
    expect(pythonStringRepr('a\'b"c\n')).toBe("'a\\'b\"c\\n'");
    // Beyond ASCII, what str.isprintable() rejects is escaped (checked with CPython 3.11's repr).
    expect(pythonStringRepr('\u00a0B\u200b\u2028\u00e9\u0301😀\ue000\ud800')).toBe("'\\xa0B\\u200b\\u2028\u00e9\u0301😀\\ue000\\ud800'");
    expect(pythonExceptionRepr(new RangeError('out of range'))).toBe("RangeError('out of range')");
  });
});
