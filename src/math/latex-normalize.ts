/**
 * LaTeX clean-up before parsing, the counterpart of latex2sympy2's `normalize_latex` with the settings
 * Math-Verify uses for answers (basic LaTeX, units, malformed operators, nits, boxed extraction): it turns
 * the many ways models write one answer (`\dfrac`, `\left(`, `5\text{ cm}`, `\$1{,}000`, `90^\circ`) into
 * one form the Compute Engine parses. The rules are our own; where they differ from latex2sympy2 the
 * judge fallback of math_with_judge covers the rest (docs/decisions).
 */

export type BoxedMode = 'all' | 'last' | 'none';

/** Where the `{...}` opening at `open` closes (unescaped braces counted, as latex2sympy2 does), or -1. */
function closingBrace(text: string, open: number, limit: number): number {
  let depth = 1;
  for (let index = open + 1; index < limit; index++) {
    if (text[index] === '{') depth++;
    else if (text[index] === '}' && --depth === 0) return index;
  }
  return -1;
}

/**
 * The answer held in `\boxed{...}` / `\fbox{...}` boxes, read right to left as latex2sympy2 1.10's
 * `extract_boxed_content`: 'all' joins every box with commas; 'last' keeps the last box and also each earlier
 * one that sits close before it (under 10 characters between them, or under 70 with `and`, `or`, `,` or `;`
 * between and a different content), so "\boxed{1}, \boxed{2}" is the set of both. A box never closed, or one
 * without braces, is read to the end of the text. Undefined when there is no box.
 */
function boxedAnswer(text: string, mode: 'all' | 'last'): string | undefined {
  const results: string[] = [];
  let limit = text.length;
  let laterStart: number | undefined;
  for (;;) {
    const start = Math.max(text.lastIndexOf('\\boxed', limit - 1), text.lastIndexOf('\\fbox', limit - 1));
    if (start < 0) break;
    let open = start + (text.startsWith('\\boxed', start) ? 6 : 5);
    while (open < limit && /\s/.test(text[open] as string)) open++;
    if (open >= limit) break;
    const close = text[open] === '{' ? closingBrace(text, open, limit) : -1;
    if (close < 0) {
      if (results.length === 0) results.push(text.slice(open));
      break;
    }
    const content = text.slice(open + 1, close).trim();
    if (mode === 'last' && laterStart !== undefined) {
      const between = text.slice(close + 1, laterStart);
      const near = between.length < 10 || (content !== results.at(-1) && between.length < 70 && /and|or|,|;/.test(between));
      if (!near) break;
    }
    results.push(content);
    laterStart = start;
    limit = start;
  }
  return results.length === 0 ? undefined : results.reverse().join(',');
}

/** Unit words latex2sympy2 drops from the end of an answer (each also with `s` or `es`). */
const UNIT_WORDS = 'units?|cm|mm|km|dm|m|kg|gm|g|lb|ft|feet|foot|inch|inches|yard|mile|mph|kmph|kmh|hour|hr|minute|min|second|sec|s|day|month|year|yr|degree|deg|liter|litre|meter|metre|gallon|gal|acre|hectare|cent|rupee|rs|student|men|women|man|woman|toy|coin|apple|sq|square|cubic|cc|ohm|point|edge|digit|pound|way|mark|tile|meal|monkey|soldier';
/** A trailing `\text{...}` (a unit or a remark), with an optional power: `5 \text{ cm}`, `12 \text{ m}^2`. */
const TRAILING_TEXT = /\\(?:text|mbox|mathrm|mathit|mathbf|textnormal|textbf|textit|textrm)\s*\{.*?\}(?:\^\d|\{\^\d\})?$/;
const TRAILING_UNIT = new RegExp(`(\\d|\\}|\\s)\\s*(?:${UNIT_WORDS})(?:s|es)?\\s*$`);

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

/** The exact contents of the last complete `\\boxed{...}` (upstream 0.7.0's gate before the library check), or undefined. */
export function lastBoxedContent(text: string): string | undefined {
  const start = text.lastIndexOf('\\boxed{');
  if (start < 0) return undefined;
  const open = start + '\\boxed'.length;
  const close = closingBrace(text, open, text.length);
  return close < 0 ? undefined : text.slice(open + 1, close);
}

/** `\\pm b` is the set {-b, b} and `a \\pm b` the set {a+b, a-b} in latex2sympy2 (also after `x =`). */
function plusMinus(text: string): string {
  // In a list, each `\\pm b` element stands for its two values.
  if (text.includes(',')) return text.split(',').map((part) => part.replace(/^(\s*)(?:\\pm|±)\s*([^{}()[\]]+)$/, '$1-{$2}, $2')).join(',');
  const match = /^((?:[^=,;]*=)?\s*)([^=,;]*?)\s*(?:\\pm|±)\s*([^=,;]+)$/.exec(text);
  if (match === null) return text;
  const [, assigned, base, offset] = match as unknown as [string, string, string, string];
  const set = base.trim() === '' ? `-{${offset}}, ${offset}` : `${base}+{${offset}}, ${base}-{${offset}}`;
  return `${assigned}\\{${set}\\}`;
}

