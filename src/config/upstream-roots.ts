/**
 * Where an installed upstream NeMo Gym keeps its environments: the folder holding its `nemo_gym` package, which
 * also holds `resources_servers/`, `responses_api_agents/`, `environments/`, ... (a wheel's site-packages, or a git
 * checkout). ngym looks there after its own folders, so upstream's config paths and environment names work as
 * they do upstream. `python_server_roots` names the folders outright; otherwise the interpreter that runs Python
 * servers is asked (`python_executable`, else the working directory's `.venv`, else python3).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface UpstreamRootSettings {
  python_server_roots?: unknown;
  python_executable?: unknown;
}

const FIND_ROOT = "import importlib.util, os; spec = importlib.util.find_spec('nemo_gym'); print(os.path.dirname(os.path.dirname(spec.origin)) if spec and spec.origin else '')";
const discovered = new Map<string, string[]>();

/** `python_executable` as a command: a path resolved against the working directory, a bare name as given; undefined when unset. */
export function configuredPython(settings: UpstreamRootSettings, cwd = process.cwd()): string | undefined {
  const configured = settings.python_executable;
  if (typeof configured !== 'string' || configured === '') return undefined;
  return configured.includes('/') ? resolve(cwd, configured) : configured;
}

/** The interpreter Python servers run with: `python_executable`, else the working directory's `.venv`, else python3. */
export function defaultPythonOf(settings: UpstreamRootSettings, cwd = process.cwd()): string {
  const configured = configuredPython(settings, cwd);
  if (configured !== undefined) return configured;
  const local = join(cwd, '.venv', 'bin', 'python');
  return existsSync(local) ? local : 'python3';
}

export function upstreamRoots(settings: UpstreamRootSettings, cwd = process.cwd()): string[] {
  const value = settings.python_server_roots;
  if (value !== undefined && value !== null) {
    const roots = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [];
    return roots.filter((root): root is string => typeof root === 'string').map((root) => resolve(cwd, root));
  }
  const python = defaultPythonOf(settings, cwd);
  let roots = discovered.get(python);
  if (roots === undefined) {
    // Asked without importing nemo_gym (which would take seconds); no Python or no nemo-gym is simply no root.
    const answer = spawnSync(python, ['-c', FIND_ROOT], { encoding: 'utf8', timeout: 30_000 });
    const root = answer.status === 0 ? answer.stdout.trim() : '';
    roots = root !== '' && existsSync(root) ? [root] : [];
    discovered.set(python, roots);
  }
  return roots;
}
