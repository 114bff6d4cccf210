import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.ts';
import { budgetBytes, configuredBudgetBytes, DEFAULT_MEMORY_SHARE, memoryLimit, parseMemoryBudget } from './memory-budget.ts';

describe('parseMemoryBudget', () => {
  it('reads amounts in binary and decimal units, shares, and null/off', () => {
    expect(parseMemoryBudget('512MiB')).toEqual({ bytes: 512 * 2 ** 20 });
    expect(parseMemoryBudget('2GiB')).toEqual({ bytes: 2 * 2 ** 30 });
    expect(parseMemoryBudget('1.5 GB')).toEqual({ bytes: 1.5e9 });
    expect(parseMemoryBudget('64kib')).toEqual({ bytes: 64 * 1024 });
    expect(parseMemoryBudget('75%')).toEqual({ share: 0.75 });
    expect(parseMemoryBudget(null)).toBeNull();
    expect(parseMemoryBudget('off')).toBeNull();
    expect(parseMemoryBudget(undefined)).toBeUndefined();
  });

  it.each([
    ['2GB/s', /'2GB\/s' is not an amount/],
    ['2 gigs', /'gigs' in '2 gigs' is not a unit/],
    ['512', /'512' has no unit/],
    [512, /512 has no unit/],
    ['0MiB', /not above zero/],
    ['150%', /not a share between 0% and 100%/],
  ])('refuses %j with a config error naming the key', (value, why) => {
    let caught: unknown;
    try {
      parseMemoryBudget(value, 'hungry.memory_budget');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).key).toBe('hungry.memory_budget');
    expect((caught as Error).message).toMatch(/^hungry\.memory_budget: /);
    expect((caught as Error).message).toMatch(why);
  });
});

describe('memoryLimit', () => {
  function cgroupTree(files: Record<string, string>, membership: string): { root: string; cgroupFile: string } {
    const root = mkdtempSync(join(tmpdir(), 'ngym-cgroup-'));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(root, path, '..'), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    writeFileSync(join(root, 'self-cgroup'), membership);
    return { root, cgroupFile: join(root, 'self-cgroup') };
  }

  it("takes the tightest cgroup v2 limit on the way to the root ('max' is none)", () => {
    const { root, cgroupFile } = cgroupTree({ 'jobs/memory.max': '1073741824\n', 'jobs/run-1/memory.max': 'max\n' }, '0::/jobs/run-1\n');
    expect(memoryLimit(root, cgroupFile)).toEqual({ bytes: 2 ** 30, source: 'cgroup' });
  });

  it("reads cgroup v1's memory controller, and ignores its 'unlimited' number", () => {
    const limited = cgroupTree({ 'memory/box/memory.limit_in_bytes': '536870912\n' }, '4:memory:/box\n1:cpu:/\n');
    expect(memoryLimit(limited.root, limited.cgroupFile)).toEqual({ bytes: 512 * 2 ** 20, source: 'cgroup' });
    const unlimited = cgroupTree({ 'memory/box/memory.limit_in_bytes': '9223372036854771712\n' }, '4:memory:/box\n');
    expect(memoryLimit(unlimited.root, unlimited.cgroupFile)).toEqual({ bytes: totalmem(), source: 'machine' });
  });

  it("is the machine's memory without cgroup files", () => {
    expect(memoryLimit('/nonexistent', '/nonexistent/cgroup')).toEqual({ bytes: totalmem(), source: 'machine' });
  });
});

describe('budgetBytes', () => {
  const limit = () => ({ bytes: 1000 * 2 ** 20, source: 'cgroup' as const });

  it('is the default share of the limit when nothing is set, a share of it, an amount, or none', () => {
    expect(budgetBytes(undefined, limit)).toBe(Math.floor(1000 * 2 ** 20 * DEFAULT_MEMORY_SHARE));
    expect(budgetBytes({ share: 0.5 }, limit)).toBe(500 * 2 ** 20);
    expect(budgetBytes({ bytes: 123 }, limit)).toBe(123);
    expect(budgetBytes(null, limit)).toBeNull();
  });

  it("takes a server's own memory_budget over the top-level one, null included", () => {
    expect(configuredBudgetBytes('100MiB', '2GiB')).toBe(100 * 2 ** 20);
    expect(configuredBudgetBytes(undefined, '2GiB')).toBe(2 * 2 ** 30);
    expect(configuredBudgetBytes(null, '2GiB')).toBeNull();
    expect(() => configuredBudgetBytes(undefined, '2 GiBs')).toThrow(/^memory_budget: /);
  });
});
