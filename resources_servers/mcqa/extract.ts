/**
 * Reading the chosen option letter out of a model's text, by upstream NeMo Gym 0.7.0's mcqa rules (README.md,
 * "Reward"). Every pattern is upstream's, in Python syntax, run through PythonRegex so `\s`, `\b`, `$` and
 * case folding behave as Python's `re` does.
 */
import { NgymError } from 'ngym';
import {
  pythonIsAlpha,
  pythonLength,
  PythonRegex,
  PythonRegexError,
  pythonSplit,
  pythonStrip,
  pythonTruthy,
} from 'ngym/python-compat';

/** The modes a row may name. */
export const ROW_GRADING_MODES = ['strict_single_letter_boxed', 'lenient_boxed', 'lenient_answer_colon'] as const;
/** The modes the server config may name: it overrides every row's, and only it can choose the markdown-aware one. */
export const CONFIG_GRADING_MODES = [...ROW_GRADING_MODES, 'lenient_answer_colon_md'] as const;
export type GradingMode = (typeof CONFIG_GRADING_MODES)[number];

/** `[{"A": "text"}, {"B": null}, ...]`: a null text takes the letter out of the allowed ones. */
type Options = Record<string, string | null>[] | null | undefined;

export interface McqaRow {
  options?: Options;
  template_metadata?: Record<string, unknown> | null;
}

const BOX_MARKER = '\\boxed{';
const BOXED_LETTER_ONLY = PythonRegex.compile('^[^A-Za-z]*([A-Z])[^A-Za-z]*$');
// A letter then a label delimiter, the option text after it ignored: `E: ...`, `C) ...`, `B. ...`.
const BOXED_LETTER_LABEL = PythonRegex.compile('^\\s*([A-Z])\\s*[:).\\-]');
// `\A...\Z` makes `search` Python's `fullmatch`.
const TEXT_WRAPPER = PythonRegex.compile('\\A\\\\text\\{\\s*(.*?)\\s*\\}\\Z', { dotAll: true });
const ANSWER_COLON = PythonRegex.compile('(?i)answer\\s*:\\s*(.+)');
const ANSWER_COLON_PAYLOAD = PythonRegex.compile('(?im)[*_]{0,2}Answer[*_]{0,2}\\s*:[*_\\s]{0,2}(.+)');
const CHOICE_LETTER = PythonRegex.compile('(?<![A-Za-z])([A-Za-z])(?![A-Za-z])');
const CHOICE_LIST_SEPARATOR = PythonRegex.compile('\\A(?:\\s*[/|&,;]\\s*|\\s+(?:or|and)\\s+|\\s+)\\Z', { ignoreCase: true });
const LEADING_CHOICE_LETTER = PythonRegex.compile('^([a-zA-Z])(?![a-zA-Z0-9])');
const LAST_STANDALONE_LETTER = PythonRegex.compile('\\b[A-Z]\\b(?!.*\\b[A-Z]\\b)', { dotAll: true });
// Letters of other scripts (Arabic, Bengali, full-width) a model writes for A-D.
const FOREIGN_LETTERS: [string, string][] = [...'أبجد', ...'অবডঢ', ...'ＡＢＣＤ'].map((char, index) => [char, ` ${'ABCD'[index % 4]}`]);

/** Lowercase and collapse whitespace, for comparing option texts. */
const normalizedText = (text: string) => pythonSplit(text.toLowerCase()).join(' ');
const isLetter = (text: string) => pythonLength(text) === 1 && pythonIsAlpha(text);

/** Every key of every option that is one letter and has a text, uppercased. */
function allowedLetters(options: Options): Set<string> {
  const letters = new Set<string>();
  for (const entry of options ?? []) {
    for (const [key, value] of Object.entries(entry)) if (value !== null && isLetter(key)) letters.add(key.toUpperCase());
  }
  return letters;
}

/** The options whose key, uppercased, is allowed, with their texts; `singleKey` keeps one-character keys only. */
function optionTexts(options: Options, allowed: Set<string>, singleKey = false): { letter: string; text: string }[] {
  const found: { letter: string; text: string }[] = [];
  for (const entry of options ?? []) {
    for (const [key, value] of Object.entries(entry)) {
      if (value !== null && allowed.has(key.toUpperCase()) && (!singleKey || pythonLength(key) === 1)) found.push({ letter: key.toUpperCase(), text: value });
    }
  }
  return found;
}

/** The letter of the first option whose text equals `candidate` (both normalized). */
function optionWithText(options: Options, allowed: Set<string>, candidate: string): string | null {
  const wanted = normalizedText(candidate);
  return optionTexts(options, allowed).find((option) => normalizedText(option.text) === wanted)?.letter ?? null;
}

