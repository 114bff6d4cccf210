import { describe, expect, it } from 'vitest';
import { PythonRegex, PythonRegexError } from './python-regex.ts';

const findall = (pattern: string, text: string, flags = {}) => PythonRegex.compile(pattern, flags).findall(text);
const search = (pattern: string, text: string, flags = {}) => PythonRegex.compile(pattern, flags).search(text)?.text ?? null;

function rejection(pattern: string): PythonRegexError {
  try {
    PythonRegex.compile(pattern);
  } catch (error) {
    expect(error).toBeInstanceOf(PythonRegexError);
    return error as PythonRegexError;
  }
  throw new Error(`expected ${pattern} to be rejected`);
}

describe('PythonRegex', () => {
  it('follows findall: whole matches, the single group, or tuples of groups', () => {
    expect(findall('\\d+', 'a1 b22')).toEqual(['1', '22']);
    expect(findall('x(\\d)?', 'x1 x')).toEqual(['1', '']);
    expect(findall('(\\w)=(\\d)', 'a=1, b=2')).toEqual([
      ['a', '1'],
      ['b', '2'],
    ]);
  });

  it('finds every match after a search on the same regex (matchAll starts at lastIndex)', () => {
    const regex = PythonRegex.compile('ship', { ignoreCase: true });
    expect(regex.search('the ship is a ship')?.start).toBe(4);
    expect(regex.finditer('A ship appears.').map((match) => match.start)).toEqual([2]);
    expect(regex.findall('ship ship')).toEqual(['ship', 'ship']);
  });

  it('translates named groups and named and numeric backreferences', () => {
    const regex = PythonRegex.compile('(?P<letter>[A-J])-(?P=letter)');
    expect(regex.search('A-B C-C')?.named).toEqual({ letter: 'C' });
    expect(regex.groupNames.get('letter')).toBe(1);
    expect(search('(a)(b)\\2\\1', 'abba')).toBe('abba');
    expect(rejection('(a)\\2').message).toMatch(/invalid group reference 2/);
  });

  it('takes inline global flags at the start only, as Python 3.11+', () => {
    expect(search('(?i)answer: (\\w)', 'ANSWER: b')).toBe('ANSWER: b');
    expect(search('(?is)a.b', 'A\nB')).toBe('A\nB');
    const error = rejection('answer(?i)');
    expect(error.kind).toBe('invalid');
    expect(error.message).toMatch(/global flags not at the start/);
  });

  it('supports scoped flags that JavaScript lacks by translating . ^ $ per scope', () => {
    expect(search('a(?s:.)b', 'a\nb')).toBe('a\nb');
    expect(search('a.b', 'a\nb')).toBeNull();
    expect(findall('(?m:^x)', 'x\nx')).toEqual(['x', 'x']);
    expect(search('(?i:a)b', 'Ab', { ignoreCase: true })).toBe('Ab');
    const error = rejection('(?i:a)b');
    expect(error.kind).toBe('unsupported');
    expect(error.message).toMatch(/scoped case-sensitivity change \(\?i:\.\.\.\)/);
  });

  it("matches . $ ^ \\A \\Z with Python's newline rules", () => {
    expect(search('a.b', 'a\rb')).toBe('a\rb');
    expect(search('a$', 'a\n')).toBe('a');
    expect(search('a\\Z', 'a\n')).toBeNull();
    expect(search('\\Aa', 'ba')).toBeNull();
    expect(findall('^\\w', 'a\nb')).toEqual(['a']);
    expect(findall('^\\w$', 'a\nb', { multiline: true })).toEqual(['a', 'b']);
    expect(findall('.+', 'one\r\ntwo', { dotAll: false })).toEqual(['one\r', 'two']);
  });

  it('uses Unicode \\d \\w \\s \\b like Python 3 str patterns, ASCII under re.A', () => {
    expect(findall('\\d', '3٣')).toEqual(['3', '٣']);
    expect(findall('\\d', '3٣', { ascii: true })).toEqual(['3']);
    expect(findall('\\w+', 'café ñu')).toEqual(['café', 'ñu']);
    expect(findall('\\bé', 'é xé')).toEqual(['é']);
    expect(findall('\\s', 'a\u3000b\u001fc\ufeffd')).toEqual(['\u3000', '\u001f']);
    expect(findall('[^\\W\\d]+', 'ab1_c')).toEqual(['ab', '_c']);
    expect(findall('[\\w-]+', 'a-b c')).toEqual(['a-b', 'c']);
  });

  it('treats braces that are not quantifiers, a leading ] and escaped punctuation as literals', () => {
    expect(search('a{b}', 'xa{b}')).toBe('a{b}');
    expect(search('{foo}', '{foo}')).toBe('{foo}');
    expect(search('x{,2}y', 'xxy')).toBe('xxy');
    expect(search('x{2}', 'xxx')).toBe('xx');
    expect(search('[]a]+', 'b]a]')).toBe(']a]');
    expect(search('a]', 'a]')).toBe('a]');
    expect(search('Answer\\:\\s*\\"(\\w)\\"', 'Answer: "C"')).toBe('Answer: "C"');
    expect(search('\\101\\x42\\u0043\\U0001F600', 'ABC😀')).toBe('ABC😀');
    expect(search('[\\0-\\x1f]', 'a\tb')).toBe('\t');
  });

  it('strips whitespace and comments in verbose mode, outside classes', () => {
    expect(search('(?x) a \\  b  # a comment\n [ ]c', 'a b c')).toBe('a b c');
    expect(search('a (?#inline comment) b', 'a  b')).toBe('a  b');
  });

  it('quantifies lookarounds as Python allows', () => {
    expect(search('(?=a)?b', 'b')).toBe('b');
  });

  it('runs the answer regexes found in upstream datasets', () => {
    const openQa = '\\\\boxed\\{((?:[^{}]|\\{(?:[^{}]|\\{[^{}]*\\})*\\})*)\\}';
    expect(findall(openQa, 'so \\boxed{\\text{Reflection across the } X\\text{-axis}}', { multiline: true, dotAll: true })).toEqual([
      '\\text{Reflection across the } X\\text{-axis}',
    ]);
    expect(findall('Answer\\s*:\\s*(?!Answer)\\s*([A-Za-z])\\s*', 'answer:  c', { ignoreCase: true })).toEqual(['c']);
    expect(findall('<final_answer>\\s*(.+?)\\s*</final_answer>', '<final_answer> 16 </final_answer>')).toEqual(['16']);
    expect(findall('\\(\\((.*?)\\)\\)', '((-\\frac{\\sqrt{2}}{4}))')).toEqual(['-\\frac{\\sqrt{2}}{4}']);
  });

  it('names the construct it cannot translate', () => {
    for (const [pattern, construct] of [
      ['a*+', /possessive quantifier \*\+/],
      ['(?>ab)', /atomic group/],
      ['(a)?(?(1)b|c)', /conditional group/],
      ['\\N{DIGIT ONE}', /named Unicode escape/],
      ['(?L)a', /LOCALE flag/],
    ] as const) {
      const error = rejection(pattern);
      expect(error.kind, pattern).toBe('unsupported');
      expect(error.message, pattern).toMatch(construct);
      expect(error.status).toBe(422);
    }
  });

  it('rejects what Python rejects, as invalid', () => {
    for (const [pattern, reason] of [
      ['*a', /nothing to repeat/],
      ['a**', /multiple repeat/],
      ['^*', /nothing to repeat/],
      ['(a', /missing \), unterminated subpattern at position 0$/],
      ['x(a(b)(c', /missing \), unterminated subpattern at position 6$/],
      ['ab\\', /bad escape \(end of pattern\) at position 2$/],
      ['é**', /multiple repeat at position 2$/],
      ['a)', /unbalanced parenthesis/],
      ['[a', /unterminated character set/],
      ['(?<name>a)', /Python names groups with \(\?P<name>/],
      ['\\q', /bad escape \\q/],
      ['[z-a]', /bad character range/],
      ['x{3,1}', /min repeat greater than max repeat/],
      ['(?P<a>x)(?P<a>y)', /redefinition of group name/],
    ] as const) {
      const error = rejection(pattern);
      expect(error.kind, pattern).toBe('invalid');
      expect(error.message, pattern).toMatch(reason);
    }
  });
});
