/**
 * OmegaConf-style interpolation, resolved lazily on the subtree a server needs (as upstream: the config is
 * shipped unresolved and each server resolves its own entry against the whole dict).
 *
 * Supported: absolute paths `${a.b}`, relative paths `${.sibling}` / `${..uncle}`, list indices `${a.0}`,
 * the resolvers `${oc.env:VAR}` / `${oc.env:VAR,default}`, `${oc.select:key}` / `${oc.select:key,default}` and
 * `${oc.decode:text}`,
 * nesting, string concatenation (`http://${host}:${port}`), the escape `\${`, and `???` for a mandatory value
 * that must be set.
 */
import { ConfigError } from '../errors.ts';
import { parseOverrideValue, typedPrimitive } from './overrides.ts';
import { type ConfigDict, type ConfigSources, type ConfigValue, getAt, isDict, pathKey } from './tree.ts';

export const MISSING = '???';

export interface ResolveContext {
  root: ConfigDict;
  sources?: ConfigSources;
  env?: NodeJS.ProcessEnv;
}

function where(context: ResolveContext, path: readonly (string | number)[]): string {
  return context.sources?.describe(path) ?? `\`${pathKey(path)}\``;
}

function missingValueError(context: ResolveContext, path: readonly (string | number)[], via?: readonly (string | number)[]): ConfigError {
  const through = via === undefined ? '' : `, needed by ${where(context, via)}`;
  return new ConfigError(
    'NGYM_CONFIG_MISSING_VALUE',
    `Missing mandatory value ${where(context, path)}${through}. Set it on the command line (\`+${pathKey(path)}=...\`) or in env.yaml.`,
    { key: pathKey(path), source: context.sources?.sourceOf(path) },
  );
}

