/** One hand-written node:http server of bench/baseline (a model, resources or agent role) in its own process. */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../src/util/package-root.ts';

export function startBaselineServer(options: Record<string, unknown>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(PACKAGE_ROOT, 'bench', 'baseline', 'server.ts'), JSON.stringify(options)], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout?.setEncoding('utf8').once('data', (line: string) => resolve({ child, url: `http://127.0.0.1:${JSON.parse(line).port}` }));
    child.once('exit', (code) => reject(new Error(`baseline server exited with ${code}`)));
  });
}
