/**
 * Metric, param and tag names as MLflow accepts them. Gym's names break MLflow's rules (`pass@1`, keys with
 * brackets), and MLflow rejects a whole batch for one bad name, so each name is mapped as upstream's exporter
 * maps it: `@` spelled `_at_`, other characters outside MLflow's set as `_`, no empty or all-dot path
 * segments, and an over-long name cut in the middle (its ends carry the agent and the statistic).
 */

export const MAX_NAME_LENGTH = 250;
const INVALID_CHARACTERS = /[^/\w.\- :]/g;
const ELISION = '___';

function normalizePath(name: string): string {
  const segments = name
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => (/^\.+$/.test(segment) ? '_'.repeat(segment.length) : segment));
  return segments.join('/').replace(/^\.+/, (dots) => '_'.repeat(dots.length));
}

function elide(name: string): string {
  if (name.length <= MAX_NAME_LENGTH) return name;
  const kept = MAX_NAME_LENGTH - ELISION.length;
  const tail = Math.floor(kept / 2);
  return name.slice(0, kept - tail) + ELISION + (tail > 0 ? name.slice(-tail) : '');
}

/** The MLflow name of a gym name, or undefined when nothing of it is left (only separators). */
export function mlflowName(name: string): string | undefined {
  const sanitized = normalizePath(elide(normalizePath(name.replaceAll('@', '_at_').replace(INVALID_CHARACTERS, '_'))));
  return sanitized === '' ? undefined : sanitized;
}

/** `[dotted key, leaf]` pairs of a nested value: MLflow params are flat. Lists index as `key[0]`. */
export function flattenConfig(value: unknown, prefix = ''): [string, unknown][] {
  if (Array.isArray(value)) return value.flatMap((inner, index) => flattenConfig(inner, `${prefix}[${index}]`));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([key, inner]) => flattenConfig(inner, prefix === '' ? key : `${prefix}.${key}`));
  }
  return prefix === '' ? [] : [[prefix, value]];
}
