/**
 * Byte-compatible renderings of Python values. Tool outputs are fed back to the model verbatim, so to
 * replay upstream trajectories byte for byte we must print JSON the way Python's `json.dumps` does
 * (`", "` / `": "` separators, Python float repr) and exceptions the way `repr(e)` does.
 */

/** Marks a number that Python holds as a float, so `9` prints as `9.0`. */
export class PythonFloat {
  constructor(readonly value: number) {}
  toJSON(): number {
    return this.value;
  }
}

export function pyFloat(value: number): PythonFloat {
  return new PythonFloat(value);
}

/** Python's `repr(float)`: shortest round-trip digits, scientific outside 1e-4 <= |x| < 1e16. */
export function pythonFloatRepr(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return 'Infinity';
  if (value === -Infinity) return '-Infinity';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const [mantissa = '', exponentText = '0'] = value.toExponential().split('e');
  const exponent = Number(exponentText);
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '');
  const sign = negative ? '-' : '';
  if (exponent < -4 || exponent >= 16) {
    const fraction = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const exponentSign = exponent < 0 ? '-' : '+';
    return `${sign}${fraction}e${exponentSign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  const integerPart = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0');
  const fractionPart = digits.slice(exponent + 1);
  return `${sign}${integerPart}.${fractionPart.length > 0 ? fractionPart : '0'}`;
}

function pythonNumberRepr(value: number): string {
  if (Number.isInteger(value)) {
    // Python ints never switch to exponent notation.
    return Math.abs(value) >= 1e21 ? BigInt(value).toString() : String(value);
  }
  return pythonFloatRepr(value);
}

function escapeString(text: string, ensureAscii: boolean): string {
  let out = '"';
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    const char = text[index] as string;
    if (char === '"') out += '\\"';
    else if (char === '\\') out += '\\\\';
    else if (char === '\n') out += '\\n';
    else if (char === '\r') out += '\\r';
    else if (char === '\t') out += '\\t';
    else if (char === '\b') out += '\\b';
    else if (char === '\f') out += '\\f';
    else if (code < 0x20 || (ensureAscii && code > 0x7e)) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += char;
  }
  return `${out}"`;
}

export interface PythonJsonOptions {
  /** Python's default is true (`\uXXXX` escapes); FastAPI responses use false. */
  ensureAscii?: boolean;
}

/** `json.dumps(value)` with Python's default separators. */
export function pythonJsonDumps(value: unknown, options: PythonJsonOptions = {}): string {
  const ensureAscii = options.ensureAscii ?? true;
  const render = (item: unknown): string => {
    if (item === null || item === undefined) return 'null';
    if (item instanceof PythonFloat) return pythonFloatRepr(item.value);
    switch (typeof item) {
      case 'boolean':
        return item ? 'true' : 'false';
      case 'number':
        return pythonNumberRepr(item);
      case 'bigint':
        return item.toString();
      case 'string':
        return escapeString(item, ensureAscii);
      case 'object': {
        if (Array.isArray(item)) return `[${item.map(render).join(', ')}]`;
        const parts: string[] = [];
        for (const [key, entry] of Object.entries(item)) {
          if (entry === undefined) continue;
          parts.push(`${escapeString(key, ensureAscii)}: ${render(entry)}`);
        }
        return `{${parts.join(', ')}}`;
      }
      default:
        throw new TypeError(`Object of type ${typeof item} is not JSON serializable`);
    }
  };
  return render(value);
}

/** `json.dump(value, f, indent=indent)` as metrics files are written: one item per line, `": "` after keys, ASCII only, no trailing newline. */
export function pythonJsonDumpIndented(value: unknown, indent = 4): string {
  const render = (item: unknown, depth: number): string => {
    const isArray = Array.isArray(item);
    if (item === null || typeof item !== 'object' || item instanceof PythonFloat) return pythonJsonDumps(item);
    const entries = isArray
      ? (item as unknown[]).map((entry) => render(entry, depth + 1))
      : Object.entries(item as Record<string, unknown>)
          .filter(([, entry]) => entry !== undefined)
          .map(([key, entry]) => `${pythonJsonDumps(key)}: ${render(entry, depth + 1)}`);
    const [open, close] = isArray ? ['[', ']'] : ['{', '}'];
    if (entries.length === 0) return `${open}${close}`;
    const inner = ' '.repeat(indent * (depth + 1));
    return `${open}\n${inner}${entries.join(`,\n${inner}`)}\n${' '.repeat(indent * depth)}${close}`;
  };
  return render(value, 0);
}

// What Python's str.isprintable() rejects beyond ASCII (repr escapes it): controls, format characters,
// surrogates, private use, unassigned, and every separator but the ASCII space.
const NOT_PRINTABLE = /^[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]$/u;

/** Python's `repr(str)`: single quotes unless the text holds a single quote and no double quote. */
export function pythonStringRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    if (char === quote || char === '\\') out += `\\${char}`;
    else if (char === '\n') out += '\\n';
    else if (char === '\r') out += '\\r';
    else if (char === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (code > 0x7f && NOT_PRINTABLE.test(char)) out += code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : code <= 0xffff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\U${code.toString(16).padStart(8, '0')}`;
    else out += char;
  }
  return out + quote;
}

/** What FastAPI's exception middleware puts in a 500 body: `repr(e)`, e.g. `ValueError('bad')`. */
export function pythonExceptionRepr(error: unknown): string {
  if (error instanceof Error) return `${error.name}(${pythonStringRepr(error.message)})`;
  return `Error(${pythonStringRepr(String(error))})`;
}
