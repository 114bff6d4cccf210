/**
 * How fast V8 lets a process's heap grow past what its last full collection kept. V8 grows a busy heap by up
 * to 4x, and does not give the pages back: at 4,096 rollouts in flight the agent held ~260 MB of objects in a
 * 611 MB heap (712 MB RSS). Capping the growth at 1.5x kept it at 377 MB RSS and the whole gym at 1,260 MB
 * instead of ~1,850, with no loss of throughput (docs/performance.md). `NGYM_HEAP_GROWING_PERCENT` overrides
 * the 50 (0 leaves V8's own rule); a `--heap-growing-percent` given to Node itself wins.
 */
import { setFlagsFromString } from 'node:v8';
import { wholeNumberFromEnv } from './env-number.ts';

const ENV = 'NGYM_HEAP_GROWING_PERCENT';
const DEFAULT_PERCENT = 50;
const FLAG = '--heap-growing-percent';

/** Applies ngym's heap growth limit to this process; `ngym`'s commands and every server process call it first. */
export function limitHeapGrowth(env: NodeJS.ProcessEnv = process.env, nodeArgs: readonly string[] = [...process.execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)]): number | undefined {
  if (nodeArgs.some((arg) => arg.startsWith(FLAG) || arg.startsWith('--heap_growing_percent'))) return undefined;
  const percent = wholeNumberFromEnv(env, ENV, "0: V8's default growth") ?? DEFAULT_PERCENT;
  if (percent === 0) return undefined;
  setFlagsFromString(`${FLAG}=${percent}`);
  return percent;
}
