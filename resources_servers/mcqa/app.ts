/**
 * mcqa: multiple-choice questions graded by the letter the model picks. The letter is read with the row's
 * own template regex when it has one (`template_metadata.output_regex`, Python syntax), else by the row's
 * `grading_mode`: `strict_single_letter_boxed` (default, `\boxed{B}`), `lenient_boxed` (also the option's
 * text inside the first box) or `lenient_answer_colon` (`Answer: B` or `Answer: <option text>`).
 * Reward is 1.0 when that letter is the expected one.
 */
import { assistantMessages, computePassMajorityMetrics, defineResourcesServer, highestKMetrics, messageTexts, NgymError, PythonRegex, PythonRegexError, pythonIsAlpha, pythonLength, pythonSplit, pythonStrip, type Response } from 'ngym';
import * as z from 'zod';

export const GRADING_MODES = ['strict_single_letter_boxed', 'lenient_boxed', 'lenient_answer_colon'] as const;
export type GradingMode = (typeof GRADING_MODES)[number];
type Options = Record<string, string>[] | null | undefined;

// Upstream's own patterns, in Python syntax, run through the same translation as the data's regexes.
const STRICT_BOXED = PythonRegex.compile('\\\\boxed\\{\\s*[^A-Za-z]*([A-Z])[^A-Za-z]*\\s*\\}');
const BOXED_CONTENT = PythonRegex.compile('\\\\boxed\\{\\s*(.*?)\\s*\\}', { dotAll: true });
const TEXT_WRAPPER = PythonRegex.compile('^\\\\text\\{\\s*(.*?)\\s*\\}$', { dotAll: true });
const ANSWER_COLON = PythonRegex.compile('(?i)answer\\s*:\\s*(.+)');

/** Upstream grades the text parts of all assistant messages, joined with newlines, stripped. */
export const gradedText = (response: Response) => pythonStrip(assistantMessages(response.output).flatMap(messageTexts).join('\n'));

/** Lowercase and collapse whitespace, for comparing option texts. */
const normalized = (text: string) => pythonSplit(text.toLowerCase()).join(' ');
const isLetter = (text: string) => pythonLength(text) === 1 && pythonIsAlpha(text);

/** The first key of each option, when it is one letter, uppercased. */
export function allowedLetters(options: Options): Set<string> {
  const letters = new Set<string>();
  for (const entry of options ?? []) {
    const key = Object.keys(entry)[0];
    if (key !== undefined && isLetter(key)) letters.add(key.toUpperCase());
  }
  return letters;
}

/** The letter of the option whose text equals `candidate` (normalized), any key of any option. */
function optionWithText(options: Options, allowed: Set<string>, candidate: string): string | null {
  const wanted = normalized(candidate);
  for (const entry of options ?? []) {
    for (const [key, value] of Object.entries(entry)) {
      if (allowed.has(key.toUpperCase()) && normalized(value) === wanted) return key.toUpperCase();
    }
  }
  return null;
}

/** Removes repeated whole-string `\text{...}` wrappers. */
function stripTextWrappers(text: string): string {
  for (let match = TEXT_WRAPPER.search(text); match !== null; match = TEXT_WRAPPER.search(text)) text = match.groups[0] ?? '';
  return text;
}

/** The row's template regex: the last match's letter, or the option whose text it captured. */
function fromTemplateRegex(text: string, pattern: string, options: Options, allowed: Set<string>): string | null {
  let regex: PythonRegex;
  try {
    regex = PythonRegex.cached(pattern, { ignoreCase: true });
  } catch (error) {
    // A pattern Python rejects extracts nothing upstream; one we cannot translate must not be guessed.
    if (error instanceof PythonRegexError && error.kind === 'invalid') return null;
    throw error;
  }
  if (regex.groupCount > 1) {
    throw new NgymError('NGYM_INVALID_REQUEST', `template_metadata.output_regex ${JSON.stringify(pattern)} has ${regex.groupCount} groups; it must capture the answer in at most one.`, {
      status: 422,
    });
  }
  // `re.findall(...)[-1]`: with no group the whole match, with one group its text.
  const last = regex.finditer(text).at(-1);
  if (last === undefined) return null;
  const captured = pythonStrip(regex.groupCount === 0 ? last.text : (last.groups[0] ?? '')).toUpperCase();
  // A single letter is trusted even when it is not one of the options.
  if (isLetter(captured)) return captured;
  return optionWithText(options, allowed, captured);
}

