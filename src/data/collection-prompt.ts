/**
 * Which prompt config a collection applies to its rows: `+prompt_config=<yaml>` when given, else the
 * `prompt_config` of the dataset entry (in the running gym's config) whose `jsonl_fpath` is the input file,
 * so collecting a benchmark's prepared data or sweeping prompts over raw rows needs no rendered copy.
 * Relative paths are looked up as upstream does: extra roots, the working directory, then the installed
 * NeMo Gym (benchmarkRoots), where upstream's shared prompts (`benchmarks/prompts/...`) live.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { GlobalConfig } from '../config/global-config.ts';
import { NgymError } from '../errors.ts';
import { type PromptConfig, readPromptConfig } from '../rollouts/prompt-config.ts';
import { declaredDatasets } from './benchmark-datasets.ts';
import { findUnderRoots } from './benchmarks.ts';

export interface CollectionPrompt {
  prompt: PromptConfig;
  /** Where it came from, for the run's report. */
  origin: string;
}

/** A prompt config by its path: as given (absolute, or from the working directory), else in the first root that has it. */
export function readPromptUnderRoots(path: string, roots: () => readonly string[]): PromptConfig {
  if (existsSync(path)) return readPromptConfig(resolve(path));
  const found = findUnderRoots(path, roots());
  if (found === undefined) throw new NgymError('NGYM_USAGE', `Prompt config ${path} was not found (looked in ${roots().join(', ')}).`);
  return readPromptConfig(found);
}

/**
 * The explicit prompt config, else the one of the dataset declared for `inputPath` in `gymConfig` (the config of
 * the gym the rows go to); undefined when neither says.
 */
export function collectionPrompt(options: { explicit?: string; inputPath: string; gymConfig?: GlobalConfig; roots: () => readonly string[] }): CollectionPrompt | undefined {
  if (options.explicit !== undefined) return { prompt: readPromptUnderRoots(options.explicit, options.roots), origin: '+prompt_config' };
  if (options.gymConfig === undefined) return undefined;
  const input = resolve(options.inputPath);
  // The roots are found (which may ask Python) only when some dataset has a prompt config.
  let roots: readonly string[] | undefined;
  const rootsOnce = () => (roots ??= options.roots());
  const matching = declaredDatasets(options.gymConfig, (entry) => typeof entry.prompt_config === 'string' && typeof entry.jsonl_fpath === 'string' && resolve(findUnderRoots(entry.jsonl_fpath, rootsOnce()) ?? entry.jsonl_fpath) === input);
  const prompts = new Set(matching.map((dataset) => dataset.prompt_config));
  if (prompts.size > 1) {
    throw new NgymError('NGYM_USAGE', `${options.inputPath} is declared by several datasets with different prompt configs (${matching.map((dataset) => `${dataset.instance}: ${dataset.prompt_config}`).join('; ')}); pass +prompt_config=<yaml> to choose.`);
  }
  const dataset = matching[0];
  if (dataset === undefined) return undefined;
  return { prompt: readPromptUnderRoots(dataset.prompt_config as string, rootsOnce), origin: `dataset '${dataset.name}' of ${dataset.instance}` };
}
