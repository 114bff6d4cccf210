/**
 * What a parity case is, and the model responses the generators put in it. Ids and timestamps are derived from
 * the case, so a seed reproduces the same bodies (the disagreement file can be replayed as it is).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ResponseItem } from '../src/protocol/index.ts';
import { upstreamRollouts } from '../src/testing/upstream-rollouts.ts';
import { upstreamWheel } from '../src/testing/upstream-wheel.ts';
import { assistantMessage, functionCall, modelResponse } from '../src/server/scripted-model.ts';
import { PACKAGE_ROOT } from '../src/util/package-root.ts';

export interface ParityCase {
  /** Which generator made it and how (`rollout`, `mutation:boxed`, ...): disagreements are grouped by it. */
  kind: string;
  /** Finer description of the case (grading mode, option format, ...), kept in the disagreement file. */
  detail?: string;
  /** The `/verify` body both servers get. */
  verify: Record<string, unknown>;
  /** The `/seed_session` body sent first (with the session cookie kept for `/verify`). */
  seed?: Record<string, unknown>;
  /**
   * Tool calls sent after the seed and before `/verify` in the same session (an environment whose verify reads
   * the state its tools change). Their statuses are compared as the field `call_statuses`, which the
   * environment then lists among its fields.
   */
  calls?: { path: string; body: unknown }[];
}

export function textOutput(text: string, index: number): ResponseItem {
  return assistantMessage(text, { id: `msg_parity_${index}` } as Partial<ResponseItem>);
}

export function callOutput(name: string, args: unknown, index: number): ResponseItem {
  return functionCall(name, args, `call_parity_${index}`);
}

/** A Responses API response holding `output`, with fixed id and time. */
export function response(output: ResponseItem[], index: number): Record<string, unknown> {
  return modelResponse(output, { id: `resp_parity_${index}`, created_at: 1_764_000_000 }) as unknown as Record<string, unknown>;
}

export function textResponse(text: string, index: number): Record<string, unknown> {
  return response([textOutput(text, index)], index);
}

/** The rows of an environment's data file (`example.jsonl`, `example_rollouts.jsonl`). */
export function dataRows(environment: string, file: string): Record<string, unknown>[] {
  return readFileSync(join(PACKAGE_ROOT, 'resources_servers', environment, 'data', file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/**
 * Upstream 0.7.0's own recorded rollouts of an environment (the wheel's `data/`), each joined to its example row
 * by the last user message (a rollout keeps only what verify answered, not the row's task fields), as cases of
 * kind `rollout` with detail `upstream`. None when the wheel is not installed: the case list then starts with
 * ngym's rollouts.
 */
export function upstreamRolloutCases(environment: string, computed: readonly string[]): ParityCase[] {
  if (upstreamWheel(environment).skipReason !== null) return [];
  return upstreamRollouts(environment, { source: 'wheel' }).map(({ row, rollout }) => ({ ...rolloutCase({ ...row, response: rollout.response }, computed), detail: 'upstream' }));
}

/**
 * A recorded rollout as a `/verify` body: the row with its response, without what verify computed (the reward and
 * the environment's own fields), which both servers must compute again.
 */
export function rolloutCase(row: Record<string, unknown>, computed: readonly string[]): ParityCase {
  const verify = Object.fromEntries(Object.entries(row).filter(([key]) => key !== 'reward' && !computed.includes(key)));
  return { kind: 'rollout', verify };
}

/** Cuts text as a model that hit its token limit does. */
export function truncate(text: string, fraction: number): string {
  return text.slice(0, Math.max(0, Math.floor(text.length * fraction)));
}
