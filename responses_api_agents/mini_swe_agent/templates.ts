/**
 * What mini-swe-agent says to the model: its prompts (configs/templates.yaml, upstream's text) and the
 * observation of each command, rendered as upstream's Jinja templates render them.
 */
import { readFileSync } from 'node:fs';
import { ConfigError } from 'ngym';
import { pythonLength, pythonSlice } from 'ngym/python-compat';
import * as z from 'zod';
import { parse } from 'yaml';

export const DEFAULT_TEMPLATES_PATH = new URL('./configs/templates.yaml', import.meta.url);

const Templates = z.strictObject({
  system_template: z.string(),
  instance_template: z.string(),
  format_error_template: z.string(),
  timeout_template: z.string(),
  collapse_template: z.string(),
});
export type Templates = z.infer<typeof Templates>;

export function loadTemplates(path: string | URL = DEFAULT_TEMPLATES_PATH): Templates {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError('NGYM_CONFIG_FILE', `Cannot read the mini_swe_agent templates ${String(path)}: ${(error as Error).message}`);
  }
  const parsed = Templates.safeParse(parse(text));
  if (!parsed.success) throw new ConfigError('NGYM_CONFIG_INVALID', `${String(path)} is not a mini_swe_agent templates file: ${parsed.error.message}`);
  return parsed.data;
}

/**
 * Fills a template's `{{ field }}`s (a field is named as the template writes it: `task`, `actions|length`,
 * `action['action']`) and drops one trailing newline, as Jinja renders upstream's templates.
 */
export function render(template: string, values: Record<string, string | number>): string {
  const filled = template.replace(/\{\{\s*(.+?)\s*\}\}/g, (whole, field: string) => {
    const value = values[field];
    if (value === undefined) throw new ConfigError('NGYM_CONFIG_INVALID', `mini_swe_agent template field ${whole} has no value here`);
    return String(value);
  });
  return filled.endsWith('\n') ? filled.slice(0, -1) : filled;
}

const HEAD_CHARS = 5000;
const LONG_OUTPUT_CHARS = 10_000;
const TOO_LONG_WARNING =
  'The output of your last command was too long.\nPlease try a different command that produces less output.\n' +
  "If you're looking at a file you can try use head, tail or sed to view a smaller number of lines selectively.\n" +
  "If you're using grep or find and it produced too much output, you can use a more selective search pattern.\n" +
  "If you really need to see something from the full command's output, you can redirect output to a file and then search in that file.";

/** The observation of a command (upstream's action_observation_template): its output, or head and tail of a long one. */
export function observation(returncode: number, output: string): string {
  const length = pythonLength(output);
  if (length < LONG_OUTPUT_CHARS) return `<returncode>${returncode}</returncode>\n<output>\n${output}</output>`;
  return (
    `<returncode>${returncode}</returncode>\n<warning>\n${TOO_LONG_WARNING}\n</warning>` +
    `<output_head>\n${pythonSlice(output, 0, HEAD_CHARS)}\n</output_head>\n` +
    `<elided_chars>\n${length - LONG_OUTPUT_CHARS} characters elided\n</elided_chars>\n` +
    `<output_tail>\n${pythonSlice(output, -HEAD_CHARS)}\n</output_tail>`
  );
}
