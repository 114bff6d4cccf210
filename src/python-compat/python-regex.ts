/**
 * Python `re` patterns run on JavaScript RegExp. Datasets carry Python regexes (mcqa templates, openQA
 * `output_regex`), and the reward depends on what they match, so the translation keeps Python's semantics
 * rather than just its syntax:
 *
 * - named groups `(?P<name>...)`, `(?P=name)`, numeric backreferences, `(?#comments)`;
 * - flags `re.I/M/S/X/A` as arguments or inline at the start (`(?i)`, as Python 3.11+ requires), and scoped
 *   `(?s:...)`, `(?m:...)`, `(?x:...)`, `(?a:...)`, `(?-s:...)`; `(?i:...)` only where it changes nothing;
 * - `.` excludes only `\n`; `^`/`$` follow Python (`$` also matches before a final `\n`); `\A`, `\Z`;
 * - `\d`, `\w`, `\s`, `\b` are Unicode-aware as in Python 3 str patterns (ASCII under `re.A`);
 * - `{` that is not a quantifier, a lone `]`, `{,n}`, escaped punctuation (`\:`), octal and `\U` escapes.
 *
 * Constructs with no faithful translation are rejected naming the construct: possessive quantifiers,
 * atomic groups, conditionals, `\N{...}`, `re.LOCALE`. One known difference remains: after an empty
 * match Python may find a non-empty match at the same position, JavaScript moves on one character.
 */
import { NgymError } from '../errors.ts';
import { PYTHON_WHITESPACE, PYTHON_WORD } from './python-str.ts';

export interface PythonRegexFlags {
  ignoreCase?: boolean;
  multiline?: boolean;
  dotAll?: boolean;
  verbose?: boolean;
  ascii?: boolean;
}

/**
 * `invalid`: Python itself would reject the pattern (`re.error`). `unsupported`: valid Python with no
 * faithful JavaScript translation.
 */
export class PythonRegexError extends NgymError {
  constructor(
    readonly kind: 'invalid' | 'unsupported',
    readonly pattern: string,
    detail: string,
  ) {
    super('NGYM_INVALID_REQUEST', `${kind === 'invalid' ? 'Invalid' : 'Unsupported'} Python regex ${JSON.stringify(pattern)}: ${detail}`, { status: 422 });
  }
}

export interface PythonMatch {
  /** Offsets in UTF-16 code units of the text. */
  start: number;
  end: number;
  /** The whole match. */
  text: string;
  /** Capture groups 1..n; undefined when a group did not take part. */
  groups: (string | undefined)[];
  named: Record<string, string | undefined>;
}

interface Flags {
  i: boolean;
  m: boolean;
  s: boolean;
  x: boolean;
  a: boolean;
}

const FLAG_LETTERS = new Set(['a', 'i', 'L', 'm', 's', 'u', 'x']);
const UNICODE_WORD = PYTHON_WORD;
const ASCII_WORD = 'A-Za-z0-9_';
const UNICODE_SPACE = PYTHON_WHITESPACE;
const ASCII_SPACE = ' \\t\\n\\r\\f\\v';
const JS_SYNTAX = new Set([...'^$\\.*+?()[]{}|/']);
const SIMPLE_ESCAPES: Record<string, string> = { a: '\\x07', f: '\\f', n: '\\n', r: '\\r', t: '\\t', v: '\\v' };

function escapeLiteral(char: string, inClass: boolean): string {
  if (JS_SYNTAX.has(char) || (inClass && char === '-')) return `\\${char}`;
  if (char === '\n') return '\\n';
  if (char === '\r') return '\\r';
  if (char === '\t') return '\\t';
  return char;
}

function codePointEscape(codePoint: number, inClass: boolean): string {
  if (codePoint > 0x10ffff) throw new RangeError('code point out of range');
  const char = String.fromCodePoint(codePoint);
  if (/[\p{L}\p{N}]/u.test(char) || char === '_' || char === ' ') return char;
  if (JS_SYNTAX.has(char) || (inClass && char === '-')) return `\\${char}`;
  return `\\u{${codePoint.toString(16)}}`;
}

/** A class item: a fragment that fits inside `[...]`, or a standalone alternative (negated shorthands). */
type ClassItem = { inside: string } | { alone: string };

