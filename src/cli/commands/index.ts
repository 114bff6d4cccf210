/**
 * Every `ngym` subcommand, in the order `ngym --help` lists them. Add new commands here.
 *
 * A command's module is imported only when it runs or prints its help: `ngym run`'s head process lives as long
 * as the gym, and importing every command (the collector, the queue client, reasoning_gym's generators, the
 * viewer) cost it about 50 MB. The name and aliases are here so a command is found without loading the others.
 * This is the one alias table: help, `ngym --help`, the `gym` tree's mapping and (checked by cli.test.ts)
 * package.json's `ng_*` scripts all follow it.
 */
import type { CliCommand } from '../command.ts';
import { environmentCommand } from './environment-command.ts';

export interface CommandEntry {
  name: string;
  /** Upstream-style script names (`ng_run`) and old names that run this command. */
  aliases: readonly string[];
  load(): Promise<CliCommand>;
}

export const COMMANDS: readonly CommandEntry[] = [
  { name: 'demo', aliases: [], load: async () => (await import('./demo.ts')).demoCommand },
  { name: 'run', aliases: ['ng_run', 'nemo_gym_run'], load: async () => (await import('./run.ts')).runCommand },
  { name: 'prefetch', aliases: [], load: async () => (await import('./prefetch.ts')).prefetchCommand },
  { name: 'collect', aliases: ['ng_collect_rollouts', 'nemo_gym_collect_rollouts'], load: async () => (await import('./collect.ts')).collectCommand },
  { name: 'worker', aliases: [], load: async () => (await import('./worker.ts')).workerCommand },
  { name: 'client', aliases: [], load: async () => (await import('./client.ts')).clientCommand },
  { name: 'init', aliases: ['ng_init_resources_server', 'nemo_gym_init_resources_server'], load: async () => (await import('./init.ts')).initCommand },
  { name: 'env', aliases: [], load: async () => (await import('./env.ts')).envCommand },
  { name: 'test', aliases: ['ng_test', 'nemo_gym_test'], load: async () => (await import('./test.ts')).testCommand },
  { name: 'test-all', aliases: ['ng_test_all', 'nemo_gym_test_all'], load: async () => (await import('./test.ts')).testAllCommand },
  { name: 'prepare-data', aliases: ['ng_prepare_data', 'nemo_gym_prepare_data'], load: async () => (await import('./prepare-data.ts')).prepareDataCommand },
  { name: 'view', aliases: ['ng_viewer', 'nemo_gym_viewer'], load: async () => (await import('./view.ts')).viewCommand },
  { name: 'sandbox', aliases: [], load: async () => (await import('./sandbox.ts')).sandboxCommand },
  { name: 'reasoning-gym', aliases: [], load: () => environmentCommand('reasoning_gym') },
  { name: 'dump-config', aliases: ['ng_dump_config', 'nemo_gym_dump_config'], load: async () => (await import('./dump-config.ts')).dumpConfigCommand },
  { name: 'version', aliases: ['ng_version', 'nemo_gym_version'], load: async () => (await import('./version.ts')).versionCommand },
];

/** Upstream's script that prints the list of commands (`ngym --help`); it runs no command. */
export const OVERVIEW_ALIAS = 'ng_help';

/** The entry's names that package.json installs as scripts (`ng_run`); the `nemo_gym_*` ones are `ngym` arguments only. */
export function scriptAliases(entry: CommandEntry): string[] {
  return entry.aliases.filter((alias) => alias.startsWith('ng_'));
}

/** The entry of this name or alias; undefined when there is none. */
export function findCommand(nameOrAlias: string): CommandEntry | undefined {
  return COMMANDS.find((entry) => entry.name === nameOrAlias || entry.aliases.includes(nameOrAlias));
}
