/**
 * Commands that an environment ships in its own folder (`resources_servers/<name>/cli.ts`, exporting `command`),
 * such as reasoning_gym's dataset tooling. They are imported by path when they run, so the framework depends on
 * no environment; tsx, which `bin/ngym.js` registers, loads the TypeScript file in a checkout and in the package.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { NgymError } from '../../errors.ts';
import { PACKAGE_ROOT } from '../../util/package-root.ts';
import type { CliCommand } from '../command.ts';

export async function environmentCommand(environment: string): Promise<CliCommand> {
  const path = join(PACKAGE_ROOT, 'resources_servers', environment, 'cli.ts');
  const module = (await import(pathToFileURL(path).href)) as { command?: CliCommand };
  if (typeof module.command?.run !== 'function') throw new NgymError('NGYM_INTERNAL', `${path} exports no \`command\` with a run() function.`);
  return module.command;
}