/** Everything inside the last `\boxed{`, braces counted; null without one or when it never closes. */
function lastBoxedContent(text: string): string | null {
  const start = text.lastIndexOf(BOX_MARKER);
  if (start === -1) return null;
  let depth = 1;
  for (let index = start + BOX_MARKER.length; index < text.length; index += 1) {
    if (text[index] === '{') depth += 1;
    else if (text[index] === '}' && --depth === 0) return text.slice(start + BOX_MARKER.length, index);
  }
  return null;
}

/** Removes successive whole-string `\text{...}` wrappers. */
function stripTextWrappers(text: string): string {
  for (let match = TEXT_WRAPPER.search(text); match !== null; match = TEXT_WRAPPER.search(text)) text = match.groups[0] ?? '';
  return text;
}

/** NFKC, other scripts' A-D as Latin letters, stripped. */
function normalizedAnswer(text: string): string {
  let normalized = text.normalize('NFKC');
  for (const [from, to] of FOREIGN_LETTERS) normalized = normalized.replaceAll(from, to);
  return pythonStrip(normalized);
}

/** The last box's letter: alone among non-letters (`\boxed{(B)}`, `\boxed{\text{B}}`) or as a label (`\boxed{B: text}`). */
function strictBoxed(text: string, allowed: Set<string>): string | null {
  const inner = lastBoxedContent(text);
  if (inner === null) return null;
  const content = stripTextWrappers(pythonStrip(inner));
  const letter = (BOXED_LETTER_ONLY.search(content) ?? BOXED_LETTER_LABEL.search(content))?.groups[0]?.toUpperCase();
  return letter !== undefined && allowed.has(letter) ? letter : null;
}

/** The option whose text appears inside the last box; only when exactly one option's does. */
function boxedOptionText(text: string, options: Options, allowed: Set<string>): string | null {
  const inner = lastBoxedContent(text);
  if (inner === null) return null;
  const stripped = pythonStrip(inner);
  const candidates = [stripped, stripTextWrappers(stripped)].map(normalizedText);
  const matched = new Set<string>();
  for (const option of optionTexts(options, allowed, true)) {
    const wanted = normalizedText(option.text);
    if (wanted !== '' && candidates.some((candidate) => candidate.includes(wanted))) matched.add(option.letter);
  }
  return matched.size === 1 ? ([...matched][0] ?? null) : null;
}

/** The rest of the line after the first `answer:`: an allowed letter, or an option's text. */
function answerColon(text: string, options: Options, allowed: Set<string>): string | null {
  const match = ANSWER_COLON.search(text);
  if (match === null) return null;
  const candidate = pythonStrip(stripTextWrappers(match.groups[0] ?? ''));
  if (isLetter(candidate) && allowed.has(candidate.toUpperCase())) return candidate.toUpperCase();
  return optionWithText(options, allowed, candidate);
}

/** Whether two different allowed letters stand next to each other as a list (`A/B`, `A, C`, `A or B`). */
function isChoiceList(text: string, allowed: Set<string>): boolean {
  const letters = CHOICE_LETTER.finditer(text).filter((match) => allowed.has((match.groups[0] ?? '').toUpperCase()));
  return letters.slice(1).some((right, index) => {
    const left = letters[index] as (typeof letters)[number];
    return left.text.toUpperCase() !== right.text.toUpperCase() && CHOICE_LIST_SEPARATOR.search(text.slice(left.end, right.start)) !== null;
  });
}

/** One allowed letter from an answer's payload: the payload itself, its leading letter, or its last capital standing alone. */
function choiceLetter(payload: string, allowed: Set<string>): string | null {
  const candidate = pythonStrip(normalizedAnswer(payload), '*_` \t\n\r.,;:');
  if (isChoiceList(candidate, allowed)) return null;
  const letter = pythonLength(candidate) === 1 ? candidate : (LEADING_CHOICE_LETTER.search(candidate)?.groups[0] ?? LAST_STANDALONE_LETTER.search(candidate)?.text);
  return letter && allowed.has(letter.toUpperCase()) ? letter.toUpperCase() : null;
}

