import { describe, expect, it } from 'vitest';
import { runCli } from '../testing/cli-process.ts';
import { limitHeapGrowth } from './heap-growth.ts';

describe('limitHeapGrowth', () => {
  it('applies 50% unless told otherwise, leaves a flag given to Node alone, and refuses a bad value', () => {
    // Its effect on memory is measured by bench/vs-upstream.bench.ts (docs/performance.md); here, what it decides.
    expect(limitHeapGrowth({}, ['--heap-growing-percent=30'])).toBeUndefined();
    expect(limitHeapGrowth({ NODE_OPTIONS: '--max-old-space-size=4096 --heap-growing-percent=10' })).toBeUndefined();
    expect(limitHeapGrowth({ NGYM_HEAP_GROWING_PERCENT: '0' }, [])).toBeUndefined();
    expect(() => limitHeapGrowth({ NGYM_HEAP_GROWING_PERCENT: 'lots' }, [])).toThrow("NGYM_HEAP_GROWING_PERCENT must be a whole number >= 0 (0: V8's default growth), got 'lots'.");
    expect(limitHeapGrowth({ NGYM_HEAP_GROWING_PERCENT: '75' }, [])).toBe(75);
    expect(limitHeapGrowth({}, [])).toBe(50);
  });

  it('the ngym command refuses a bad NGYM_HEAP_GROWING_PERCENT with one clear line', async () => {
    const result = await runCli(['version'], { env: { NGYM_HEAP_GROWING_PERCENT: '-5' } });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("Error: NGYM_HEAP_GROWING_PERCENT must be a whole number >= 0 (0: V8's default growth), got '-5'.\n");
  });
});
