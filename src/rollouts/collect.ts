/**
 * Rollout collection: every task of the input (times its repeats) is POSTed to its agent's `/run`, at most
 * `concurrency` at once; each result is stamped with `_ng_task_index`, `_ng_rollout_index` and
 * `agent_ref`, durably appended to the output as it completes (or in (task, rollout) order with
 * `ordered`), and yielded to the caller.
 *
 * A failed attempt (connection, timeout, 5xx, judge failure) is retried with backoff up to `maxRetries`,
 * then recorded in `<stem>_failures.jsonl`: a failure never becomes a 0 in the output. With `resume`, the
 * rollouts already in the output are skipped, so an interrupted run ends with exactly one row per
 * (task, rollout). If an agent becomes unreachable, no new rollouts are started (resume later).
 *
 * A run is a sequence of steps, each in its own module: open-output-files, stall-policy, launch-rollouts
 * (with admission, run-with-retries and record-outcome), then finish-output-files and rollout-health (one pass
 * over the output file once the rollouts are written).
 *
 * @example
 * const collection = collectRollouts({ headServer: { host: '127.0.0.1', port: 11000 }, input: 'tasks.jsonl',
 *   outputPath: 'rollouts.jsonl', numRepeats: 4, concurrency: 256 });
 * for await (const outcome of collection) if (outcome.status === 'completed') train(outcome.result);
 * const summary = await collection.done();
 */
import { randomUUID } from 'node:crypto';
import type { ServerClient } from '../client/server-client.ts';
import { MetricsAccumulator, type RolloutMetrics } from '../metrics/rollout-metrics.ts';
import { configuredBudgetBytes } from '../util/memory-budget.ts';
import { MemoryGate } from '../util/memory-gate.ts';
import { NgymError } from '../errors.ts';
import { Admission, memoryGateCountingBoxes } from './admission.ts';
import { checkRoutingTargets } from './agent-routing.ts';
import { checkRepeatsCoverage } from './check-routing.ts';
import { checkDispatchBudget, DispatchBudget } from './dispatch-budget.ts';
import { checkedRouting, type CollectOptions, connectClient } from './collect-options.ts';
import { CollectionTally } from './collection-tally.ts';
import { CollectionTracing } from './collection-tracing.ts';
import { countedClassNames, failuresCountedAsZero } from './counted-zeros.ts';
import { estimateTotalAlongside } from './estimate-total.ts';
import type { FailureClass } from './failures.ts';
import { finishOutputFiles } from './finish-output-files.ts';
import { executorRunner, launchRollouts } from './launch-rollouts.ts';
import { openOutputFiles } from './open-output-files.ts';
import { OutcomeStream } from './outcome-stream.ts';
import { OutcomeWriter } from './outcome-writer.ts';
import { type OutputPaths, outputPathsFor } from './output-files.ts';
import { SilentReporter } from './progress.ts';
import { OutcomeRecorder } from './record-outcome.ts';
import type { RolloutOutcome } from './rollout-outcome.ts';
import { checkOutputHealth, type HealthCheckResult } from './rollout-health.ts';
import { RetryingRunner } from './run-with-retries.ts';
import { startStallHandling } from './stall-policy.ts';
import { StopSignal } from './stop-signal.ts';
import { type InvalidInput, readTasks } from './task-source.ts';

export type { CollectOptions, RolloutExecutor } from './collect-options.ts';
export type { RolloutOutcome } from './rollout-outcome.ts';
export { DEFAULT_STALL_TIMEOUT_SECONDS } from './stall-policy.ts';

export interface CollectionSummary {
  paths: OutputPaths | undefined;
  /** Rollouts completed by this run. */
  completed: number;
  /** Rollouts skipped because a previous run completed them (resume). */
  skipped: number;
  failed: number;
  failuresByClass: Partial<Record<FailureClass, number>>;
  invalidInputs: InvalidInput[];
  /** Rollouts not started because the run stopped early. */
  notStarted: number;
  /** Rollouts an earlier run recorded as failed terminally, so not run again (resume). */
  terminal: number;
  /** Rollouts without a score counted as 0 in the aggregate metrics, as asked (count_*_as_zero). */
  countedAsZero: { failures: number; missing: number };
  stoppedBecause: string | undefined;
  /** Metrics of the whole output file (or of this run's results when there is no file). */
  metrics: RolloutMetrics;
  /** What each agent's `/aggregate_metrics` answered, for the agents that serve it. */
  aggregateMetrics: Record<string, unknown>;
  /** The rollout health of the output file (absent without one, or with `healthCheck: false`). */
  health: HealthCheckResult | undefined;
}

export class RolloutCollection implements AsyncIterable<RolloutOutcome> {
  private readonly outcomes = new OutcomeStream();
  private readonly signal = new StopSignal();
  private running: Promise<CollectionSummary> | undefined;

  constructor(private readonly options: CollectOptions) {}

  /** Runs the collection to its end (if not started) and resolves to its summary. */
  done(): Promise<CollectionSummary> {
    this.running ??= this.run().then(
      (summary) => {
        this.outcomes.close();
        return summary;
      },
      (error: unknown) => {
        this.outcomes.close(error);
        throw error;
      },
    );
    return this.running;
  }

  [Symbol.asyncIterator](): AsyncIterator<RolloutOutcome> {
    const iterator = this.outcomes[Symbol.asyncIterator]();
    void this.done().catch(() => {});
    return iterator;
  }

  /** Starts no new rollouts; those in flight finish and are written. */
  stop(reason = 'stopped on request'): void {
    this.signal.stop(reason);
  }

  get stopping(): boolean {
    return this.signal.stopping;
  }

