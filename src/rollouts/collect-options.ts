/**
 * What a collection is asked to do (`CollectOptions`, re-exported by collect.ts and `ngym/runtime`), and the
 * checks of it that come before any work: a run that cannot start fails before it opens a file.
 */
import { ServerClient } from '../client/server-client.ts';
import { NgymError } from '../errors.ts';
import { pythonStringRepr } from '../python-compat/python-json.ts';
import { DEFAULT_AGENT_KEY } from './agent-routing.ts';
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
  /**
   * Re-routing keyed by the `agent_ref.name` in the data (`{old_agent: new_agent}`); `_default` applies to every
   * row with no entry of its own, rows without `agent_ref` included. `agentName` is short for `{_default: agentName}`.
   */
  agentMap?: Record<string, string> | null;
  /** Runs each row whose `agent_ref.name` is a key once per listed agent, each copy with its own rollout indices. */
  fanOut?: Record<string, string[]> | null;
  limit?: number | null;
  /**
   * Rollouts per row: a number, or a map keyed by the dispatched agent or by the row's own `agent_ref.name`
   * (the dispatched agent wins), with `_default` for the rest; a row no entry matches stops the run before it starts.
   */
  numRepeats?: number | Record<string, number> | null;
  /** Puts `seed: <rollout index>` in each rollout's `responses_create_params.metadata.extra_body` (vLLM honours it). */
  numRepeatsAddSeed?: boolean;
  /** Starts the rollouts round by round (every task's rollout 0, then every task's rollout 1: abcabc) instead of aabbcc. */
  interleaveRepeats?: boolean;
  /** Rollouts in flight at once; null or 0 for no cap. */
  concurrency?: number | null;
  /**
   * No new rollout starts while this process holds this much resident memory (`2GiB`, `512MiB`, `75%` of its
   * cgroup's or machine's memory; docs/configuration.md); null: no budget; absent: 80% of that memory.
   */
  memoryBudget?: string | null;
  /**
   * The memory budget also counts what the sandbox boxes on the container engine hold (each box's memory limit, else
   * its use; every live ngym run's, the collector not knowing its gym's run): admission for SWE and terminal tasks,
   * whose boxes hold far more than the collector does.
   */
  memoryBudgetCountsBoxes?: boolean;
  /** The engine whose boxes count (default DOCKER_HOST). */
  dockerHost?: string;
  /** Whose boxes count: one gym run's, when the caller knows its id (default: every live run's). */
  boxesOfRun?: string;
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
  /**
   * New rollouts start only during this many seconds from the start (upstream's dispatch_budget_s); the rest are
   * not started (resume starts them). Needs `concurrency`.
   */
  dispatchBudgetSeconds?: number | null;
  /** No rollout starts with less than this left of the budget; null: the run's p75 rollout duration, after 5. */
  drainMarginSeconds?: number | null;
  /**
   * On resume, rows flagged `invalid_judge_response` leave the output and run again (upstream's
   * retry_invalid_judge_responses), for environments that wrote an unparseable judge reply as a reward of 0.
   */
  retryInvalidJudgeResponses?: boolean;
  /**
   * On resume, retry the failures an agent stamped terminal when their class is a timeout or an environment
   * fault (upstream's retry_terminal_timeouts); otherwise a terminal failure stays failed and is not run again.
   */
  retryTerminalTimeouts?: boolean;
  /**
   * Failure classes whose rollouts count as a reward of 0 in the aggregate metrics (upstream's
   * count_failure_classes_as_zero; its agent_run_error and agent_request_failed map to ngym's classes, see
   * counted-zeros.ts). The output and the failures file are unchanged.
   */
  countFailureClassesAsZero?: readonly string[];
  /** Rollouts this run did not start count as a reward of 0 in the aggregate metrics (upstream's count_missing_rollouts_as_zero). */
  countMissingRolloutsAsZero?: boolean;
  /** Skip each agent's `/aggregate_metrics` (upstream's disable_aggregation, for shards aggregated later). */
  disableAggregation?: boolean;
  /**
   * A rollout that failed after its retries is recorded in the failures file and the run goes on (default); false:
   * it is recorded and no new rollout starts (those in flight finish), as upstream's default ends the run.
   */
  routeFailuresToSidecar?: boolean;
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

