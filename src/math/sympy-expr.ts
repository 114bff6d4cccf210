/**
 * A small model of the sympy expression upstream prints as `extracted_answer`: the tree latex2sympy2
 * builds from an answer (unevaluated: `a - b` is `Add(a, Mul(-1, b))`, `\frac{a}{b}` is
 * `Mul(a, Pow(b, -1))`, products and sums flattened) and the canonical orders sympy's printer sorts
 * terms and factors by (`Expr.as_ordered_terms`, `Mul.as_ordered_factors`, `sort_key`). Where the
 * model cannot compute a key it keeps the written order rather than guess.
 */
export type Sym =
  | { kind: 'integer'; value: bigint }
  | { kind: 'rational'; p: bigint; q: bigint }
  | { kind: 'float'; value: number }
  | { kind: 'symbol'; name: string }
  | { kind: 'constant'; name: 'pi' | 'E' | 'I' | 'zoo' }
  | { kind: 'add'; args: Sym[] }
  | { kind: 'mul'; args: Sym[] }
  | { kind: 'pow'; base: Sym; exp: Sym }
  | { kind: 'function'; name: string; args: Sym[] }
  /** Anything else (sets, relations, intervals...): printed from its MathJSON, opaque to ordering. */
  | { kind: 'other'; json: unknown };

export type Json = number | string | { num: string } | Json[] | { [key: string]: unknown };
type Complex = { re: number; im: number };
const complexTimes = (a: Complex, b: Complex): Complex => ({ re: a.re * b.re - a.im * b.im, im: a.re * b.im + a.im * b.re });
/** A sort key compared like a Python tuple. */
type Key = number | string | Key[];

const integer = (value: bigint | number): Sym => ({ kind: 'integer', value: BigInt(value) });
export const ONE = integer(1);
const MINUS_ONE = integer(-1);
const HALF: Sym = { kind: 'rational', p: 1n, q: 2n };

/** sympy's `Float` text: 15 significant digits, fixed notation for exponents in (-5, 15). */
export function sympyFloat(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'oo' : '-oo';
  if (value === 0) return '0.0';
  const [mantissa, exponentText] = Math.abs(value).toExponential(14).split('e') as [string, string];
  const digits = mantissa.replace('.', '');
  const exponent = Number(exponentText);
  const sign = value < 0 ? '-' : '';
  if (exponent > -5 && exponent < 15) {
    if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
    const integerPart = digits.slice(0, exponent + 1);
    return `${sign}${integerPart}.${digits.slice(exponent + 1)}`;
  }
  return `${sign}${digits[0]}.${digits.slice(1)}e${exponent > 0 ? '+' : ''}${exponent}`;
}

