/**
 * `gym eval run` without `--no-serve`: start the composed gym (as `ngym run`), collect the rollouts from it (as
 * `ngym collect`), then stop every server, whatever the collection's outcome.
 */
import { loadGlobalConfig } from '../../config/global-config.ts';
import { NgymError } from '../../errors.ts';
import { launch } from '../../gym/launcher.ts';
import { collectCommand } from '../commands/collect.ts';

export async function runEvaluation(overrides: string[]): Promise<number> {
  const globalConfig = loadGlobalConfig({ overrides });
  if (globalConfig.servers.length === 0) {
    throw new NgymError('NGYM_USAGE', 'gym eval run has no servers to start: pass --environment, --config or --resources-server (or --no-serve to use a running gym).');
  }
  const gym = await launch({ globalConfig });
  try {
    const head = new URL(gym.headUrl);
    return await collectCommand.run([...overrides, `++head_server={host: ${head.hostname}, port: ${head.port}}`]);
  } finally {
    await gym.stop();
  }
}
