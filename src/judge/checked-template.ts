/**
 * Judge prompt templates (Python `str.format` with keyword fields, as upstream 0.7.0 fills them), checked before
 * use: a config's template when the server starts (a config error naming the key), a row's own template (inverse_if
 * rows carry one) when a verify first needs it (a 422 naming the field). Upstream fails with 500 on every verify
 * that fills a bad template; only {name}, {name!s} and {name!r} fields are read, as prompt-template.ts says.
 * Used by the rubric-judged environments (multichallenge, inverse_if).
 */
import { ConfigError } from '../errors.ts';
import { RequestValidationError } from '../protocol/validation.ts';
import { PromptTemplate } from './prompt-template.ts';

/** The template's problem, said with where it came from (a placeholder problem already names it). */
const problem = (error: unknown, where: string) => {
  const message = (error as Error).message;
  return message.startsWith(where) ? message : `${where}: ${message}`;
};

/** The config key `key`'s template, or a config error naming it. */
export function configTemplate(text: string, fields: readonly string[], key: string): PromptTemplate {
  try {
    return new PromptTemplate(text).assertFields(fields, key);
  } catch (error) {
    throw new ConfigError('NGYM_CONFIG_INVALID', problem(error, key), { key, cause: error });
  }
}

/** A template a row carries in `field`, or a 422 naming the field. */
export function rowTemplate(text: string, fields: readonly string[], field: string): PromptTemplate {
  try {
    return new PromptTemplate(text).assertFields(fields, field);
  } catch (error) {
    throw new RequestValidationError([{ type: 'value_error', loc: ['body', field], msg: `Value error, ${problem(error, field)}`, input: text.length > 200 ? `${text.slice(0, 200)}...` : text }]);
  }
}