function gcd(left: bigint, right: bigint): bigint {
  let a = left < 0n ? -left : left;
  let b = right < 0n ? -right : right;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/** `Rational(p, q)`: reduced, sign on the numerator, an Integer when q divides p; `zoo` for q = 0. */
function rational(p: bigint, q: bigint): Sym {
  if (q === 0n) return { kind: 'constant', name: 'zoo' };
  const divisor = gcd(p, q) || 1n;
  let top = p / divisor;
  let bottom = q / divisor;
  if (bottom < 0n) [top, bottom] = [-top, -bottom];
  return bottom === 1n ? integer(top) : { kind: 'rational', p: top, q: bottom };
}

export const isNumber = (sym: Sym): boolean => sym.kind === 'integer' || sym.kind === 'rational' || sym.kind === 'float';
const isNumberSymbol = (sym: Sym): boolean => sym.kind === 'constant' && (sym.name === 'pi' || sym.name === 'E');

function numberValue(sym: Sym): number {
  if (sym.kind === 'integer') return Number(sym.value);
  if (sym.kind === 'rational') return Number(sym.p) / Number(sym.q);
  if (sym.kind === 'float') return sym.value;
  return Number.NaN;
}

export const isNegativeNumber = (sym: Sym): boolean => isNumber(sym) && numberValue(sym) < 0;

export function negateNumber(sym: Sym): Sym {
  if (sym.kind === 'integer') return integer(-sym.value);
  if (sym.kind === 'rational') return { kind: 'rational', p: -sym.p, q: sym.q };
  if (sym.kind === 'float') return { kind: 'float', value: -sym.value };
  return sym;
}

export function multiplyNumbers(left: Sym, right: Sym): Sym {
  if (left.kind === 'float' || right.kind === 'float') return { kind: 'float', value: numberValue(left) * numberValue(right) };
  const [p1, q1] = left.kind === 'rational' ? [left.p, left.q] : [(left as { value: bigint }).value, 1n];
  const [p2, q2] = right.kind === 'rational' ? [right.p, right.q] : [(right as { value: bigint }).value, 1n];
  return rational(p1 * p2, q1 * q2);
}

/** `Mul.make_args` / `Add.make_args`. */
export const mulArgs = (sym: Sym): Sym[] => (sym.kind === 'mul' ? sym.args : [sym]);
const addArgs = (sym: Sym): Sym[] => (sym.kind === 'add' ? sym.args : [sym]);
const mulFlat = (left: Sym, right: Sym): Sym => ({ kind: 'mul', args: [...mulArgs(left), ...mulArgs(right)] });
const addFlat = (left: Sym, right: Sym): Sym => ({ kind: 'add', args: [...addArgs(left), ...addArgs(right)] });
/** latex2sympy's unary minus: numbers are negated, anything else becomes `Mul(-1, ...)`. */
const negate = (sym: Sym): Sym => (isNumber(sym) ? negateNumber(sym) : mulFlat(MINUS_ONE, sym));

/** A structural identity for a tree, as sympy's `==` on expressions. */
export function symId(sym: Sym): string {
  switch (sym.kind) {
    case 'integer':
      return `i${sym.value}`;
    case 'rational':
      return `r${sym.p}/${sym.q}`;
    case 'float':
      return `f${sym.value}`;
    case 'symbol':
    case 'constant':
      return `${sym.kind[0]}:${sym.name}`;
    case 'add':
    case 'mul':
      return `${sym.kind}(${sym.args.map(symId).join(',')})`;
    case 'pow':
      return `pow(${symId(sym.base)},${symId(sym.exp)})`;
    case 'function':
      return `${sym.name}(${sym.args.map(symId).join(',')})`;
    case 'other':
      return `o${JSON.stringify(sym.json)}`;
  }
}

const CONSTANTS: Record<string, Sym> = {
  Pi: { kind: 'constant', name: 'pi' },
  e: { kind: 'constant', name: 'E' },
  ExponentialE: { kind: 'constant', name: 'E' },
  ImaginaryUnit: { kind: 'constant', name: 'I' },
  ComplexInfinity: { kind: 'constant', name: 'zoo' },
  PositiveInfinity: { kind: 'float', value: Number.POSITIVE_INFINITY },
  NegativeInfinity: { kind: 'float', value: Number.NEGATIVE_INFINITY },
};

/** MathJSON symbols that are not sympy symbols (printed by the general printer). */
const NOT_SYMBOLS = new Set(['EmptySet', 'Nothing', 'True', 'False']);

/** MathJSON function heads latex2sympy turns into sympy functions, with sympy's names. */
const FUNCTIONS: Record<string, string> = {
  Sin: 'sin',
  Cos: 'cos',
  Tan: 'tan',
  Cot: 'cot',
  Sec: 'sec',
  Csc: 'csc',
  Arcsin: 'asin',
  Arccos: 'acos',
  Arctan: 'atan',
  Sinh: 'sinh',
  Cosh: 'cosh',
  Tanh: 'tanh',
  Ln: 'log',
  Exp: 'exp',
  Abs: 'Abs',
  Factorial: 'factorial',
  Binomial: 'binomial',
  Floor: 'floor',
  Ceil: 'ceiling',
  Max: 'Max',
  Min: 'Min',
  GCD: 'gcd',
  LCM: 'lcm',
};

const isIntegerSym = (sym: Sym): sym is { kind: 'integer'; value: bigint } => sym.kind === 'integer';

/**
 * The sympy tree latex2sympy2 builds for a Compute Engine raw parse. Heads this model does not cover
 * stay `other`.
 */
export function toSym(json: Json): Sym {
  const convert = (item: Json) => toSym(item);
  if (typeof json === 'number') return Number.isInteger(json) ? integer(json) : { kind: 'float', value: json };
  if (typeof json === 'string') {
    if (json.startsWith("'") && json.endsWith("'")) return { kind: 'symbol', name: json.slice(1, -1) };
    return CONSTANTS[json] ?? (NOT_SYMBOLS.has(json) ? { kind: 'other', json } : { kind: 'symbol', name: json });
  }
  if (!Array.isArray(json)) {
    const num = (json as { num?: unknown }).num;
    if (typeof num === 'string') return /^-?\d+$/.test(num) ? integer(BigInt(num)) : { kind: 'float', value: Number(num) };
    return { kind: 'other', json };
  }
  const [head, ...args] = json as [string, ...Json[]];
  switch (head) {
    case 'Delimiter': {
      const inner = args[0];
      if (inner === undefined || (Array.isArray(inner) && inner[0] === 'Sequence')) return { kind: 'other', json };
      return convert(inner);
    }
    case 'Add':
      return args.map(convert).reduce(addFlat);
    case 'Subtract':
      return addFlat(convert(args[0] as Json), negate(convert(args[1] as Json)));
    case 'Negate':
      return negate(convert(args[0] as Json));
    case 'Multiply':
      return args.map(convert).reduce(mulFlat);
    case 'InvisibleOperator': {
      // A leading minus covers the whole juxtaposition in latex2sympy's grammar: `-3x` is -(3*x).
      const [first, ...rest] = args;
      if (Array.isArray(first) && first[0] === 'Negate' && rest.length > 0) return negate(convert(['InvisibleOperator', first[1] as Json, ...rest]));
      return args.map(convert).reduceRight((right, left) => {
        // A mixed number: `2\frac{1}{2}` is 5/2.
        if (isIntegerSym(left) && right.kind === 'rational' && right.p > 0n) return rational(left.value * right.q + (left.value < 0n ? -right.p : right.p), right.q);
        return mulFlat(left, right);
      });
    }
    case 'Rational':
    case 'Divide': {
      const numerator = convert(args[0] as Json);
      const denominator = convert(args[1] as Json);
      if (isIntegerSym(numerator) && isIntegerSym(denominator)) return rational(numerator.value, denominator.value);
      return { kind: 'mul', args: [numerator, { kind: 'pow', base: denominator, exp: MINUS_ONE }] };
    }
    case 'Power':
      return { kind: 'pow', base: convert(args[0] as Json), exp: convert(args[1] as Json) };
    case 'Sqrt':
      return { kind: 'pow', base: convert(args[0] as Json), exp: HALF };
    case 'Root': {
      const index = convert(args[1] as Json);
      return { kind: 'pow', base: convert(args[0] as Json), exp: isIntegerSym(index) ? rational(1n, index.value) : { kind: 'pow', base: index, exp: MINUS_ONE } };
    }
    default:
      if (FUNCTIONS[head] !== undefined && args.length > 0) return { kind: 'function', name: FUNCTIONS[head], args: args.map(convert) };
      return { kind: 'other', json };
  }
}

// ---- numeric values (sympy's complex(expr) for terms without free symbols) ----

const hasFreeSymbols = (sym: Sym): boolean => {
  switch (sym.kind) {
    case 'symbol':
    case 'other':
      return true;
    case 'add':
    case 'mul':
    case 'function':
      return sym.args.some(hasFreeSymbols);
    case 'pow':
      return hasFreeSymbols(sym.base) || hasFreeSymbols(sym.exp);
    default:
      return false;
  }
};

const REAL_FUNCTIONS: Record<string, (x: number) => number> = {
  sin: Math.sin,
  cos: Math.cos,
  tan: Math.tan,
  asin: Math.asin,
  acos: Math.acos,
  atan: Math.atan,
  sinh: Math.sinh,
  cosh: Math.cosh,
  tanh: Math.tanh,
  exp: Math.exp,
  Abs: Math.abs,
  floor: Math.floor,
  ceiling: Math.ceil,
  log: (x) => (x > 0 ? Math.log(x) : Number.NaN),
};

/** The complex value of a tree without free symbols, or null where this model cannot compute it. */
function complexValue(sym: Sym): Complex | null {
  switch (sym.kind) {
    case 'integer':
    case 'rational':
    case 'float':
      return { re: numberValue(sym), im: 0 };
    case 'constant':
      return sym.name === 'pi' ? { re: Math.PI, im: 0 } : sym.name === 'E' ? { re: Math.E, im: 0 } : sym.name === 'I' ? { re: 0, im: 1 } : null;
    case 'add':
    case 'mul': {
      let total: Complex = sym.kind === 'add' ? { re: 0, im: 0 } : { re: 1, im: 0 };
      for (const arg of sym.args) {
        const value = complexValue(arg);
        if (value === null) return null;
        total = sym.kind === 'add' ? { re: total.re + value.re, im: total.im + value.im } : complexTimes(total, value);
      }
      return total;
    }
    case 'pow': {
      const base = complexValue(sym.base);
      const exp = complexValue(sym.exp);
      if (base === null || exp === null || base.im !== 0 || exp.im !== 0) return null;
      if (base.re < 0 && !Number.isInteger(exp.re)) return null;
      return { re: base.re ** exp.re, im: 0 };
    }
    case 'function': {
      const apply = REAL_FUNCTIONS[sym.name];
      const value = sym.args.length === 1 ? complexValue(sym.args[0] as Sym) : null;
      if (apply === undefined || value === null || value.im !== 0) return null;
      const result = apply(value.re);
      return Number.isNaN(result) ? null : { re: result, im: 0 };
    }
    default:
      return null;
  }
}

// ---- sympy's sort keys ----

const NUMBER_CLASS: Key = [1, 0, 'Number'];
const numberKey = (sym: Sym): Key => [NUMBER_CLASS, [0, []], [], numberValue(sym)];
const ONE_KEY = numberKey(ONE);
/** `FunctionClass.class_key`: a few functions have a fixed rank, the rest sort by name after them. */
const FUNCTION_RANK: Record<string, number> = { exp: 10, log: 11, sin: 20, cos: 21, tan: 22, cot: 23, sinh: 30, cosh: 31, tanh: 32, coth: 33 };
const CONSTANT_CLASS: Record<string, string> = { pi: 'Pi', E: 'Exp1', I: 'ImaginaryUnit', zoo: 'ComplexInfinity' };

function classKey(sym: Sym): Key | null {
  switch (sym.kind) {
    case 'integer':
    case 'rational':
    case 'float':
      return NUMBER_CLASS;
    case 'symbol':
      return [2, 0, 'Symbol'];
    case 'constant':
      return [2, 0, CONSTANT_CLASS[sym.name] as string];
    case 'mul':
      return [3, 0, 'Mul'];
    case 'add':
      return [3, 1, 'Add'];
    case 'pow':
      return [3, 2, 'Pow'];
    case 'function':
      return sym.name === 'Max' || sym.name === 'Min' ? [5, 0, sym.name] : [4, FUNCTION_RANK[sym.name] ?? 10000, sym.name];
    default:
      return null;
  }
}

/** sympy's text of an atom, as `str()` prints it inside a sort key. */
export function atomText(sym: Sym): string | null {
  switch (sym.kind) {
    case 'integer':
      return String(sym.value);
    case 'rational':
      return `${sym.p}/${sym.q}`;
    case 'float':
      return sympyFloat(sym.value);
    case 'symbol':
    case 'constant':
      return sym.name;
    default:
      return null;
  }
}

/** `Expr.as_coeff_Mul()`: the leading number and the factors after it. */
export function coeffMul(sym: Sym): [Sym, Sym[]] {
  if (isNumber(sym)) return [sym, []];
  if (sym.kind === 'mul' && isNumber(sym.args[0] as Sym)) {
    const rest = sym.args.slice(1);
    return [sym.args[0] as Sym, rest.length === 1 ? mulArgs(rest[0] as Sym) : rest];
  }
  return [ONE, mulArgs(sym)];
}

/** The single expression a list of factors stands for. */
export const product = (factors: Sym[]): Sym => (factors.length === 0 ? ONE : factors.length === 1 ? (factors[0] as Sym) : { kind: 'mul', args: factors });

const sortKeys = new WeakMap<Sym, Key | null>();

/** `Basic.sort_key()`, or null where the tree holds something this model has no key for. Memoized: keys nest. */
export function sortKey(sym: Sym): Key | null {
  let key = sortKeys.get(sym);
  if (key === undefined) {
    key = computeSortKey(sym);
    sortKeys.set(sym, key);
  }
  return key;
}

function computeSortKey(sym: Sym): Key | null {
  if (isNumber(sym)) return numberKey(sym);
  if (sym.kind === 'symbol' || sym.kind === 'constant') return [classKey(sym) as Key, [1, [sym.name]], ONE_KEY, 1];
  if (sym.kind === 'other') return otherKey(sym.json as Json);
  const [coeff, factors] = coeffMul(sym);
  let expr = coeff === ONE ? sym : product(factors);
  let exp: Sym = ONE;
  if (expr.kind === 'pow') {
    // `E**x` sorts as the function `exp(x)`.
    const eulerPower = expr.base.kind === 'constant' && expr.base.name === 'E';
    [expr, exp] = eulerPower ? [{ kind: 'function', name: 'exp', args: [expr.exp] }, ONE] : [expr.base, expr.exp];
  }
  const exprClass = classKey(expr);
  const expKey = sortKey(exp);
  if (exprClass === null || expKey === null) return null;
  let args: Key[];
  const text = atomText(expr);
  if (text !== null) args = [text];
  else {
    const parts = expr.kind === 'add' ? orderedTerms(expr) : expr.kind === 'mul' ? orderedFactors(expr) : expr.kind === 'pow' ? [expr.base, expr.exp] : expr.kind === 'function' ? expr.args : [];
    const keys = parts.map(sortKey);
    if (keys.some((key) => key === null)) return null;
    args = keys as Key[];
  }
  return [exprClass, [args.length, args], expKey, numberValue(coeff)];
}

/** sympy's class names of the containers and relations latex2sympy2 builds (`Basic.class_key` is `(5, 0, name)`). */
const OTHER_CLASS: Record<string, string> = {
  Interval: 'Interval',
  Equal: 'Equality',
  NotEqual: 'Unequality',
  Less: 'StrictLessThan',
  LessEqual: 'LessThan',
  Greater: 'StrictGreaterThan',
  GreaterEqual: 'GreaterThan',
  Set: 'FiniteSet',
  Tuple: 'Tuple',
  Delimiter: 'Tuple',
  Union: 'Union',
  Matrix: 'ImmutableDenseMatrix',
};

const basicKey = (name: string, args: Key[]): Key => [[5, 0, name], [args.length, args], ONE_KEY, 1];
const booleanKey = (value: boolean): Key => basicKey(value ? 'BooleanTrue' : 'BooleanFalse', []);

/** `default_sort_key` of a set, tuple, interval, matrix or relation (null where this model has none). */
function otherKey(json: Json): Key | null {
  if (json === 'EmptySet') return basicKey('EmptySet', []);
  if (!Array.isArray(json)) return null;
  const [head, ...rest] = json as [string, ...Json[]];
  const name = OTHER_CLASS[head];
  if (name === undefined) return null;
  const keysOf = (items: Json[]): Key[] | null => {
    const keys = items.map((item) => sortKey(toSym(item)));
    return keys.some((key) => key === null) ? null : (keys as Key[]);
  };
  let args: Key[] | null;
  if (head === 'Interval') {
    const open = (bound: Json) => Array.isArray(bound) && bound[0] === 'Open';
    const ends = keysOf(rest.map((bound) => (open(bound) ? ((bound as Json[])[1] as Json) : bound)));
    args = ends === null ? null : [...ends, ...rest.map((bound) => booleanKey(open(bound)))];
  } else if (head === 'Matrix') {
    const rows = ((rest[0] as Json[]) ?? []).slice(1) as Json[][];
    const cells = keysOf(rows.flatMap((row) => row.slice(1)));
    args = cells === null ? null : [numberKey(integer(rows.length)), numberKey(integer((rows[0]?.length ?? 1) - 1)), basicKey('Tuple', cells)];
  } else if (head === 'Delimiter') {
    args = Array.isArray(rest[0]) ? keysOf((rest[0] as Json[]).slice(1)) : null;
  } else {
    args = keysOf(rest);
    // A set's and a union's arguments are kept sorted.
    if (args !== null && (head === 'Set' || head === 'Union')) args = [...args].sort(compareKeys);
  }
  return args === null ? null : basicKey(name, args);
}

/** Python's tuple comparison. */
function compareKeys(left: Key, right: Key): number {
  if (Array.isArray(left) && Array.isArray(right)) {
    for (let index = 0; index < Math.min(left.length, right.length); index += 1) {
      const order = compareKeys(left[index] as Key, right[index] as Key);
      if (order !== 0) return order;
    }
    return left.length - right.length;
  }
  if (typeof left === 'number' && typeof right === 'number') return left < right ? -1 : left > right ? 1 : 0;
  if (typeof left === 'string' && typeof right === 'string') return left < right ? -1 : left > right ? 1 : 0;
  return 0;
}

/** Sorts by key, stably; the written order when any key is missing. */
export function sortedBy<T>(items: T[], key: (item: T) => Key | null): T[] {
  const keys = items.map(key);
  if (keys.some((k) => k === null)) return items;
  return items
    .map((item, index) => ({ item, key: keys[index] as Key }))
    .sort((a, b) => compareKeys(a.key, b.key))
    .map(({ item }) => item);
}

/** `Mul.as_ordered_factors()`: a leading negative number other than -1 is split into -1 and its magnitude. */
export function orderedFactors(sym: Sym): Sym[] {
  const factors = [...mulArgs(sym)];
  const first = factors[0];
  if (first !== undefined && isNegativeNumber(first) && !(first.kind === 'integer' && first.value === -1n)) factors.splice(0, 1, MINUS_ONE, negateNumber(first));
  return sortedBy(factors, sortKey);
}

/** `decompose_power`: a generator and an integer exponent, or null where this model does not follow. */
function decomposePower(factor: Sym): [Sym, number] | null {
  if (factor.kind !== 'pow') return [factor, 1];
  const { base, exp } = factor;
  if (exp.kind === 'integer') return [base, Number(exp.value)];
  if (exp.kind === 'rational') return [{ kind: 'pow', base, exp: rational(1n, exp.q) }, Number(exp.p)];
  if (exp.kind === 'float') return [factor, 1];
  const [coeff, tail] = coeffMul(exp);
  if (coeff.kind === 'integer' && coeff.value === 1n) return [factor, 1];
  if (coeff.kind === 'integer' && coeff.value === -1n) return [{ kind: 'pow', base, exp: product(tail) }, -1];
  return null;
}

const isNumeric = (sym: Sym): boolean => isNumber(sym) || isNumberSymbol(sym);
const numbersFirstKey = (sym: Sym): Key => (isNumeric(sym) ? 0 : 1);
const isPositive = (sym: Sym): boolean => (isNumber(sym) ? numberValue(sym) > 0 : isNumberSymbol(sym));

/** `Expr.as_ordered_terms()` for a sum, the order sympy prints its terms in. */
export function orderedTerms(sum: Sym): Sym[] {
  const terms = addArgs(sum);
  // sympy keeps `number - c*expr` as written when the number is positive and c negative.
  const numbersFirst = sortedBy(terms, numbersFirstKey);
  const [first, second] = numbersFirst;
  if (numbersFirst.length === 2 && first !== undefined && second?.kind === 'mul' && isNumeric(first)) {
    const factors = sortedBy(mulArgs(second), numbersFirstKey);
    if (factors.length === 2 && isNumber(factors[0] as Sym) && isPositive(first) && isNegativeNumber(factors[0] as Sym)) return numbersFirst;
  }
  const gens = new Map<string, Sym>();
  const described: { coeff: Complex; powers: Map<string, number> }[] = [];
  for (const term of terms) {
    const [leading, factors] = coeffMul(term);
    let coeff = complexValue(leading) as Complex;
    const powers = new Map<string, number>();
    for (const factor of factors) {
      if (!hasFreeSymbols(factor)) {
        const value = complexValue(factor);
        if (value === null) return terms;
        coeff = complexTimes(coeff, value);
        continue;
      }
      const decomposed = decomposePower(factor);
      if (decomposed === null) return terms;
      const id = symId(decomposed[0]);
      gens.set(id, decomposed[0]);
      powers.set(id, decomposed[1]);
    }
    described.push({ coeff, powers });
  }
  if (gens.size > 1 && [...gens.values()].some((gen) => sortKey(gen) === null)) return terms;
  const genIds = sortedBy([...gens.keys()], (id) => sortKey(gens.get(id) as Sym));
  const keyOf = (index: number): Key => {
    const { coeff, powers } = described[index] as (typeof described)[number];
    const monomial = genIds.map((id) => -(powers.get(id) ?? 0) || 0);
    return [monomial, [], [[coeff.im !== 0 ? 1 : 0, coeff.im], [coeff.re, coeff.im]]];
  };
  return sortedBy(
    terms.map((term, index) => ({ term, index })),
    ({ index }) => keyOf(index),
  ).map(({ term }) => term);
}
