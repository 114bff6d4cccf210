/**
 * IFEval's own text helpers: `split_into_sentences` (a regex heuristic that protects abbreviations,
 * websites, decimals, initials and acronyms, then splits after `.`, `?` and `!`) and `count_words`
 * (the number of `\w+` runs). The replacements run in IFEval's order; each step depends on the previous.
 */
import { PYTHON_WHITESPACE, pythonStrip } from 'ngym/python-compat';
import { replaceAll, wordRuns } from './python-text.ts';

const ALPHABETS = '([A-Za-z])';
const PREFIXES = '(Mr|St|Mrs|Ms|Dr)[.]';
const SUFFIXES = '(Inc|Ltd|Jr|Sr|Co)';
const STARTERS = `(Mr|Mrs|Ms|Dr|Prof|Capt|Cpt|Lt|He[${PYTHON_WHITESPACE}]|She[${PYTHON_WHITESPACE}]|It[${PYTHON_WHITESPACE}]|They[${PYTHON_WHITESPACE}]|Their[${PYTHON_WHITESPACE}]|Our[${PYTHON_WHITESPACE}]|We[${PYTHON_WHITESPACE}]|But[${PYTHON_WHITESPACE}]|However[${PYTHON_WHITESPACE}]|That[${PYTHON_WHITESPACE}]|This[${PYTHON_WHITESPACE}]|Wherever)`;
const ACRONYMS = '([A-Z][.][A-Z][.](?:[A-Z][.])?)';
const WEBSITES = '[.](com|net|org|io|gov|edu|me)';
const DIGITS = '([0-9])';

const STEPS: [RegExp, string][] = [
  [new RegExp(PREFIXES, 'gu'), '$1<prd>'],
  [new RegExp(WEBSITES, 'gu'), '<prd>$1'],
  [new RegExp(`${DIGITS}[.]${DIGITS}`, 'gu'), '$1<prd>$2'],
];
const MULTIPLE_DOTS = /\.{2,}/gu;
const STEPS_AFTER_PHD: [RegExp, string][] = [
  [new RegExp(`[${PYTHON_WHITESPACE}]${ALPHABETS}[.] `, 'gu'), ' $1<prd> '],
  [new RegExp(`${ACRONYMS} ${STARTERS}`, 'gu'), '$1<stop> $2'],
  [new RegExp(`${ALPHABETS}[.]${ALPHABETS}[.]${ALPHABETS}[.]`, 'gu'), '$1<prd>$2<prd>$3<prd>'],
  [new RegExp(`${ALPHABETS}[.]${ALPHABETS}[.]`, 'gu'), '$1<prd>$2<prd>'],
  [new RegExp(` ${SUFFIXES}[.] ${STARTERS}`, 'gu'), ' $1<stop> $2'],
  [new RegExp(` ${SUFFIXES}[.]`, 'gu'), ' $1<prd>'],
  [new RegExp(` ${ALPHABETS}[.]`, 'gu'), ' $1<prd>'],
];

/** IFEval `split_into_sentences`. */
export function splitIntoSentences(input: string): string[] {
  let text = replaceAll(` ${input}  `, '\n', ' ');
  for (const [pattern, replacement] of STEPS) text = text.replace(pattern, replacement);
  text = text.replace(MULTIPLE_DOTS, (dots) => `${'<prd>'.repeat(dots.length)}<stop>`);
  if (text.includes('Ph.D')) text = replaceAll(text, 'Ph.D.', 'Ph<prd>D<prd>');
  for (const [pattern, replacement] of STEPS_AFTER_PHD) text = text.replace(pattern, replacement);
  if (text.includes('”')) text = replaceAll(text, '.”', '”.');
  if (text.includes('"')) text = replaceAll(text, '."', '".');
  if (text.includes('!')) text = replaceAll(text, '!"', '"!');
  if (text.includes('?')) text = replaceAll(text, '?"', '"?');
  text = replaceAll(text, '.', '.<stop>');
  text = replaceAll(text, '?', '?<stop>');
  text = replaceAll(text, '!', '!<stop>');
  text = replaceAll(text, '<prd>', '.');
  const sentences = text.split('<stop>').map((sentence) => pythonStrip(sentence));
  if (sentences.length > 0 && sentences[sentences.length - 1] === '') sentences.pop();
  return sentences;
}

/** IFEval `count_words`: NLTK `RegexpTokenizer(r"\w+")` tokens. */
export function countWords(text: string): number {
  return wordRuns(text).length;
}
