/**
 * Python `str` semantics that rewards depend on, in one place for the framework and the environments:
 * Python's whitespace set (it differs from JavaScript's `\s`: it includes \x1c-\x1f, excludes \ufeff) and
 * `\w`, `strip`/`lstrip`/`rstrip`/`split()`, and `len`, slicing, ordering and the `is*` tests on code points
 * rather than UTF-16 units.
 */

/** The members of Python's `str.isspace()` (and of `\s` in `re` str patterns), as a class body. */
export const PYTHON_WHITESPACE = '\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';

/** Python 3's `\w` in `re` str patterns (letters, digits, underscore), as a class body for the `u` flag. */
export const PYTHON_WORD = '\\p{L}\\p{N}_';

const SPACE = new RegExp(`^[${PYTHON_WHITESPACE}]$`);
const SPACE_RUN = new RegExp(`[${PYTHON_WHITESPACE}]+`);

/** `s.strip()`, or `s.strip(chars)`: Python whitespace, or the code points in `chars`, off both ends. */
export function pythonStrip(text: string, chars?: string): string {
  return stripEnds(text, chars, true, true);
}

/** `s.lstrip()`, or `s.lstrip(chars)`. */
export function pythonLstrip(text: string, chars?: string): string {
  return stripEnds(text, chars, true, false);
}

/** `s.rstrip()`, or `s.rstrip(chars)`. */
export function pythonRstrip(text: string, chars?: string): string {
  return stripEnds(text, chars, false, true);
}

// A scan from each end rather than a `[...]+$` regex, which retries every inner whitespace run (quadratic).
function stripEnds(text: string, chars: string | undefined, left: boolean, right: boolean): string {
  const set = chars === undefined ? undefined : new Set(chars);
  const strips = (char: string) => (set === undefined ? SPACE.test(char) : set.has(char));
  let start = 0;
  let end = text.length;
  while (left && start < end) {
    const char = String.fromCodePoint(text.codePointAt(start) as number);
    if (!strips(char)) break;
    start += char.length;
  }
  while (right && end > start) {
    const width = end - start >= 2 && isLowSurrogate(text.charCodeAt(end - 1)) && isHighSurrogate(text.charCodeAt(end - 2)) ? 2 : 1;
    if (!strips(text.slice(end - width, end))) break;
    end -= width;
  }
  return text.slice(start, end);
}

/** `s.split()` without arguments: on runs of whitespace, no empty parts. */
export function pythonSplit(text: string): string[] {
  return text.split(SPACE_RUN).filter((part) => part !== '');
}

/** Python's line boundaries (str.splitlines): \n, \r, \r\n, \v, \f, \x1c-\x1e, \x85, \u2028, \u2029. */
const LINE_BOUNDARY = /\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/g;

/** Python's `str.splitlines(keepends)`: no empty last line for a trailing boundary. */
export function pythonSplitlines(text: string, keepends = false): string[] {
  const lines: string[] = [];
  let start = 0;
  for (const match of text.matchAll(LINE_BOUNDARY)) {
    const end = match.index + match[0].length;
    lines.push(text.slice(start, keepends ? end : match.index));
    start = end;
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

/** `len(str)`: code points, not UTF-16 units. */
export function pythonLength(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** `s[start:end]` in code points, with Python's clamping and negative indices. */
export function pythonSlice(text: string, start: number, end?: number): string {
  return Array.from(text).slice(start, end).join('');
}

/** Python's ordering of two strings: by code point (JavaScript's `<` compares UTF-16 units, so it puts U+E000-U+FFFF above astral characters). */
export function comparePythonStrings(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index++) {
    const x = a.charCodeAt(index);
    const y = b.charCodeAt(index);
    if (x === y) continue;
    if (x < 0xd800 && y < 0xd800) return x - y;
    // Compare whole code points, from the shared high surrogate when the strings differ in a pair's second half.
    const at = index > 0 && isHighSurrogate(a.charCodeAt(index - 1)) && (isLowSurrogate(x) || isLowSurrogate(y)) ? index - 1 : index;
    return (a.codePointAt(at) as number) - (b.codePointAt(at) as number);
  }
  return a.length - b.length;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** `str.isalpha()`: non-empty and every code point a letter (Unicode categories L*). */
export function pythonIsAlpha(text: string): boolean {
  return /^\p{L}+$/u.test(text);
}

const CASED_LOWER = /\p{Lowercase}/u;
const CASED_UPPER = /\p{Uppercase}/u;
const TITLE = /\p{Lt}/u;

/** `str.isupper()`: at least one uppercase character and no lowercase or titlecase one. */
export function pythonIsUpper(text: string): boolean {
  return CASED_UPPER.test(text) && !CASED_LOWER.test(text) && !TITLE.test(text);
}

/** `str.islower()`: at least one lowercase character and no uppercase or titlecase one. */
export function pythonIsLower(text: string): boolean {
  return CASED_LOWER.test(text) && !CASED_UPPER.test(text) && !TITLE.test(text);
}
