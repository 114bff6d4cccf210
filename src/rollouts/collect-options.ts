/**
 * What a collection is asked to do (`CollectOptions`, re-exported by collect.ts and `ngym/runtime`), and the
 * checks of it that come before any work: a run that cannot start fails before it opens a file.
 */
import { ServerClient } from '../client/server-client.ts';
import { NgymError } from '../errors.ts';
import type { ProgressReporter } from './progress.ts';
import type { HealthCheckOptions } from './rollout-health.ts';
import type { PromptConfig } from './prompt-config.ts';
import type { FinishedRollout } from './rollout-outcome.ts';
import type { RolloutRequest } from './run-attempt.ts';
import type { StallPolicy } from './stall-watch.ts';
import type { Task } from './task-source.ts';

export interface CollectOptions {
  /** How to reach the servers: a client, or the head server to fetch the global config from. */
  client?: ServerClient;
  headServer?: { host: string; port: number };
  /** The gym's `auth_token`, with `headServer`, when its servers require one. */
  authToken?: string;
  /** A JSONL path, or rows. */
  input: string | Iterable<Record<string, unknown>> | AsyncIterable<Record<string, unknown>>;
  /** Where results go; without it they are only yielded (no files, no resume). */
  outputPath?: string;
  /** The agent every row runs on, overriding the rows' own `agent_ref` (upstream's `+agent_name`); a warning names each agent overridden. */
  agentName?: string | null;
  limit?: number | null;
  numRepeats?: number;
  /** Rollouts in flight at once; null or 0 for no cap. */
  concurrency?: number | null;
  /**
   * No new rollout starts while this process holds this much resident memory (`2GiB`, `512MiB`, `75%` of its
   * cgroup's or machine's memory; docs/configuration.md); null: no budget; absent: 80% of that memory.
   */
  memoryBudget?: string | null;
  /** Shallow-merged over each row's `responses_create_params`. */
  responsesCreateParams?: Record<string, unknown>;
  /**
   * Builds each row's `responses_create_params.input` from its fields as it is read (`readPromptConfig`); a row
   * that already has an input, or lacks a field the prompt names, is an invalid input line.
   */
  prompt?: PromptConfig;
  /** Write the output in (task, rollout) order. */
  ordered?: boolean;
  /** Continue an interrupted run: skip rollouts already in the output. */
  resume?: boolean;
  /** Start over when the output exists (its failures and metrics files too). */
  overwrite?: boolean;
  /** Attempts after the first for a retryable failure. */
  maxRetries?: number;
  /** First retry delay; doubles per attempt (capped at 30 s), with jitter. */
  retryDelayMs?: number;
  /** Limit of one `/run` attempt; null for none. */
  rolloutTimeoutMs?: number | null;
  /** pass@k counts a rollout as passed when reward >= this. */
  passThreshold?: number;
  progress?: ProgressReporter;
  /** An agent none of whose rollouts finished for this long is stalled (default 600 s); null: never checked. */
  stallTimeoutMs?: number | null;
  /**
   * What a stall does besides being reported: `report` only; `fail` records the agent's rollouts in flight as
   * failures (class `stalled`) and goes on; `stop` (default) does that and starts nothing new.
   */
  onStall?: StallPolicy;
  /** Checks the output's rollouts when the run ends (rollout-health.ts), for the summary; false: no check. */
  healthCheck?: HealthCheckOptions | false;
  /** Messages about the run while it goes on (stalls); default: standard error. */
  warn?: (message: string) => void;
  /**
   * Runs the rollouts elsewhere (workers on a BullMQ queue, src/rollouts/queue/) instead of POSTing them from
   * here; rows, metrics, failure records, resume and ordering stay this collector's. Retries and stalled
   * attempts are then the executor's (`maxRetries`, `retryDelayMs` and `rolloutTimeoutMs` are passed to it;
   * the stall watch is off). Without `client`/`headServer`, agent names are not checked and
   * `/aggregate_metrics` is not asked.
   */
  executor?: RolloutExecutor;
}

export interface RolloutExecutor {
  /** Once the output is open: `runId` names the run, the same when it is resumed, new when it starts over. */
  start(runId: string, resumed: boolean): Promise<void>;
  run(request: RolloutRequest, task: Task): Promise<FinishedRollout>;
  close(): Promise<void>;
}

export function checkedRepeats(options: Pick<CollectOptions, 'numRepeats'>): number {
  const numRepeats = options.numRepeats ?? 1;
  if (!Number.isInteger(numRepeats) || numRepeats < 1) throw new NgymError('NGYM_USAGE', `num_repeats must be an integer >= 1, got ${numRepeats}.`);
  return numRepeats;
}

/** The client given, or one for the head server's gym; undefined only when an executor runs the rollouts. */
export async function connectClient(options: Pick<CollectOptions, 'client' | 'headServer' | 'authToken' | 'executor'>): Promise<ServerClient | undefined> {
  const client = options.client ?? (options.headServer ? await ServerClient.fromHeadServer(options.headServer, undefined, options.authToken) : undefined);
  if (client === undefined && options.executor === undefined) throw new NgymError('NGYM_USAGE', 'collectRollouts needs a client, headServer or executor.');
  return client;
}
