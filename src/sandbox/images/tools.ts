/** The host programs an image build runs (debootstrap, tar), with errors that say how to install a missing one. */
import { spawn } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { SandboxImageError } from './image-errors.ts';

/** Children still running, ended if this process exits first (a build never outlives its command). */
const running = new Set<ReturnType<typeof spawn>>();
let exitHookInstalled = false;

async function onPath(name: string): Promise<boolean> {
  // debootstrap lives in /usr/sbin, which a non-login PATH may lack.
  const directories = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/sbin'];
  for (const directory of directories) {
    if (directory === '') continue;
    try {
      await access(join(directory, name), constants.X_OK);
      return true;
    } catch {
      // Not here.
    }
  }
  return false;
}

export async function requireTool(name: string, install: string): Promise<void> {
  if (!(await onPath(name))) throw new SandboxImageError('tool_missing', `${name} is not installed; install it with: ${install}`);
}

/**
 * Runs a program to its end, handing each line of its output (stdout and stderr) to `line`; a non-zero exit throws
 * build_failed naming `what` with the output's last lines.
 */
export function runTool(command: string, args: string[], line: (text: string) => void, what: string): Promise<void> {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const child of running) child.kill('SIGKILL');
    });
  }
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PATH: `${process.env.PATH ?? ''}${delimiter}/usr/sbin${delimiter}/sbin` } });
    running.add(child);
    const tail: string[] = [];
    const reader = () => {
      let pending = '';
      return (chunk: Buffer) => {
        pending += chunk.toString('utf8');
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        for (const text of lines) {
          tail.push(text);
          if (tail.length > 20) tail.shift();
          line(text);
        }
      };
    };
    child.stdout.on('data', reader());
    child.stderr.on('data', reader());
    child.on('error', (error) => {
      running.delete(child);
      reject(new SandboxImageError('tool_missing', `${what}: cannot run ${command}: ${error.message}`, error));
    });
    child.on('close', (code, signal) => {
      running.delete(child);
      if (code === 0) resolve();
      else reject(new SandboxImageError('build_failed', `${what} failed (${signal ?? `exit ${code}`}):\n${tail.join('\n')}`));
    });
  });
}