class Translator {
  private index = 0;
  private groupCount = 0;
  private readonly groupNames = new Map<string, number>();
  private readonly backReferences: { group: number | string; position: number }[] = [];
  /** Starts of the groups being parsed, innermost last. */
  private readonly openGroups: number[] = [];

  constructor(
    private readonly pattern: string,
    private readonly global: Flags,
  ) {}

  translate(): { source: string; flags: Flags; groupCount: number; groupNames: Map<string, number> } {
    const flags = { ...this.global };
    // Inline global flags (`(?i)`) apply to the whole pattern; Python 3.11+ accepts them only at the start.
    for (let match = /^\(\?([a-zA-Z]+)\)/.exec(this.pattern); match !== null; match = /^\(\?([a-zA-Z]+)\)/.exec(this.pattern.slice(this.index))) {
      for (const letter of match[1] as string) {
        if (!FLAG_LETTERS.has(letter)) throw this.invalid(`unknown flag ${letter} at position ${this.at(this.index)}`);
        if (letter === 'L') throw this.unsupported(`the LOCALE flag (?L) at position ${this.at(this.index)}`);
        if (letter !== 'u') flags[letter as keyof Flags] = true;
      }
      this.index += match[0].length;
    }
    const source = this.sequence(flags, false);
    if (this.index < this.pattern.length) throw this.invalid(`unbalanced parenthesis at position ${this.at(this.index)}`);
    for (const reference of this.backReferences) {
      const known = typeof reference.group === 'number' ? reference.group <= this.groupCount : this.groupNames.has(reference.group);
      if (!known) throw this.invalid(`invalid group reference ${reference.group} at position ${this.at(reference.position)}`);
    }
    return { source, flags, groupCount: this.groupCount, groupNames: this.groupNames };
  }

  /** Python reports positions in code points. */
  private at(index: number): number {
    return Array.from(this.pattern.slice(0, index)).length;
  }

  private invalid(detail: string): PythonRegexError {
    return new PythonRegexError('invalid', this.pattern, detail);
  }

  private unsupported(detail: string): PythonRegexError {
    return new PythonRegexError('unsupported', this.pattern, detail);
  }

  private peek(offset = 0): string | undefined {
    return this.pattern[this.index + offset];
  }