/** Python's `str()` of a scalar, which is what OmegaConf splices into a string. */
function stringify(value: ConfigValue): string {
  if (value === null) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Finds the end of a `${` started at `start` (index of `$`), honouring nested braces. */
function findClose(text: string, start: number): number {
  let depth = 0;
  for (let index = start; index < text.length; index++) {
    if (text[index] === '$' && text[index + 1] === '{') {
      depth++;
      index++;
    } else if (text[index] === '}') {
      depth--;
      if (depth === 0) return index;
    }
  }
  return -1;
}

class Resolver {
  private readonly active = new Set<string>();
  constructor(private readonly context: ResolveContext) {}

  /** Deep-resolves the value at `path`. */
  resolveAt(path: readonly (string | number)[], requestedBy?: readonly (string | number)[]): ConfigValue {
    const value = getAt(this.context.root, path);
    if (value === undefined) {
      throw new ConfigError(
        'NGYM_CONFIG_INTERPOLATION',
        `Interpolation target \`${pathKey(path)}\` does not exist${requestedBy === undefined ? '' : `; referenced by ${where(this.context, requestedBy)}`}. Define it (for example in env.yaml) or fix the reference.`,
        { key: requestedBy === undefined ? pathKey(path) : pathKey(requestedBy) },
      );
    }
    if (value === MISSING) throw missingValueError(this.context, path, requestedBy);
    // Tracked per followed reference, not per string: a resolver's arguments may nest interpolations.
    const key = pathKey(path);
    if (this.active.has(key)) {
      throw new ConfigError('NGYM_CONFIG_INTERPOLATION', `Interpolation cycle through ${where(this.context, path)}.`, { key });
    }
    this.active.add(key);
    try {
      return this.resolveValue(value, path);
    } finally {
      this.active.delete(key);
    }
  }

  resolveValue(value: ConfigValue, path: readonly (string | number)[]): ConfigValue {
    if (typeof value === 'string') return this.resolveString(value, path);
    if (Array.isArray(value)) return value.map((item, index) => this.resolveValue(item, [...path, index]));
    if (isDict(value)) {
      const out: ConfigDict = {};
      for (const [key, child] of Object.entries(value)) out[key] = this.resolveValue(child, [...path, key]);
      return out;
    }
    return value;
  }

  private resolveString(text: string, path: readonly (string | number)[]): ConfigValue {
    if (text === MISSING) throw missingValueError(this.context, path);
    if (!text.includes('${')) return text;
    const key = pathKey(path);
    const start = text.indexOf('${');
    const end = start >= 0 ? findClose(text, start) : -1;
    // A value that is exactly one interpolation keeps the referenced value's type.
    if (start === 0 && end === text.length - 1) return this.evaluate(text.slice(2, -1), path);
    let out = '';
    let index = 0;
    while (index < text.length) {
      if (text[index] === '\\' && text[index + 1] === '$' && text[index + 2] === '{') {
        out += '${';
        index += 3;
        continue;
      }
      if (text[index] === '$' && text[index + 1] === '{') {
        const close = findClose(text, index);
        if (close < 0) {
          throw new ConfigError('NGYM_CONFIG_INTERPOLATION', `Unterminated \`\${\` in ${where(this.context, path)}.`, { key });
        }
        out += stringify(this.evaluate(text.slice(index + 2, close), path));
        index = close + 1;
        continue;
      }
      out += text[index];
      index++;
    }
    return out;
  }

  private evaluate(expression: string, path: readonly (string | number)[]): ConfigValue {
    const body = expression.trim();
    const resolverMatch = /^([A-Za-z_][\w.]*):(.*)$/s.exec(body);
    if (resolverMatch !== null && !body.startsWith('.')) {
      const [, name = '', rawArgs = ''] = resolverMatch;
      // oc.env's arguments stay text (its default is handed back as written); oc.select's are typed.
      const args = splitArguments(rawArgs).map((argument) => (name === 'oc.env' ? this.resolveText(argument, path) : this.resolveArgument(argument, path)));
      return this.callResolver(name, args, path);
    }
    const target = this.targetPath(body, path);
    return this.resolveAt(target, path);
  }

  private resolveText(argument: string, path: readonly (string | number)[]): string {
    const text = argument.trim();
    const quoted = /^(['"])(.*)\1$/s.exec(text);
    const resolved = this.resolveString(quoted === null ? text : (quoted[2] ?? ''), path);
    return typeof resolved === 'string' ? resolved : stringify(resolved);
  }

  /**
   * A resolver argument as OmegaConf's grammar types it: a lone interpolation keeps its value's type, a quoted
   * string stays a string, and a bare `null`, `true`/`false` or number is that value.
   */
  private resolveArgument(argument: string, path: readonly (string | number)[]): ConfigValue {
    const text = argument.trim();
    const quoted = /^(['"])(.*)\1$/s.exec(text);
    if (quoted !== null) return stringify(this.resolveString(quoted[2] ?? '', path));
    if (text.includes('${')) return this.resolveString(text, path);
    return typedPrimitive(text);
  }

  /** `a.b` is absolute; each leading dot climbs from the node that holds the interpolation. */
  private targetPath(body: string, path: readonly (string | number)[]): (string | number)[] {
    const normalized = body.replace(/\[(\d+)\]/g, '.$1');
    if (!normalized.startsWith('.')) return normalized.split('.');
    const dots = /^\.+/.exec(normalized)?.[0].length ?? 0;
    const base = path.slice(0, Math.max(0, path.length - dots));
    const rest = normalized.slice(dots);
    return rest === '' ? base : [...base, ...rest.split('.')];
  }

  /** `oc.select`: the value at `key` (absolute, or relative with leading dots), or the default (else null) when the key is absent or `???`. */
  private select(args: ConfigValue[], path: readonly (string | number)[]): ConfigValue {
    const [key, ...rest] = args;
    if (typeof key !== 'string' || key === '' || rest.length > 1) {
      throw new ConfigError(
        'NGYM_CONFIG_INTERPOLATION',
        `\`oc.select\` in ${where(this.context, path)} takes a key and an optional default: \${oc.select:key} or \${oc.select:key,default}.`,
        { key: pathKey(path) },
      );
    }
    const target = this.targetPath(key, path);
    const value = getAt(this.context.root, target);
    if (value === undefined || value === MISSING) return rest.length === 1 ? (rest[0] as ConfigValue) : null;
    return this.resolveAt(target, path);
  }

  /** `oc.decode`: a string read as a value of the grammar (`"3"` is 3, `"[a, b]"` a list); null stays null. */
  private decode(args: ConfigValue[], path: readonly (string | number)[]): ConfigValue {
    const [value, ...rest] = args;
    if (rest.length > 0 || (value !== null && typeof value !== 'string')) {
      throw new ConfigError('NGYM_CONFIG_INTERPOLATION', `\`oc.decode\` in ${where(this.context, path)} takes one string (or null).`, { key: pathKey(path) });
    }
    return value === null || value === undefined ? null : parseOverrideValue(value, `oc.decode in ${pathKey(path)}`);
  }

  private callResolver(name: string, args: ConfigValue[], path: readonly (string | number)[]): ConfigValue {
    if (name === 'oc.select') return this.select(args, path);
    if (name === 'oc.decode') return this.decode(args, path);
    if (name === 'oc.env') {
      const [variable = '', ...defaults] = args.map(String);
      const value = (this.context.env ?? process.env)[variable];
      if (value !== undefined) return value;
      if (defaults.length > 0) {
        const fallback = defaults.join(',');
        return fallback === 'null' ? null : fallback;
      }
      throw new ConfigError(
        'NGYM_CONFIG_INTERPOLATION',
        `Environment variable ${variable} is not set; required by ${where(this.context, path)}.`,
        { key: pathKey(path) },
      );
    }
    throw new ConfigError(
      'NGYM_CONFIG_INTERPOLATION',
      `Unknown resolver \`${name}\` in ${where(this.context, path)}; supported: oc.env, oc.select, oc.decode.`,
      { key: pathKey(path) },
    );
  }
}

function splitArguments(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let current = '';
  for (let index = 0; index < text.length; index++) {
    const char = text[index] as string;
    if (depth === 0 && (char === "'" || char === '"') && (quote === undefined || quote === char)) quote = quote === undefined ? char : undefined;
    if (char === '$' && text[index + 1] === '{') depth++;
    if (char === '}' && depth > 0) depth--;
    if (char === ',' && depth === 0 && quote === undefined) {
      out.push(current);
      current = '';
      continue;
    }
    current += char;
  }
  out.push(current);
  return out;
}

/** Deep-resolves the subtree at `path` against the whole config. */
export function resolveAt(context: ResolveContext, path: readonly (string | number)[]): ConfigValue {
  return new Resolver(context).resolveAt(path);
}

/** Deep-resolves the whole config (what `ngym dump-config` prints). */
export function resolveAll(context: ResolveContext): ConfigDict {
  return new Resolver(context).resolveValue(context.root, []) as ConfigDict;
}
