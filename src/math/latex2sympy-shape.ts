/**
 * Reshapes the Compute Engine's raw parse of an answer into the tree latex2sympy2 1.10 builds from the same LaTeX,
 * where the two differ in what upstream prints as `extracted_answer` (sympy-str.ts prints the result): a pair in
 * brackets is an interval when its ends are in order, a chain of relations is a conjunction, and a decimal literal
 * stays a float (`720.0` is sympy's `Float`, the Compute Engine's integer 720). Values are compared elsewhere.
 */
import type { ComputeEngine } from '@cortex-js/compute-engine';

type Json = unknown;

const RELATIONS = new Set(['Less', 'LessEqual', 'Greater', 'GreaterEqual', 'Equal', 'NotEqual']);
/** sympy's class names, which order the arguments of an `And`. */
const RELATION_CLASS: Record<string, string> = {
  Less: 'StrictLessThan',
  LessEqual: 'LessThan',
  Greater: 'StrictGreaterThan',
  GreaterEqual: 'GreaterThan',
  Equal: 'Equality',
  NotEqual: 'Unequality',
};

const isCall = (json: Json, head: string): json is [string, ...Json[]] => Array.isArray(json) && json[0] === head;

/** The real value of an end point (infinities included), or NaN when it has none. */
function valueOf(ce: ComputeEngine, json: Json): number {
  try {
    const value = ce.box(json as never).N();
    return value.im === 0 ? value.re : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/**
 * latex2sympy2's `convert_interval`: `(a, b)` and `[a, b]` are intervals unless their ends are out of order
 * (`b <= a` open, `b < a` closed), which makes them a tuple; ends that cannot be ordered (symbols) give an interval.
 */
function pairAsInterval(ce: ComputeEngine, low: Json, high: Json, open: boolean): Json | undefined {
  const [a, b] = [valueOf(ce, low), valueOf(ce, high)];
  if (!Number.isNaN(a) && !Number.isNaN(b) && (open ? b <= a : b < a)) return undefined;
  return open ? ['Interval', ['Open', low], ['Open', high]] : ['Interval', low, high];
}

/** `a < b <= c` (the Compute Engine nests it as `(a < b) <= c`) is `And(a < b, b <= c)`. */
function chain(json: [string, ...Json[]]): Json | undefined {
  const links: Json[] = [];
  let current: Json = json;
  while (Array.isArray(current) && RELATIONS.has(current[0] as string) && current.length === 3) {
    const [head, left, right] = current as [string, Json, Json];
    if (!(Array.isArray(left) && RELATIONS.has(left[0] as string) && left.length === 3)) {
      links.unshift([head, left, right]);
      break;
    }
    links.unshift([head, left[2], right]);
    current = left;
  }
  if (links.length < 2) return undefined;
  // sympy keeps an And's arguments sorted, by class name first (a stable sort keeps the written order after it).
  const sorted = links.map((link, index) => ({ link, index })).sort((x, y) => (RELATION_CLASS[(x.link as string[])[0] as string] as string).localeCompare(RELATION_CLASS[(y.link as string[])[0] as string] as string) || x.index - y.index);
  return ['And', ...sorted.map(({ link }) => link)];
}

/** The number literals of `latex` in order, as latex2sympy2 reads them (`1{,}000` and `3.0` included). */
function numberLiterals(latex: string): string[] {
  return latex.match(/\d+(?:\.\d+)?|\.\d+/g) ?? [];
}

/** Puts back each decimal literal the Compute Engine turned into an integer, when the numbers line up one to one. */
function withDecimals(json: Json, latex: string): Json {
  const literals = numberLiterals(latex);
  const leaves: number[] = [];
  const visit = (node: Json): void => {
    if (typeof node === 'number') leaves.push(node);
    else if (Array.isArray(node)) node.slice(1).forEach(visit);
  };
  visit(json);
  if (leaves.length !== literals.length || !literals.some((literal) => literal.includes('.'))) return json;
  let index = 0;
  const rebuild = (node: Json): Json => {
    if (typeof node === 'number') {
      const literal = literals[index++] as string;
      return literal.includes('.') && Number(literal) === Math.abs(node) ? { num: `${node < 0 ? '-' : ''}${literal}` } : node;
    }
    return Array.isArray(node) ? [node[0], ...node.slice(1).map(rebuild)] : node;
  };
  return rebuild(json);
}

/** `2.5 \\times 10^{-3}`, which the Compute Engine reads as the number 0.0025, is a product in latex2sympy2. */
function scientific(latex: string): Json | undefined {
  const match = /^(-?)(\d+(?:\.\d+)?)\s*\\(?:times|cdot)\s*10\s*\^\s*(?:\{\s*(-?\d+)\s*\}|(\d))$/.exec(latex.trim());
  if (match === null) return undefined;
  const [, sign, mantissa, braced, bare] = match as unknown as [string, string, string, string | undefined, string | undefined];
  const number = mantissa.includes('.') ? { num: `${sign}${mantissa}` } : Number(`${sign}${mantissa}`);
  return ['Multiply', number, ['Power', 10, Number(braced ?? bare)]];
}

export function latex2sympyShape(ce: ComputeEngine, raw: Json, latex: string): Json {
  if (typeof raw === 'number') raw = scientific(latex) ?? raw;
  // A comma list: each number element written in scientific notation, when the elements line up with the commas.
  const parts = latex.split(',');
  if (isCall(raw, 'Delimiter') && isCall(raw[1], 'Sequence') && raw[1].length - 1 === parts.length) {
    raw = [raw[0], ['Sequence', ...raw[1].slice(1).map((item, index) => (typeof item === 'number' ? (scientific(parts[index] as string) ?? item) : item))], ...raw.slice(2)];
  }
  const reshape = (json: Json): Json => {
    if (!Array.isArray(json) || isCall(json, 'Matrix')) return json;
    if (isCall(json, 'Delimiter') && json[2] === "'(,)'" && isCall(json[1], 'Sequence') && json[1].length === 3) {
      const [low, high] = json[1].slice(1).map(reshape);
      return pairAsInterval(ce, low, high, true) ?? json;
    }
    if (isCall(json, 'List') && json.length === 3 && !json.slice(1).some((item) => isCall(item, 'List'))) {
      const [low, high] = json.slice(1).map(reshape);
      return pairAsInterval(ce, low, high, false) ?? ['Tuple', low, high];
    }
    if (RELATIONS.has(json[0] as string)) {
      const conjunction = chain(json as [string, ...Json[]]);
      if (conjunction !== undefined) return reshape(conjunction);
    }
    return [json[0], ...json.slice(1).map(reshape)];
  };
  return withDecimals(reshape(raw), latex);
}
