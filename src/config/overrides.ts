/**
 * Hydra-style command-line overrides, as NeMo Gym users write them: `+a.b=1`, `++a.b=1`, lists `[a,b]`,
 * dicts `{a: 1}`, quoted strings, typed scalars (`null`, `true`, `1`, `1e-3`, `inf`) and `${...}`
 * interpolations kept verbatim for later resolution.
 *
 * Upstream's Hydra primary config is empty, so every override must add a key (`+` or `++`); a bare
 * `key=value` is rejected the same way, with a hint, so commands stay portable between the two tools.
 */
import { ConfigError } from '../errors.ts';
import type { ConfigValue } from './tree.ts';

export interface Override {
  /** `+`: add; `++`: add or replace. */
  operation: 'add' | 'force-add';
  path: string[];
  value: ConfigValue;
  text: string;
}

const KEY_PATTERN = /^[A-Za-z0-9_\-/@]+(\.[A-Za-z0-9_\-/@]+)*$/;

function syntaxError(text: string, reason: string): ConfigError {
  return new ConfigError('NGYM_CONFIG_OVERRIDE_SYNTAX', `Invalid override \`${text}\`: ${reason}`, {
    source: 'command line',
  });
}

export function parseOverride(text: string): Override {
  let operation: Override['operation'];
  let rest: string;
  if (text.startsWith('++')) {
    operation = 'force-add';
    rest = text.slice(2);
  } else if (text.startsWith('+')) {
    operation = 'add';
    rest = text.slice(1);
  } else if (text.startsWith('~')) {
    throw syntaxError(text, 'deleting keys with `~` is not supported; the base config is empty, as in NeMo Gym.');
  } else {
    const key = text.split('=')[0] ?? text;
    throw syntaxError(
      text,
      `overrides must add a key: write \`+${text}\` (or \`++${key}=...\` to add or replace), as with NeMo Gym's ng_* commands.`,
    );
  }
  const equals = rest.indexOf('=');
  if (equals < 0) throw syntaxError(text, 'expected `key=value`.');
  const key = rest.slice(0, equals).trim();
  if (!KEY_PATTERN.test(key)) throw syntaxError(text, `\`${key}\` is not a valid key (dotted names of letters, digits, _ - / @).`);
  const value = parseOverrideValue(rest.slice(equals + 1), text);
  return { operation, path: key.split('.'), value, text };
}

/** Parses the value side of an override with Hydra's grammar. */
export function parseOverrideValue(source: string, overrideText = source): ConfigValue {
  const parser = new ValueParser(source, overrideText);
  return parser.parseTop();
}

const INT_PATTERN = /^[+-]?(0|[1-9][0-9_]*)$/;
const FLOAT_PATTERN = /^[+-]?((\d[\d_]*)?\.\d[\d_]*([eE][+-]?\d+)?|\d[\d_]*\.([eE][+-]?\d+)?|\d[\d_]*[eE][+-]?\d+)$/;

/** A bare scalar as Hydra's and OmegaConf's grammars type it: null, a bool, an int, a float, else the text. */
export function typedPrimitive(raw: string): ConfigValue {
  const text = raw.trim();
  const lower = text.toLowerCase();
  if (lower === 'null') return null;
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  if (INT_PATTERN.test(text)) return Number(text.replaceAll('_', ''));
  if (FLOAT_PATTERN.test(text)) return Number(text.replaceAll('_', ''));
  if (/^[+-]?inf$/.test(lower)) return lower.startsWith('-') ? -Infinity : Infinity;
  if (lower === 'nan') return Number.NaN;
  return text;
}

class ValueParser {
  private position = 0;
  constructor(
    private readonly text: string,
    private readonly overrideText: string,
  ) {}

  parseTop(): ConfigValue {
    this.skipSpaces();
    if (this.position >= this.text.length) return '';
    const value = this.parseElement(true);
    this.skipSpaces();
    if (this.position < this.text.length) {
      throw syntaxError(this.overrideText, `unexpected \`${this.text.slice(this.position)}\` after the value.`);
    }
    return value;
  }

