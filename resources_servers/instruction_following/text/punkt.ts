/**
 * NLTK's Punkt sentence tokenizer with its English parameters, as `nltk.sent_tokenize` runs it (IFEval's
 * `count_sentences`, and the first step of `word_tokenize`). Every potential sentence end (`.`, `?`, `!`
 * followed by punctuation or by whitespace and a token) is decided from a small context: the word before, the
 * end mark, and the next token. A period ends a sentence unless it closes a known abbreviation, an initial or
 * an ordinal number, or forms a known collocation; after abbreviations, initials, numbers and ellipses the
 * case of the next word decides (orthographic heuristic, sentence starters). Then closing quotes and brackets
 * are moved onto the sentence they close.
 *
 * Parameters: `punkt-english.ts`. Indices are UTF-16 offsets throughout (Python uses code points; the
 * resulting sentences are the same).
 */
import {
  PYTHON_WHITESPACE,
  PYTHON_WORD,
  pythonIsLower,
  pythonIsUpper,
  pythonRstrip,
  pythonStrip,
} from 'ngym/python-compat';
import { ABBREVIATIONS, COLLOCATIONS, ORTHO_CONTEXT, SENTENCE_STARTERS } from './punkt-english.ts';
import { firstChar } from './python-text.ts';

const S = `[${PYTHON_WHITESPACE}]`;
const NOT_S = `[^${PYTHON_WHITESPACE}]`;
// NLTK >= 3.9 counts curly quotes and guillemets (‘ ’ “ ” « ») as closing punctuation, as the ASCII quotes.
const QUOTES = '\u2018\u2019\u201c\u201d\xab\xbb';
const NON_WORD = `(?:[)";}\\]*:@'({\\[${QUOTES}?!])`;
const MULTI_CHAR = `(?:-{2,}|\\.{2,}|(?:\\.${S}){2,}\\.)`;
const WORD_START = `[^("\`{\\[:;&#*@)}\\]\\-,]`;
const WORD_TOKENIZER = new RegExp(
  `${MULTI_CHAR}|(?=${WORD_START})${NOT_S}+?(?=${S}|$|${NON_WORD}|${MULTI_CHAR}|,(?=$|${S}|${NON_WORD}|${MULTI_CHAR}))|${NOT_S}`,
  'gu',
);
const PERIOD_CONTEXT = new RegExp(`[.?!](?=(?<after>${NON_WORD}|${S}+(?<next>${NOT_S}+)))`, 'gdu');
// Python's MULTILINE `$` is "before \n or at the end" only.
const BOUNDARY_REALIGNMENT = new RegExp(`^["')\\]}${QUOTES}]+?(?:${S}+|(?=--)|(?=\\n)|(?![\\s\\S]))`, 'u');
const NUMERIC = /^-?[.,]?\p{Nd}[\p{Nd},.-]*\.?$/u;
const ELLIPSIS = /^\.\.+$/u;
const INITIAL = new RegExp(`^[${PYTHON_WORD}](?<!\\p{Nd})\\.$`, 'u');
const ASCII_WHITESPACE = new Set([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
const PUNCTUATION = new Set([';', ':', ',', '.', '!', '?']);
const SENTENCE_END_CHARS = new Set(['.', '?', '!']);

const ORTHO_BEG_UC = 1 << 1;
const ORTHO_MID_UC = 1 << 2;
const ORTHO_UNK_UC = 1 << 3;
const ORTHO_BEG_LC = 1 << 4;
const ORTHO_MID_LC = 1 << 5;
const ORTHO_UNK_LC = 1 << 6;
const ORTHO_UC = ORTHO_BEG_UC | ORTHO_MID_UC | ORTHO_UNK_UC;
const ORTHO_LC = ORTHO_BEG_LC | ORTHO_MID_LC | ORTHO_UNK_LC;

class Token {
  readonly type: string;
  readonly periodFinal: boolean;
  sentbreak = false;
  abbr = false;
  ellipsis = false;

  constructor(readonly text: string) {
    const lower = text.toLowerCase();
    this.type = NUMERIC.test(lower) ? '##number##' : lower;
    this.periodFinal = text.endsWith('.');
  }

  get typeNoPeriod(): string {
    return this.type.length > 1 && this.type.endsWith('.') ? this.type.slice(0, -1) : this.type;
  }

  get typeNoSentperiod(): string {
    return this.sentbreak ? this.typeNoPeriod : this.type;
  }

  get firstUpper(): boolean {
    return pythonIsUpper(firstChar(this.text));
  }

  get firstLower(): boolean {
    return pythonIsLower(firstChar(this.text));
  }

  get isInitial(): boolean {
    return INITIAL.test(this.text);
  }
}

function tokenizeWords(text: string): Token[] {
  const tokens: Token[] = [];
  for (const line of text.split('\n')) {
    if (pythonStrip(line) === '') continue;
    for (const match of line.matchAll(WORD_TOKENIZER)) tokens.push(new Token(match[0]));
  }
  return tokens;
}

function firstPass(token: Token): void {
  const text = token.text;
  if (SENTENCE_END_CHARS.has(text)) token.sentbreak = true;
  else if (ELLIPSIS.test(text)) token.ellipsis = true;
  else if (token.periodFinal && !text.endsWith('..')) {
    const word = text.slice(0, -1).toLowerCase();
    if (ABBREVIATIONS.has(word) || ABBREVIATIONS.has(word.split('-').pop() as string)) token.abbr = true;
    else token.sentbreak = true;
  }
}

/** True: the token starts a sentence; false: it does not; 'unknown': the case says nothing. */
function orthoHeuristic(token: Token): boolean | 'unknown' {
  if (PUNCTUATION.has(token.text)) return false;
  const context = ORTHO_CONTEXT.get(token.typeNoSentperiod) ?? 0;
  if (token.firstUpper && context & ORTHO_LC && !(context & ORTHO_MID_UC)) return true;
  if (token.firstLower && (context & ORTHO_UC || !(context & ORTHO_BEG_LC))) return false;
  return 'unknown';
}

function secondPass(token: Token, next: Token): void {
  if (!token.periodFinal) return;
  const type = token.typeNoPeriod;
  const nextType = next.typeNoSentperiod;
  const initial = token.isInitial;
  if (COLLOCATIONS.has(`${type}\t${nextType}`)) {
    token.sentbreak = false;
    token.abbr = true;
    return;
  }
  if ((token.abbr || token.ellipsis) && !initial) {
    if (orthoHeuristic(next) === true) {
      token.sentbreak = true;
      return;
    }
    if (next.firstUpper && SENTENCE_STARTERS.has(nextType)) {
      token.sentbreak = true;
      return;
    }
  }
  if (initial || type === '##number##') {
    const starter = orthoHeuristic(next);
    if (starter === false) {
      token.sentbreak = false;
      token.abbr = true;
      return;
    }
    if (starter === 'unknown' && initial && next.firstUpper && !((ORTHO_CONTEXT.get(nextType) ?? 0) & ORTHO_LC)) {
      token.sentbreak = false;
      token.abbr = true;
    }
  }
}

/** Whether a sentence break falls inside `context` (before its last token). */
function containsSentenceBreak(context: string): boolean {
  const tokens = tokenizeWords(context);
  tokens.forEach(firstPass);
  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index] as Token;
    const next = tokens[index + 1];
    if (next !== undefined) secondPass(token, next);
    if (token.sentbreak) return next !== undefined;
  }
  return false;
}

