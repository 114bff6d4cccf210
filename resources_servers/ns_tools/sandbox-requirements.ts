/**
 * Why the Python tool cannot run on this machine, or null: its tests skip with this reason, as math_with_code's
 * do with the sandbox's. The tool needs the sandbox (bubblewrap) and IPython in the Python the sandbox runs
 * (the server itself checks the same at start and refuses to start without them); tests whose code imports more
 * (sympy) name those modules too.
 */
import { execFileSync } from 'node:child_process';
import { bubblewrapUnavailableReason, SANDBOX_PATH } from 'ngym';

export function pythonToolUnavailableReason(modules: readonly string[] = ['IPython']): string | null {
  const sandbox = bubblewrapUnavailableReason();
  if (sandbox !== null) return sandbox;
  const missing = modules.filter((module) => {
    try {
      execFileSync('python3', ['-c', `import ${module}`], { env: { PATH: SANDBOX_PATH }, stdio: 'ignore' });
      return false;
    } catch {
      return true;
    }
  });
  if (missing.length === 0) return null;
  return `the sandbox's python3 (on ${SANDBOX_PATH}) cannot import ${missing.join(', ')}, which ns_tools' model code needs here (Debian/Ubuntu: apt-get install python3-ipython python3-sympy)`;
}
