/** `ngym collect` (alias `ng_collect_rollouts`): run every row of a dataset through its agent and save the rollouts. */
import { existsSync } from 'node:fs';
import * as z from 'zod';
import { ServerClient } from '../../client/server-client.ts';
import { type GlobalConfig, loadGlobalConfig } from '../../config/global-config.ts';
import { MemoryBudgetValue } from '../../config/schemas.ts';
import { benchmarkRoots, findUnderRoots } from '../../data/benchmarks.ts';
import { collectionPrompt } from '../../data/collection-prompt.ts';
import { describeError, NgymError } from '../../errors.ts';
import { recordCollection } from '../../exporters/record-collection.ts';
import { trackingSettings } from '../../exporters/tracking-config.ts';
import { type CollectionSummary, collectRollouts, DEFAULT_STALL_TIMEOUT_SECONDS } from '../../rollouts/collect.ts';
import { QueueSettings } from '../../rollouts/queue/connection.ts';
import { STALL_POLICIES } from '../../rollouts/stall-watch.ts';
import { createProgressReporter } from '../../rollouts/progress.ts';
import { formatHealthReport } from '../../rollouts/rollout-health.ts';
import { normalizeIgnoredChecks } from '../../rollouts/rollout-health-checks.ts';
import { type CliCommand, headServerClient, readParameters } from '../command.ts';
import { readElsewhere } from '../parameters.ts';
import { queueExecutor } from './collect-queue.ts';
import { RefusedParameters, refuseUnsupportedFields } from './collect-upstream-fields.ts';

