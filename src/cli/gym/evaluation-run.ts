/**
 * `gym eval run` without `--no-serve`: start the composed gym (as `ngym run`), collect the rollouts from it (as
 * `ngym collect`; once per entry of `collections`, each adding its own overrides, e.g. one per benchmark), then
 * stop every server, whatever the collections' outcome. The exit code is the worst of the collections'.
 */
import { loadGlobalConfig } from '../../config/global-config.ts';
import { NgymError } from '../../errors.ts';
import { launch } from '../../gym/launcher.ts';
import { collectCommand } from '../commands/collect.ts';

export async function runEvaluation(overrides: string[], collections: string[][] = [[]]): Promise<number> {
  const globalConfig = loadGlobalConfig({ overrides });
  if (globalConfig.servers.length === 0) {
    throw new NgymError('NGYM_USAGE', 'gym eval run has no servers to start: pass --environment, --config or --resources-server (or --no-serve to use a running gym).');
  }
  const gym = await launch({ globalConfig });
  try {
    const head = new URL(gym.headUrl);
    let code = 0;
    for (const collection of collections) {
      code = Math.max(code, await collectCommand.run([...overrides, ...collection, `++head_server={host: ${head.hostname}, port: ${head.port}}`]));
    }
    return code;
  } finally {
    await gym.stop();
  }
}
