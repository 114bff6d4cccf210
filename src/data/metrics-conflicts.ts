/**
 * Comparing freshly computed metrics with a committed `*_metrics.json` the way upstream does: every key
 * of the old file must exist in the new one (new keys are fine), lists compare as multisets, and numbers
 * may differ by 5e-3 when their magnitude is >= 1, else by 5e-4. Everything else must be equal.
 */
import { PythonFloat } from '../python-compat/python-json.ts';

const asNumber = (value: unknown): number | undefined => {
  if (value instanceof PythonFloat) return value.value;
  // Python's bool is an int, so True == 1 there.
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return Number(value);
  if (typeof value === 'bigint') return Number(value);
  return undefined;
};

export function numericClose(a: number, b: number): boolean {
  if (a === b) return true;
  const tolerance = Math.max(Math.abs(a), Math.abs(b)) >= 1 ? 5e-3 : 5e-4;
  return Math.abs(a - b) <= Math.max(tolerance, 1e-9);
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof PythonFloat);

/** Python-style rendering of a value in a diff message. */
function show(value: unknown): string {
  if (value instanceof PythonFloat) return String(value.value);
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A key under which Python's Counter would count the value, or undefined if it is unhashable (dict, list). */
function hashKey(value: unknown): string | undefined {
  const number = asNumber(value);
  if (number !== undefined) return `n:${number}`;
  if (typeof value === 'string') return `s:${value}`;
  if (value === null) return 'null';
  return undefined;
}

function diffLists(previous: unknown[], next: unknown[], path: string, diffs: string[]): void {
  if (previous.length !== next.length) {
    diffs.push(`List length differs at ${path}: ${previous.length} != ${next.length}`);
    return;
  }
  const previousKeys = previous.map(hashKey);
  const nextKeys = next.map(hashKey);
  if (!previousKeys.includes(undefined) && !nextKeys.includes(undefined)) {
    const counts = new Map<string, number>();
    for (const key of previousKeys as string[]) counts.set(key, (counts.get(key) ?? 0) + 1);
    for (const key of nextKeys as string[]) counts.set(key, (counts.get(key) ?? 0) - 1);
    if ([...counts.values()].some((count) => count !== 0)) diffs.push(`Multiset mismatch at ${path}: ${show(previous)} != ${show(next)}`);
    return;
  }
  // Unhashable elements: match each old element with an unused new one that compares equal.
  const used = new Set<number>();
  previous.forEach((item, index) => {
    const match = next.findIndex((candidate, candidateIndex) => {
      if (used.has(candidateIndex)) return false;
      const inner: string[] = [];
      diffValues(item, candidate, `${path}[${index}]`, inner);
      return inner.length === 0;
    });
    if (match === -1) diffs.push(`No matching element for ${path}[${index}] in new metrics (unordered)`);
    else used.add(match);
  });
}

function diffValues(previous: unknown, next: unknown, path: string, diffs: string[]): void {
  if (isObject(previous) && isObject(next)) {
    for (const key of Object.keys(previous)) {
      const subPath = path === '' ? key : `${path}.${key}`;
      if (!(key in next)) {
        diffs.push(`Missing key in new metrics: ${subPath}`);
        continue;
      }
      diffValues(previous[key], next[key], subPath, diffs);
    }
    return;
  }
  if (Array.isArray(previous) && Array.isArray(next)) {
    diffLists(previous, next, path, diffs);
    return;
  }
  const previousNumber = asNumber(previous);
  const nextNumber = asNumber(next);
  if (previousNumber !== undefined && nextNumber !== undefined) {
    if (!numericClose(previousNumber, nextNumber)) diffs.push(`Numeric mismatch at ${path}: ${show(previous)} != ${show(next)}`);
    return;
  }
  if (JSON.stringify(previous) !== JSON.stringify(next)) diffs.push(`Value differs at ${path}: ${show(previous)} != ${show(next)}`);
}

/** The differences between committed metrics and new ones; empty when they agree within tolerance. */
export function diffMetrics(previous: unknown, next: unknown): string[] {
  const diffs: string[] = [];
  diffValues(previous, next, '', diffs);
  return diffs;
}