const Parameters = z.object({
  agent_name: z
    .string()
    .min(1)
    .nullable()
    .optional()
    .describe('Agent instance every row runs on, overriding any agent_ref in the data (a warning lists what it overrode); short for agent_map._default.'),
  agent_map: z
    .record(z.string(), z.string().min(1))
    .nullable()
    .default(null)
    .describe("Re-routing keyed by the agent_ref.name in the data ({old_agent: new_agent}); _default applies to every row without an entry. Precedence: agent_map[row's agent] > agent_map._default > the row's agent_ref."),
  fan_out: z
    .record(z.string(), z.array(z.string().min(1)))
    .nullable()
    .default(null)
    .describe("Run each row whose agent_ref.name is a key once per listed agent ({key: [agent_a, agent_b]}); each copy has its own rollout indices and repeats."),
  input_jsonl_fpath: z.string().min(1).describe('Dataset JSONL (one row per task); streamed.'),
  output_jsonl_fpath: z.string().min(1).describe('Where the rollouts are written.'),
  limit: z.number().int().min(0).nullable().default(null).describe('Only the first N rows (null: all).'),
  num_repeats: z
    .union([z.number().int(), z.record(z.string(), z.number().int())], { error: 'Input should be a valid integer, or a dict of integers keyed by agent' })
    .nullable()
    .default(1)
    .describe("Rollouts per row: a number, or a map keyed by the dispatched agent or the row's own agent_ref.name (the dispatched agent wins), _default for the rest."),
  num_repeats_add_seed: z.boolean().default(false).describe('Put seed=<rollout index> in each rollout\'s responses_create_params.metadata.extra_body (honoured by vLLM model servers).'),
  interleave_repeats: z.boolean().default(false).describe('Start the repeats round by round (abcabc) instead of task by task (aabbcc); holds every task in memory.'),
  num_samples_in_parallel: z
    .number()
    .int()
    .min(1)
    .nullable()
    .default(null)
    .describe('Rollouts in flight at once (null: no cap; with +queue.url, jobs in the queue at once, default 1024).'),
  memory_budget: MemoryBudgetValue.optional().meta({
    description: "Start no rollout while this collector holds this much resident memory (2GiB, 512MiB, 75% of its cgroup's or machine's memory; null: no budget).",
    shownDefault: '80%',
  }),
  memory_budget_counts_boxes: z
    .boolean()
    .default(false)
    .describe("memory_budget also counts what the sandbox boxes on the container engine at DOCKER_HOST hold (each box's memory limit, else its use): for SWE and terminal tasks, whose boxes hold far more than the collector."),
  responses_create_params: z.record(z.string(), z.unknown()).default({}).describe('Overrides merged into each row, e.g. +responses_create_params.temperature=0.7.'),
  prompt_config: z
    .string()
    .min(1)
    .optional()
    .describe("Prompt YAML (user:, system: templates with {field} placeholders) that builds each row's input; default: the prompt_config of the dataset declared for the input file."),
  ordered: z.boolean().default(false).describe('Write rollouts in (task, rollout) order instead of completion order.'),
  resume: z.boolean().optional().meta({ description: 'Continue an interrupted run: skip rollouts already in the output (alias resume_from_cache).', shownDefault: 'false' }),
  resume_from_cache: z.boolean().optional().meta({ aliasOf: 'resume' }),
  overwrite: z.boolean().default(false).describe('Replace an existing output file (and its failures and metrics).'),
  max_retries: z.number().int().min(0).default(3).describe('Retries of a failed rollout (connection, timeout, 5xx, judge failure).'),
  retry_delay_seconds: z.number().min(0).default(1).describe('First retry delay; doubles per retry (capped at 30 s).'),
  rollout_timeout_seconds: z.number().positive().nullable().optional().meta({ description: 'Limit of one /run attempt.', shownDefault: 'request_timeout_seconds (10800)' }),
  queue: QueueSettings.optional().meta({
    fields: {
      url: 'Distribute the rollouts over `ngym worker` processes through this Redis (redis://host:port, unix:///path); see docs/distributed.md.',
      name: 'The BullMQ queue the workers take jobs from.',
    },
  }),
  auth_token: readElsewhere(z.string().optional(), "The gym's auth_token, when its servers require one (servers beyond loopback); better in env.yaml."),
  pass_threshold: z.number().default(1.0).describe('pass@k counts a rollout as passed when reward >= this.'),
  stall_timeout_seconds: z
    .number()
    .positive()
    .nullable()
    .default(DEFAULT_STALL_TIMEOUT_SECONDS)
    .describe('Report an agent none of whose rollouts finished for this long (null: never).'),
  disable_health_check: z.boolean().default(false).describe('Skip the rollout health checks of the output when the run ends.'),
  health_check_ignored_checks: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .describe('Health check ids to leave out (comma-separated); see `gym eval health-check`.'),
  health_check_reward_range: z.tuple([z.number(), z.number()]).optional().describe('Inclusive [low, high] a reward must lie in (default [0, 1]).'),
  on_stall: z
    .enum(STALL_POLICIES)
    .default('stop')
    .describe('Then: report (keep waiting), fail (record its rollouts in flight as failures, go on) or stop (record them, start nothing new).'),
  require_complete: z
    .boolean()
    .default(false)
    .describe('Say EVAL FAILED (upstream\'s words) when any rollout is missing from the output; ngym exits 1 then whatever this says.'),
  max_resident_rollout_tasks: z
    .number()
    .int()
    .min(1)
    .nullable()
    .default(null)
    .describe('Rollouts held by the collector at once; with num_samples_in_parallel, the smaller of the two caps the rollouts in flight (null: no cap).'),
  retain_results_in_memory: z
    .boolean()
    .default(true)
    .describe("Upstream's Python API returns the results when true; ngym streams them to the output either way and keeps none, so both values give the same files."),
  disable_aggregation: z
    .boolean()
    .default(false)
    .describe('Skip /aggregate_metrics, <stem>_aggregate_metrics.json, the trackers and the health check (for shards aggregated later by `gym eval aggregate`).'),
  health_check_workers: z
    .number()
    .int()
    .min(1)
    .nullable()
    .default(null)
    .describe("Upstream's health-check worker processes; ngym's check is one streaming pass in the collector, so the number changes nothing but is checked."),
  route_failures_to_sidecar: z
    .boolean()
    .default(true)
    .describe("Record a rollout that failed after its retries in <stem>_failures.jsonl and go on (ngym's default); false: record it and stop starting rollouts, as upstream's default ends the run."),
  retry_terminal_timeouts: z
    .boolean()
    .default(false)
    .describe("On resume, also retry the failures an agent stamped terminal (_ng_failure_terminal) when they are timeouts (timeout_exceeded) or environment faults (reference_missing, eval_missing, transport_ineligible); a skipped sample stays failed. Without it a terminal failure is kept in <stem>_failures.jsonl and not run again; the others are always retried."),
  dispatch_budget_s: z
    .number()
    .min(0)
    .nullable()
    .default(null)
    .describe('Seconds from the start during which new rollouts may start (an allocation\'s usable walltime); the rest write nothing and +resume=true starts them. Needs num_samples_in_parallel.'),
  drain_margin_s: z
    .number()
    .min(0)
    .nullable()
    .default(null)
    .describe("Start no rollout with less than this left of dispatch_budget_s (null: this run's p75 rollout duration, once 5 have finished)."),
  count_failure_classes_as_zero: z
    .array(z.string().min(1))
    .default([])
    .describe(
      "Failure classes whose rollouts count as a reward of 0 in the aggregate metrics (<stem>_aggregate_metrics.json), so they stay in the denominator; the output and <stem>_failures.jsonl are unchanged. Upstream's agent_run_error is ngym's server_error, judge_failed, rejected and invalid_result; agent_request_failed is connection, timeout and rate_limited; ngym's own class names and an agent's own (timeout_exceeded, ...) work as they are.",
    ),
  count_missing_rollouts_as_zero: z
    .boolean()
    .default(false)
    .describe("Rollouts this run did not start (dispatch_budget_s ran out, the run stopped early) count as a reward of 0 in the aggregate metrics; a resume still runs them."),
  retry_invalid_judge_responses: z
    .boolean()
    .default(false)
    .describe('On resume, rows flagged invalid_judge_response leave the output and run again (for environments that scored an unparseable judge reply 0).'),
  upload_rollouts: readElsewhere(z.boolean().default(true), 'Upload the first +upload_rollouts_limit rollouts to the trackers (upload_rollouts_to_wandb is its older name).'),
  ...RefusedParameters,
});

