/** Whole-number settings read from environment variables (`NGYM_*`), refused with a message naming the variable. */
import { ConfigError } from '../errors.ts';

/** The variable as a whole number >= 0; undefined when it is unset or blank. `meaning` explains a special value in the error. */
export function wholeNumberFromEnv(env: NodeJS.ProcessEnv, name: string, meaning?: string): number | undefined {
  const configured = env[name]?.trim();
  if (!configured) return undefined;
  const value = Number(configured);
  if (!Number.isInteger(value) || value < 0) {
    throw new ConfigError('NGYM_CONFIG_INVALID', `${name} must be a whole number >= 0${meaning === undefined ? '' : ` (${meaning})`}, got '${configured}'.`);
  }
  return value;
}
