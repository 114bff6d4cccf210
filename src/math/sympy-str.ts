/**
 * Prints a parsed answer the way sympy's `str()` prints it (`83/499`, `sqrt(2)`, `x**2 + 1`, `Eq(x, 5)`,
 * `Interval.open(0, 1)`), because upstream records `extracted_answer` in that form and users compare it
 * across runs. The input is the Compute Engine's MathJSON of the answer as written (not simplified);
 * it becomes the unevaluated tree latex2sympy2 builds (sympy-expr.ts), printed with sympy's rules:
 * sums and products in sympy's canonical order, `-1*3*x` for a negated product with a number in it,
 * doubled parentheses around a product in a denominator.
 */
import {
  atomText,
  coeffMul,
  isNegativeNumber,
  isNumber,
  type Json,
  multiplyNumbers,
  mulArgs,
  negateNumber,
  ONE,
  orderedFactors,
  orderedTerms,
  product,
  sortedBy,
  sortKey,
  type Sym,
  symId,
  sympyFloat,
  toSym,
} from './sympy-expr.ts';

export { sympyFloat } from './sympy-expr.ts';

/** sympy's `PRECEDENCE` values. */
const PRECEDENCE = { relation: 35, bitwiseAnd: 38, add: 40, mul: 50, pow: 60, func: 70, atom: 1000 };

const SYMBOLS: Record<string, string> = { EmptySet: 'EmptySet', Nothing: 'None', True: 'True', False: 'False' };

const RELATIONS: Record<string, string> = { Less: '<', LessEqual: '<=', Greater: '>', GreaterEqual: '>=', NotEqual: '!=' };

interface Printed {
  text: string;
  precedence: number;
}

const atom = (text: string): Printed => ({ text, precedence: PRECEDENCE.atom });

/** `StrPrinter.parenthesize(item, level, strict=False)`. */
const parenthesize = (printed: Printed, level: number): string => (printed.precedence <= level ? `(${printed.text})` : printed.text);

/** `Expr.could_extract_minus_sign()` for the trees latex2sympy builds. */
const couldExtractMinus = (sym: Sym): boolean => isNegativeNumber(sym) || (sym.kind === 'mul' && isNegativeNumber(sym.args[0] as Sym));

const isOne = (sym: Sym): boolean => sym.kind === 'integer' && sym.value === 1n;
const isMinusOne = (sym: Sym): boolean => sym.kind === 'integer' && sym.value === -1n;
const isHalf = (sym: Sym, sign: 1n | -1n): boolean => sym.kind === 'rational' && sym.p === sign && sym.q === 2n;

/** sympy prints a Float nested in an expression without trailing zeros (`x + 2.5`, but `2.50000000000000` alone). */
const stripZeros = (text: string): string => text.replace(/^(-?\d+\.\d*?)0+(?=e|$)/, '$1').replace(/\.(?=e|$)/, '.0');

function printSym(sym: Sym, top = false): Printed {
  switch (sym.kind) {
    case 'integer':
      return { text: String(sym.value), precedence: sym.value < 0n ? PRECEDENCE.add : PRECEDENCE.atom };
    case 'rational':
      return { text: `${sym.p}/${sym.q}`, precedence: sym.p < 0n ? PRECEDENCE.add : PRECEDENCE.mul };
    case 'float':
      return { text: top ? sympyFloat(sym.value) : stripZeros(sympyFloat(sym.value)), precedence: sym.value < 0 ? PRECEDENCE.add : PRECEDENCE.atom };
    case 'symbol':
    case 'constant':
      return atom(atomText(sym) as string);
    case 'function':
      return { text: `${sym.name}(${sym.args.map((arg) => printSym(arg).text).join(', ')})`, precedence: PRECEDENCE.func };
    case 'pow':
      return printPow(sym.base, sym.exp);
    case 'add':
      return printAdd(sym);
    case 'mul':
      return printMul(sym);
    case 'other':
      return printOther(sym.json as Json, top);
  }
}

/** `StrPrinter._print_Pow`. */
function printPow(base: Sym, exp: Sym): Printed {
  // latex2sympy2 reads `e^{x}` as sympy's `exp(x)`.
  if (base.kind === 'constant' && base.name === 'E') return { text: `exp(${printSym(exp).text})`, precedence: PRECEDENCE.func };
  if (isHalf(exp, 1n)) return atom(`sqrt(${printSym(base).text})`);
  if (isHalf(exp, -1n)) return { text: `1/sqrt(${printSym(base).text})`, precedence: PRECEDENCE.pow };
  if (isMinusOne(exp)) return { text: `1/${parenthesize(printSym(base), PRECEDENCE.pow)}`, precedence: PRECEDENCE.pow };
  return { text: `${parenthesize(printSym(base), PRECEDENCE.pow)}**${parenthesize(printSym(exp), PRECEDENCE.pow)}`, precedence: PRECEDENCE.pow };
}