/** Upstream: "active requests cannot exceed either limit". */
function inFlightCap(parallel: number | null, resident: number | null): number | null {
  if (parallel === null) return resident;
  return resident === null ? parallel : Math.min(parallel, resident);
}

/** `+resume` or upstream's `+resume_from_cache`: the same switch; two different values are a mistake to point out. */
function resumeOf(parameters: { resume?: boolean; resume_from_cache?: boolean }): boolean {
  if (parameters.resume !== undefined && parameters.resume_from_cache !== undefined && parameters.resume !== parameters.resume_from_cache) {
    throw new NgymError('NGYM_USAGE', `+resume=${parameters.resume} and +resume_from_cache=${parameters.resume_from_cache} disagree; they are one switch (resume_from_cache is upstream's name): give one.`);
  }
  return parameters.resume ?? parameters.resume_from_cache ?? false;
}

/** Jobs one distributed collector keeps in the queue when +num_samples_in_parallel does not say. */
const DEFAULT_QUEUE_IN_FLIGHT = 1024;

function formatMetrics(metrics: Record<string, number>): string {
  return Object.entries(metrics)
    .map(([key, value]) => `${key}=${Number(value.toFixed(4))}`)
    .join(' ');
}

/** The end-of-run report; returns the exit code (non-zero when anything is missing from the output). */
function reportSummary(summary: CollectionSummary, write: (text: string) => void): number {
  const { metrics } = summary;
  write(`\n${metrics.rollouts} rollouts over ${metrics.tasks} tasks: ${formatMetrics(metrics.metrics)}\n`);
  const agents = Object.entries(metrics.agents);
  if (agents.length > 1) for (const [name, group] of agents) write(`  ${name}: ${group.rollouts} rollouts, ${formatMetrics(group.metrics)}\n`);
  for (const [name, answer] of Object.entries(summary.aggregateMetrics)) {
    // The whole answer is in the metrics file; the headline figures are enough here.
    const keyMetrics = (answer as { key_metrics?: Record<string, unknown> } | null)?.key_metrics;
    const numbers = Object.fromEntries(Object.entries(keyMetrics ?? {}).filter((entry): entry is [string, number] => typeof entry[1] === 'number'));
    write(`  ${name} key metrics: ${keyMetrics === undefined ? JSON.stringify(answer).slice(0, 2000) : formatMetrics(numbers)}\n`);
  }
  const { failures: countedFailures, missing: countedMissing } = summary.countedAsZero;
  if (countedFailures + countedMissing > 0) write(`  counted as a reward of 0 in the aggregate metrics: ${countedFailures} failed rollouts, ${countedMissing} not started\n`);
  if (summary.paths !== undefined) {
    write(`Rollouts: ${summary.paths.output} (${summary.completed} new, ${summary.skipped} from an earlier run)\nMetrics: ${summary.paths.metrics}\n`);
  }
  if (summary.health !== undefined) write(`${[...formatHealthReport(summary.health, 10), `  details: gym eval health-check ${summary.paths?.output}`].join('\n')}\n`);
  let code = 0;
  if (summary.invalidInputs.length > 0) {
    write(`\n${summary.invalidInputs.length} input lines were skipped:\n`);
    for (const invalid of summary.invalidInputs.slice(0, 20)) write(`  line ${invalid.line}: ${invalid.reason}\n`);
    if (summary.invalidInputs.length > 20) write(`  ... and ${summary.invalidInputs.length - 20} more\n`);
    code = 1;
  }
  if (summary.failed > 0) {
    const classes = Object.entries(summary.failuresByClass).map(([name, count]) => `${count} ${name}`).join(', ');
    write(`\n${summary.failed} rollouts failed after their retries (${classes}); they are listed in ${summary.paths?.failures} and are not in the output.\n`);
    code = 1;
  }
  if (summary.terminal > 0) {
    write(`\n${summary.terminal} rollouts failed terminally in an earlier run and were not run again; they stay listed in ${summary.paths?.failures}.\n`);
    code = 1;
  }
  if (summary.notStarted > 0) {
    write(`\nStopped early (${summary.stoppedBecause}); ${summary.notStarted} rollouts were not started.\n`);
    code = 1;
  }
  if (code !== 0 && summary.failed + summary.notStarted + summary.invalidInputs.length > 0) write('Run the same command with +resume=true to retry what is missing; completed rollouts are kept.\n');
  return code;
}

