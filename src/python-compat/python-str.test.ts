import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  comparePythonStrings,
  pythonIsLower,
  pythonSplitlines,
  pythonIsUpper,
  pythonLength,
  pythonLstrip,
  pythonRstrip,
  pythonSlice,
  pythonSplit,
  pythonStrip,
} from './python-str.ts';

describe('Python str semantics', () => {
  it("strip and split use Python's whitespace, not JavaScript's", () => {
    expect(pythonStrip('\u202f 10:00am\u3000')).toBe('10:00am');
    expect(pythonStrip('\u3000\x1c text \x85')).toBe('text');
    expect(pythonStrip('\ufefftext')).toBe('\ufefftext');
    expect(pythonStrip(' \t\n ')).toBe('');
    expect(pythonLstrip('  a b  ')).toBe('a b  ');
    expect(pythonRstrip('  a b  ')).toBe('  a b');
    expect(pythonSplit('  Kofi\tproject\n update ')).toEqual(['Kofi', 'project', 'update']);
    expect(pythonSplit(' a\u2003b\nc ')).toEqual(['a', 'b', 'c']);
    expect(pythonSplit(' \x1f ')).toEqual([]);
  });

  it('strip(chars) strips code points, astral ones whole', () => {
    expect(pythonStrip('**bold**', '*')).toBe('bold');
    expect(pythonLstrip('"\'quoted"', '\'"')).toBe('quoted"');
    expect(pythonRstrip('x😀😀', '😀')).toBe('x');
    expect(pythonStrip('😀x\ud83d', '\ud83d')).toBe('😀x');
    expect(pythonStrip('abc', '')).toBe('abc');
  });

  it('strips in linear time when whitespace runs sit inside the text', () => {
    const text = `a${' '.repeat(100_000)}b`;
    const started = performance.now();
    expect(pythonStrip(text)).toBe(text);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('len and slices count code points', () => {
    expect(pythonLength('a😀')).toBe(2);
    expect(pythonSlice('a😀bc', 1, -1)).toBe('😀b');
    expect(pythonSlice('abc', 5)).toBe('');
  });

  it('orders strings by code point, lone surrogates included', () => {
    expect(comparePythonStrings('\uffff', '😀')).toBeLessThan(0);
    expect(comparePythonStrings('\ud800', '\ue000')).toBeLessThan(0);
    expect(comparePythonStrings('a\udc00', 'a😀')).toBeLessThan(0);
    expect(comparePythonStrings('ab', 'a')).toBeGreaterThan(0);
    const byCodePoint = (a: string, b: string) => {
      const [x, y] = [Array.from(a, (char) => char.codePointAt(0) as number), Array.from(b, (char) => char.codePointAt(0) as number)];
      for (let index = 0; index < Math.min(x.length, y.length); index++) if (x[index] !== y[index]) return Math.sign((x[index] as number) - (y[index] as number));
      return Math.sign(x.length - y.length);
    };
    const units = fc.constantFrom('a', '\ud83d', '\ude00', '\ud800', '\udfff', '\ue000', '\uffff', '😀', '𐀀');
    const text = fc.array(units, { maxLength: 6 }).map((parts) => parts.join(''));
    fc.assert(fc.property(text, text, (a, b) => Math.sign(comparePythonStrings(a, b)) === byCodePoint(a, b)));
  });

  it('isupper and islower look at cased characters only', () => {
    expect(pythonIsUpper('HELLO 123!')).toBe(true);
    expect(pythonIsUpper('123')).toBe(false);
    expect(pythonIsUpper('ǅ')).toBe(false);
    expect(pythonIsLower('ᵃbc')).toBe(true);
  });
});

describe('pythonSplitlines', () => {
  it("splits at Python's line boundaries", () => {
    expect(pythonSplitlines('a\nb\r\nc\rd\x0be\x1cf\u2028g\n')).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
    expect(pythonSplitlines('a\r\nb\n', true)).toEqual(['a\r\n', 'b\n']);
    expect(pythonSplitlines('')).toEqual([]);
    expect(pythonSplitlines('\n\nx')).toEqual(['', '', 'x']);
  });
});