function strictBoxed(text: string, allowed: Set<string>): string | null {
  const letter = STRICT_BOXED.search(text)?.groups[0]?.toUpperCase();
  return letter !== undefined && allowed.has(letter) ? letter : null;
}

/** The option whose text appears inside the first box; only when exactly one option does. */
function boxedOptionText(text: string, options: Options, allowed: Set<string>): string | null {
  const match = BOXED_CONTENT.search(text);
  if (match === null) return null;
  const inner = match.groups[0] ?? '';
  const candidates = [inner, stripTextWrappers(inner)].map(normalized);
  const matched = new Set<string>();
  for (const entry of options ?? []) {
    const [key, value] = Object.entries(entry)[0] ?? [];
    if (key === undefined || value === undefined || pythonLength(key) !== 1 || !allowed.has(key.toUpperCase())) continue;
    const option = normalized(value);
    if (option !== '' && candidates.some((candidate) => candidate.includes(option))) matched.add(key.toUpperCase());
  }
  return matched.size === 1 ? ([...matched][0] ?? null) : null;
}

function answerColon(text: string, options: Options, allowed: Set<string>): string | null {
  const match = ANSWER_COLON.search(text);
  if (match === null) return null;
  const candidate = pythonStrip(stripTextWrappers(match.groups[0] ?? ''));
  if (isLetter(candidate) && allowed.has(candidate.toUpperCase())) return candidate.toUpperCase();
  return optionWithText(options, allowed, candidate);
}

export function extractLetter(text: string, row: { options?: Options; grading_mode: GradingMode; template_metadata?: Record<string, unknown> | null }): string | null {
  const allowed = allowedLetters(row.options);
  const pattern = row.template_metadata?.output_regex;
  let letter: string | null = null;
  if (typeof pattern === 'string') letter = fromTemplateRegex(text, pattern, row.options, allowed);
  if (letter !== null) return letter;
  switch (row.grading_mode) {
    case 'strict_single_letter_boxed':
      return strictBoxed(text, allowed);
    case 'lenient_boxed':
      return strictBoxed(text, allowed) ?? boxedOptionText(text, row.options, allowed);
    case 'lenient_answer_colon':
      return answerColon(text, row.options, allowed);
  }
}

export default defineResourcesServer({
  className: 'MCQAResourcesServer',
  verifyRequest: z.looseObject({
    options: z.array(z.record(z.string(), z.string())).nullish(),
    expected_answer: z.string().nullish(),
    grading_mode: z.enum(GRADING_MODES).default('strict_single_letter_boxed'),
    template_metadata: z.record(z.string(), z.unknown()).nullish(),
  }),
  // Upstream 0.7.0's run metrics: pass@k, pass@1[avg-of-k] and majority@k of the extracted letter.
  computeMetrics: (tasks) => computePassMajorityMetrics(tasks, undefined, 'extracted_answer').metrics,
  getKeyMetrics: (metrics) => ({
    ...('mean/reward' in metrics ? { 'mean/reward': metrics['mean/reward'] } : {}),
    ...highestKMetrics(metrics, 'pass@1[avg-of-{k}]', { scoreNames: ['accuracy', 'no_answer'] }),
    ...highestKMetrics(metrics, 'pass@{k}', { scoreNames: ['no_answer'] }),
    ...highestKMetrics(metrics, 'majority@{k}', { scoreNames: ['accuracy'] }),
    ...('pass@1/accuracy' in metrics ? { 'pass@1/accuracy': metrics['pass@1/accuracy'] } : {}),
  }),
  verify: (request) => {
    const extracted = extractLetter(gradedText(request.response), { ...request, grading_mode: request.grading_mode ?? 'strict_single_letter_boxed' });
    const gold = pythonStrip(request.expected_answer ?? '').toUpperCase();
    return { reward: extracted !== null && gold !== '' && extracted === gold ? 1.0 : 0.0, expected_answer: gold, extracted_answer: extracted };
  },
});
