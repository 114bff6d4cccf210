/**
 * The `ngym` command and its upstream-style aliases (`ng_run`, `ng_collect_rollouts`, ...). Every command
 * prints help for `--help` and `+h=true`; errors that are the user's to fix print as one clear message
 * (no stack trace) and exit 1.
 */
import { Command } from 'commander';
import { NgymError } from '../errors.ts';
import { commandHelp, wantsHelp } from './command.ts';
import { COMMANDS, type CommandEntry, findCommand, OVERVIEW_ALIAS, scriptAliases } from './commands/index.ts';
import { versionInfo } from './commands/version.ts';

export { limitHeapGrowth } from '../util/heap-growth.ts';
export { endWithParent } from './end-with-parent.ts';

/** `gym <group> <command>`: its tree is imported only when ngym is invoked as `gym`, as commands are (commands/index.ts). */
export async function mainGym(argv: string[]): Promise<number> {
  return (await import('./gym/tree.ts')).mainGym(argv);
}

async function execute(entry: CommandEntry, args: string[], invokedAs: string): Promise<number> {
  const command = await entry.load();
  if (wantsHelp(args) && !(args[0] !== undefined && command.actionsWithOwnHelp?.includes(args[0]))) {
    process.stdout.write(`${commandHelp(command, entry.aliases, invokedAs)}\n`);
    return 0;
  }
  try {
    return await command.run(args);
  } catch (error) {
    if (NgymError.isInstance(error)) {
      process.stderr.write(`Error: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

async function overview(): Promise<string> {
  const width = Math.max(...COMMANDS.map((command) => command.name.length));
  const commands = await Promise.all(COMMANDS.map((entry) => entry.load()));
  const lines = commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`);
  return [
    'ngym: NeMo Gym in TypeScript. Build RL environments for LLMs, run them as servers, collect scored rollouts.',
    '',
    'Usage: ngym <command> [+key=value ...]',
    '',
    'Commands:',
    ...lines,
    '',
    'Run `ngym <command> --help` for a command\'s parameters.',
    `Upstream-style aliases: ${COMMANDS.flatMap(scriptAliases).join(', ')} (they accept +h=true for help).`,
    "Upstream 0.7's command tree: `gym <group> <command>` (alias `ng`); `gym --help` lists it.",
  ].join('\n');
}

/** Runs `ngym <args>`; resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const program = new Command('ngym')
    .version(versionInfo().ngym, '-v, --version')
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .argument('[command]')
    .argument('[args...]')
    .configureOutput({ writeErr: (text) => process.stderr.write(text) })
    .exitOverride();
  let exitCode = 0;
  program.action(async (name: string | undefined, args: string[]) => {
    if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
      const target = name === 'help' && args[0] !== undefined ? findCommand(args[0]) : undefined;
      process.stdout.write(`${target === undefined ? await overview() : commandHelp(await target.load(), target.aliases)}\n`);
      return;
    }
    const entry = findCommand(name);
    if (entry === undefined) {
      const suggestion = COMMANDS.find((candidate) => candidate.name.startsWith(name.slice(0, 3)));
      process.stderr.write(`Unknown command '${name}'.${suggestion ? ` Did you mean '${suggestion.name}'?` : ''} Run \`ngym --help\` for the list.\n`);
      exitCode = 2;
      return;
    }
    exitCode = await execute(entry, args, `ngym ${entry.name}`);
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'commander.version' || code === 'commander.helpDisplayed') return 0;
    throw error;
  }
  return exitCode;
}

/** Runs an alias such as `ng_run`: the same command and arguments. */
export async function mainForAlias(alias: string, argv: string[]): Promise<number> {
  if (alias === OVERVIEW_ALIAS) {
    process.stdout.write(`${await overview()}\n`);
    return 0;
  }
  const entry = findCommand(alias);
  if (entry === undefined) throw new Error(`unknown alias ${alias}`);
  return execute(entry, argv, alias);
}