  /** Alternatives up to a closing parenthesis (inside a group) or the end. */
  private sequence(flags: Flags, inGroup: boolean): string {
    let out = '';
    let lastAtomStart = -1;
    while (this.index < this.pattern.length) {
      const char = this.pattern[this.index] as string;
      if (char === ')') {
        if (!inGroup) throw this.invalid(`unbalanced parenthesis at position ${this.at(this.index)}`);
        return out;
      }
      if (flags.x && /\s/.test(char)) {
        this.index++;
        continue;
      }
      if (flags.x && char === '#') {
        while (this.index < this.pattern.length && this.pattern[this.index] !== '\n') this.index++;
        continue;
      }
      if (char === '|') {
        this.index++;
        out += '|';
        lastAtomStart = -1;
        continue;
      }
      if (char === '*' || char === '+' || char === '?' || (char === '{' && this.quantifierBraces() !== undefined)) {
        if (lastAtomStart === -1) throw this.invalid(`nothing to repeat at position ${this.at(this.index)}`);
        // JavaScript cannot quantify a lookaround directly; Python can.
        if (/^\(\?<?[=!]/.test(out.slice(lastAtomStart))) out = `${out.slice(0, lastAtomStart)}(?:${out.slice(lastAtomStart)})`;
        out += this.quantifier(flags);
        lastAtomStart = -1;
        continue;
      }
      const anchor = char === '^' || char === '$' || (char === '\\' && /[AZbB]/.test(this.peek(1) ?? ''));
      lastAtomStart = out.length;
      const atom = this.atom(flags);
      // Anchors, comments and flag groups cannot be repeated in Python either.
      if (atom === '' || anchor) lastAtomStart = -1;
      out += atom;
    }
    if (inGroup) throw this.invalid(`missing ), unterminated subpattern at position ${this.at(this.openGroups.at(-1) ?? 0)}`);
    return out;
  }

  /** `{m}`, `{m,}`, `{,n}`, `{m,n}` at the current position, or undefined when `{` is a literal. */
  private quantifierBraces(): { text: string; length: number } | undefined {
    const match = /^\{(\d*)(,(\d*))?\}/.exec(this.pattern.slice(this.index));
    if (match === null) return undefined;
    const [whole, min = '', comma, max = ''] = match;
    if (comma === undefined && min === '') return undefined;
    if (min !== '' && max !== '' && Number(min) > Number(max)) throw this.invalid(`min repeat greater than max repeat at position ${this.at(this.index)}`);
    return { text: comma === undefined ? `{${min}}` : `{${min === '' ? '0' : min},${max}}`, length: whole.length };
  }

  private quantifier(flags: Flags): string {
    const char = this.pattern[this.index] as string;
    let out: string;
    if (char === '{') {
      const braces = this.quantifierBraces() as { text: string; length: number };
      out = braces.text;
      this.index += braces.length;
    } else {
      out = char;
      this.index++;
    }
    while (flags.x && this.peek() !== undefined && /\s/.test(this.peek() as string)) this.index++;
    if (this.peek() === '?') {
      out += '?';
      this.index++;
    } else if (this.peek() === '+') {
      throw this.unsupported(`possessive quantifier ${out}+ at position ${this.at(this.index - out.length)}`);
    }
    const next = this.peek();
    if (next === '*' || next === '+' || next === '?' || (next === '{' && this.quantifierBraces() !== undefined)) {
      throw this.invalid(`multiple repeat at position ${this.at(this.index)}`);
    }
    return out;
  }

  private atom(flags: Flags): string {
    const char = this.pattern[this.index] as string;
    switch (char) {
      case '(':
        return this.group(flags);
      case '[':
        return this.characterClass(flags);
      case '\\':
        return this.escape(flags);
      case '.':
        this.index++;
        return flags.s ? '[\\s\\S]' : '[^\\n]';
      case '^':
        this.index++;
        return flags.m ? '(?<![^\\n])' : '(?<![\\s\\S])';
      case '$':
        this.index++;
        return flags.m ? '(?![^\\n])' : '(?=\\n?(?![\\s\\S]))';
      default:
        this.index += char.length;
        return escapeLiteral(char, false);
    }
  }

  private group(flags: Flags): string {
    const start = this.index;
    this.index++;
    if (this.peek() !== '?') {
      this.groupCount++;
      return `(${this.groupBody(flags, start)})`;
    }
    this.index++;
    const kind = this.peek();
    if (kind === 'P') {
      const after = this.peek(1);
      if (after === '<') {
        const close = this.pattern.indexOf('>', this.index);
        const name = close === -1 ? '' : this.pattern.slice(this.index + 2, close);
        if (close === -1 || !/^[\p{L}_][\p{L}\p{N}_]*$/u.test(name)) throw this.invalid(`bad character in group name at position ${this.at(start)}`);
        if (this.groupNames.has(name)) throw this.invalid(`redefinition of group name '${name}' at position ${this.at(start)}`);
        this.index = close + 1;
        this.groupCount++;
        this.groupNames.set(name, this.groupCount);
        return `(?<${name}>${this.groupBody(flags, start)})`;
      }
      if (after === '=') {
        const close = this.pattern.indexOf(')', this.index);
        const name = close === -1 ? '' : this.pattern.slice(this.index + 2, close);
        if (close === -1 || name === '') throw this.invalid(`missing group name at position ${this.at(start)}`);
        this.index = close + 1;
        this.backReferences.push({ group: name, position: start });
        return `\\k<${name}>`;
      }
      throw this.invalid(`unknown extension ?P${after ?? ''} at position ${this.at(start)}`);
    }
    if (kind === ':') {
      this.index++;
      return `(?:${this.groupBody(flags, start)})`;
    }
    if (kind === '=' || kind === '!') {
      this.index++;
      return `(?${kind}${this.groupBody(flags, start)})`;
    }
    if (kind === '<' && (this.peek(1) === '=' || this.peek(1) === '!')) {
      const look = this.peek(1) as string;
      this.index += 2;
      return `(?<${look}${this.groupBody(flags, start)})`;
    }
    if (kind === '#') {
      const close = this.pattern.indexOf(')', this.index);
      if (close === -1) throw this.invalid('missing ), unterminated comment');
      this.index = close + 1;
      return '';
    }
    if (kind === '>') throw this.unsupported(`atomic group (?>...) at position ${this.at(start)}`);
    if (kind === '(') throw this.unsupported(`conditional group (?(...)...) at position ${this.at(start)}`);
    if (kind === '<') throw this.invalid(`unknown extension ?<${this.peek(1) ?? ''} at position ${this.at(start)} (Python names groups with (?P<name>...))`);
    return this.flagGroup(flags, start);
  }

  private groupBody(flags: Flags, start: number): string {
    this.openGroups.push(start);
    const body = this.sequence(flags, true);
    this.openGroups.pop();
    this.index++; // the ')'
    return body;
  }

  /** `(?aimsx)` (global) or `(?aimsx-imsx:...)` (scoped). */
  private flagGroup(flags: Flags, start: number): string {
    const match = /^([a-zA-Z]*)(?:-([a-zA-Z]*))?([:)])/.exec(this.pattern.slice(this.index));
    if (match === null) throw this.invalid(`unknown extension ?${this.peek() ?? ''} at position ${this.at(start)}`);
    const [whole, on = '', off, end] = match;
    for (const letter of on + (off ?? '')) {
      if (!FLAG_LETTERS.has(letter)) throw this.invalid(`unknown flag ${letter} at position ${this.at(start)}`);
      if (letter === 'L') throw this.unsupported(`the LOCALE flag (?L) at position ${this.at(start)}`);
    }
    this.index += whole.length;
    if (end === ')') {
      if (off !== undefined) throw this.invalid(`missing : after flags at position ${this.at(start)}`);
      throw this.invalid(`global flags not at the start of the expression at position ${this.at(start)}`);
    }
    const scoped = { ...flags };
    for (const letter of on) if (letter !== 'u') scoped[letter as keyof Flags] = true;
    for (const letter of off ?? '') if (letter !== 'u') scoped[letter as keyof Flags] = false;
    if (scoped.i !== flags.i) throw this.unsupported(`a scoped case-sensitivity change (?${on}${off === undefined ? '' : `-${off}`}:...) at position ${this.at(start)}`);
    return `(?:${this.groupBody(scoped, start)})`;
  }

