/**
 * The two checks of format_verification, as NeMo Gym 0.7.0 runs them on the response's text: counting the lines a
 * pattern matches (`regex`, and `inline_prose`, which upstream routes to the same check) and looking for citation
 * markers (`string_match`). The patterns come from the data and are Python regexes, so they run with Python's `re`
 * semantics (PythonRegex); where upstream would crash on a field (a 500), the schema below refuses it with a 422
 * naming the field.
 */
import { NgymError } from 'ngym';
import { PythonRegex, PythonRegexError } from 'ngym/python-compat';
import * as z from 'zod';

// Lists must be lists: upstream would iterate a string's characters as patterns or markers and score nonsense.
const RegexVerifier = z.looseObject({
  type: z.enum(['regex', 'inline_prose']),
  verify_regex: z.array(z.string()).optional(),
  // Python compares the line count with it as a number, and a bool is a number there (True is 1).
  verify_min_matches: z.union([z.number(), z.boolean()]).optional(),
});

const StringMatchVerifier = z.looseObject({
  type: z.literal('string_match'),
  expected_markers: z.array(z.string()).optional(),
  // Upstream skips the spurious-marker search when `patterns` is falsy, null included.
  patterns: z.array(z.string()).nullable().optional(),
});

/** A row's `verifier`: its `type` picks the check; an unknown type is a 422 (upstream raises NotImplementedError). */
export const Verifier = z.discriminatedUnion('type', [RegexVerifier, StringMatchVerifier]);

type RegexVerifierInput = z.input<typeof RegexVerifier>;
type StringMatchVerifierInput = z.input<typeof StringMatchVerifier>;

// A type, not an interface: verify's result must be assignable to a record.
type CheckResult<Details> = { reward: number; match_details: Details };

/** Python's `re.compile(pattern)`; one Python rejects, or one we cannot run faithfully, is a 422 naming its field. */
function compileAll(patterns: readonly string[], field: string): PythonRegex[] {
  return patterns.map((pattern, index) => {
    try {
      return PythonRegex.cached(pattern);
    } catch (error) {
      if (error instanceof PythonRegexError) throw new NgymError('NGYM_INVALID_REQUEST', `verifier.${field}[${index}]: ${error.message}`, { status: 422 });
      throw error;
    }
  });
}

/**
 * `regex`: the lines (split on "\n" only) that at least one pattern matches anywhere (`re.search`), each counted
 * once; reward 1.0 when there are at least `verify_min_matches` (default 1).
 */
export function checkLines(text: string, verifier: RegexVerifierInput): CheckResult<{ matching_lines: number; min_matches: number | boolean; passed: boolean }> {
  const patterns = compileAll(verifier.verify_regex ?? [], 'verify_regex');
  const minMatches = verifier.verify_min_matches ?? 1;
  let matchingLines = 0;
  for (const line of text.split('\n')) {
    if (patterns.some((pattern) => pattern.search(line) !== null)) matchingLines += 1;
  }
  const passed = matchingLines >= Number(minMatches);
  return { reward: passed ? 1.0 : 0.0, match_details: { matching_lines: matchingLines, min_matches: minMatches, passed } };
}

/**
 * `string_match`: every expected marker must occur in the text, and no match of `patterns` may be a marker that
 * was not expected (each such match is listed, repeats included, pattern by pattern). Reward 1.0 when nothing is
 * missing or spurious.
 */
export function checkMarkers(text: string, verifier: StringMatchVerifierInput): CheckResult<{ expected: string[]; missing: string[]; spurious: string[]; passed: boolean }> {
  const expected = verifier.expected_markers ?? [];
  const patterns = compileAll(verifier.patterns ?? [], 'patterns');
  const missing = expected.filter((marker) => !text.includes(marker));
  const expectedSet = new Set(expected);
  const spurious = patterns.flatMap((pattern) => pattern.finditer(text).map((match) => match.text)).filter((found) => !expectedSet.has(found));
  const passed = missing.length === 0 && spurious.length === 0;
  return { reward: passed ? 1.0 : 0.0, match_details: { expected, missing, spurious, passed } };
}
