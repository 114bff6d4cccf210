/**
 * The search tools' matching: pandas' `str.contains(pattern, case=False)` is `re.search(pattern, cell,
 * re.IGNORECASE)`, so what the model types is a Python regex (run on the framework's `PythonRegex`). A
 * pattern Python rejects, or one that is not a str, raises Python's error; the route turns it into the text
 * the model reads ("nothing to repeat at position 0").
 *
 * One gap of the shared translator is closed here because models hit it: possessive quantifiers (Python
 * 3.11+ reads "C++" as one, and a search for it must not fail) are matched greedily. That gives Python's
 * yes/no unless what follows the quantifier could match what it consumed (`a++a`), where Python says no.
 */
import { isPythonDict, PythonError, PythonRegex, PythonRegexError, pythonTypeName } from 'ngym/python-compat';

const POSSESSIVE = /^Unsupported Python regex "(?:[^"\\]|\\.)*": possessive quantifier (.+)\+ at position (\d+)$/;

/** The `re.error` text inside a PythonRegexError's message (which also names the pattern). */
const reErrorText = (error: PythonRegexError): string => error.message.replace(/^(?:Invalid|Unsupported) Python regex "(?:[^"\\]|\\.)*": /, '');

function compile(pattern: string): PythonRegex {
  let source = pattern;
  for (;;) {
    try {
      return PythonRegex.cached(source, { ignoreCase: true });
    } catch (error) {
      if (!(error instanceof PythonRegexError)) throw error;
      const possessive = POSSESSIVE.exec(error.message);
      if (possessive === null) throw new PythonError('re.error', reErrorText(error));
      // Drop the possessive `+` and match greedily (positions are in code points, as Python's).
      const chars = Array.from(source);
      chars.splice(Number(possessive[2]) + Array.from(possessive[1] as string).length, 1);
      source = chars.join('');
    }
  }
}

/** A case-insensitive `re.search` predicate for `pattern`. */
export function pythonSearch(pattern: unknown): (text: string) => boolean {
  if (typeof pattern !== 'string') {
    // re.compile looks the pattern up in its cache first, so an unhashable one fails there.
    if (Array.isArray(pattern) || isPythonDict(pattern)) throw new PythonError('TypeError', `unhashable type: '${pythonTypeName(pattern)}'`);
    throw new PythonError('TypeError', 'first argument must be string or compiled pattern');
  }
  const regex = compile(pattern);
  return (text) => regex.search(text) !== null;
}
