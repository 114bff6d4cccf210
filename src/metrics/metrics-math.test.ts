import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonDumpedWordCount } from '../data/dataset-metrics.ts';
import { pyFloat, pythonJsonDumpIndented, pythonJsonDumps } from '../python-compat/python-json.ts';
import { AvgMinMax } from './avg-min-max.ts';
import { diffMetrics, numericClose } from '../data/metrics-conflicts.ts';
import { pythonRound } from '../python-compat/python-round.ts';
import { TDigest } from './t-digest.ts';

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

describe('TDigest', () => {
  it('gives the exact median while every value is its own centroid (n < 200), duplicates included', () => {
    const samples = [[1499, 1509, 1505, 1501, 1506], [711, 407, 711, 407, 711, 407, 711, 407, 711, 407], [5], [4, 1, 3, 2]];
    const percentileOf = (values: number[]) => {
      const digest = new TDigest();
      for (const value of values) digest.update(value);
      return digest.percentile(50);
    };
    for (const values of samples) expect(percentileOf(values), values.join(',')).toBe(median(values));
    // Upstream interpolates between centroid midpoints, so uneven duplicates move the estimate:
    // centroids 1(1) 2(3) 3(1) 9(1), target 3 lies between 2 (cumulative 2.5) and 3 (4.5): 2.25.
    expect(percentileOf([3, 1, 2, 2, 2, 9])).toBe(2.25);
    const merged = new TDigest();
    for (const value of [1, 2, 3]) merged.update(value);
    const other = new TDigest();
    for (const value of [10, 20]) other.update(value);
    expect(merged.merge(other).percentile(50)).toBe(3);
    expect(merged.merge(other).n).toBe(5);
  });

  it('estimates the median of large inputs closely, with bounded centroids', () => {
    const digest = new TDigest();
    const values: number[] = [];
    let seed = 7;
    for (let index = 0; index < 20_000; index++) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      const value = (seed / 2 ** 31) * 1000;
      values.push(value);
      digest.update(value);
    }
    expect(Math.abs(digest.percentile(50) - median(values))).toBeLessThan(5);
    expect(digest.size).toBeLessThan(2500);
    expect(digest.percentile(0)).toBe(Math.min(...values));
  });
});

describe('pythonRound', () => {
  it('rounds the exact binary value, ties to even, as Python', () => {
    const cases: [number, number, number][] = [
      [0.125, 2, 0.12], [0.375, 2, 0.38], [2.675, 2, 2.67], [0.0625, 3, 0.062], [-0.125, 2, -0.12], [1.005, 2, 1.0],
      [0.0005, 3, 0.001], [0.0015, 3, 0.002], [2.5, 0, 2], [3.5, 0, 4], [160.21857, 2, 160.22], [1e300, 2, 1e300],
    ];
    for (const [value, digits, expected] of cases) expect(pythonRound(value, digits), `round(${value}, ${digits})`).toBe(expected);
    expect(Object.is(pythonRound(-0.0004, 3), -0)).toBe(true);
  });
});

describe('AvgMinMax', () => {
  it('computes the sample std by Welford, and merges by Chan to the same numbers', () => {
    const values = [711, 407, 711, 407, 711, 407, 711, 407, 711, 407];
    const whole = new AvgMinMax();
    for (const value of values) whole.observe(value);
    const left = new AvgMinMax();
    const right = new AvgMinMax();
    values.forEach((value, index) => (index < 3 ? left : right).observe(value));
    left.add(right);
    for (const accumulator of [whole, left]) {
      expect(pythonJsonDumps(accumulator.aggregate())).toBe(
        '{"Total # non-null values": 10, "Average": 559.0, "Min": 407.0, "Max": 711.0, "Median": 559.0, "Standard deviation": 160.22}',
      );
    }
    expect(pythonJsonDumps(new AvgMinMax().aggregate())).toBe(
      '{"Total # non-null values": 0, "Average": 0.0, "Min": 0.0, "Max": 0.0, "Median": 0.0, "Standard deviation": 0.0}',
    );
  });
});

describe('metrics conflicts (upstream tolerance)', () => {
  it('compares numbers within 5e-3 above magnitude 1 and 5e-4 below', () => {
    expect(numericClose(100, 100.004)).toBe(true);
    expect(numericClose(100, 100.006)).toBe(false);
    expect(numericClose(0.5, 0.5006)).toBe(false);
    expect(numericClose(0.5, 0.5004)).toBe(true);
    expect(numericClose(0.999, 1.0039)).toBe(true);
    expect(diffMetrics({ a: 2 }, { a: pyFloat(2.004) })).toEqual([]);
  });

  it('allows new keys, requires old ones (nested too), and compares lists as multisets', () => {
    expect(diffMetrics({ a: 1 }, { a: 1, b: 2 })).toEqual([]);
    expect(diffMetrics({ a: 1, b: 2 }, { a: 1 })).toEqual(['Missing key in new metrics: b']);
    expect(diffMetrics({ a: { b: { c: 1 } } }, { a: { b: {} } })).toEqual(['Missing key in new metrics: a.b.c']);
    expect(diffMetrics({ l: [1, 2, 3] }, { l: [3, 1, 2] })).toEqual([]);
    expect(diffMetrics({ l: [1, 2, 3] }, { l: [1, 2, 4] })).toHaveLength(1);
    expect(diffMetrics({ l: [1, 2] }, { l: [1, 2, 2] })).toEqual(['List length differs at l: 2 != 3']);
    expect(diffMetrics({ l: [1, 1, 2] }, { l: [1, 2, 2] })).toHaveLength(1);
    expect(diffMetrics({ l: [{ x: 1 }, { y: 2 }] }, { l: [{ y: 2 }, { x: 1 }] })).toEqual([]);
    expect(diffMetrics({ l: [{ x: 1 }] }, { l: [{ x: 2 }] })).toEqual(['No matching element for l[0] in new metrics (unordered)']);
    expect(diffMetrics({ s: 'a' }, { s: 'b' })).toEqual(['Value differs at s: a != b']);
    expect(diffMetrics({ license: null }, { license: null })).toEqual([]);
  });
});

describe('Python json dump', () => {
  it('writes json.dump(indent=4) byte for byte', () => {
    const value = { a: [], b: {}, c: [1, pyFloat(2), { x: null }], d: 'é', e: pyFloat(Infinity), f: true };
    expect(pythonJsonDumpIndented(value)).toBe(
      '{\n    "a": [],\n    "b": {},\n    "c": [\n        1,\n        2.0,\n        {\n            "x": null\n        }\n    ],\n    "d": "\\u00e9",\n    "e": Infinity,\n    "f": true\n}',
    );
  });
});

describe('jsonDumpedWordCount', () => {
  it("equals len(json.dumps(value).split()) for any JSON value", () => {
    const text = fc.string({ unit: fc.constantFrom('a', ' ', '\n', '\t', 'é', '"', '\\', '\u00a0', 'x') });
    const value = fc.letrec((tie) => ({
      json: fc.oneof(
        { depthSize: 'small' },
        text,
        fc.double({ noNaN: true }),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('json'), { maxLength: 4 }),
        fc.dictionary(text, tie('json'), { maxKeys: 4 }),
      ),
    })).json;
    fc.assert(
      fc.property(value, (item) => {
        const words = pythonJsonDumps(item).split(/[ \t\n\r\f\v]+/).filter((word) => word !== '').length;
        expect(jsonDumpedWordCount(item)).toBe(words);
      }),
      { numRuns: 500 },
    );
  });
});
