/**
 * Python's `json.loads`, the one parser for every caller: standard JSON plus the `NaN`, `Infinity` and
 * `-Infinity` literals Python accepts by default; a repeated key keeps its first place and its last value,
 * and a "__proto__" key stays data. Callers differ only in how numbers come back and how failures read,
 * which the options choose.
 */
import { PythonFloat } from './python-json.ts';
import { PythonError, type PythonValue } from './python-values.ts';

export interface PythonJsonLoadsOptions {
  /**
   * Keep floats apart from ints, as Python does: a number written with a fraction or exponent, and the
   * NaN/Infinity literals, become `PythonFloat` (so `60.0` prints back as `60.0`). Default: JS numbers.
   */
  floats?: boolean;
  /** Integers beyond 2^53 become exact BigInts, as Python's ints are. Default: the nearest JS number. */
  bigInts?: boolean;
  /**
   * 'syntax' (default): a SyntaxError `<problem> at position <n>`, or JSON.parse's own where it already
   * rejects the text. 'python': Python's exceptions and messages, a `PythonError` JSONDecodeError
   * `<problem>: line <l> column <c> (char <n>)`, and RecursionError past 1000 levels of nesting.
   */
  errors?: 'syntax' | 'python';
}

export function pythonJsonLoads(text: string, options: PythonJsonLoadsOptions = {}): unknown {
  if (!options.floats && !options.bigInts && options.errors !== 'python') {
    try {
      return JSON.parse(text);
    } catch (error) {
      // JSON.parse differs from Python only on the non-standard literals; without them the text is invalid for Python too.
      if (!/NaN|Infinity/.test(text)) throw error;
    }
  }
  return new Scanner(text, options).document();
}

/**
 * `json.loads(text)` keeping floats distinct, failing with Python's JSONDecodeError: what environments
 * whose upstream tools are Python functions need, so values print back (`pythonJsonDumps`), stringify and
 * compare as in Python.
 */
export function pythonJsonLoadsWithFloats(text: string): PythonValue {
  return pythonJsonLoads(text, { floats: true, errors: 'python' }) as PythonValue;
}

const MAX_DEPTH = 1000;
const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/y;
// A whole valid string literal, unrolled so that long strings do not backtrack; `stringProblem` says why another is not.
const STRING = /"[^"\\\u0000-\u001f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\u0000-\u001f]*)*"/y;

const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;

class Scanner {
  private position = 0;
  private readonly maxDepth: number;

  constructor(
    private readonly text: string,
    private readonly options: PythonJsonLoadsOptions,
  ) {
    this.maxDepth = options.errors === 'python' ? MAX_DEPTH : Number.POSITIVE_INFINITY;
  }

  document(): unknown {
    const value = this.value(0);
    this.skipSpace();
    if (this.position !== this.text.length) this.fail('Extra data');
    return value;
  }

  /** Fails with one of Python's messages (some end in "at", as Python words them before the position). */
  private fail(message: string, at = this.position): never {
    if (this.options.errors !== 'python') throw new SyntaxError(`${message}${message.endsWith(' at') ? '' : ' at'} position ${at}`);
    const before = this.text.slice(0, at);
    const line = before.split('\n').length;
    const column = at - before.lastIndexOf('\n');
    throw new PythonError('JSONDecodeError', `${message}: line ${line} column ${column} (char ${at})`);
  }

  private skipSpace(): void {
    for (;;) {
      const code = this.text.charCodeAt(this.position);
      if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) return;
      this.position++;
    }
  }

  private value(depth: number): unknown {
    if (depth > this.maxDepth) throw new PythonError('RecursionError', 'maximum recursion depth exceeded while decoding a JSON document');
    this.skipSpace();
    switch (this.text[this.position]) {
      case '"':
        return this.string();
      case '{':
        return this.object(depth);
      case '[':
        return this.array(depth);
      case 'n':
        return this.literal('null', null);
      case 't':
        return this.literal('true', true);
      case 'f':
        return this.literal('false', false);
      case 'N':
        return this.literal('NaN', this.float(Number.NaN));
      case 'I':
        return this.literal('Infinity', this.float(Number.POSITIVE_INFINITY));
      case '-':
        if (this.text.startsWith('-Infinity', this.position)) return this.literal('-Infinity', this.float(Number.NEGATIVE_INFINITY));
    }
    return this.number();
  }

  private literal(word: string, value: unknown): unknown {
    if (!this.text.startsWith(word, this.position)) this.fail('Expecting value');
    this.position += word.length;
    return value;
  }

  private float(value: number): number | PythonFloat {
    return this.options.floats ? new PythonFloat(value) : value;
  }

  private number(): unknown {
    NUMBER.lastIndex = this.position;
    const match = NUMBER.exec(this.text);
    if (match === null) this.fail('Expecting value');
    this.position += match[0].length;
    const number = Number(match[0]);
    if (match[1] !== undefined || match[2] !== undefined) return this.float(number);
    return this.options.bigInts && !Number.isSafeInteger(number) ? BigInt(match[0]) : number;
  }

  private string(): string {
    STRING.lastIndex = this.position;
    const match = STRING.exec(this.text);
    if (match === null) return this.fail(...stringProblem(this.text, this.position));
    const literal = match[0];
    this.position += literal.length;
    return literal.includes('\\') ? (JSON.parse(literal) as string) : literal.slice(1, -1);
  }

  /** The items of `[...]` or `{...}`, from the opening bracket to the closing one: `item` reads one. */
  private items(close: number, item: () => void): void {
    this.position++;
    this.skipSpace();
    if (this.text.charCodeAt(this.position) === close) {
      this.position++;
      return;
    }
    for (;;) {
      item();
      this.skipSpace();
      const code = this.text.charCodeAt(this.position);
      if (code === close) {
        this.position++;
        return;
      }
      if (code !== COMMA) this.fail("Expecting ',' delimiter");
      this.position++;
    }
  }

  private array(depth: number): unknown[] {
    const result: unknown[] = [];
    this.items(CLOSE_BRACKET, () => result.push(this.value(depth + 1)));
    return result;
  }

  private object(depth: number): Record<string, unknown> {
    const result: Record<string, unknown> = {};
    this.items(CLOSE_BRACE, () => {
      this.skipSpace();
      if (this.text.charCodeAt(this.position) !== QUOTE) this.fail('Expecting property name enclosed in double quotes');
      const key = this.string();
      this.skipSpace();
      if (this.text.charCodeAt(this.position) !== COLON) this.fail("Expecting ':' delimiter");
      this.position++;
      // defineProperty: "__proto__" is data, as in Python; a repeated key keeps its first place and its last value.
      Object.defineProperty(result, key, { value: this.value(depth + 1), enumerable: true, writable: true, configurable: true });
    });
    return result;
  }
}

/** The first thing that makes the string literal at `start` invalid, with the message and position CPython gives. */
function stringProblem(text: string, start: number): [message: string, at: number] {
  for (let index = start + 1; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x20) return ['Invalid control character at', index];
    if (code !== 0x5c) continue;
    const escape = text[index + 1];
    if (escape === undefined) break;
    if (escape === 'u') {
      if (index + 6 >= text.length || !/^[0-9a-fA-F]{4}$/.test(text.slice(index + 2, index + 6))) return ['Invalid \\uXXXX escape', index + 1];
      index += 5;
    } else if ('"\\/bfnrt'.includes(escape)) {
      index++;
    } else {
      return ['Invalid \\escape', index];
    }
  }
  return ['Unterminated string starting at', start];
}
