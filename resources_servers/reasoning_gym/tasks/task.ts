/**
 * A reasoning task: a seeded generator of questions with their oracle answers, and the task's scorer.
 * Entries have upstream reasoning-gym's shape (`question`, `answer`, `metadata` with `source_dataset`,
 * `source_index`, task fields, `difficulty`), so the verifier can score rows made by either library.
 */
import * as z from 'zod';
import { SeededRandom } from './random.ts';

type Metadata = Record<string, unknown>;

export interface TaskEntry {
  question: string;
  answer: string | null;
  metadata: Metadata;
}

/** What a generator returns; the library adds `source_dataset`, `source_index` and `difficulty`. */
interface GeneratedItem {
  question: string;
  answer: string | null;
  metadata: Metadata;
}

export interface ReasoningTask<Config extends Record<string, unknown> = Record<string, unknown>> {
  name: string;
  /** One of upstream's categories (logic, arithmetic, algorithmic, games, ...). */
  category: string;
  description: string;
  /** A strict object whose fields all have defaults, so `{}` is the default config. */
  config: z.ZodType<Config>;
  /** Checks across fields (min <= max); returns a message for the user, or undefined. */
  validate?: (config: Config) => string | undefined;
  /** The `difficulty` metadata: the config values that shape the items. */
  difficulty: (config: Config) => Metadata;
  generate: (random: SeededRandom, config: Config) => GeneratedItem;
  /**
   * Scores a model's extracted answer in [0, 1]. `entry` comes from the request, so its metadata is
   * untrusted: a scorer may throw on malformed metadata, and the server scores that as 0, as upstream.
   */
  score: (answer: string | null, entry: TaskEntry) => number;
}

export function defineTask<Config extends Record<string, unknown>>(task: ReasoningTask<Config>): ReasoningTask<Config> {
  return task;
}

/** Reads a metadata field the scorer needs; a missing or mistyped one throws (scored 0 by the server). */
export function metadataField<T>(entry: TaskEntry, key: string, schema: z.ZodType<T>): T {
  const result = schema.safeParse(entry.metadata[key]);
  if (!result.success) throw new TypeError(`metadata.${key} is missing or malformed`);
  return result.data;
}

/** Item `index` of `task` under `seed`, with upstream's metadata layout. */
export function generateEntry<Config extends Record<string, unknown>>(task: ReasoningTask<Config>, config: Config, seed: number, index: number): TaskEntry {
  const item = task.generate(SeededRandom.forItem(task.name, seed, index), config);
  return {
    question: item.question,
    answer: item.answer,
    metadata: { source_dataset: task.name, source_index: index, ...item.metadata, difficulty: task.difficulty(config) },
  };
}
