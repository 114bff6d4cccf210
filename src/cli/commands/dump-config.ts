/** `ngym dump-config` (alias `ng_dump_config`): print the composed config with interpolations resolved. */
import * as z from 'zod';
import { loadGlobalConfig } from '../../config/global-config.ts';
import { resolveAll } from '../../config/interpolation.ts';
import { dumpYaml } from '../../config/yaml-file.ts';
import type { CliCommand } from '../command.ts';
import { ConfigPaths } from '../parameters.ts';

export const dumpConfigCommand: CliCommand = {
  name: 'dump-config',
  summary: 'Print the composed global config, interpolations resolved, as YAML.',
  description: `
Shows exactly what \`ngym run\` would start with the same arguments; useful to check overrides.
Example:
  ngym dump-config "+config_paths=[resources_servers/example_multi_step/configs/example_multi_step.yaml]"`,
  parameters: z.object({ config_paths: ConfigPaths }),
  async run(args) {
    const globalConfig = loadGlobalConfig({ overrides: args });
    process.stdout.write(dumpYaml(resolveAll({ root: globalConfig.dict, sources: globalConfig.sources })));
    return 0;
  },
};