/** `StrPrinter._print_Add`: terms in sympy's order, a leading minus becomes the operator. */
function printAdd(sum: Sym): Printed {
  const parts: string[] = [];
  for (const term of orderedTerms(sum)) {
    const printed = printSym(term);
    const negative = printed.text.startsWith('-') && term.kind !== 'add';
    const text = negative ? printed.text.slice(1) : printed.text;
    parts.push(negative ? '-' : '+', printed.precedence < PRECEDENCE.add || term.kind === 'add' ? `(${text})` : text);
  }
  const sign = parts.shift();
  return { text: `${sign === '-' ? '-' : ''}${parts.join(' ')}`, precedence: PRECEDENCE.add };
}

/** A negative exponent's coefficient, as `exp.as_coeff_Mul()[0] < 0`. */
const negativeExponent = (sym: Sym): boolean => sym.kind === 'pow' && isNegativeNumber(coeffMul(sym.exp)[0]);

/** The exponent negated, as `-exp` or with the sign dropped from a `Mul(-1, ...)` exponent. */
function negatedExponent(exp: Sym): Sym {
  if (isNumber(exp)) return negateNumber(exp);
  const args = mulArgs(exp);
  return isMinusOne(args[0] as Sym) ? product(args.slice(1)) : product([negateNumber(args[0] as Sym), ...args.slice(1)]);
}

/** `_keep_coeff(coeff, factors)` for a positive numeric coefficient. */
function keepCoeff(coeff: Sym, factors: Sym): Sym {
  if (isOne(coeff)) return factors;
  if (factors.kind !== 'mul') return { kind: 'mul', args: [coeff, factors] };
  const [first, ...rest] = factors.args as [Sym, ...Sym[]];
  if (!isNumber(first)) return { kind: 'mul', args: [coeff, ...factors.args] };
  const scaled = multiplyNumbers(first, coeff);
  return product(isOne(scaled) ? rest : [scaled, ...rest]);
}

/** `StrPrinter._print_Mul`, both its branches: unevaluated products as written, others in sympy's order. */
function printMul(mul: Sym & { kind: 'mul' }): Printed {
  const precedence = couldExtractMinus(mul) ? PRECEDENCE.add : PRECEDENCE.mul;
  const join = (factors: Sym[]) => factors.map((factor) => parenthesize(printSym(factor), precedence));
  const [first, ...rest] = mul.args as [Sym, ...Sym[]];
  const keptAsWritten = isOne(first) || rest.some((arg) => isNumber(arg) || (arg.kind === 'pow' && arg.base.kind === 'integer' && arg.exp.kind === 'integer'));
  if (keptAsWritten) {
    const numerator = mul.args.filter((arg) => !negativeExponent(arg));
    const denominator = mul.args.filter(negativeExponent).map((arg) => {
      const { base, exp } = arg as Sym & { kind: 'pow' };
      const positive = negatedExponent(exp);
      return isOne(positive) ? base : ({ kind: 'pow', base, exp: positive } as Sym);
    });
    const leading = numerator.length > 0 && numerator[0]?.kind !== 'add' && couldExtractMinus(numerator[0] as Sym) ? [printSym(numerator.shift() as Sym).text] : [];
    const top = [...leading, ...join(numerator)];
    const leadingBottom = denominator.length > 1 && couldExtractMinus(denominator[0] as Sym) ? [printSym(denominator.shift() as Sym).text] : [];
    const bottom = [...leadingBottom, ...join(denominator)];
    const text = (top.length > 0 ? top : ['1']).join('*');
    return { text: bottom.length > 1 ? `${text}/(${bottom.join('*')})` : bottom.length === 1 ? `${text}/${bottom[0]}` : text, precedence };
  }
  const [coeff, factors] = coeffMul(mul);
  const negative = isNegativeNumber(coeff);
  const expr = negative ? keepCoeff(negateNumber(coeff), product(factors)) : mul;
  const numerator: Sym[] = [];
  const denominator: Sym[] = [];
  const doubled: string[] = [];
  for (const item of expr.kind === 'mul' ? orderedFactors(expr) : [expr]) {
    if (item.kind === 'pow' && negativeExponent(item)) {
      if (!isMinusOne(item.exp)) denominator.push({ kind: 'pow', base: item.base, exp: negatedExponent(item.exp) });
      else {
        // sympy parenthesizes a product or power in a denominator once more (sympy issue 14160).
        if (item.base.kind === 'mul' || item.base.kind === 'pow') doubled.push(symId(item.base));
        denominator.push(item.base);
      }
    } else if (item.kind === 'rational') {
      if (item.p !== 1n) numerator.push({ kind: 'integer', value: item.p });
      denominator.push({ kind: 'integer', value: item.q });
    } else numerator.push(item);
  }
  const top = join(numerator.length > 0 ? numerator : [ONE]);
  const bottom = join(denominator);
  for (const id of doubled) {
    const index = denominator.findIndex((item) => symId(item) === id);
    if (index >= 0) bottom[index] = `(${bottom[index]})`;
  }
  const sign = negative ? '-' : '';
  const text = bottom.length === 0 ? top.join('*') : bottom.length === 1 ? `${top.join('*')}/${bottom[0]}` : `${top.join('*')}/(${bottom.join('*')})`;
  return { text: sign + text, precedence };
}