  private shorthand(letter: string, flags: Flags): ClassItem | undefined {
    const word = flags.a ? ASCII_WORD : UNICODE_WORD;
    const space = flags.a ? ASCII_SPACE : UNICODE_SPACE;
    switch (letter) {
      case 'd':
        return { inside: flags.a ? '0-9' : '\\p{Nd}' };
      case 'D':
        return flags.a ? { alone: '[^0-9]' } : { inside: '\\P{Nd}' };
      case 'w':
        return { inside: word };
      case 'W':
        return { alone: `[^${word}]` };
      case 's':
        return { inside: space };
      case 'S':
        return { alone: `[^${space}]` };
      default:
        return undefined;
    }
  }

  /** `\x..`, `\u....`, `\U........`, octal: the code point, or undefined when not a numeric escape. */
  private numericEscape(letter: string, inClass: boolean): number | undefined {
    const rest = this.pattern.slice(this.index + 1);
    const fixed = { x: 2, u: 4, U: 8 }[letter as 'x' | 'u' | 'U'];
    if (fixed !== undefined) {
      const digits = rest.slice(1, 1 + fixed);
      if (!new RegExp(`^[0-9a-fA-F]{${fixed}}$`).test(digits)) throw this.invalid(`incomplete escape \\${letter}${digits} at position ${this.at(this.index)}`);
      this.index += 2 + fixed;
      const codePoint = Number.parseInt(digits, 16);
      if (codePoint > 0x10ffff) throw this.invalid(`bad escape \\${letter}${digits} at position ${this.at(this.index - 2 - fixed)}`);
      return codePoint;
    }
    const octal = /^[0-7]{1,3}/.exec(rest)?.[0];
    if (octal !== undefined && (letter === '0' || octal.length === 3 || inClass)) {
      this.index += 1 + octal.length;
      const codePoint = Number.parseInt(octal, 8);
      if (codePoint > 0o377) throw this.invalid(`octal escape value \\${octal} outside of range 0-0o377`);
      return codePoint;
    }
    return undefined;
  }