/**
 * The gym's servers; a distributed collector only checks agent names and asks /aggregate_metrics with them,
 * so it runs without when no head server answers here (the workers reach their own).
 */
async function connectToGym(globalConfig: GlobalConfig, distributed: boolean): Promise<ServerClient | undefined> {
  try {
    return await headServerClient(globalConfig);
  } catch (error) {
    if (!distributed) throw error;
    process.stderr.write(`${describeError(error)}\nGoing on without it: agent names are checked by the workers, and /aggregate_metrics is not asked.\n`);
    return undefined;
  }
}

export const collectCommand: CliCommand = {
  name: 'collect',
  summary: "Collect scored rollouts: POST every dataset row to its agent's /run and write the results as JSONL.",
  description: `
Needs a running gym (\`ngym run\`); servers are found through its head server (+head_server.host,
+head_server.port; default 127.0.0.1:11000). Each row goes to its own agent_ref.name, so one input file
can mix environments; +agent_name routes every row to that agent, overriding the agent_ref of rows that
name another (a warning lists them), as upstream 0.7.0's does. Every rollout gets _ng_task_index and _ng_rollout_index and is
appended as soon as it completes (one whole line, even if the process is killed).

Failed rollouts (unreachable server, timeout, 5xx, judge failure) are retried with backoff, then listed in
<output stem>_failures.jsonl, never scored 0. Metrics (means of numeric fields, pass@k and mean@k over
repeats, per agent) are printed and written to <output stem>_metrics.json. The command exits 1 when any
rollout is missing from the output; +resume=true then completes the run, exactly once per rollout.

A prompt config (+prompt_config=<yaml>, or the prompt_config of the dataset declared for the input file)
builds each row's responses_create_params.input from its fields as the row is read, so raw rows need no
rendering and a prompt sweep needs no new data files.

When the run ends the output's rollouts are health-checked (hollow turns, zero-token, runaway or truncated
generations, failed model calls, rewards outside [0, 1] or +health_check_reward_range) and the summary is
printed; \`gym eval health-check\` gives the details. +disable_health_check=true skips it.

Upstream's <output stem>_aggregate_metrics.json (each agent's /aggregate_metrics entry) is written too.
With +mlflow_tracking_uri, +mlflow_experiment_name and +mlflow_run_name (MLflow) or +wandb_project,
+wandb_name and +wandb_api_key (W&B), the run (config with secrets redacted, metrics, per-task table, the first
+upload_rollouts_limit rollouts) is logged there at the end; a tracker that fails is a warning, never a failed
run (docs/evaluation.md, "Experiment tracking").

Every field of upstream 0.7.0's rollout collection config is taken under its own name (the list below);
the few ngym cannot honour are refused by name, with the reason, before anything starts (docs/cli.md).

Invalid input lines (malformed JSON, no responses_create_params, unknown agent, a field the prompt config
names but the row lacks, an input the prompt config would replace) are reported with their line numbers and
skipped; the command then exits 1.

Example:
  ngym collect +agent_name=example_single_tool_call_simple_agent \\
    +input_jsonl_fpath=resources_servers/example_single_tool_call/data/example.jsonl \\
    +output_jsonl_fpath=results/example_single_tool_call_rollouts.jsonl +num_repeats=4 \\
    +num_samples_in_parallel=64 +responses_create_params.temperature=0.7`,
  parameters: Parameters,
  async run(args) {
    const globalConfig = loadGlobalConfig({ overrides: args });
    const parameters = readParameters(globalConfig, Parameters);
    refuseUnsupportedFields(parameters);
    // Read now, so a malformed tracking key stops the command before any rollout runs.
    const tracking = trackingSettings(globalConfig);
    const queue = parameters.queue === undefined ? undefined : queueExecutor(parameters.queue, parameters, (text) => process.stderr.write(text));
    const client = await connectToGym(globalConfig, queue !== undefined);
    const roots = () => benchmarkRoots(globalConfig.dict);
    // As upstream, a relative input missing here is looked for in the other roots (a benchmark's prepared data).
    const input = existsSync(parameters.input_jsonl_fpath) ? parameters.input_jsonl_fpath : (findUnderRoots(parameters.input_jsonl_fpath, roots()) ?? parameters.input_jsonl_fpath);
    const prompt = collectionPrompt({ explicit: parameters.prompt_config, inputPath: input, gymConfig: client?.config, roots });
    if (prompt !== undefined) process.stdout.write(`Using prompt config: ${prompt.prompt.path} (${prompt.origin})\n`);
    const collection = collectRollouts({
      client,
      executor: queue?.executor,
      input,
      outputPath: parameters.output_jsonl_fpath,
      agentName: parameters.agent_name,
      agentMap: parameters.agent_map,
      fanOut: parameters.fan_out,
      limit: parameters.limit,
      // An explicit +num_repeats=null means collectRollouts' own default, as an absent one does (upstream's too).
      numRepeats: parameters.num_repeats,
      numRepeatsAddSeed: parameters.num_repeats_add_seed,
      interleaveRepeats: parameters.interleave_repeats,
      concurrency: inFlightCap(parameters.num_samples_in_parallel, parameters.max_resident_rollout_tasks) ?? (queue === undefined ? null : DEFAULT_QUEUE_IN_FLIGHT),
      // MemoryBudgetValue refused numbers (no unit): what is left is a string or null.
      memoryBudget: parameters.memory_budget as string | null | undefined,
      memoryBudgetCountsBoxes: parameters.memory_budget_counts_boxes,
      responsesCreateParams: parameters.responses_create_params,
      prompt: prompt?.prompt,
      ordered: parameters.ordered,
      resume: resumeOf(parameters),
      overwrite: parameters.overwrite,
      maxRetries: parameters.max_retries,
      retryDelayMs: parameters.retry_delay_seconds * 1000,
      rolloutTimeoutMs: parameters.rollout_timeout_seconds === undefined ? undefined : parameters.rollout_timeout_seconds === null ? null : parameters.rollout_timeout_seconds * 1000,
      passThreshold: parameters.pass_threshold,
      progress: createProgressReporter('Collecting rollouts'),
      stallTimeoutMs: parameters.stall_timeout_seconds === null ? null : parameters.stall_timeout_seconds * 1000,
      onStall: parameters.on_stall,
      dispatchBudgetSeconds: parameters.dispatch_budget_s,
      drainMarginSeconds: parameters.drain_margin_s,
      retryInvalidJudgeResponses: parameters.retry_invalid_judge_responses,
      retryTerminalTimeouts: parameters.retry_terminal_timeouts,
      countFailureClassesAsZero: parameters.count_failure_classes_as_zero,
      countMissingRolloutsAsZero: parameters.count_missing_rollouts_as_zero,
      disableAggregation: parameters.disable_aggregation,
      routeFailuresToSidecar: parameters.route_failures_to_sidecar,
      // As upstream, a run that skips aggregation skips the health check too.
      healthCheck: parameters.disable_health_check || parameters.disable_aggregation ? false : { ignoredChecks: normalizeIgnoredChecks(parameters.health_check_ignored_checks), rewardRange: parameters.health_check_reward_range },
    });
    // First Ctrl-C: start nothing new and let in-flight rollouts finish; a second one exits at once.
    const interrupt = () => {
      if (collection.stopping) process.exit(130);
      process.stderr.write('\nStopping: no new rollouts; waiting for those in flight (Ctrl-C again to quit now)...\n');
      collection.stop('interrupted');
    };
    process.on('SIGINT', interrupt);
    try {
      const summary = await collection.done();
      const code = reportSummary(summary, (text) => process.stdout.write(text));
      if (parameters.disable_aggregation) {
        process.stdout.write('Skipping aggregate-metrics computation because disable_aggregation=True. Run `gym eval aggregate` after all shards finish to compute the global metrics.\n');
      } else {
        await recordCollection(globalConfig, summary, tracking, { write: (text) => process.stdout.write(text), warn: (line) => process.stderr.write(`Warning: ${line}\n`) });
      }
      if (parameters.require_complete && code !== 0) {
        const expected = summary.completed + summary.skipped + summary.failed + summary.notStarted + summary.terminal;
        process.stderr.write(`EVAL FAILED: ${summary.completed + summary.skipped}/${expected} samples completed. Partial artifacts retained at ${parameters.output_jsonl_fpath}.\n`);
      }
      return code;
    } finally {
      process.off('SIGINT', interrupt);
      await queue?.connection.quit();
    }
  },
};