/** Python's `re.escape` for a literal (its whitespace stays literal: no verbose flag here). */
const escapedLiteral = (text: string) => text.replace(/[()[\]{}?*+\-|^$\\.&~#]/g, (char) => `\\${char}`);

/** lenient_answer_colon_md: the payloads after `Answer:` (markdown allowed) and after the row's `answer_prefix`, last first. */
function answerPayloadLetter(text: string, allowed: Set<string>, answerPrefix: string | null): string | null {
  const normalized = text.normalize('NFKC');
  const found = ANSWER_COLON_PAYLOAD.finditer(normalized).map((match) => ({ start: match.start, payload: match.groups[0] ?? '' }));
  if (answerPrefix) {
    const prefix = PythonRegex.cached(`${escapedLiteral(answerPrefix.normalize('NFKC'))}\\s*`, { ignoreCase: true });
    for (const match of prefix.finditer(normalized)) {
      const lineEnd = normalized.indexOf('\n', match.end);
      found.push({ start: match.start, payload: normalized.slice(match.end, lineEnd === -1 ? undefined : lineEnd) });
    }
  }
  // A stable sort: at one position the `Answer:` payload comes first, as upstream's.
  found.sort((left, right) => left.start - right.start);
  for (const { payload } of found.reverse()) {
    const letter = choiceLetter(payload, allowed);
    if (letter !== null) return letter;
  }
  return null;
}

function invalidRequest(message: string): NgymError {
  return new NgymError('NGYM_INVALID_REQUEST', message, { status: 422 });
}

/** One template regex: its last match's letter (trusted even when no option has it), or the option whose text it captured. */
function fromTemplateRegex(text: string, pattern: string, options: Options, allowed: Set<string>): string | null {
  let regex: PythonRegex;
  try {
    regex = PythonRegex.cached(pattern, { ignoreCase: true });
  } catch (error) {
    // A pattern Python rejects extracts nothing upstream; one we cannot translate must not be guessed.
    if (error instanceof PythonRegexError && error.kind === 'invalid') return null;
    throw error;
  }
  // `re.findall(...)[-1]`: with no group the whole match, with one group its text.
  const last = regex.finditer(text).at(-1);
  if (last === undefined) return null;
  // Upstream fails on a match of several groups (a tuple); a pattern that matches nothing falls through as above.
  if (regex.groupCount > 1) throw invalidRequest(`template_metadata.output_regex ${JSON.stringify(pattern)} has ${regex.groupCount} groups; it must capture the answer in at most one.`);
  const captured = normalizedAnswer(pythonStrip(regex.groupCount === 0 ? last.text : (last.groups[0] ?? ''))).toUpperCase();
  if (isLetter(captured)) return captured;
  return optionWithText(options, allowed, captured);
}

/** `template_metadata.output_regex`: one pattern, or a list tried in order until one extracts a letter. */
function fromTemplateRegexes(text: string, patterns: unknown, options: Options, allowed: Set<string>): string | null {
  const list = typeof patterns === 'string' ? [patterns] : patterns;
  if (!Array.isArray(list) || list.some((pattern) => typeof pattern !== 'string')) {
    throw invalidRequest(`template_metadata.output_regex must be a regex or a list of regexes (strings), got ${JSON.stringify(patterns)}.`);
  }
  for (const pattern of list as string[]) {
    const letter = fromTemplateRegex(text, pattern, options, allowed);
    if (letter !== null) return letter;
  }
  return null;
}

/** `template_metadata.answer_prefix` (lenient_answer_colon_md only): a phrase introducing the answer, e.g. `La respuesta es`. */
function answerPrefix(row: McqaRow): string | null {
  const prefix = row.template_metadata?.answer_prefix;
  if (!pythonTruthy(prefix)) return null;
  if (typeof prefix !== 'string') throw invalidRequest(`template_metadata.answer_prefix must be a string, got ${JSON.stringify(prefix)}.`);
  return prefix;
}

/** The letter the (stripped, non-empty) text picks: the template regex first, then the grading mode; null for none. */
export function extractLetter(text: string, row: McqaRow, mode: GradingMode): string | null {
  const allowed = allowedLetters(row.options);
  const metadata = row.template_metadata;
  if (metadata && 'output_regex' in metadata) {
    const letter = fromTemplateRegexes(text, metadata.output_regex, row.options, allowed);
    if (letter !== null) return letter;
  }
  switch (mode) {
    case 'strict_single_letter_boxed':
      return strictBoxed(text, allowed);
    case 'lenient_boxed':
      return strictBoxed(text, allowed) ?? boxedOptionText(text, row.options, allowed);
    case 'lenient_answer_colon':
      return answerColon(text, row.options, allowed);
    case 'lenient_answer_colon_md': {
      // With a prefix the row was written for this mode; then a last box still counts.
      const prefix = answerPrefix(row);
      return answerPayloadLetter(text, allowed, prefix) ?? (prefix === null ? null : strictBoxed(text, allowed));
    }
  }
}
