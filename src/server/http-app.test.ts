import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonNestingExceeds } from './http-app.ts';

/** Nesting depth of a JSON value, by walking the parsed value (the reference the text scan must match). */
function depthOf(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depthOf));
  if (value !== null && typeof value === 'object') return 1 + Math.max(0, ...Object.values(value).map(depthOf));
  return 0;
}

describe('jsonNestingExceeds', () => {
  it('matches the parsed depth, with brackets inside strings and many shallow brackets', () => {
    const leaf = fc.oneof(fc.integer(), fc.constantFrom('[', '{', ']', '}', '"[[', '\\"{'), fc.string());
    const value = fc.letrec<{ node: unknown }>((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(fc.string(), tie('node'), { maxKeys: 3 })),
    })).node;
    fc.assert(
      fc.property(value, fc.integer({ min: 1, max: 6 }), (json, limit) => {
        const text = JSON.stringify(json);
        expect(jsonNestingExceeds(text, limit)).toBe(depthOf(json) > limit);
      }),
      { numRuns: 2000 },
    );
  });

  it('finds deep nesting past the limit and lets wide bodies with more brackets than the limit through', () => {
    const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    expect(jsonNestingExceeds(deep(1001), 1000)).toBe(true);
    expect(jsonNestingExceeds(deep(1000), 1000)).toBe(false);
    // 5,000 sibling arrays: more opening brackets than the limit, depth 2.
    expect(jsonNestingExceeds(JSON.stringify(Array.from({ length: 5000 }, () => [1])), 1000)).toBe(false);
    // Brackets in a string do not count, even past the limit.
    expect(jsonNestingExceeds(JSON.stringify({ text: '['.repeat(5000) }), 1000)).toBe(false);
  });
});
