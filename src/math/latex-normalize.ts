/**
 * LaTeX clean-up before parsing, the counterpart of latex2sympy2's `normalize_latex` with the settings
 * Math-Verify uses for answers (basic LaTeX, units, malformed operators, nits, boxed extraction): it turns
 * the many ways models write one answer (`\dfrac`, `\left(`, `5\text{ cm}`, `\$1{,}000`, `90^\circ`) into
 * one form the Compute Engine parses. The rules are our own; where they differ from latex2sympy2 the
 * judge fallback of math_with_judge covers the rest (docs/decisions).
 */

export type BoxedMode = 'all' | 'last' | 'none';

/** The contents of every `\boxed{...}` / `\fbox{...}` (brace-balanced), in order. */
function boxedContents(text: string): string[] {
  const contents: string[] = [];
  const opener = /\\(?:boxed|fbox)\s*\{/g;
  for (let match = opener.exec(text); match !== null; match = opener.exec(text)) {
    const start = match.index + match[0].length;
    let depth = 1;
    let index = start;
    for (; index < text.length && depth > 0; index++) {
      const char = text[index];
      if (char === '\\') index++;
      else if (char === '{') depth++;
      else if (char === '}') depth--;
    }
    if (depth !== 0) continue;
    contents.push(text.slice(start, index - 1));
    opener.lastIndex = index;
  }
  // `\boxed 5` (no braces) also occurs.
  if (contents.length === 0) {
    const bare = /\\boxed\s+([^\s$]+)/.exec(text);
    if (bare !== null) contents.push(bare[1] as string);
  }
  return contents;
}

const UNIT_WORDS = [
  'units?',
  'cm',
  'mm',
  'km',
  'm',
  'meters?',
  'metres?',
  'centimeters?',
  'kilometers?',
  'inch(?:es)?',
  'in',
  'feet',
  'foot',
  'ft',
  'yards?',
  'miles?',
  'mi',
  'mph',
  'kg',
  'g',
  'grams?',
  'kilograms?',
  'pounds?',
  'lbs?',
  'ounces?',
  'oz',
  's',
  'sec',
  'seconds?',
  'min',
  'minutes?',
  'hours?',
  'hrs?',
  'h',
  'days?',
  'weeks?',
  'months?',
  'years?',
  'dollars?',
  'cents?',
  'degrees?',
  'liters?',
  'litres?',
  'l',
  'ml',
  'sq',
  'square',
  'cubic',
  'people',
  'students?',
  'ways',
  'times',
  'points?',
];
const UNIT = `(?:${UNIT_WORDS.join('|')})`;
const POWER = '(?:\\s*\\^\\s*\\{?\\s*[23]\\s*\\}?)?';
const TEXT_UNIT = new RegExp(`\\\\(?:text|textbf|mbox|mathrm)\\s*\\{\\s*(?:${UNIT}${POWER}\\s*)+\\}${POWER}`, 'gi');
const TRAILING_UNIT = new RegExp(`(\\d)(?:\\s+${UNIT}${POWER})+$`, 'i');

/** Removes one pair of enclosing math delimiters: `$...$`, `$$...$$`, `\(...\)`, `\[...\]`. */
function stripDelimiters(text: string): string {
  for (;;) {
    const trimmed = text.trim();
    const match = /^(?:\$\$([\s\S]*)\$\$|\$([\s\S]*)\$|\\\(([\s\S]*)\\\)|\\\[([\s\S]*)\\\])$/.exec(trimmed);
    if (match === null) return trimmed;
    text = (match[1] ?? match[2] ?? match[3] ?? match[4]) as string;
  }
}

/** Replaces `\command{content}` (brace-balanced) by what `replace` returns for the content. */
function replaceCommand(text: string, command: RegExp, replace: (content: string) => string): string {
  let out = '';
  let rest = text;
  for (;;) {
    const match = command.exec(rest);
    if (match === null) return out + rest;
    const open = match.index + match[0].length;
    let depth = 1;
    let index = open;
    for (; index < rest.length && depth > 0; index++) {
      if (rest[index] === '{') depth++;
      else if (rest[index] === '}') depth--;
    }
    if (depth !== 0) return out + rest;
    out += rest.slice(0, match.index) + replace(rest.slice(open, index - 1));
    rest = rest.slice(index);
  }
}

export function normalizeLatex(input: string, boxed: BoxedMode): string {
  let text = input;
  if (boxed !== 'none') {
    const contents = boxedContents(text);
    if (contents.length > 0) text = boxed === 'last' ? (contents.at(-1) as string) : contents.join(',');
  }
  text = stripDelimiters(text);

  // Spacing and sizing commands carry no meaning.
  text = text.replace(/\\(?:left|right|bigl|bigr|Bigl|Bigr|biggl|biggr|big|Big|bigg|Bigg)(?![A-Za-z])/g, '');
  text = text.replace(/\\(?:displaystyle|textstyle|scriptstyle)(?![A-Za-z])/g, '');
  text = text.replace(/\\(?:quad|qquad)(?![A-Za-z])/g, ' ').replace(/\\[,;:! ]/g, (match) => (match === '\\!' ? '' : ' '));
  text = text.replace(/~/g, ' ');
  text = text.replace(/\\[dt]frac(?![A-Za-z])/g, '\\frac').replace(/\\[dt]binom(?![A-Za-z])/g, '\\binom');
  text = text.replace(/\\(?:leqslant|leq)(?![A-Za-z])/g, '\\le').replace(/\\(?:geqslant|geq)(?![A-Za-z])/g, '\\ge');
  text = text.replace(/−/g, '-').replace(/×/g, '\\times ').replace(/÷/g, '\\div ').replace(/·/g, '\\cdot ');

  // Currency, degrees and units.
  text = text.replace(/\\\$|\$/g, '');
  text = text.replace(/\^\s*\{?\s*\\circ\s*\}?|°|\\degree(?![A-Za-z])/g, '');
  text = text.replace(TEXT_UNIT, '');
  text = text.replace(TRAILING_UNIT, '$1');

  // Text wrappers: a textual answer keeps its words; formatting commands go.
  text = replaceCommand(text, /\\(?:textbf|textit|textrm|textup|mathbf|mathit|boldsymbol|bm|emph)\s*\{/, (content) => content);
  text = replaceCommand(text, /\\(?:text|mbox|mathrm|textnormal)\s*\{/, (content) => {
    const trimmed = content.trim();
    return trimmed === '' ? '' : `\\text{${trimmed}}`;
  });

  // Number formatting: thousands separators, leading decimal point.
  text = text.replace(/\{,\}/g, ',');
  if (/^-?\d{1,3}(?:,\d{3})+(?:\.\d+)?$/.test(text.trim())) text = text.replace(/,/g, '');
  text = text.replace(/(\d)\\ (?=\d{3}\b)/g, '$1');
  text = text.replace(/(^|[^\d])\.(\d)/g, (_, before: string, digit: string) => `${before}0.${digit}`);

  // Nits: trailing punctuation and whitespace.
  text = text.replace(/\s+/g, ' ').trim();
  text = text.replace(/[.,;:\s]+$/, '');
  return text;
}
