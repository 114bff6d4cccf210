/**
 * Finding the answer in a model's text, with Math-Verify's search order: anchored patterns by priority
 * ("final answer is ... I hope" 0; "final answer ... is" and `\boxed{}` 50; "answer:" 100; "answer" 200;
 * bare LaTeX environments, expressions and numbers 300). Within a priority the rightmost match is tried
 * first; the first candidate that parses wins. Each candidate carries the text the parser should read.
 */

export type Target = 'latex' | 'expr';

interface LatexPart {
  latex: string;
  percent: boolean;
  /** `\boxed{...}` matched as a whole keeps only its last box; environments keep every box. */
  boxed: 'all' | 'last';
}

export type Candidate =
  | { kind: 'latex'; start: number; end: number; parts: LatexPart[] }
  | { kind: 'expr'; start: number; end: number; number?: string; expression?: string; percent: boolean };

interface Pattern {
  regex: RegExp;
  priority: number;
  target: Target;
}

const ci = (words: string) => words.replace(/[a-z]/g, (letter) => `[${letter}${letter.toUpperCase()}]`);
const FINAL_ANSWER_IS = ci('final answer is');
const FINAL_ANSWER = ci('final answer');
const ANSWER = ci('answer');
const START = '(?<![\\s\\S])';
const END = '(?=\\n?(?![\\s\\S]))';
const PERCENT_WORD = '(?:%|[Pp]ercent|\\s*[Pp]ercentage|\\s*[Pp]ct)';

/** One LaTeX environment, its content captured as `<prefix><kind>`, then an optional percent sign. */
function environment(prefix: string, boxedOnly: boolean): string {
  const content = {
    DisplayDollar: '(?:[^$]|\\$(?!\\$))',
    DisplayBracket: '(?:[^\\\\]|\\\\(?!\\]))',
    InlineDollar: '(?:\\\\[$]|[^\\n$])',
    InlineParenthesis: '(?:[^\\\\\\n]|\\\\(?!\\)))',
    InlineBracket: '[^\\n\\]\\[]',
  };
  const body = (inner: string) => (boxedOnly ? `${inner}*?\\\\boxed\\{${inner}+?\\}${inner}*?` : `${inner}+?`);
  const alternatives = [
    `(?<!\\\\)\\$\\$(?<${prefix}DisplayDollar>${body(content.DisplayDollar)})(?<!\\\\)\\$\\$`,
    `(?<!\\\\)\\\\\\[(?<${prefix}DisplayBracket>${body(content.DisplayBracket)})(?<!\\\\)\\\\\\]`,
    `(?<![\\\\\\d])\\$(?<${prefix}InlineDollar>${body(content.InlineDollar)})(?<!\\\\)\\$`,
    `(?<!\\\\)\\\\\\((?<${prefix}InlineParenthesis>${body(content.InlineParenthesis)})(?<!\\\\)\\\\\\)`,
    `\\s\\[(?<${prefix}InlineBracket>${body(content.InlineBracket)})\\]\\s`,
  ];
  if (!boxedOnly) {
    const simple = '-?\\d+(?:[.,]\\d+)?';
    alternatives.push(`(?<${prefix}Fraction>-?\\\\frac\\{${simple}\\}\\{${simple}\\})`);
  }
  return `(?:(?:${alternatives.join('|')})\\s*(?<${prefix}Percent>\\\\?%|[Pp]ercent|[Pp]ercentage|[Pp]ct)?)`;
}

/** Up to six environments joined by "and", "or" or commas ("x = $1$, $2$ and $3$"). */
function environments(boxedOnly: boolean): string {
  const next = Array.from({ length: 5 }, (_, index) => `(?:\\s*(?:,?and|,?or|,)\\s*${environment(`n${index + 1}`, boxedOnly)})?`);
  return `(?:${environment('n0', boxedOnly)}${boxedOnly ? next.map((group) => `\\s*${group}`).join('') : next.join('')})`;
}

function latexPatterns(): Pattern[] {
  const envs = environments(false);
  const sources: [string, number][] = [
    [`${FINAL_ANSWER_IS}:?\\s*${envs}\\.?\\s?I hope`, 0],
    [`${FINAL_ANSWER}[\\s\\S]{0,100}?\\s+is:?\\s*${envs}`, 50],
    [`${ANSWER}:[\\s\\S]{0,50}?${envs}`, 100],
    [`${ANSWER}[\\s\\S]{0,50}?${envs}`, 200],
    [envs, 300],
    [environments(true), 50],
    ['(?<n0Boxed>\\\\boxed\\{[\\s\\S]+\\})', 50],
  ];
  return sources.map(([source, priority]) => ({ regex: new RegExp(source, 'g'), priority, target: 'latex' }));
}