  private escape(flags: Flags): string {
    const start = this.index;
    const letter = this.pattern[this.index + 1];
    if (letter === undefined) throw this.invalid(`bad escape (end of pattern) at position ${this.at(start)}`);
    const short = this.shorthand(letter, flags);
    if (short !== undefined) {
      this.index += 2;
      return 'inside' in short ? `[${short.inside}]` : short.alone;
    }
    const word = `[${flags.a ? ASCII_WORD : UNICODE_WORD}]`;
    switch (letter) {
      case 'A':
        this.index += 2;
        return '(?<![\\s\\S])';
      case 'Z':
        this.index += 2;
        return '(?![\\s\\S])';
      case 'b':
        this.index += 2;
        return `(?:(?<=${word})(?!${word})|(?<!${word})(?=${word}))`;
      case 'B':
        this.index += 2;
        return `(?:(?<=${word})(?=${word})|(?<!${word})(?!${word}))`;
      case 'N':
        throw this.unsupported(`named Unicode escape \\N{...} at position ${this.at(start)}`);
    }
    if (SIMPLE_ESCAPES[letter] !== undefined) {
      this.index += 2;
      return SIMPLE_ESCAPES[letter];
    }
    const numeric = this.numericEscape(letter, false);
    if (numeric !== undefined) return codePointEscape(numeric, false);
    if (/[1-9]/.test(letter)) {
      const digits = /^\d{1,2}/.exec(this.pattern.slice(this.index + 1))?.[0] as string;
      this.index += 1 + digits.length;
      this.backReferences.push({ group: Number(digits), position: start });
      return `(?:\\${Number(digits)})`;
    }
    if (/[A-Za-z0-9]/.test(letter)) throw this.invalid(`bad escape \\${letter} at position ${this.at(start)}`);
    const char = String.fromCodePoint(this.pattern.codePointAt(this.index + 1) as number);
    this.index += 1 + char.length;
    return escapeLiteral(char, false);
  }

  private characterClass(flags: Flags): string {
    const start = this.index;
    this.index++;
    let negated = false;
    if (this.peek() === '^') {
      negated = true;
      this.index++;
    }
    const items: ClassItem[] = [];
    let first = true;
    for (;;) {
      const char = this.peek();
      if (char === undefined) throw this.invalid(`unterminated character set at position ${this.at(start)}`);
      if (char === ']' && !first) {
        this.index++;
        break;
      }
      first = false;
      const low = this.classAtom(flags);
      if (this.peek() === '-' && this.peek(1) !== ']' && this.peek(1) !== undefined) {
        this.index++;
        const high = this.classAtom(flags);
        if (typeof low !== 'number' || typeof high !== 'number') throw this.invalid(`bad character range at position ${this.at(start)}`);
        if (high < low) throw this.invalid(`bad character range at position ${this.at(start)}`);
        items.push({ inside: `${codePointEscape(low, true)}-${codePointEscape(high, true)}` });
      } else {
        items.push(typeof low === 'number' ? { inside: codePointEscape(low, true) } : low);
      }
    }
    const inside = items.flatMap((item) => ('inside' in item ? [item.inside] : [])).join('');
    const alone = items.flatMap((item) => ('alone' in item ? [item.alone] : []));
    if (alone.length === 0) return negated ? `[^${inside}]` : `[${inside}]`;
    const union = [...(inside === '' ? [] : [`[${inside}]`]), ...alone].join('|');
    return negated ? `(?:(?!${union})[\\s\\S])` : `(?:${union})`;
  }

  /** One member of a class: a code point, or a shorthand class item. */
  private classAtom(flags: Flags): number | ClassItem {
    const char = this.peek() as string;
    if (char !== '\\') {
      const codePoint = this.pattern.codePointAt(this.index) as number;
      this.index += String.fromCodePoint(codePoint).length;
      return codePoint;
    }
    const letter = this.peek(1);
    if (letter === undefined) throw this.invalid(`bad escape (end of pattern) at position ${this.at(this.index)}`);
    const short = this.shorthand(letter, flags);
    if (short !== undefined) {
      this.index += 2;
      return short;
    }
    if (letter === 'b') {
      this.index += 2;
      return 8;
    }
    if (letter === 'N') throw this.unsupported(`named Unicode escape \\N{...} at position ${this.at(this.index)}`);
    const simple = { a: 7, f: 12, n: 10, r: 13, t: 9, v: 11 }[letter as 'a'];
    if (simple !== undefined) {
      this.index += 2;
      return simple;
    }
    const numeric = this.numericEscape(letter, true);
    if (numeric !== undefined) return numeric;
    if (/[A-Za-z0-9]/.test(letter)) throw this.invalid(`bad escape \\${letter} at position ${this.at(this.index)}`);
    const codePoint = this.pattern.codePointAt(this.index + 1) as number;
    this.index += 1 + String.fromCodePoint(codePoint).length;
    return codePoint;
  }
}

