/**
 * vitest global setup: when podman is installed and DOCKER_HOST is not set, starts the project's container engine
 * (scripts/container-engine.sh start --lease <this pid>) and gives the tests its DOCKER_HOST; after the run, stops
 * it unless another test run still holds a lease on it (or it was started by hand). With DOCKER_HOST set (CI's
 * engine, a Docker) it does nothing. Tests that need the engine ask containerEngineForTests().
 */
import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { PACKAGE_ROOT } from '../util/package-root.ts';
import { ENGINE_SETUP_FAILURE_VARIABLE } from './container-engine.ts';

const run = promisify(execFile);
const SCRIPT = join(PACKAGE_ROOT, 'scripts', 'container-engine.sh');

async function podmanInstalled(): Promise<boolean> {
  for (const directory of (process.env.PATH ?? '').split(delimiter)) {
    if (directory === '') continue;
    try {
      await access(join(directory, 'podman'), constants.X_OK);
      return true;
    } catch {
      // Not here.
    }
  }
  return false;
}

export default async function startContainerEngine(): Promise<(() => Promise<void>) | undefined> {
  if (process.env.DOCKER_HOST || !(await podmanInstalled())) return undefined;
  const lease = String(process.pid);
  try {
    const { stdout } = await run('bash', [SCRIPT, 'start', '--lease', lease], { timeout: 90_000 });
    const dockerHost = /export DOCKER_HOST=(\S+)/.exec(stdout)?.[1];
    if (dockerHost === undefined) throw new Error(`no DOCKER_HOST in its output: ${stdout.trim()}`);
    // Test workers are started after this and inherit it.
    process.env.DOCKER_HOST = dockerHost;
  } catch (error) {
    const detail = (error as { stderr?: string }).stderr?.trim() || (error as Error).message;
    process.env[ENGINE_SETUP_FAILURE_VARIABLE] = `scripts/container-engine.sh start failed: ${detail}`;
    process.stderr.write(`[container engine] not started; tests that need it skip: ${detail}\n`);
    return undefined;
  }
  return async () => {
    await run('bash', [SCRIPT, 'stop', '--lease', lease], { timeout: 60_000 }).catch((error: unknown) => {
      process.stderr.write(`[container engine] stop failed: ${(error as { stderr?: string }).stderr?.trim() || (error as Error).message}\n`);
    });
  };
}
