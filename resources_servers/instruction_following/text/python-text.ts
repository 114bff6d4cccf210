/**
 * Text helpers of the checkers that are not Python `str` methods themselves (those are the framework's:
 * `pythonStrip`, `pythonSplit`, `pythonIsUpper`, `PYTHON_WHITESPACE`, `PYTHON_WORD` ... from `ngym`).
 */
import { PYTHON_WORD } from 'ngym/python-compat';

/** Python `\b`: a boundary between a `\w` character and a non-`\w` one (or the text's ends). */
export const WORD_BOUNDARY = `(?:(?<=[${PYTHON_WORD}])(?![${PYTHON_WORD}])|(?<![${PYTHON_WORD}])(?=[${PYTHON_WORD}]))`;

const WORD_RUN = new RegExp(`[${PYTHON_WORD}]+`, 'gu');

/** `re.findall(r"\w+", s)` (also NLTK's `RegexpTokenizer(r"\w+")`). */
export function wordRuns(text: string): string[] {
  return text.match(WORD_RUN) ?? [];
}

/** `s[0]` as a code point, '' when empty. */
export function firstChar(text: string): string {
  return text.length === 0 ? '' : String.fromCodePoint(text.codePointAt(0) as number);
}

/** Python's `s.replace(old, new)` for a non-empty `old`: every occurrence, left to right, `$` taken literally. */
export function replaceAll(text: string, old: string, replacement: string): string {
  return text.split(old).join(replacement);
}
