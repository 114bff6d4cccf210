/**
 * The Python that runs upstream's benchmark code (prepare scripts) and whose nemo-gym holds the benchmarks. One
 * place on purpose: per-server virtual environments will choose another here. For now: `python_executable`, else
 * the working directory's `.venv` (as for Python servers), else the ngym project's `.venv` (`npm run setup:python`),
 * else python3.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { defaultPythonOf, type UpstreamRootSettings } from '../config/upstream-roots.ts';
import { PACKAGE_ROOT } from '../util/package-root.ts';

export function benchmarkPython(settings: UpstreamRootSettings, cwd = process.cwd()): string {
  const chosen = defaultPythonOf(settings, cwd);
  const project = join(PACKAGE_ROOT, '.venv', 'bin', 'python');
  return chosen === 'python3' && existsSync(project) ? project : chosen;
}
