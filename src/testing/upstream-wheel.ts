/**
 * Upstream NeMo Gym 0.7.0 as `npm run setup:python` installs it: a venv (NGYM_PYTHON_VENV, else `.venv` in the
 * package root) whose wheel ships each environment's app.py, configs and recorded rollouts. Parity tests read
 * them from there and skip, saying how to install it, when the venv lacks it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../util/package-root.ts';

export interface UpstreamWheel {
  /** The venv: NGYM_PYTHON_VENV, else `<package root>/.venv`. */
  venv: string;
  /** The venv's python. */
  python: string;
  /** Its site-packages, where the wheel's `nemo_gym` and `resources_servers` are. */
  sitePackages: string;
  /** The environment's folder of the wheel (`resources_servers/<environment>`), when one was named. */
  folder: string;
  /** Why what was asked for cannot be read (a test's skip message), or null when it can. */
  skipReason: string | null;
}

/**
 * The venv's upstream wheel; given an environment, its folder too, and a skip reason also when the wheel ships
 * no `data/example_rollouts.jsonl` for it.
 */
export function upstreamWheel(environment?: string): UpstreamWheel {
  const venv = process.env.NGYM_PYTHON_VENV || join(PACKAGE_ROOT, '.venv');
  const python = join(venv, 'bin', 'python');
  const sitePackages = join(venv, 'lib', 'python3.11', 'site-packages');
  const folder = join(sitePackages, 'resources_servers', environment ?? '');
  let skipReason: string | null = null;
  if (!existsSync(python) || !existsSync(join(sitePackages, 'nemo_gym'))) {
    skipReason = `upstream NeMo Gym 0.7.0 is not installed in ${venv} (run \`npm run setup:python\`, or set NGYM_PYTHON_VENV); skipping`;
  } else if (environment !== undefined && !existsSync(join(folder, 'data', 'example_rollouts.jsonl'))) {
    skipReason = `upstream NeMo Gym in ${venv} ships no recorded rollouts for ${environment} (${join(folder, 'data', 'example_rollouts.jsonl')}); skipping`;
  }
  return { venv, python, sitePackages, folder, skipReason };
}