export function normalizeLatex(input: string, boxed: BoxedMode): string {
  let text = input;
  if (boxed !== 'none') {
    text = boxedAnswer(text, boxed) ?? text;
  }
  text = stripDelimiters(text);

  // Spacing and sizing commands carry no meaning.
  text = text.replace(/\\(?:left|right|bigl|bigr|Bigl|Bigr|biggl|biggr|big|Big|bigg|Bigg)(?![A-Za-z])/g, '');
  text = text.replace(/\\(?:displaystyle|textstyle|scriptstyle)(?![A-Za-z])/g, '');
  // `\\` (a matrix row break) is kept whole: only a single backslash before `,;:! ` is a space command.
  text = text.replace(/\\(?:quad|qquad)(?![A-Za-z])/g, ' ').replace(/\\\\|\\[,;:! ]/g, (match) => (match === '\\\\' ? match : match === '\\!' ? '' : ' '));
  text = text.replace(/~/g, ' ');
  text = text.replace(/\\[dt]frac(?![A-Za-z])/g, '\\frac').replace(/\\[dt]binom(?![A-Za-z])/g, '\\binom');
  text = text.replace(/\\(?:leqslant|leq)(?![A-Za-z])/g, '\\le').replace(/\\(?:geqslant|geq)(?![A-Za-z])/g, '\\ge');
  text = text.replace(/−/g, '-').replace(/×/g, '\\times ').replace(/÷/g, '\\div ');

  text = text.replace(/\\text\{(?:percentage|percent|pct)\}|\s*(?:percentage|percent|pct)/g, '\\%');
  // A percentage is the number times 1/100, as latex2sympy2 builds it (`%` alone would start a LaTeX comment).
  text = text.replace(/(\d[\d,]*(?:\.\d+)?|\.\d+)\s*\\?%/g, '$1\\times\\frac{1}{100}');

  // Currency, degrees and units.
  text = text.replace(/\\\$|\$/g, '');
  // latex2sympy2 reads `721,720^\circ` as two numbers: the degree sign keeps a comma from being a thousands separator.
  const hadDegrees = /\^\s*\{?\s*\\circ/.test(text);
  text = text.replace(/\^\s*\{?\s*\\circ\s*\}?|\\degree(?![A-Za-z])/g, '');
  // Units as latex2sympy2 drops them: a trailing \text{...}, then up to two trailing unit words (never all of it).
  const withoutText = text.replace(TRAILING_TEXT, '').trim();
  if (withoutText !== '') text = withoutText;
  for (let round = 0; round < 2; round++) {
    const withoutUnit = text.replace(TRAILING_UNIT, '$1').trim();
    if (withoutUnit !== '') text = withoutUnit;
  }

  // Text wrappers: a textual answer keeps its words; formatting commands go.
  text = replaceCommand(text, /\\(?:textbf|textit|textrm|textup|mathbf|mathit|boldsymbol|bm|emph)\s*\{/, (content) => content);
  text = replaceCommand(text, /\\(?:text|mbox|mathrm|textnormal)\s*\{/, (content) => {
    const trimmed = content.trim();
    return trimmed === '' ? '' : `\\text{${trimmed}}`;
  });

  // Number formatting: thousands separators, leading decimal point.
  text = text.replace(/\{,\}/g, ',');
  if (!hadDegrees && /^-?\d{1,3}(?:,\d{3})+(?:\.\d+)?$/.test(text.trim())) text = text.replace(/,/g, '');
  text = text.replace(/(\d)\\ (?=\d{3}\b)/g, '$1');
  text = text.replace(/(^|[^\d])\.(\d)/g, (_, before: string, digit: string) => `${before}0.${digit}`);

  // "a and b", "a or b" (also in \text{}) list answers, as commas do (latex2sympy2's `and_or` rules).
  text = text.replace(/,?\s*\\text\{\s*(?:and|or)\s*\}/g, ',').replace(/(?<![a-zA-Z])(?:,?\s*(?:and|or))(?![a-zA-Z])/g, ',');

  // A word in \text{} inside a formula (`50 \text{ mm}, 5`) is a symbol for latex2sympy2, not a unit.
  text = text.replace(/\\text\{([A-Za-z]+)\}/g, (match: string, word: string) => (match === text.trim() ? match : `\\operatorname{${word}}`));

  // Nits: trailing punctuation and whitespace.
  text = text.replace(/\s+/g, ' ').trim();
  text = text.replace(/[.,;:\s]+$/, '');
  // latex2sympy2's one numeric nit: exactly `0.5` is read as the fraction (so it prints `1/2`).
  if (text === '0.5') return '\\frac{1}{2}';
  return plusMinus(text);
}
