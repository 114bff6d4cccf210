/**
 * The judge prompt file (`judge_prompt_template_fpath`), read at start-up as upstream reads it (stripped). Upstream
 * opens a relative path from its launcher's working directory, the server's folder; we resolve it against this folder,
 * so a config works whatever directory `ngym run` starts in. A missing file, or a placeholder other than
 * `{expected_answer}` and `{generated_answer}`, stops the server with an error naming the key (upstream starts with
 * such a template, then scores every judged answer 0 with `unknown_error`).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, PromptTemplate } from 'ngym';
import { pythonStrip } from 'ngym/python-compat';

const SERVER_DIRECTORY = fileURLToPath(new URL('.', import.meta.url));
const FIELDS = ['expected_answer', 'generated_answer'];

export function loadJudgePrompt(fpath: string): PromptTemplate {
  const path = resolve(SERVER_DIRECTORY, fpath);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new ConfigError('NGYM_CONFIG_INVALID', `judge_prompt_template_fpath: cannot read the judge prompt ${path} (relative paths are read from ${SERVER_DIRECTORY}): ${reason}.`, {
      key: 'judge_prompt_template_fpath',
      cause: error,
    });
  }
  try {
    return new PromptTemplate(pythonStrip(text)).assertFields(FIELDS, `judge_prompt_template_fpath (${path})`);
  } catch (error) {
    throw new ConfigError('NGYM_CONFIG_INVALID', (error as Error).message, { key: 'judge_prompt_template_fpath', cause: error });
  }
}
