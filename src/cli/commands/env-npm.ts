/**
 * How `ngym env` talks to npm: the npm on PATH with the user's own configuration (registries, scopes, tokens), and
 * the split of a subcommand's arguments into its words, npm's flags (passed through) and `+key=value` overrides.
 */
import { spawnSync } from 'node:child_process';
import { NgymError } from '../../errors.ts';

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Runs npm; its output goes to the terminal, or stdout is returned when `capture`. */
export function runNpm(args: readonly string[], cwd: string, capture = false): { code: number; stdout: string } {
  const result = spawnSync(NPM, args, { cwd, encoding: 'utf8', stdio: capture ? ['ignore', 'pipe', 'inherit'] : 'inherit', maxBuffer: 256 * 1024 * 1024 });
  if (result.error !== undefined) throw new NgymError('NGYM_USAGE', `Could not run npm (${result.error.message}); ngym env uses the npm on PATH.`);
  return { code: result.status ?? 1, stdout: result.stdout ?? '' };
}

export interface EnvArguments {
  words: string[];
  npmFlags: string[];
  overrides: string[];
}

/** npm flags that take a value (`--registry URL`, `--tag next`): the value travels with the flag. */
const VALUE_FLAGS = new Set(['--registry', '--tag', '--access', '--otp', '--userconfig', '--scope', '--searchlimit', '--workspace']);

/** Positional words, npm's own `--flags` (passed through) and `+key=value` overrides. */
export function splitArguments(args: readonly string[]): EnvArguments {
  const words: string[] = [];
  const npmFlags: string[] = [];
  const overrides: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (arg.startsWith('+')) overrides.push(arg);
    else if (arg.startsWith('--')) {
      npmFlags.push(arg);
      const next = args[index + 1];
      if (!arg.includes('=') && next !== undefined && !next.startsWith('-') && !next.startsWith('+') && VALUE_FLAGS.has(arg)) npmFlags.push(args[++index] as string);
    } else words.push(arg);
  }
  return { words, npmFlags, overrides };
}
