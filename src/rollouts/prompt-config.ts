/**
 * Prompt configs (upstream's `prompt_config`, nemo_gym/prompt.py): a YAML file with a `user` template and an
 * optional `system` one, whose `{field}` placeholders are filled from a row's top-level fields with Python's
 * `str.format_map` rules (`{{` and `}}` are literal braces; a value that is not a string is written as Python's
 * `str()` of it). Applied to a row, they build `responses_create_params.input` (system message first), keeping
 * the row's other `responses_create_params` fields; a row that already has an input is refused, as upstream.
 * The collector applies one to each row it reads (`ngym collect +prompt_config=...`, a dataset's or benchmark's
 * `prompt_config`), so a prompt sweep needs no new data files; `gym dataset render` writes the result out.
 */
import { existsSync } from 'node:fs';
import * as z from 'zod';
import { isDict } from '../config/tree.ts';
import { readYamlConfig } from '../config/yaml-file.ts';
import { NgymError } from '../errors.ts';
import { pythonJsonLoadsWithFloats } from '../python-compat/python-json-loads.ts';
import { pythonStr } from '../python-compat/python-values.ts';

const PromptConfigFile = z.object({ user: z.string(), system: z.string().nullable().optional() });

export interface PromptConfig {
  /** The file it was read from, for messages. */
  path: string;
  user: string;
  system?: string;
}

export function readPromptConfig(path: string): PromptConfig {
  if (!existsSync(path)) throw new NgymError('NGYM_USAGE', `Prompt config ${path} does not exist.`);
  const parsed = PromptConfigFile.safeParse(readYamlConfig(path));
  if (!parsed.success) {
    throw new NgymError('NGYM_USAGE', `Prompt config ${path} must hold a \`user:\` template (and optionally \`system:\`): ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'file'}: ${issue.message}`).join('; ')}`);
  }
  const config: PromptConfig = { path, user: parsed.data.user };
  if (typeof parsed.data.system === 'string') config.system = parsed.data.system;
  // A malformed template is the config's fault, not any row's: say so before the first row.
  for (const template of [config.user, config.system]) if (template !== undefined) placeholders(template, path);
  return config;
}

type Piece = { literal: string } | { field: string };

/** Python's `string.Formatter().parse` for the templates prompt files use: literals and `{name}` fields. */
function placeholders(template: string, path: string): Piece[] {
  const pieces: Piece[] = [];
  let literal = '';
  for (let index = 0; index < template.length; index++) {
    const character = template[index];
    if (character === '{' && template[index + 1] === '{') {
      literal += '{';
      index++;
    } else if (character === '}' && template[index + 1] === '}') {
      literal += '}';
      index++;
    } else if (character === '}') {
      throw new NgymError('NGYM_USAGE', `Prompt config ${path}: a single '}' in the template (write '}}' for a literal brace).`);
    } else if (character === '{') {
      const close = template.indexOf('}', index);
      const field = close === -1 ? '' : template.slice(index + 1, close);
      if (close === -1 || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(field)) {
        throw new NgymError('NGYM_USAGE', `Prompt config ${path}: placeholder ${close === -1 ? template.slice(index, index + 20) : `{${field}}`} is not a {field_name} of the row (write '{{' for a literal brace).`);
      }
      if (literal !== '') pieces.push({ literal });
      literal = '';
      pieces.push({ field });
      index = close;
    } else {
      literal += character;
    }
  }
  if (literal !== '') pieces.push({ literal });
  return pieces;
}

/** A row the prompt cannot be applied to: the reason names the field or the conflict. */
export class PromptRowError extends NgymError {
  constructor(message: string) {
    super('NGYM_INPUT_INVALID', message);
  }
}

/**
 * The messages the prompt makes of a row. `rowText`, the row's JSON line, lets a number keep Python's spelling
 * (`2.0` stays `2.0`, which JSON.parse would make `2`).
 */
export function fillPrompt(prompt: PromptConfig, row: Record<string, unknown>, rowText?: string): { role: 'system' | 'user'; content: string }[] {
  let pythonRow: Record<string, unknown> | undefined;
  const valueOf = (field: string): string => {
    if (!Object.hasOwn(row, field)) {
      throw new PromptRowError(`prompt config ${prompt.path} references field '${field}', which the row lacks (its fields: ${Object.keys(row).join(', ') || 'none'})`);
    }
    const value = row[field];
    if (typeof value === 'string') return value;
    if (rowText !== undefined) pythonRow ??= pythonJsonLoadsWithFloats(rowText) as Record<string, unknown>;
    return pythonStr(pythonRow?.[field] ?? value);
  };
  const render = (template: string) => placeholders(template, prompt.path).map((piece) => ('literal' in piece ? piece.literal : valueOf(piece.field))).join('');
  return [...(prompt.system === undefined ? [] : [{ role: 'system' as const, content: render(prompt.system) }]), { role: 'user', content: render(prompt.user) }];
}

/** Upstream's truthiness test of `row["responses_create_params"]["input"]`: a ready input conflicts with a prompt. */
export function hasReadyInput(row: Record<string, unknown>): boolean {
  const params = row.responses_create_params;
  if (!isDict(params)) return false;
  const input = params.input;
  return input !== undefined && input !== null && input !== '' && !(Array.isArray(input) && input.length === 0) && !(isDict(input) && Object.keys(input).length === 0);
}

/** The row with `responses_create_params.input` built by the prompt (a new object; the row is not changed). */
export function applyPrompt(prompt: PromptConfig, row: Record<string, unknown>, rowText?: string): Record<string, unknown> {
  if (hasReadyInput(row)) {
    throw new PromptRowError(`the row already has responses_create_params.input, and prompt config ${prompt.path} would build it: use one or the other`);
  }
  const params = isDict(row.responses_create_params) ? row.responses_create_params : {};
  return { ...row, responses_create_params: { ...params, input: fillPrompt(prompt, row, rowText) } };
}