const text = (json: Json): string => printSym(toSym(json)).text;

/** A matrix inside a set or tuple: sympy's printer puts each row of several on its own line, columns right-aligned. */
function nestedMatrix(json: Json): string {
  const rows = ((json as Json[]).slice(1) as Json[][]).map((row) => row.slice(1).map(text));
  if (rows.length < 2) return `Matrix([${rows.map((row) => `[${row.join(', ')}]`).join(', ')}])`;
  const widths = (rows[0] ?? []).map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  return `Matrix([\n${rows.map((row) => `[${row.map((cell, column) => cell.padStart(widths[column] ?? 0)).join(', ')}]`).join(',\n')}])`;
}

/** Everything latex2sympy does not build from arithmetic: sets, tuples, intervals, relations, logs. */
function printOther(json: Json, top = false): Printed {
  if (typeof json === 'string') return atom(SYMBOLS[json] ?? json);
  if (!Array.isArray(json)) return atom(JSON.stringify(json));
  const [head, ...args] = json as [string, ...Json[]];
  const list = (items: Json[]) => items.map(text).join(', ');
  switch (head) {
    case 'Delimiter': {
      const inner = args[0];
      return inner === undefined ? atom('()') : atom(`(${list((inner as Json[]).slice(1))})`);
    }
    case 'Log':
      return atom(args.length > 1 ? `log(${list(args)})` : `log(${text(args[0] as Json)}, 10)`);
    case 'Tuple':
    case 'Sequence':
    case 'Pair':
    case 'Triple':
      return atom(args.length === 1 ? `(${text(args[0] as Json)},)` : `(${list(args)})`);
    case 'Set': {
      // A set holding a set prints as `FiniteSet(...)`, sympy's way to keep it apart from a set literal.
      const items = list(inSetOrder(args, (arg) => arg));
      return atom(JSON.stringify(args).includes('"Set"') ? `FiniteSet(${items})` : `{${items}}`);
    }
    case 'And':
      return { text: args.map((arg) => parenthesize(printSym(toSym(arg)), PRECEDENCE.bitwiseAnd)).join(' & '), precedence: PRECEDENCE.bitwiseAnd };
    case 'List':
      return atom(`[${list(args)}]`);
    case 'Matrix':
      return atom(top ? `Matrix(${text(args[0] as Json)})` : nestedMatrix(args[0] as Json));
    case 'Interval': {
      const open = (bound: Json) => Array.isArray(bound) && bound[0] === 'Open';
      const value = (bound: Json) => (open(bound) ? ((bound as Json[])[1] as Json) : bound);
      const [low, high] = args as [Json, Json];
      // sympy makes an infinite end open and then names the interval by its finite ends only.
      const infinite = (bound: Json) => ['PositiveInfinity', 'NegativeInfinity', 'ComplexInfinity'].includes(value(bound) as string) || (Array.isArray(value(bound)) && (value(bound) as Json[])[0] === 'Negate' && (value(bound) as Json[])[1] === 'PositiveInfinity');
      const [left, right] = [open(low) || infinite(low), open(high) || infinite(high)];
      const kind = (infinite(low) && infinite(high)) || (infinite(low) && !right) || (infinite(high) && !left) || (!left && !right) ? '' : left && right ? '.open' : left ? '.Lopen' : '.Ropen';
      return atom(`Interval${kind}(${text(value(low))}, ${text(value(high))})`);
    }
    case 'Union':
      return atom(`Union(${list(sortedBy(args, (arg) => sortKey(toSym(arg))))})`);
    case 'Equal':
      return atom(`Eq(${list(args)})`);
    case 'Text':
    case 'String':
      return atom(args.map(text).join(''));
    default:
      if (RELATIONS[head] !== undefined) {
        return { text: args.map((arg) => parenthesize(printSym(toSym(arg)), PRECEDENCE.relation)).join(` ${RELATIONS[head]} `), precedence: PRECEDENCE.relation };
      }
      return atom(`${head}(${list(args)})`);
  }
}

/** A `FiniteSet`'s elements as sympy prints them: duplicates dropped, in `sort_key` order (as written where a key is missing). */
export function inSetOrder<T>(elements: T[], json: (element: T) => unknown): T[] {
  const seen = new Set<string>();
  const unique = elements.map((element) => ({ element, sym: toSym(json(element) as Json) })).filter(({ sym }) => !seen.has(symId(sym)) && seen.add(symId(sym)));
  return sortedBy(unique, ({ sym }) => sortKey(sym)).map(({ element }) => element);
}

/** The sympy `str()` form of a MathJSON expression. */
export function sympyString(json: unknown): string {
  return printSym(toSym(json as Json), true).text;
}