/** How rows are routed and repeated, checked as upstream 0.7.0's config validators check it, before anything starts. */
export interface RoutingPlan {
  /** `agent_map` with `agent_name` folded in as its `_default`; undefined when neither is given. */
  agentMap: Record<string, string> | undefined;
  fanOut: Record<string, string[]> | undefined;
  numRepeats: number | Record<string, number>;
  /** The most rollouts one (row, agent) gets: what pass@k and mean@k go up to. */
  maxRepeats: number;
}

export function checkedRouting(options: Pick<CollectOptions, 'agentName' | 'agentMap' | 'fanOut' | 'numRepeats'>): RoutingPlan {
  const numRepeats = options.numRepeats ?? 1;
  let maxRepeats: number;
  if (typeof numRepeats === 'number') {
    if (!Number.isInteger(numRepeats) || numRepeats < 1) throw new NgymError('NGYM_USAGE', `num_repeats must be >= 1, got ${numRepeats}`);
    maxRepeats = numRepeats;
  } else {
    const bad = Object.entries(numRepeats).filter(([, count]) => !Number.isInteger(count) || count < 1);
    if (bad.length > 0) throw new NgymError('NGYM_USAGE', `num_repeats dict values must be >= 1, got ${pythonDict(bad)}`);
    maxRepeats = Math.max(1, ...Object.values(numRepeats));
  }
  let agentMap = options.agentMap ?? undefined;
  if (options.agentName) {
    const existing = agentMap?.[DEFAULT_AGENT_KEY];
    if (existing !== undefined && existing !== options.agentName) {
      throw new NgymError(
        'NGYM_USAGE',
        `agent_name=${pythonStringRepr(options.agentName)} conflicts with agent_map._default=${pythonStringRepr(existing)}. Set only one of them.`,
      );
    }
    agentMap = { ...agentMap, [DEFAULT_AGENT_KEY]: options.agentName };
  }
  const fanOut = options.fanOut ?? undefined;
  for (const [key, agents] of Object.entries(fanOut ?? {})) {
    if (agents.length === 0) {
      throw new NgymError(
        'NGYM_USAGE',
        `fan_out[${pythonStringRepr(key)}] is an empty list, which would silently drop every matching row (zero rollouts collected). Remove the key, or list at least one agent.`,
      );
    }
    const duplicates = [...new Set(agents.filter((agent, index) => agents.indexOf(agent) !== index))].sort();
    if (duplicates.length > 0) {
      throw new NgymError(
        'NGYM_USAGE',
        `fan_out[${pythonStringRepr(key)}] lists the same agent more than once: [${duplicates.map(pythonStringRepr).join(', ')}]. Each listed agent already runs every matching row; use num_repeats for repetition.`,
      );
    }
  }
  return { agentMap, fanOut, numRepeats, maxRepeats };
}

function pythonDict(entries: [string, number][]): string {
  return `{${entries.map(([key, value]) => `${pythonStringRepr(key)}: ${value}`).join(', ')}}`;
}

/** The client given, or one for the head server's gym; undefined only when an executor runs the rollouts. */
export async function connectClient(options: Pick<CollectOptions, 'client' | 'headServer' | 'authToken' | 'executor'>): Promise<ServerClient | undefined> {
  const client = options.client ?? (options.headServer ? await ServerClient.fromHeadServer(options.headServer, undefined, options.authToken) : undefined);
  if (client === undefined && options.executor === undefined) throw new NgymError('NGYM_USAGE', 'collectRollouts needs a client, headServer or executor.');
  return client;
}
