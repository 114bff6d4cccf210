/**
 * The `memory_budget` setting: how much resident memory a process may hold and still take new work. Given as an
 * amount (`512MiB`, `2GiB`, `1.5GB`) or as a share of the memory this process may use (`75%`): its cgroup's
 * limit (v2 `memory.max`, v1 `memory.limit_in_bytes`) or, without one, the machine's. `null` or `off` turns
 * admission by memory off. Absent everywhere, the budget is DEFAULT_MEMORY_SHARE of that memory.
 */
import { readFileSync } from 'node:fs';
import { totalmem } from 'node:os';
import { ConfigError } from '../errors.ts';

/** The share of the process's memory limit a budget takes when no config names one. */
export const DEFAULT_MEMORY_SHARE = 0.8;

export const MEMORY_BUDGET_KEY = 'memory_budget';

/** What a `memory_budget` value asks for; null: no budget. */
export type MemoryBudgetSetting = { bytes: number } | { share: number } | null;

const UNITS: Readonly<Record<string, number>> = {
  b: 1,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
};

const FORMAT = /^\s*(\d+(?:\.\d+)?)\s*([a-z%]*)\s*$/i;

/**
 * Reads a `memory_budget` value; undefined when absent. Anything else than an amount with a unit, a percentage
 * or null/off is a config error naming `key`.
 */
export function parseMemoryBudget(value: unknown, key: string = MEMORY_BUDGET_KEY): MemoryBudgetSetting | undefined {
  if (value === undefined) return undefined;
  if (value === null || value === 'null' || value === 'off' || value === 'none') return null;
  const problem = (why: string) =>
    new ConfigError('NGYM_CONFIG_INVALID', `${key}: ${why}; give an amount with a unit (512MiB, 2GiB, 1.5GB), a share of the memory limit (75%), or null for none.`, { key, status: 400 });
  if (typeof value !== 'string') throw problem(`${JSON.stringify(value)} has no unit`);
  const match = FORMAT.exec(value);
  if (match === null) throw problem(`'${value}' is not an amount`);
  const amount = Number(match[1]);
  const unit = (match[2] as string).toLowerCase();
  if (unit === '%') {
    if (amount <= 0 || amount > 100) throw problem(`'${value}' is not a share between 0% and 100%`);
    return { share: amount / 100 };
  }
  const scale = UNITS[unit];
  if (scale === undefined) throw problem(unit === '' ? `'${value}' has no unit` : `'${match[2]}' in '${value}' is not a unit (B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)`);
  if (amount <= 0) throw problem(`'${value}' is not above zero`);
  return { bytes: Math.floor(amount * scale) };
}

export interface MemoryLimit {
  bytes: number;
  /** Where it was read: `cgroup` or `machine`. */
  source: 'cgroup' | 'machine';
}

/** Bytes in a cgroup limit file; undefined for `max`, an absurd v1 "unlimited", or no such file. */
function limitIn(path: string): number | undefined {
  try {
    const text = readFileSync(path, 'utf8').trim();
    const bytes = Number(text);
    return Number.isFinite(bytes) && bytes > 0 && bytes < 2 ** 60 ? bytes : undefined;
  } catch {
    return undefined;
  }
}

/** The memory this process may use: the tightest cgroup limit on its way to the root, else the machine's. */
export function memoryLimit(root = '/sys/fs/cgroup', cgroupFile = '/proc/self/cgroup'): MemoryLimit {
  let membership = '';
  try {
    membership = readFileSync(cgroupFile, 'utf8');
  } catch {
    // Not Linux: the machine's memory.
  }
  const candidates: number[] = [];
  for (const line of membership.split('\n')) {
    const [, controllers, path] = /^\d+:([^:]*):(.*)$/.exec(line) ?? [];
    if (path === undefined) continue;
    const [file, base] = controllers === '' ? ['memory.max', root] : controllers?.split(',').includes('memory') ? ['memory.limit_in_bytes', `${root}/memory`] : [];
    if (file === undefined) continue;
    // A limit on any ancestor applies too; inside a container the path may not exist, and the root's file is its own.
    const parts = path.split('/').filter(Boolean);
    for (let depth = parts.length; depth >= 0; depth--) {
      const bytes = limitIn(`${base}/${parts.slice(0, depth).join('/')}/${file}`.replace(/\/+/g, '/'));
      if (bytes !== undefined) candidates.push(bytes);
    }
  }
  const machine = totalmem();
  const cgroup = Math.min(...candidates);
  return cgroup < machine ? { bytes: cgroup, source: 'cgroup' } : { bytes: machine, source: 'machine' };
}

/** The budget in bytes a setting gives (absent: the default share); null for none. */
export function budgetBytes(setting: MemoryBudgetSetting | undefined, limit: () => MemoryLimit = memoryLimit): number | null {
  if (setting === null) return null;
  if (setting !== undefined && 'bytes' in setting) return setting.bytes;
  return Math.floor(limit().bytes * (setting?.share ?? DEFAULT_MEMORY_SHARE));
}

/** `512 MiB`: bytes as messages give them. */
export function describeBytes(bytes: number): string {
  return bytes >= 2 ** 30 ? `${Number((bytes / 2 ** 30).toFixed(2))} GiB` : `${Math.round(bytes / 2 ** 20)} MiB`;
}

/**
 * The budget of one server or process: `memory_budget` in its own config entry wins over the top-level one; with
 * neither, the default share. Bad values are config errors naming the key where they were found.
 */
export function configuredBudgetBytes(ownValue: unknown, topLevelValue: unknown, ownKey: string = MEMORY_BUDGET_KEY): number | null {
  const own = parseMemoryBudget(ownValue, ownKey);
  return budgetBytes(own !== undefined ? own : parseMemoryBudget(topLevelValue, MEMORY_BUDGET_KEY));
}
