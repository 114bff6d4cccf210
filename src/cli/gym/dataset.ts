/**
 * The `gym dataset` commands ngym builds itself: `download` (a file or a split from the Hugging Face Hub) and
 * `render` (a prompt config applied to raw rows, building each row's `responses_create_params.input`; the collector
 * applies the same prompt configs at run time, src/rollouts/prompt-config.ts).
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as z from 'zod';
import { loadGlobalConfig } from '../../config/global-config.ts';
import { isDict } from '../../config/tree.ts';
import { downloadHubFile, downloadHubSplit } from '../../data/huggingface.ts';
import { NgymError } from '../../errors.ts';
import { benchmarkRoots } from '../../data/benchmarks.ts';
import { readPromptUnderRoots } from '../../data/collection-prompt.ts';
import { readJsonl } from '../../rollouts/jsonl.ts';
import { applyPrompt, hasReadyInput, PromptRowError } from '../../rollouts/prompt-config.ts';
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

const RenderParameters = z.object({ input_jsonl_fpath: z.string().min(1), prompt_config: z.string().min(1), output_jsonl_fpath: z.string().min(1) });

export async function renderDataset(args: string[]): Promise<number> {
  const globalConfig = loadGlobalConfig({ overrides: args });
  const parameters = readParameters(globalConfig, RenderParameters);
  // Looked up as upstream does (the working directory, then an installed NeMo Gym's benchmarks/prompts/...).
  const prompt = readPromptUnderRoots(parameters.prompt_config, () => benchmarkRoots(globalConfig.dict));
  const rows: { row: Record<string, unknown>; text: string }[] = [];
  for await (const { value, text } of readJsonl(parameters.input_jsonl_fpath)) rows.push({ row: isDict(value) ? value : {}, text });
  // A prompt file and a ready-made input are two answers to one question; upstream refuses the file if any row has both.
  const conflicting = rows.flatMap(({ row }, index) => (hasReadyInput(row) ? [index] : []));
  if (conflicting.length > 0) {
    throw new NgymError('NGYM_INPUT_INVALID', `Rows ${conflicting.join(', ')} already have responses_create_params.input; a prompt config and a ready input are mutually exclusive.`);
  }
  const promptPath = resolve(prompt.path);
  const lines = rows.map(({ row, text }, index) => {
    try {
      return `${JSON.stringify({ ...applyPrompt(prompt, row, text), prompt_config_used: promptPath })}\n`;
    } catch (error) {
      if (error instanceof PromptRowError) throw new NgymError('NGYM_INPUT_INVALID', `${parameters.input_jsonl_fpath}:${index + 1}: ${error.message}`);
      throw error;
    }
  });
  writeFileSync(parameters.output_jsonl_fpath, lines.join(''));
  write(`Materialized ${rows.length} rows to ${parameters.output_jsonl_fpath}\n`);
  return 0;
}
