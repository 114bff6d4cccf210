/**
 * Tool-call arguments compared as upstream 0.7.0 compares them: decoded with Python's `json.loads` (ints apart from
 * floats, `NaN`/`Infinity`, a repeated key keeping its first place and last value, objects in their written key
 * order), then walked together with the expected value, where the first difference decides the category.
 */
import { pythonJsonLoads, pythonLower, pythonSplit, pythonStrip } from 'ngym/python-compat';
import { StepRewardCategory } from './categories.ts';

/** A value `json.loads` returns, tagged with its Python type (`isinstance` decides the comparison). */
export type ArgumentValue =
  | { kind: 'dict'; entries: Map<string, ArgumentValue> }
  | { kind: 'list'; items: ArgumentValue[] }
  | { kind: 'str'; value: string }
  | { kind: 'int'; value: bigint }
  | { kind: 'float'; value: number }
  | { kind: 'bool'; value: boolean }
  | { kind: 'none' };

const SPACE = /[ \t\n\r]*/y;
const STRING = /"[^"\\]*(?:\\.[^"\\]*)*"/y;
const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/y;
const LITERALS: [string, ArgumentValue][] = [
  ['null', { kind: 'none' }],
  ['true', { kind: 'bool', value: true }],
  ['false', { kind: 'bool', value: false }],
  ['NaN', { kind: 'float', value: Number.NaN }],
  ['Infinity', { kind: 'float', value: Number.POSITIVE_INFINITY }],
  ['-Infinity', { kind: 'float', value: Number.NEGATIVE_INFINITY }],
];

/**
 * Reads a document `pythonJsonLoads` has accepted, keeping what a JavaScript object loses: Python's key order
 * (JavaScript puts integer-like keys first) and exact integers. Being valid is checked before, so nothing fails here.
 */
class ValueReader {
  private position = 0;

  constructor(private readonly text: string) {}

  private take(pattern: RegExp): RegExpExecArray {
    pattern.lastIndex = this.position;
    const match = pattern.exec(this.text) as RegExpExecArray;
    this.position = pattern.lastIndex;
    return match;
  }

  /** Skips whitespace, then steps over the delimiter there and returns it. */
  private delimiter(): string | undefined {
    this.take(SPACE);
    return this.text[this.position++];
  }

  value(): ArgumentValue {
    this.take(SPACE);
    const first = this.text[this.position];
    if (first === '"') return { kind: 'str', value: JSON.parse(this.take(STRING)[0]) as string };
    if (first === '[') return { kind: 'list', items: this.items(']', () => this.value()) };
    if (first === '{') {
      const entries = new Map<string, ArgumentValue>();
      this.items('}', () => {
        this.take(SPACE);
        const key = JSON.parse(this.take(STRING)[0]) as string;
        this.delimiter();
        // Map.set keeps a repeated key where it first came, with its last value, as a Python dict does.
        entries.set(key, this.value());
      });
      return { kind: 'dict', entries };
    }
    for (const [word, value] of LITERALS) {
      if (this.text.startsWith(word, this.position)) {
        this.position += word.length;
        return value;
      }
    }
    const number = this.take(NUMBER);
    return number[1] === undefined && number[2] === undefined ? { kind: 'int', value: BigInt(number[0]) } : { kind: 'float', value: Number(number[0]) };
  }

  private items<T>(close: string, read: () => T): T[] {
    const items: T[] = [];
    this.position++;
    this.take(SPACE);
    if (this.text[this.position] === close) {
      this.position++;
      return items;
    }
    do items.push(read());
    while (this.delimiter() !== close);
    return items;
  }
}

/** `json.loads(text)`, or the `PythonError` Python raises (JSONDecodeError, RecursionError past 1,000 levels). */
export function loadArguments(text: string): ArgumentValue {
  pythonJsonLoads(text, { floats: true, bigInts: true, errors: 'python' });
  return new ValueReader(text).value();
}

export interface ArgumentThresholds {
  word_count_similarity_threshold: number;
  floating_point_comparison_threshold: number;
}

/** `Counter(text.strip().lower().split())`. */
function wordCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const word of pythonSplit(pythonLower(pythonStrip(text)))) counts.set(word, (counts.get(word) ?? 0) + 1);
  return counts;
}

const total = (counts: Map<string, number>) => [...counts.values()].reduce((sum, count) => sum + count, 0);

/**
 * Strings of two words or more each match when the words they share (counted with repeats) over all their words
 * reach the threshold (so 0.5 at most: upstream's measure, not Jaccard's); shorter ones must be equal as written.
 */
function stringsMatch(expected: string, actual: string, threshold: number): boolean {
  const expectedWords = wordCounts(expected);
  const actualWords = wordCounts(actual);
  const expectedTotal = total(expectedWords);
  const actualTotal = total(actualWords);
  if (expectedTotal < 2 || actualTotal < 2) return expected === actual;
  let shared = 0;
  for (const [word, count] of expectedWords) shared += Math.min(count, actualWords.get(word) ?? 0);
  return !(shared / (expectedTotal + actualTotal) < threshold);
}

/** Python's `isinstance(actual, type(expected))`: a bool is an int too. */
const sameType = (expected: ArgumentValue, actual: ArgumentValue) => actual.kind === expected.kind || (expected.kind === 'int' && actual.kind === 'bool');

/** An int or bool as the integer Python compares it as (`1 == True`). */
const integerOf = (value: ArgumentValue): bigint | undefined => (value.kind === 'int' ? value.value : value.kind === 'bool' ? (value.value ? 1n : 0n) : undefined);

/** Why `actual` differs from `expected` (the first difference, in the expected value's order), or undefined when it matches. */
export function argumentDifference(expected: ArgumentValue, actual: ArgumentValue, thresholds: ArgumentThresholds): StepRewardCategory | undefined {
  if (!sameType(expected, actual)) return StepRewardCategory.ARGUMENT_VALUE_TYPE_DIFFERENT;
  if (expected.kind === 'dict' && actual.kind === 'dict') {
    const keys = [...expected.entries.keys()];
    if (keys.length !== actual.entries.size || keys.some((key) => !actual.entries.has(key))) return StepRewardCategory.ARGUMENT_OBJECT_KEYS_DIFFERENT;
    for (const [key, value] of expected.entries) {
      const difference = argumentDifference(value, actual.entries.get(key) as ArgumentValue, thresholds);
      if (difference !== undefined) return difference;
    }
    return undefined;
  }
  if (expected.kind === 'list' && actual.kind === 'list') {
    if (expected.items.length !== actual.items.length) return StepRewardCategory.ARGUMENT_LIST_LENGTH_DIFFERENT;
    for (const [index, value] of expected.items.entries()) {
      const difference = argumentDifference(value, actual.items[index] as ArgumentValue, thresholds);
      if (difference !== undefined) return difference;
    }
    return undefined;
  }
  let equal: boolean;
  // NaN and infinities never come within the threshold: |inf - inf| is NaN, as in Python.
  if (expected.kind === 'float' && actual.kind === 'float') equal = Math.abs(actual.value - expected.value) < thresholds.floating_point_comparison_threshold;
  else if (expected.kind === 'str' && actual.kind === 'str') equal = stringsMatch(expected.value, actual.value, thresholds.word_count_similarity_threshold);
  else if (expected.kind === 'bool' && actual.kind === 'bool') equal = expected.value === actual.value;
  else equal = integerOf(expected) === integerOf(actual);
  return equal ? undefined : StepRewardCategory.ARGUMENT_VALUE_DIFFERENT;
}
