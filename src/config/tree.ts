/**
 * The config tree: plain JSON-like values, OmegaConf merge semantics (dicts merge recursively, lists and
 * scalars are replaced wholesale), and provenance: for every key, which file (or the command line) set
 * it last, so an error can name both the key and where it came from.
 */

export type ConfigValue = null | boolean | number | string | ConfigValue[] | ConfigDict;
export interface ConfigDict {
  [key: string]: ConfigValue;
}

export function isDict(value: unknown): value is ConfigDict {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function pathKey(path: readonly (string | number)[]): string {
  return path.join('.');
}

function cloneValue<T extends ConfigValue>(value: T): T {
  return structuredClone(value);
}

export function getAt(root: ConfigValue, path: readonly (string | number)[]): ConfigValue | undefined {
  let node: ConfigValue | undefined = root;
  for (const segment of path) {
    if (Array.isArray(node)) node = node[Number(segment)];
    else if (isDict(node)) node = Object.hasOwn(node, segment) ? node[segment] : undefined;
    else return undefined;
    if (node === undefined) return undefined;
  }
  return node;
}

/** Sets a value, creating intermediate dicts; a non-dict in the way is replaced, as OmegaConf does. */
export function setAt(root: ConfigDict, path: readonly string[], value: ConfigValue): void {
  let node = root;
  for (const segment of path.slice(0, -1)) {
    const next = node[segment];
    if (!isDict(next)) node[segment] = {};
    node = node[segment] as ConfigDict;
  }
  const last = path.at(-1);
  if (last !== undefined) node[last] = value;
}

/** Records which source last set each key. */
export class ConfigSources {
  private readonly byPath = new Map<string, string>();
  private readonly linesBySource = new Map<string, Map<string, number>>();

  /** The line of each key (by dotted path) in the file `source` names. */
  recordLines(source: string, lines: Map<string, number>): void {
    this.linesBySource.set(source, lines);
  }

  record(path: readonly (string | number)[], source: string): void {
    this.byPath.set(pathKey(path), source);
  }

  /** Records `source` for a value and everything below it. */
  recordTree(path: readonly (string | number)[], value: ConfigValue, source: string): void {
    this.record(path, source);
    if (isDict(value)) for (const [key, child] of Object.entries(value)) this.recordTree([...path, key], child, source);
  }

  /** An entry that took the value at `from` (`_inherit_from`): the keys it did not set itself keep their sources. */
  inherit(from: readonly string[], to: readonly string[]): void {
    const prefix = pathKey(from);
    for (const [path, source] of [...this.byPath]) {
      if (path !== prefix && !path.startsWith(`${prefix}.`)) continue;
      const target = pathKey([...to, ...(path === prefix ? [] : [path.slice(prefix.length + 1)])]);
      if (!this.byPath.has(target)) this.byPath.set(target, source);
    }
  }

  /** The source of the deepest recorded ancestor of `path` (or `path` itself). */
  sourceOf(path: readonly (string | number)[]): string | undefined {
    for (let length = path.length; length > 0; length--) {
      const found = this.byPath.get(pathKey(path.slice(0, length)));
      if (found !== undefined) return found;
    }
    return undefined;
  }

  /** The line in its source file of the deepest ancestor of `path` (or `path`) that this source set. */
  lineOf(path: readonly (string | number)[]): number | undefined {
    const source = this.sourceOf(path);
    const lines = source === undefined ? undefined : this.linesBySource.get(source);
    if (lines === undefined) return undefined;
    for (let length = path.length; length > 0; length--) {
      const key = pathKey(path.slice(0, length));
      if (this.byPath.get(key) === source && lines.has(key)) return lines.get(key);
    }
    return undefined;
  }

  /** "key `a.b` (from configs/x.yaml:12)" for error messages. */
  describe(path: readonly (string | number)[]): string {
    const source = this.sourceOf(path);
    const line = this.lineOf(path);
    return `\`${pathKey(path)}\`${source === undefined ? '' : ` (from ${source}${line === undefined ? '' : `:${line}`})`}`;
  }
}

/** Merges `overlay` into `base` in place (OmegaConf semantics) and records provenance. */
export function mergeInto(
  base: ConfigDict,
  overlay: ConfigDict,
  source: string,
  sources: ConfigSources,
  path: string[] = [],
): ConfigDict {
  for (const [key, value] of Object.entries(overlay)) {
    const childPath = [...path, key];
    const existing = base[key];
    if (isDict(existing) && isDict(value)) {
      mergeInto(existing, value, source, sources, childPath);
    } else {
      base[key] = cloneValue(value);
      sources.recordTree(childPath, value, source);
    }
  }
  return base;
}
