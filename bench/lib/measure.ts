/** Measurement helpers: process CPU from /proc, percentiles, child processes that report JSON. */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { SOURCE_NODE_ARGS } from '../../src/util/package-root.ts';

const CLOCK_TICKS_PER_SECOND = 100;

/** User + system CPU seconds of a process so far (Linux /proc). */
function processCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

export function totalCpuSeconds(pids: number[]): number {
  return pids.reduce((sum, pid) => sum + processCpuSeconds(pid), 0);
}

export function percentile(sorted: number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] as number;
}

/** Runs `node --import tsx <script> <json>` and resolves to the last JSON line it prints. */
export function runReporting<T>(script: string, argument: unknown, env: NodeJS.ProcessEnv = {}): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...SOURCE_NODE_ARGS, '--import', 'tsx', script, JSON.stringify(argument)], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, NGYM_LOG_LEVEL: 'error', ...env },
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.on('close', (code) => {
      const last = stdout.trim().split('\n').at(-1);
      if (code !== 0 || last === undefined) reject(new Error(`${script} exited with ${code}: ${stdout.slice(-2000)}`));
      else resolve(JSON.parse(last) as T);
    });
  });
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

export function format(value: number, digits = 1): string {
  return Number.isFinite(value) ? value.toFixed(digits) : '-';
}
