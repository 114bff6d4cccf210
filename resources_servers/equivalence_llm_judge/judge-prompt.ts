/**
 * Where the judge prompt comes from: the inline `judge_prompt_template`, or the file named by
 * `judge_prompt_template_fpath` (0.7.0's key). Upstream opens that path relative to the working directory its
 * launcher gives the server, which is the server's folder; we resolve it against this folder directly, so the
 * same config works whatever directory `ngym run` was started from.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, PromptTemplate } from 'ngym';
import { pythonStrip } from 'ngym/python-compat';

/** Used when neither key is set, as 0.7.0's class default. */
export const DEFAULT_TEMPLATE_FPATH = 'prompt_templates/equivalence_llm_judge.txt';
const SERVER_DIRECTORY = fileURLToPath(new URL('.', import.meta.url));

interface PromptKeys {
  judge_prompt_template: string | null;
  judge_prompt_template_fpath: string | null;
}

/** The judge prompt, checked to use only `fields`; any problem is a config error naming the key (and the file). */
export function loadJudgePrompt(config: PromptKeys, fields: readonly string[]): PromptTemplate {
  const { judge_prompt_template: inline, judge_prompt_template_fpath: fpath } = config;
  if (inline !== null && fpath !== null) {
    throw new ConfigError('NGYM_CONFIG_INVALID', 'judge_prompt_template and judge_prompt_template_fpath are both set; set only one (or null the other).', {
      key: 'judge_prompt_template_fpath',
    });
  }
  if (inline !== null) return checked(inline, fields, 'judge_prompt_template');
  const path = resolve(SERVER_DIRECTORY, fpath ?? DEFAULT_TEMPLATE_FPATH);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    const relativeNote = fpath !== null && !isAbsolute(fpath) ? ` (relative paths are read from ${SERVER_DIRECTORY})` : '';
    throw new ConfigError('NGYM_CONFIG_INVALID', `judge_prompt_template_fpath: cannot read the judge prompt file ${path}: ${reason}${relativeNote}.`, {
      key: 'judge_prompt_template_fpath',
      cause: error,
    });
  }
  // Upstream strips the file's text, so a trailing newline is not part of the prompt.
  return checked(pythonStrip(text), fields, 'judge_prompt_template_fpath', `judge_prompt_template_fpath (${path})`);
}

function checked(text: string, fields: readonly string[], key: string, where = key): PromptTemplate {
  let template: PromptTemplate;
  try {
    template = new PromptTemplate(text);
  } catch (error) {
    // The parser's message does not say which key the template came from.
    throw new ConfigError('NGYM_CONFIG_INVALID', `${where}: ${(error as Error).message}`, { key, cause: error });
  }
  return template.assertFields(fields, where);
}
