import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/** Runs `source` (an ES module that may import exitWithin) in its own Node; resolves to how it ended and when. */
function run(source: string): Promise<{ signal: NodeJS.Signals | null; code: number | null; ms: number }> {
  const started = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', source], { stdio: 'ignore' });
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, ms: Date.now() - started })));
}

const IMPORT = `const { exitWithin } = await import(${JSON.stringify(new URL('./exit-deadline.ts', import.meta.url).href)});`;

describe('exitWithin', () => {
  it('kills a process whose exit hangs in synchronous code (no timer or signal handler of its own could run)', { timeout: 60_000 }, async () => {
    const ended = await run(`${IMPORT}\nexitWithin(1000);\nprocess.on('exit', () => { for (;;) {} });\nprocess.exit(0);`);
    expect(ended.signal).toBe('SIGKILL');
  });

  it('leaves a process that exits in time alone, and does not keep it alive', { timeout: 60_000 }, async () => {
    const ended = await run(`${IMPORT}\nexitWithin(60_000);\nsetTimeout(() => {}, 100);`);
    expect(ended).toMatchObject({ signal: null, code: 0 });
    expect(ended.ms).toBeLessThan(30_000);
  });
});
