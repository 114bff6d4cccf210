/**
 * A CLI command takes upstream-style `+key=value` overrides: its parameters are top-level keys of the
 * global config, so `ngym collect +agent_name=x` and a `agent_name: x` line in a config file are the same.
 * Every command prints its help for `--help`, `-h`, `+h=true` and `+help=true`, before any side effect.
 */
import * as z from 'zod';
import { ServerClient } from '../client/server-client.ts';
import type { GlobalConfig } from '../config/global-config.ts';
import { ConfigError } from '../errors.ts';
import { parseReportingInput, validationDetails } from '../protocol/validation.ts';
import { AUTH_TOKEN_KEY, authTokenOf } from '../client/auth-token.ts';
import { parameterHelp, parameterKeys } from './parameters.ts';

export interface CliCommand {
  name: string;
  summary: string;
  /** The arguments after the command name in the usage line, when they are not `+key=value` overrides. */
  usage?: string;
  /** Longer text with examples, shown by `--help`. */
  description: string;
  /** Its `+key=value` parameters, which its help lists (see parameters.ts); absent when it takes none. */
  parameters?: z.ZodObject;
  /** Actions that answer `--help` themselves (`ngym sandbox image --help`): help after one of them goes to `run`. */
  actionsWithOwnHelp?: readonly string[];
  /** Runs the command; resolves to the process exit code. */
  run(args: string[]): Promise<number>;
}

/** The command's `--help`; `aliases` are its other names in the command table (commands/index.ts). */
export function commandHelp(command: CliCommand, aliases: readonly string[], invokedAs = `ngym ${command.name}`): string {
  const lines = [`Usage: ${invokedAs} ${command.usage ?? '[+key=value ...]'}`, '', command.summary, '', command.description.trim(), ''];
  const parameters = command.parameters === undefined ? [] : parameterHelp(command.parameters);
  if (parameters.length === 0) {
    if (command.usage === undefined) lines.push('There are no parameters for this command.');
  } else {
    lines.push('Parameters (pass as +name=value):');
    for (const parameter of parameters) {
      const suffix = parameter.required ? ' [required]' : parameter.default !== undefined ? ` [default: ${parameter.default}]` : '';
      lines.push(`  +${parameter.name} (${parameter.type})  ${parameter.description}${suffix}`);
    }
  }
  if (aliases.length > 0) lines.push('', `Also available as: ${aliases.join(', ')}`);
  return lines.join('\n').trimEnd();
}

const HELP_TOKENS = new Set(['--help', '-h', '+h=true', '+help=true', '++h=true', '++help=true', '+h=True', '+help=True']);

export function wantsHelp(args: readonly string[]): boolean {
  return args.some((arg) => HELP_TOKENS.has(arg));
}

/** Reads a command's parameters (top-level config keys) and validates them; errors name every missing key. */
export function readParameters<Schema extends z.ZodObject>(globalConfig: GlobalConfig, schema: Schema): z.infer<Schema> {
  const values: Record<string, unknown> = {};
  for (const key of parameterKeys(schema)) {
    const value = globalConfig.resolvedValue([key]);
    if (value !== undefined) values[key] = value;
  }
  const result = parseReportingInput(schema, values);
  if (result.success) return result.data;
  const details = validationDetails(result.error, []);
  const missing = details.filter((detail) => detail.type === 'missing').map((detail) => detail.loc.join('.'));
  const other = details.filter((detail) => detail.type !== 'missing').map((detail) => `  - +${detail.loc.join('.')}: ${detail.msg}`);
  const lines: string[] = [];
  if (missing.length > 0) {
    lines.push(`Missing required parameters: ${missing.join(', ')}. Provide each as a +name=<value> override (see --help).`);
  }
  if (other.length > 0) lines.push('Invalid parameters:', ...other);
  throw new ConfigError('NGYM_USAGE', lines.join('\n'), { key: missing[0] ?? details[0]?.loc.join('.') });
}

/** A client of the running gym the config's head server names, with its auth_token when it has one. */
export function headServerClient(globalConfig: GlobalConfig): Promise<ServerClient> {
  return ServerClient.fromHeadServer(globalConfig.headServer, undefined, authTokenOf(globalConfig.dict[AUTH_TOKEN_KEY]));
}