function exprPatterns(): Pattern[] {
  const number =
    '(?<!\\d)(?:(?<integer1>-?[1-9]\\d{0,2}(?:[ ,]\\d{3})+)(?<decimal1>\\.\\d+)?|(?<integer2>-?\\d+)(?<decimal2>[.,]\\d+)|(?<decimal3>\\.\\d+)|(?<integer3>-?\\d+))' +
    `(?<percent>\\s*${PERCENT_WORD})?`;
  const operators = '+\\-*×/^()÷';
  const chars = `[\\d.\\s${operators}]`;
  const expression = `(?<expression>-?\\(?-?\\d${chars}*[${operators}]${chars}+\\)?)`;
  const prefix = `(?:${START}|\\s|=)(?:\\*\\*)?`;
  const suffix = `(?:\\*\\*)?(?:\\.|,|:|\\s|\\)|\\$|${END})`;
  const currency = '[$€£¥₹₽₪₩₫฿₡₢₣₤₥₦₧₨₭₮₯₰₱₲₳₴₵₶₷₸₺₻₼₾₿]';
  const withAnchors = `(?:${prefix}${expression}${suffix})`;
  const numberWithAnchors = `(?:${prefix}${currency}?${number})`;
  const either = `(?:${withAnchors}|${numberWithAnchors})`;
  const line = '[^\\n]';
  const sources: [string, number][] = [
    [`${FINAL_ANSWER_IS}:?\\s*${either}\\.?\\s?I hope`, 0],
    [`${FINAL_ANSWER}${line}{0,100}?\\s+is:?${either}`, 50],
    [`${ANSWER}:(?:${line}{0,100}=\\s*|${line}{0,50}?)${either}(?!\\s*=)`, 100],
    [`${ANSWER}(?:${line}{0,100}=\\s*|${line}{0,50}?)${either}(?!\\s*=)`, 200],
    [withAnchors, 300],
    [numberWithAnchors, 300],
  ];
  return sources.map(([source, priority]) => ({ regex: new RegExp(source, 'g'), priority, target: 'expr' }));
}

const patterns: Record<Target, Pattern[] | undefined> = { latex: undefined, expr: undefined };
function patternsOf(target: Target): Pattern[] {
  patterns[target] ??= target === 'latex' ? latexPatterns() : exprPatterns();
  return patterns[target];
}

const ENV_KINDS = ['DisplayDollar', 'DisplayBracket', 'InlineDollar', 'InlineParenthesis', 'InlineBracket', 'Fraction', 'Boxed'];

function latexCandidate(match: RegExpExecArray): Candidate | undefined {
  const groups = match.groups ?? {};
  const parts: LatexPart[] = [];
  for (let index = 0; index <= 5; index++) {
    const kind = ENV_KINDS.find((name) => groups[`n${index}${name}`]);
    if (kind === undefined) continue;
    parts.push({ latex: groups[`n${index}${kind}`] as string, percent: Boolean(groups[`n${index}Percent`]), boxed: kind === 'Boxed' ? 'last' : 'all' });
  }
  if (parts.length === 0) return undefined;
  const start = match.index;
  return { kind: 'latex', start, end: start + match[0].length, parts };
}

function exprCandidate(match: RegExpExecArray): Candidate | undefined {
  const groups = match.groups ?? {};
  const start = match.index;
  const end = start + match[0].length;
  const integerName = ['integer1', 'integer2', 'integer3'].find((name) => groups[name]);
  const decimalName = ['decimal1', 'decimal2', 'decimal3'].find((name) => groups[name]);
  const percent = Boolean(groups.percent);
  if (integerName !== undefined || decimalName !== undefined) {
    // "0001" -> "1"; "1,234" and "1 234" -> "1234"; "3,5" -> "3.5".
    let integer = (integerName === undefined ? '' : (groups[integerName] as string)).replace(/[, ]/g, '');
    const negative = integer.startsWith('-');
    integer = integer.replace(/^-/, '').replace(/^0+/, '');
    if (integer === '') integer = '0';
    const decimal = (decimalName === undefined ? '' : (groups[decimalName] as string)).replace(',', '.');
    return { kind: 'expr', start, end, number: `${negative ? '-' : ''}${integer}${decimal}`, percent };
  }
  const expression = groups.expression;
  if (expression === undefined) return undefined;
  return { kind: 'expr', start, end, expression, percent };
}

/**
 * Candidates grouped by priority (most trusted first); within a group, rightmost first. `targets` are
 * the kinds of answer to look for: the gold answer is LaTeX only; math_with_judge reads predictions as
 * expressions, then LaTeX.
 */
export function answerCandidates(text: string, targets: readonly Target[]): Candidate[][] {
  const byPriority = new Map<number, { candidate: Candidate; order: number }[]>();
  let order = 0;
  // Ties keep the order of `targets`, then of the patterns, as Math-Verify's stable sort does.
  for (const pattern of targets.flatMap(patternsOf)) {
    for (const match of text.matchAll(pattern.regex)) {
      const candidate = pattern.target === 'latex' ? latexCandidate(match) : exprCandidate(match);
      if (candidate === undefined) continue;
      const list = byPriority.get(pattern.priority) ?? [];
      list.push({ candidate, order: order++ });
      byPriority.set(pattern.priority, list);
    }
  }
  return [...byPriority.entries()]
    .sort(([left], [right]) => left - right)
    .map(([, list]) =>
      list
        .sort((left, right) => right.candidate.end - left.candidate.end || left.candidate.start - right.candidate.start || left.order - right.order)
        .map((entry) => entry.candidate),
    );
}
