/**
 * `nltk.word_tokenize` (English): Punkt sentences, then NLTK's improved Treebank word tokenizer on each one, as
 * NLTK 3.10 (what upstream 0.7.0's venv installs) has it.
 * The tokenizer pads quotes, punctuation, brackets and contractions with spaces through an ordered list of
 * regex substitutions, then splits on whitespace. Python's `\s`, `\w`, `\d`, `\b` and `$` semantics are
 * kept (Unicode classes; `$` also before a final newline).
 */
import { PYTHON_WHITESPACE, PYTHON_WORD, pythonSplit } from 'ngym/python-compat';
import { sentTokenize } from './punkt.ts';
import { WORD_BOUNDARY } from './python-text.ts';

const S = `[${PYTHON_WHITESPACE}]`;
// Python's `$` without MULTILINE: at the end, or before a newline that ends the text.
const END = '(?=\\n?(?![\\s\\S]))';

type Rule = [RegExp, string];
const rule = (source: string, replacement: string, flags = ''): Rule => [new RegExp(source, `gu${flags}`), replacement];

const STARTING_QUOTES: Rule[] = [
  rule('([«“‘„]|[`]+)', ' $1 '),
  rule('^"', '``'),
  rule('(``)', ' $1 '),
  rule(`([ ([{<])("|'{2})`, '$1 `` '),
  // NLTK >= 3.9: a quote opening a word (not a contraction such as 're or 't) is split off; `'tis` becomes `'`, `tis`.
  rule(`(?<![${PYTHON_WORD}])(')(?!(?:re|ve|ll|m|t|s|d|n)${WORD_BOUNDARY})(?=[${PYTHON_WORD}])`, '$1 ', 'i'),
];

const PUNCTUATION: Rule[] = [
  rule(`([^.])(\\.)([\\])}>"'»”’ ]*)${S}*${END}`, '$1 $2 $3 '),
  rule('([:,])([^\\p{Nd}])', ' $1 $2'),
  rule(`([:,])${END}`, ' $1 '),
  rule('\\.{2,}', ' $& '),
  rule('[;@#$%&]', ' $& '),
  // NLTK >= 3.9: figure dash, en and em dashes, horizontal bar.
  rule('[\u2012-\u2015]', ' $& '),
  rule(`([^.])(\\.)([\\])}>"']*)${S}*${END}`, '$1 $2$3 '),
  rule('[?!]', ' $& '),
  rule("([^'])' ", "$1 ' "),
  rule('[*]', ' $& '),
];

const PARENS_BRACKETS = rule('[\\][(){}<>]', ' $& ');
const DOUBLE_DASHES = rule('--', ' -- ');

const ENDING_QUOTES: Rule[] = [
  rule('([»”’])', ' $1 '),
  rule("''", " '' "),
  rule('"', " '' "),
  rule(`${S}+`, ' '),
  rule("([^' ])('[sS]|'[mM]|'[dD]|') ", '$1 $2 '),
  rule("([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ", '$1 $2 '),
];

const CONTRACTIONS: Rule[] = [
  ...[
    ['can', 'not'],
    ['d', "'ye"],
    ['gim', 'me'],
    ['gon', 'na'],
    ['got', 'ta'],
    ['lem', 'me'],
    ['more', "'n"],
  ].map(([first, second]) => rule(`${WORD_BOUNDARY}(${first})(${second})${WORD_BOUNDARY}`, ' $1 $2 ', 'i')),
  rule(`${WORD_BOUNDARY}(wan)(na)(?=${S})`, ' $1 $2 ', 'i'),
  rule(` ('t)(is)${WORD_BOUNDARY}`, ' $1 $2 ', 'i'),
  rule(` ('t)(was)${WORD_BOUNDARY}`, ' $1 $2 ', 'i'),
];

const apply = (text: string, rules: Rule[]) => rules.reduce((current, [pattern, replacement]) => current.replace(pattern, replacement), text);

/** `NLTKWordTokenizer().tokenize(sentence)`. */
export function treebankTokenize(sentence: string): string[] {
  let text = apply(sentence, STARTING_QUOTES);
  text = apply(text, PUNCTUATION);
  text = apply(text, [PARENS_BRACKETS, DOUBLE_DASHES]);
  text = apply(` ${text} `, ENDING_QUOTES);
  return pythonSplit(apply(text, CONTRACTIONS));
}

/** `nltk.word_tokenize(text)`. */
export function wordTokenize(text: string): string[] {
  return sentTokenize(text).flatMap(treebankTokenize);
}
