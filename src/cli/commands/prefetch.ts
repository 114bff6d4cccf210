/** `ngym prefetch` (`gym env prefetch`): build every Python server's environment a config needs, start nothing. */
import * as z from 'zod';
import { loadGlobalConfig } from '../../config/global-config.ts';
import { NgymError } from '../../errors.ts';
import { locateAndValidate, preparePythonServers } from '../../gym/launcher.ts';
import type { CliCommand } from '../command.ts';
import { formatTable } from '../output.ts';
import { ConfigPaths, PythonEnvironmentParameters } from '../parameters.ts';

export const prefetchCommand: CliCommand = {
  name: 'prefetch',
  summary: "Build the Python environments of a config's servers ahead of time (gym env prefetch); starts nothing.",
  description: `
Checks every server of the config as \`ngym run\` would, then makes each Python server's own environment
(uv, from the shared cache) so that a later \`ngym run\` of the same config builds nothing and, with
+offline=true, needs no network. TypeScript servers need nothing. A second prefetch returns at once.

Examples:
  ngym prefetch "+config_paths=[resources_servers/grl_tetris/configs/grl_tetris.yaml]"
  gym env prefetch --environment blackjack`,
  parameters: z.object({ config_paths: ConfigPaths, ...PythonEnvironmentParameters }),
  async run(args) {
    const globalConfig = loadGlobalConfig({ overrides: args });
    if (globalConfig.servers.length === 0) throw new NgymError('NGYM_USAGE', 'The config has no servers; pass +config_paths=[...] (or --config, --environment).');
    const output = (line: string) => process.stderr.write(`${line}\n`);
    const locations = await locateAndValidate(globalConfig, output);
    const reports = await preparePythonServers(globalConfig, locations, output);
    const rows = globalConfig.servers.map((instance) => {
      const location = locations.get(instance.name);
      const report = reports.find((entry) => entry.names.includes(instance.name));
      if (report === undefined) return [instance.name, `${instance.serverType}/${instance.impl}`, 'TypeScript', 'nothing to build', ''];
      const what = { base: 'nothing beyond nemo-gym', present: 'existing environment, used as is', reused: 'up to date', built: `built in ${report.seconds.toFixed(1)} s` }[report.state];
      return [instance.name, `${instance.serverType}/${instance.impl}`, `Python ${location?.directory ?? ''}`, what, report.python];
    });
    process.stdout.write(`${formatTable(['instance', 'server', 'runs', 'environment', 'interpreter'], rows)}\nPrefetch complete.\n`);
    return 0;
  },
};
