/**
 * Python value semantics, for environments whose upstream tools are Python functions and whose outputs
 * and rewards depend on Python's rules: the builtins such tools lean on (truthiness, `str()`/`repr()`,
 * `==`, `int()`, ordering comparisons that raise `TypeError`) and the errors Python raises, with Python's
 * messages. Values come from `pythonJsonLoadsWithFloats` (python-json-loads.ts), which keeps floats apart
 * from ints; str methods are in python-str.ts.
 *
 * Ints are JS numbers (exact up to 2^53), floats are `PythonFloat`, `None` is null.
 */
import { PythonFloat, pythonFloatRepr, pythonStringRepr } from './python-json.ts';
import { comparePythonStrings, pythonStrip } from './python-str.ts';

export type PythonValue = null | boolean | number | string | PythonFloat | PythonValue[] | { [key: string]: PythonValue };

/** A Python exception: `type` is its class name, `message` is `str(e)`. */
export class PythonError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
    this.name = type;
  }
}

export function isPythonDict(value: unknown): value is { [key: string]: PythonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof PythonFloat);
}

/** Python's `type(value).__name__`. */
export function pythonTypeName(value: unknown): string {
  if (value === null || value === undefined) return 'NoneType';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return 'int';
  if (typeof value === 'string') return 'str';
  if (value instanceof PythonFloat) return 'float';
  if (Array.isArray(value)) return 'list';
  return 'dict';
}

/** The numeric value of a bool, int or float; undefined for anything else. */
export function pythonNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof PythonFloat) return value.value;
  return undefined;
}

export function pythonTruthy(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  if (typeof value === 'string' || Array.isArray(value)) return value.length > 0;
  const number = pythonNumber(value);
  if (number !== undefined) return number !== 0;
  return Object.keys(value as object).length > 0;
}

function floatRepr(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (value === Infinity) return 'inf';
  if (value === -Infinity) return '-inf';
  return pythonFloatRepr(value);
}