  private fail(reason: string): never {
    throw syntaxError(this.overrideText, reason);
  }

  private skipSpaces(): void {
    while (this.position < this.text.length && /\s/.test(this.text[this.position] as string)) this.position++;
  }

  private parseElement(top: boolean): ConfigValue {
    this.skipSpaces();
    const char = this.text[this.position];
    if (char === '[') return this.parseList();
    if (char === '{') return this.parseDict();
    if (char === '"' || char === "'") return this.parseQuoted(char);
    return this.parsePrimitive(top);
  }

  private parseList(): ConfigValue[] {
    this.position++;
    const items: ConfigValue[] = [];
    this.skipSpaces();
    if (this.text[this.position] === ']') {
      this.position++;
      return items;
    }
    for (;;) {
      items.push(this.parseElement(false));
      this.skipSpaces();
      const char = this.text[this.position];
      this.position++;
      if (char === ']') return items;
      if (char !== ',') this.fail('a list must be written `[a, b, c]` (missing `]` or `,`).');
    }
  }

  private parseDict(): ConfigValue {
    this.position++;
    const dict: Record<string, ConfigValue> = {};
    this.skipSpaces();
    if (this.text[this.position] === '}') {
      this.position++;
      return dict;
    }
    for (;;) {
      this.skipSpaces();
      const colon = this.text.indexOf(':', this.position);
      if (colon < 0) this.fail('a dict must be written `{key: value}`.');
      const key = this.text.slice(this.position, colon).trim();
      if (!/^[A-Za-z0-9_\-/@.]+$/.test(key)) this.fail(`\`${key}\` is not a valid dict key.`);
      this.position = colon + 1;
      dict[key] = this.parseElement(false);
      this.skipSpaces();
      const char = this.text[this.position];
      this.position++;
      if (char === '}') return dict;
      if (char !== ',') this.fail('a dict must be written `{a: 1, b: 2}` (missing `}` or `,`).');
    }
  }

  private parseQuoted(quote: string): string {
    this.position++;
    let out = '';
    while (this.position < this.text.length) {
      const char = this.text[this.position] as string;
      if (char === '\\' && (this.text[this.position + 1] === quote || this.text[this.position + 1] === '\\')) {
        out += this.text[this.position + 1];
        this.position += 2;
        continue;
      }
      if (char === quote) {
        this.position++;
        return out;
      }
      out += char;
      this.position++;
    }
    return this.fail(`unterminated ${quote}quoted string.`);
  }

  /** Reads up to the next structural character, treating `${...}` (with nesting) as opaque. */
  private parsePrimitive(top: boolean): ConfigValue {
    const start = this.position;
    let interpolationDepth = 0;
    while (this.position < this.text.length) {
      const char = this.text[this.position] as string;
      if (char === '$' && this.text[this.position + 1] === '{') {
        interpolationDepth++;
        this.position += 2;
        continue;
      }
      if (interpolationDepth > 0) {
        if (char === '{') interpolationDepth++;
        if (char === '}') interpolationDepth--;
        this.position++;
        continue;
      }
      if (char === ',' && top) {
        this.fail('a top-level comma is ambiguous; write a list as `[a,b]` or quote the string.');
      }
      if (!top && (char === ',' || char === ']' || char === '}')) break;
      if (char === '[' || char === ']' || char === '{' || char === '}') {
        this.fail(`unexpected \`${char}\`; quote the string if it is meant literally.`);
      }
      this.position++;
    }
    if (interpolationDepth > 0) this.fail('unterminated `${...}` interpolation.');
    const raw = this.text.slice(start, this.position);
    if (raw.trim() === '' && !top) this.fail('empty element in a list or dict.');
    return raw.includes('${') ? raw.trim() : typedPrimitive(raw);
  }
}