  private async run(): Promise<CollectionSummary> {
    const options = this.options;
    const routing = checkedRouting(options);
    checkDispatchBudget(options.dispatchBudgetSeconds, options.concurrency);
    const numRepeats = routing.maxRepeats;
    // What a gate that holds rollouts back reports through (the tally, once it exists).
    const onHold = { report: () => {} };
    // Checked before anything is opened: a budget that can never admit a rollout is a config error.
    const memory = collectorMemoryGate(options.memoryBudget, () => onHold.report());
    // With memory_budget_counts_boxes the budget also covers what the container boxes on the engine hold.
    if (options.memoryBudgetCountsBoxes === true && memory === undefined) throw new NgymError('NGYM_USAGE', 'memory_budget_counts_boxes needs a memory_budget to count the boxes against; memory_budget is null.');
    const boxes = memory !== undefined && options.memoryBudgetCountsBoxes === true ? await memoryGateCountingBoxes(memory.budgetBytes, { dockerHost: options.dockerHost, runId: options.boxesOfRun }, () => onHold.report()) : undefined;
    try {
      const client = await connectClient(options);
      if (client !== undefined) checkRoutingTargets(routing, client);
      const warn = options.warn ?? ((message: string) => process.stderr.write(`${message}\n`));
      const { input, limit, responsesCreateParams, prompt } = options;
      const taskOptions = { input, routing, limit, responsesCreateParams, prompt, addSeed: options.numRepeatsAddSeed, onWarning: warn };
      const router = await checkRepeatsCoverage(taskOptions, routing);
      const tracing = await CollectionTracing.start(client);
      const executor = options.executor;
      const paths = options.outputPath === undefined ? undefined : outputPathsFor(options.outputPath);
      const progress = options.progress ?? new SilentReporter();
      const inputFields = new Set<string>();
      const metrics = new MetricsAccumulator({ numRepeats, passThreshold: options.passThreshold, inputFields });
      const files = paths === undefined ? undefined : await openOutputFiles(paths, options, routing, metrics, warn);
      const tally = new CollectionTally(metrics, progress, options.countMissingRolloutsAsZero === true);
      onHold.report = () => tally.report();
      const stalls = startStallHandling(options, this.signal);
      const writer = new OutcomeWriter(files, options, this.signal);
      const admission = new Admission(options.concurrency, this.outcomes, writer, this.signal, boxes?.gate ?? memory);
      tally.watchAdmission(() => admission.waitingForMemory);

      progress.start(undefined);
      await executor?.start(files?.runId ?? randomUUID(), files?.resumed ?? false);
      estimateTotalAlongside(options, numRepeats, progress);
      const tasks = readTasks({ ...taskOptions, router, onInvalid: (invalid) => tally.countInvalid(invalid) });
      const budgetSeconds = options.dispatchBudgetSeconds;
      const drainMargin = options.drainMarginSeconds ?? null;
      if (budgetSeconds !== null && budgetSeconds !== undefined) warn(DispatchBudget.announcement(budgetSeconds, drainMargin));
      try {
        await launchRollouts({
          tasks,
          client,
          done: files?.done,
          prior: files?.prior,
          inputFields,
          tally,
          signal: this.signal,
          admission,
          writer,
          runner: executor === undefined ? new RetryingRunner(client as ServerClient, options, stalls.watch, this.signal) : executorRunner(executor),
          recorder: new OutcomeRecorder(tally, writer, this.outcomes, this.signal, options.routeFailuresToSidecar === false),
          tracing,
          interleave: options.interleaveRepeats,
          budget: budgetSeconds === null || budgetSeconds === undefined ? undefined : new DispatchBudget(budgetSeconds, drainMargin),
        });
      } finally {
        await tracing.end();
        stalls.watch?.stop();
        await executor?.close();
        await writer.close();
        progress.stop();
      }
      writer.throwIfFailed(paths?.output);

      // Every rollout in the output is in the metrics: this run's as they completed, an earlier run's from the resume pass.
      const totals = metrics.result();
      const aggregating = paths !== undefined && files !== undefined && !options.disableAggregation;
      // As upstream, only a run that aggregates counts anything as 0.
      const countedFailures = aggregating ? await failuresCountedAsZero(paths.failures, countedClassNames(options.countFailureClassesAsZero ?? [])) : [];
      const countedMissing = aggregating ? tally.missing : [];
      const aggregateMetrics =
        paths !== undefined && files !== undefined
          ? await finishOutputFiles({ paths, sort: writer.needsSorting, client: options.disableAggregation ? undefined : client, totals, stalledAgents: stalls.stalledAgents, tally, countedAsZero: [...countedFailures, ...countedMissing] })
          : {};
      const health = paths !== undefined && files !== undefined && options.healthCheck !== false ? await checkOutputHealth(paths.output, options.healthCheck ?? {}, warn) : undefined;
      return { paths, ...tally.counts, countedAsZero: { failures: countedFailures.length, missing: countedMissing.length }, invalidInputs: tally.invalidInputs, stoppedBecause: this.signal.reason, metrics: totals, aggregateMetrics, health };
    } finally {
      await boxes?.close();
    }
  }
}

/** The collector's own admission by memory; a budget it is already over is a config error before anything starts. */
function collectorMemoryGate(setting: string | null | undefined, onHold: () => void): MemoryGate | undefined {
  const budget = configuredBudgetBytes(setting, undefined);
  if (budget === null) return undefined;
  const gate = new MemoryGate({ budgetBytes: budget, onHold });
  gate.checkReachable('the collector');
  return gate;
}

export function collectRollouts(options: CollectOptions): RolloutCollection {
  return new RolloutCollection(options);
}