export function pythonRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value).toString() : floatRepr(value);
  if (typeof value === 'string') return pythonStringRepr(value);
  if (value instanceof PythonFloat) return floatRepr(value.value);
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(', ')}]`;
  return `{${Object.entries(value as object)
    .map(([key, entry]) => `${pythonStringRepr(key)}: ${pythonRepr(entry)}`)
    .join(', ')}}`;
}

/** Python's `str(value)`. */
export function pythonStr(value: unknown): string {
  return typeof value === 'string' ? value : pythonRepr(value);
}

/** Python's `a == b` (1 == 1.0 == True; nan != nan; containers compare items, an item is equal to itself). */
export function pythonEquals(a: unknown, b: unknown): boolean {
  const left = pythonNumber(a);
  if (left !== undefined) {
    const right = pythonNumber(b);
    return right !== undefined && left === right;
  }
  if (a === null || a === undefined) return b === null || b === undefined;
  if (typeof a === 'string') return a === b;
  const item = (x: unknown, y: unknown) => x === y || pythonEquals(x, y);
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((entry, index) => item(entry, b[index]));
  if (!isPythonDict(b) || !isPythonDict(a)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && item(a[key], b[key]));
}

export type ComparisonOperator = '<' | '<=' | '>' | '>=';

/** Python's `a <op> b` for numbers and strings; other pairs raise Python's TypeError. */
export function pythonCompare(a: unknown, operator: ComparisonOperator, b: unknown): boolean {
  let order: number | undefined;
  const left = pythonNumber(a);
  const right = pythonNumber(b);
  if (left !== undefined && right !== undefined) {
    if (Number.isNaN(left) || Number.isNaN(right)) return false;
    order = left - right;
  } else if (typeof a === 'string' && typeof b === 'string') {
    order = comparePythonStrings(a, b);
  }
  if (order === undefined) {
    throw new PythonError('TypeError', `'${operator}' not supported between instances of '${pythonTypeName(a)}' and '${pythonTypeName(b)}'`);
  }
  switch (operator) {
    case '<':
      return order < 0;
    case '<=':
      return order <= 0;
    case '>':
      return order > 0;
    default:
      return order >= 0;
  }
}

const DECIMAL_LITERAL = /^[+-]?\d+(?:_\d+)*$/;

/** Python's `int(value)` for str, int, float and bool. */
export function pythonInt(value: unknown): number {
  if (typeof value === 'string') {
    const text = pythonStrip(value);
    if (!DECIMAL_LITERAL.test(text)) throw new PythonError('ValueError', `invalid literal for int() with base 10: ${pythonRepr(value)}`);
    return Number(text.replaceAll('_', ''));
  }
  if (value instanceof PythonFloat) {
    if (Number.isNaN(value.value)) throw new PythonError('ValueError', 'cannot convert float NaN to integer');
    if (!Number.isFinite(value.value)) throw new PythonError('OverflowError', 'cannot convert float infinity to integer');
    return Math.trunc(value.value);
  }
  const number = pythonNumber(value);
  if (number !== undefined) return number;
  throw new PythonError('TypeError', `int() argument must be a string, a bytes-like object or a real number, not '${pythonTypeName(value)}'`);
}

/** Python's `x in container` for a str, list or dict container. */
export function pythonContains(container: unknown, item: unknown): boolean {
  if (typeof container === 'string') {
    if (typeof item !== 'string') throw new PythonError('TypeError', `'in <string>' requires string as left operand, not ${pythonTypeName(item)}`);
    return container.includes(item);
  }
  if (Array.isArray(container)) return container.some((entry) => entry === item || pythonEquals(entry, item));
  if (isPythonDict(container)) {
    if (Array.isArray(item) || isPythonDict(item)) throw new PythonError('TypeError', `unhashable type: '${pythonTypeName(item)}'`);
    return typeof item === 'string' && Object.hasOwn(container, item);
  }
  throw new PythonError('TypeError', `argument of type '${pythonTypeName(container)}' is not iterable`);
}

/** Python's `getattr(value, 'lower')()` on whatever a model sent: a str, or AttributeError. */
export function pythonLower(value: unknown): string {
  if (typeof value !== 'string') throw new PythonError('AttributeError', `'${pythonTypeName(value)}' object has no attribute 'lower'`);
  return value.toLowerCase();
}

const DIGITS = '\\d(?:_?\\d)*';
const FLOAT_TEXT = new RegExp(`^([+-]?)(?:((?:${DIGITS})?\\.?(?:${DIGITS})?(?:[eE][+-]?${DIGITS})?)|(inf|infinity)|(nan))$`, 'i');

const DECIMAL_DIGIT = /\p{Nd}/u;

/** A Unicode decimal digit's value: digits come in runs of whole 0-9 sets, so count from the run's start. */
function digitValue(codePoint: number): number {
  let start = codePoint;
  while (DECIMAL_DIGIT.test(String.fromCodePoint(start - 1))) start--;
  return (codePoint - start) % 10;
}

/** Python's `float(text)`: surrounding whitespace, underscores between digits, any script's decimal digits, inf/nan; undefined if invalid. */
export function parsePythonFloat(text: string): number | undefined {
  const ascii = Array.from(pythonStrip(text), (char) => (char >= '0' && char <= '9') || !DECIMAL_DIGIT.test(char) ? char : String(digitValue(char.codePointAt(0) as number))).join('');
  const match = FLOAT_TEXT.exec(ascii);
  if (match === null) return undefined;
  const [, sign, decimal, infinity, nan] = match;
  if (nan !== undefined) return Number.NaN;
  if (infinity !== undefined) return sign === '-' ? -Infinity : Infinity;
  if (decimal === undefined || !/\d/.test(decimal.split(/[eE]/)[0] as string)) return undefined;
  return Number(`${sign}${decimal.replaceAll('_', '')}`);
}