const CACHE_SIZE = 256;
const cache = new Map<string, PythonRegex | PythonRegexError>();

export class PythonRegex {
  readonly source: string;
  readonly flags: Required<PythonRegexFlags>;
  readonly groupCount: number;
  readonly groupNames: ReadonlyMap<string, number>;
  private readonly regex: RegExp;

  private constructor(
    readonly pattern: string,
    flags: Flags,
  ) {
    const translated = new Translator(pattern, flags).translate();
    const effective = translated.flags;
    this.source = translated.source;
    this.groupCount = translated.groupCount;
    this.groupNames = translated.groupNames;
    this.flags = { ignoreCase: effective.i, multiline: effective.m, dotAll: effective.s, verbose: effective.x, ascii: effective.a };
    try {
      this.regex = new RegExp(this.source, `gu${effective.i ? 'i' : ''}`);
    } catch (error) {
      throw new PythonRegexError('unsupported', pattern, `its translation is not a valid JavaScript regex (${(error as Error).message})`);
    }
  }

  /** Compiles a Python pattern; throws PythonRegexError (`invalid` or `unsupported`). */
  static compile(pattern: string, flags: PythonRegexFlags = {}): PythonRegex {
    return new PythonRegex(pattern, {
      i: flags.ignoreCase ?? false,
      m: flags.multiline ?? false,
      s: flags.dotAll ?? false,
      x: flags.verbose ?? false,
      a: flags.ascii ?? false,
    });
  }

  /**
   * `compile` through a bounded cache: datasets repeat a few template regexes over many rows. An invalid
   * or unsupported pattern throws every time it is asked for.
   */
  static cached(pattern: string, flags: PythonRegexFlags = {}): PythonRegex {
    const key = `${Number(flags.ignoreCase ?? 0)}${Number(flags.multiline ?? 0)}${Number(flags.dotAll ?? 0)}${Number(flags.verbose ?? 0)}${Number(flags.ascii ?? 0)}${pattern}`;
    let entry = cache.get(key);
    if (entry === undefined) {
      try {
        entry = PythonRegex.compile(pattern, flags);
      } catch (error) {
        entry = error as PythonRegexError;
      }
      if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
      cache.set(key, entry);
    }
    if (entry instanceof PythonRegexError) throw entry;
    return entry;
  }

  /** `re.search`: the first match anywhere, or null. */
  search(text: string): PythonMatch | null {
    this.regex.lastIndex = 0;
    const match = this.regex.exec(text);
    return match === null ? null : this.toMatch(match);
  }

  /** `re.finditer`: every non-overlapping match, left to right. */
  finditer(text: string): PythonMatch[] {
    // matchAll starts where the regex's lastIndex is: a search before it (the same cached regex) leaves it past its match.
    this.regex.lastIndex = 0;
    return Array.from(text.matchAll(this.regex), (match) => this.toMatch(match));
  }

  /**
   * `re.findall`: the whole matches when the pattern has no group, the group's text with one group
   * (`''` when it did not take part), and tuples of all groups with several.
   */
  findall(text: string): (string | string[])[] {
    return this.finditer(text).map((match) => {
      if (this.groupCount === 0) return match.text;
      const groups = match.groups.map((group) => group ?? '');
      return this.groupCount === 1 ? (groups[0] as string) : groups;
    });
  }

  private toMatch(match: RegExpExecArray | RegExpMatchArray): PythonMatch {
    const start = match.index as number;
    const named: Record<string, string | undefined> = {};
    for (const [name, number] of this.groupNames) named[name] = match[number];
    return { start, end: start + match[0].length, text: match[0], groups: match.slice(1), named };
  }
}
