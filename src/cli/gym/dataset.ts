/**
 * The `gym dataset` commands ngym builds itself: `download` (a file or a split from the Hugging Face Hub) and
 * `render` (a prompt template applied to raw rows, building each row's `responses_create_params.input`).
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as z from 'zod';
import { loadGlobalConfig } from '../../config/global-config.ts';
import { isDict } from '../../config/tree.ts';
import { readYamlConfig } from '../../config/yaml-file.ts';
import { downloadHubFile, downloadHubSplit } from '../../data/huggingface.ts';
import { NgymError } from '../../errors.ts';
import { pythonRepr } from '../../python-compat/python-values.ts';
import { readJsonl } from '../../rollouts/jsonl.ts';
import { readParameters } from '../command.ts';

const write = (text: string) => process.stdout.write(text);

const DownloadParameters = z.object({
  repo_id: z.string().min(1),
  artifact_fpath: z.string().min(1).optional(),
  output_fpath: z.string().min(1).optional(),
  output_dirpath: z.string().min(1).optional(),
  split: z.string().min(1).optional(),
  revision: z.string().min(1).optional(),
  hf_token: z.string().min(1, 'a Hugging Face token is needed (hf_token in env.yaml, or +hf_token=...)'),
  hf_endpoint: z.string().min(1).optional(),
});

export async function downloadDataset(args: string[]): Promise<number> {
  const parameters = readParameters(loadGlobalConfig({ overrides: args }), DownloadParameters);
  const hub = { token: parameters.hf_token, endpoint: parameters.hf_endpoint, revision: parameters.revision };
  if (parameters.artifact_fpath !== undefined) {
    const destination = parameters.output_fpath ?? join(parameters.output_dirpath ?? '.', parameters.artifact_fpath.split('/').at(-1) as string);
    write(`Downloading file '${parameters.artifact_fpath}' from '${parameters.repo_id}' to ${destination}...\n`);
    await downloadHubFile({ repoId: parameters.repo_id, path: parameters.artifact_fpath }, destination, hub);
    return 0;
  }
  if (parameters.split === undefined) throw new NgymError('NGYM_USAGE', 'Pass --artifact <path in the repository> or --split <train|validation|...>.');
  const destination = parameters.output_fpath ?? join(parameters.output_dirpath ?? '.', `${parameters.split}.jsonl`);
  write(`Downloading the '${parameters.split}' split from '${parameters.repo_id}' to ${destination}...\n`);
  await downloadHubSplit(parameters.repo_id, parameters.split, destination, hub);
  return 0;
}

/** Python's `template.format_map(row)` for plain `{field}` placeholders and `{{`/`}}` escapes (what prompt files use). */
function fillTemplate(template: string, row: Record<string, unknown>): string {
  return template.replace(/\{\{|\}\}|\{([^{}]*)\}/g, (match, field: string | undefined) => {
    if (match === '{{') return '{';
    if (match === '}}') return '}';
    if (field === undefined || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(field)) {
      throw new NgymError('NGYM_USAGE', `Prompt template placeholder {${field}} is not supported: use {field_name} of a top-level row field (double literal braces).`);
    }
    if (!(field in row)) throw new NgymError('NGYM_INPUT_INVALID', `Prompt template references field '${field}' but the data row only has fields: ${Object.keys(row).join(', ')}`);
    const value = row[field];
    return typeof value === 'string' ? value : pythonRepr(value);
  });
}

const RenderParameters = z.object({ input_jsonl_fpath: z.string().min(1), prompt_config: z.string().min(1), output_jsonl_fpath: z.string().min(1) });
const PromptConfig = z.object({ user: z.string(), system: z.string().optional() });

export async function renderDataset(args: string[]): Promise<number> {
  const parameters = readParameters(loadGlobalConfig({ overrides: args }), RenderParameters);
  const promptPath = resolve(parameters.prompt_config);
  const parsed = PromptConfig.safeParse(readYamlConfig(promptPath));
  if (!parsed.success) throw new NgymError('NGYM_USAGE', `${parameters.prompt_config} must hold \`user:\` (and optionally \`system:\`) templates: ${parsed.error.issues.map((issue) => issue.message).join('; ')}`);
  const rows: Record<string, unknown>[] = [];
  for await (const { value } of readJsonl(parameters.input_jsonl_fpath)) rows.push(isDict(value) ? value : {});
  // A prompt file and a ready-made input are two answers to one question; upstream refuses rows with both.
  const conflicting = rows.flatMap((row, index) => (isDict(row.responses_create_params) && row.responses_create_params.input ? [index] : []));
  if (conflicting.length > 0) {
    throw new NgymError('NGYM_INPUT_INVALID', `Rows ${conflicting.join(', ')} already have responses_create_params.input; a prompt config and a ready input are mutually exclusive.`);
  }
  const lines = rows.map((row) => {
    const input = [
      ...(parsed.data.system === undefined ? [] : [{ role: 'system', content: fillTemplate(parsed.data.system, row) }]),
      { role: 'user', content: fillTemplate(parsed.data.user, row) },
    ];
    const params = isDict(row.responses_create_params) ? row.responses_create_params : {};
    return `${JSON.stringify({ ...row, responses_create_params: { ...params, input }, prompt_config_used: promptPath })}\n`;
  });
  writeFileSync(parameters.output_jsonl_fpath, lines.join(''));
  write(`Materialized ${rows.length} rows to ${parameters.output_jsonl_fpath}\n`);
  return 0;
}