function lastAsciiWhitespaceIndex(text: string): number {
  for (let index = text.length - 1; index >= 0; index--) if (ASCII_WHITESPACE.has(text[index] as string)) return index;
  return 0;
}

interface Span {
  start: number;
  end: number;
}

function sentenceSpans(text: string): Span[] {
  const spans: Span[] = [];
  let lastBreak = 0;
  const decide = (match: RegExpExecArray, wordStart: number) => {
    const context = text.slice(wordStart, match.index) + match[0] + (match.groups?.after ?? '');
    if (!containsSentenceBreak(context)) return;
    const end = match.index + match[0].length;
    spans.push({ start: lastBreak, end });
    lastBreak = match.indices?.groups?.next?.[0] ?? end;
  };
  let previous: { match: RegExpExecArray; start: number; end: number } | undefined;
  for (const match of text.matchAll(PERIOD_CONTEXT) as IterableIterator<RegExpExecArray>) {
    const previousEnd = previous?.end ?? 0;
    let wordStart = lastAsciiWhitespaceIndex(text.slice(previousEnd, match.index));
    wordStart = wordStart !== 0 ? wordStart + previousEnd + 1 : (previous?.start ?? 0);
    if (previous !== undefined && previous.end <= wordStart) decide(previous.match, previous.start);
    previous = { match, start: wordStart, end: match.index };
  }
  if (previous !== undefined) decide(previous.match, previous.start);
  spans.push({ start: lastBreak, end: pythonRstrip(text).length });
  return realign(text, spans);
}

function realign(text: string, spans: Span[]): Span[] {
  const result: Span[] = [];
  let shift = 0;
  spans.forEach((span, index) => {
    const current = { start: span.start + shift, end: span.end };
    const next = spans[index + 1];
    if (next === undefined) {
      if (current.end > current.start) result.push(current);
      return;
    }
    const match = BOUNDARY_REALIGNMENT.exec(text.slice(next.start, next.end));
    if (match !== null) {
      result.push({ start: current.start, end: next.start + pythonRstrip(match[0]).length });
      shift = match[0].length;
    } else {
      shift = 0;
      if (current.end > current.start) result.push(current);
    }
  });
  return result;
}

/** `nltk.sent_tokenize(text)` (English). */
export function sentTokenize(text: string): string[] {
  return sentenceSpans(text).map((span) => text.slice(span.start, span.end));
}

/** IFEval `count_sentences`. */
export function countSentences(text: string): number {
  return sentenceSpans(text).length;
}
