/**
 * Upstream's recorded rollouts of an environment, each joined back to the example row it was collected from.
 * A rollout keeps only what verify answered, so fields the row carries for verify (options, a schema, a
 * gold calendar...) must come from the row; parity tests re-verify `{ ...row, response: rollout.response }`.
 * They are read from the shared fixtures, or from the installed wheel's `data/` folder (`source: 'wheel'`).
 */
import { join } from 'node:path';
import { readJsonlRows } from './jsonl-rows.ts';
import { sharedFixture } from './shared-fixtures.ts';
import { upstreamWheel } from './upstream-wheel.ts';

type Row = Record<string, any>;

export interface UpstreamRollout {
  /** The example row (from the rows file) whose key the rollout has. */
  row: Row;
  /** The recorded rollout, as upstream wrote it. */
  rollout: Row;
}

export interface UpstreamRolloutsOptions {
  /**
   * Where the files are: `shared` (default), the environment's folder of `../shared/fixtures/upstream`; `wheel`,
   * its `data/` folder in the venv's upstream wheel (see `upstreamWheel`, whose skip reason tests check first).
   */
  source?: 'shared' | 'wheel';
  /** Example rows, a file of the source's folder (default `example.jsonl`). */
  rows?: string;
  /** Recorded rollouts, a file of the same folder (default `example_rollouts.jsonl`). */
  rollouts?: string;
  /** What identifies a task in both files (compared as JSON); default, the last user message's content. */
  key?: (rowOrRollout: Row) => unknown;
}

/** The content of the last user message of `responses_create_params.input` (a task's identity); a string input is one. */
export function lastUserContent(rowOrRollout: Row): unknown {
  const input = rowOrRollout.responses_create_params?.input;
  if (typeof input === 'string') return input;
  if (!Array.isArray(input)) return undefined;
  return input.findLast((item: Row) => item?.role === 'user')?.content;
}

/**
 * Every recorded rollout of `environment` in file order, with its example row. Throws, naming the rollout,
 * when one matches no row: re-verifying it without the row's fields would test nothing.
 */
export function upstreamRollouts(environment: string, options: UpstreamRolloutsOptions = {}): UpstreamRollout[] {
  const identity = options.key ?? lastUserContent;
  // JSON.stringify(undefined) is undefined: an item without a key joins nothing.
  const key = (item: Row): string | undefined => JSON.stringify(identity(item));
  const rowsFile = options.rows ?? 'example.jsonl';
  const file = options.source === 'wheel' ? (name: string) => join(upstreamWheel(environment).folder, 'data', name) : (name: string) => sharedFixture(environment, name);
  const rollouts = readJsonlRows(file(options.rollouts ?? 'example_rollouts.jsonl'));
  const rows = new Map(readJsonlRows(file(rowsFile)).map((row) => [key(row), row]));
  rows.delete(undefined);
  return rollouts.map((rollout, index) => {
    const row = rows.get(key(rollout));
    if (row === undefined) {
      throw new Error(`recorded rollout ${index} of ${environment} matches no row of ${rowsFile} (key ${String(key(rollout)).slice(0, 120)})`);
    }
    return { row, rollout };
  });
}
