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
 * @example
 * const collection = collectRollouts({ headServer: { host: '127.0.0.1', port: 11000 }, input: 'tasks.jsonl',
 *   outputPath: 'rollouts.jsonl', numRepeats: 4, concurrency: 256 });
 * for await (const outcome of collection) if (outcome.status === 'completed') train(outcome.result);
 * const summary = await collection.done();
 */
import { createReadStream, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createHash, randomUUID } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ServerClient } from '../client/server-client.ts';
import { describeError, NgymError } from '../errors.ts';
import { AsyncQueue } from '../util/async-queue.ts';
import { Semaphore } from '../util/semaphore.ts';
import type { FailureClass, RolloutFailure } from './failures.ts';
import {
  checkResumable,
  CompletedRollouts,
  fingerprint,
  JsonlAppender,
  type OutputPaths,
  readCompletedRollouts,
  readLinesWithOffsets,
  outputPathsFor,
  type RunManifest,
  rolloutKey,
  sortOutputFile,
} from './output-files.ts';
import { type ProgressReporter, SilentReporter } from './progress.ts';
import { attemptRollout, type RolloutRequest } from './run-attempt.ts';
import { type StallPolicy, StallWatch } from './stall-watch.ts';
import { MetricsAccumulator, type RolloutMetrics } from './rollout-metrics.ts';
import { type InvalidInput, readTasks, type Task } from './task-source.ts';

type Row = Record<string, unknown>;

export interface CollectOptions {
  /** How to reach the servers: a client, or the head server to fetch the global config from. */
  client?: ServerClient;
  headServer?: { host: string; port: number };
  /** The gym's `auth_token`, with `headServer`, when its servers require one. */
  authToken?: string;
  /** A JSONL path, or rows. */
  input: string | Iterable<Row> | AsyncIterable<Row>;
  /** Where results go; without it they are only yielded (no files, no resume). */
  outputPath?: string;
  /** Agent for rows without `agent_ref.name`. */
  agentName?: string | null;
  limit?: number | null;
  numRepeats?: number;
  /** Rollouts in flight at once; null or 0 for no cap. */
  concurrency?: number | null;
  /** Shallow-merged over each row's `responses_create_params`. */
  responsesCreateParams?: Record<string, unknown>;
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
  run(request: RolloutRequest, task: Task): Promise<{ outcome: RolloutOutcome; line?: string }>;
  close(): Promise<void>;
}

export const DEFAULT_STALL_TIMEOUT_SECONDS = 600;

interface RolloutRef {
  taskIndex: number;
  rolloutIndex: number;
  agent: string;
  attempts: number;
  /** From the start of the first attempt to the end of the last, retries and backoff included. */
  durationMs: number;
}

export type RolloutOutcome =
  | (RolloutRef & { status: 'completed'; result: Row })
  | (RolloutRef & { status: 'failed'; failure: RolloutFailure });

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
  stoppedBecause: string | undefined;
  /** Metrics of the whole output file (or of this run's results when there is no file). */
  metrics: RolloutMetrics;
  /** What each agent's `/aggregate_metrics` answered, for the agents that serve it. */
  aggregateMetrics: Record<string, unknown>;
}

const MAX_REPORTED_INVALID = 1000;

function backoff(baseMs: number, attempt: number): number {
  const delay = Math.min(30_000, baseMs * 2 ** attempt);
  return delay / 2 + Math.random() * (delay / 2);
}

export class RolloutCollection implements AsyncIterable<RolloutOutcome> {
  private readonly queue = new AsyncQueue<RolloutOutcome>(1024);
  private consumer = false;
  private running: Promise<CollectionSummary> | undefined;
  private stopReason: string | undefined;
  private readonly wakeups = new Set<() => void>();
  private stallWatch: StallWatch | undefined;

  constructor(private readonly options: CollectOptions) {}

  /** Runs the collection to its end (if not started) and resolves to its summary. */
  done(): Promise<CollectionSummary> {
    this.running ??= this.run().then(
      (summary) => {
        this.queue.close();
        return summary;
      },
      (error: unknown) => {
        this.queue.close(error);
        throw error;
      },
    );
    return this.running;
  }

  [Symbol.asyncIterator](): AsyncIterator<RolloutOutcome> {
    this.consumer = true;
    void this.done().catch(() => {});
    return this.queue;
  }

  /** Starts no new rollouts; those in flight finish and are written. */
  stop(reason = 'stopped on request'): void {
    this.stopReason ??= reason;
    for (const wake of this.wakeups) wake();
  }

  get stopping(): boolean {
    return this.stopReason !== undefined;
  }

  private async run(): Promise<CollectionSummary> {
    const options = this.options;
    const numRepeats = options.numRepeats ?? 1;
    if (!Number.isInteger(numRepeats) || numRepeats < 1) throw new NgymError('NGYM_USAGE', `num_repeats must be an integer >= 1, got ${numRepeats}.`);
    const client = options.client ?? (options.headServer ? await ServerClient.fromHeadServer(options.headServer, undefined, options.authToken) : undefined);
    const executor = options.executor;
    if (client === undefined && executor === undefined) throw new NgymError('NGYM_USAGE', 'collectRollouts needs a client, headServer or executor.');
    const paths = options.outputPath === undefined ? undefined : outputPathsFor(options.outputPath);
    const progress = options.progress ?? new SilentReporter();

    const inputFields = new Set<string>();
    const metrics = new MetricsAccumulator({ numRepeats, passThreshold: options.passThreshold, inputFields });
    const files = paths === undefined ? undefined : await this.openFiles(paths, numRepeats, metrics);
    const invalidInputs: InvalidInput[] = [];
    let invalidCount = 0;
    const summary = {
      completed: 0,
      skipped: 0,
      failed: 0,
      notStarted: 0,
      failuresByClass: {} as Partial<Record<FailureClass, number>>,
    };
    // Agents given up on: their /aggregate_metrics would wait on the same frozen server.
    const stalledAgents = new Set<string>();
    const stallTimeoutMs = options.stallTimeoutMs === undefined ? DEFAULT_STALL_TIMEOUT_SECONDS * 1000 : options.stallTimeoutMs;
    const policy = options.onStall ?? 'stop';
    const warn = options.warn ?? ((message: string) => process.stderr.write(`\n${message}\n`));
    this.stallWatch =
      stallTimeoutMs === null || executor !== undefined
        ? undefined
        : new StallWatch(stallTimeoutMs, (stall, abortAll) => {
            const action =
              policy === 'report'
                ? 'waiting on (on_stall=report)'
                : policy === 'fail'
                  ? 'recording them as failures and going on (on_stall=fail)'
                  : 'recording them as failures and starting nothing new (on_stall=stop); resume later with +resume=true';
            warn(
              `Stalled: no rollout of agent '${stall.agent}' finished for ${Math.round(stall.quietMs / 1000)} s; ${stall.inFlight} in flight, the oldest for ${Math.round(stall.oldestMs / 1000)} s. ` +
                `A server behind it may be frozen or overloaded (\`ngym run\` reports servers that stop answering). ${action[0]?.toUpperCase()}${action.slice(1)}.`,
            );
            if (policy === 'report') return;
            stalledAgents.add(stall.agent);
            if (policy === 'stop') this.stop(`agent '${stall.agent}' stalled`);
            abortAll();
          });
    this.stallWatch?.start();
    const semaphore = options.concurrency ? new Semaphore(options.concurrency) : undefined;
    const inFlight = new Set<Promise<void>>();
    const ordered = options.ordered === true && files !== undefined ? new OrderedWriter(files.output, Math.max(64, (options.concurrency ?? 256) * 4)) : undefined;
    let rewardTotal = 0;
    // Rollouts of each started task not yet in; at 0 its metrics are folded and it takes no more memory.
    const unsettled = new Map<number, number>();
    const settle = (taskIndex: number) => {
      const left = (unsettled.get(taskIndex) ?? 1) - 1;
      if (left > 0) return void unsettled.set(taskIndex, left);
      unsettled.delete(taskIndex);
      metrics.closeTask(taskIndex);
    };

    // A full disk or a vanished directory: stop starting rollouts, finish, then fail with one clear error.
    let writeError: unknown;
    const writeFailed = (error: unknown) => {
      writeError ??= error;
      this.stop('the output cannot be written');
    };

    const report = () =>
      progress.update(summary.completed + summary.skipped + summary.failed, {
        failed: summary.failed,
        reward: summary.completed > 0 ? (rewardTotal / summary.completed).toFixed(3) : '-',
      });

    const finish = (task: Task, rolloutIndex: number, outcome: RolloutOutcome, line?: string) => {
      const key = rolloutKey(task.taskIndex, rolloutIndex);
      if (outcome.status === 'completed') {
        summary.completed++;
        rewardTotal += Number(outcome.result.reward);
        metrics.add(outcome.result);
        if (ordered !== undefined) ordered.resolve(key, line);
        else files?.output.append(line as string);
      } else {
        summary.failed++;
        summary.failuresByClass[outcome.failure.failureClass] = (summary.failuresByClass[outcome.failure.failureClass] ?? 0) + 1;
        ordered?.resolve(key, undefined);
        files?.failures.append(
          JSON.stringify({
            _ng_task_index: task.taskIndex,
            _ng_rollout_index: rolloutIndex,
            agent_ref: { name: task.agent },
            _ng_failure_class: outcome.failure.failureClass,
            error: outcome.failure.message,
            status: outcome.failure.status ?? null,
            code: outcome.failure.code ?? null,
            attempts: outcome.attempts,
            input_line: task.line,
            failed_at: new Date().toISOString(),
          }),
        );
        if (outcome.failure.failureClass === 'connection') this.stop(`agent '${task.agent}' is unreachable: ${outcome.failure.message}`);
      }
      settle(task.taskIndex);
      if (this.consumer) this.queue.push(outcome);
      report();
    };

    // Counting the lines of a large input takes a while: it runs alongside, and the total appears when known.
    progress.start(undefined);
    await executor?.start(files?.runId ?? randomUUID(), files?.resumed ?? false);
    if (typeof options.input === 'string') {
      void estimateRollouts(options.input, options.limit ?? null, numRepeats).then(
        (total) => total !== undefined && progress.setTotal(total),
        () => {},
      );
    }
    try {
      const tasks = readTasks({
        input: options.input,
        agentName: options.agentName,
        limit: options.limit,
        numRepeats,
        responsesCreateParams: options.responsesCreateParams,
        onInvalid: (invalid) => {
          invalidCount++;
          if (invalidInputs.length < MAX_REPORTED_INVALID) invalidInputs.push(invalid);
        },
      });
      for await (const task of tasks) {
        for (const key of Object.keys(task.row)) inputFields.add(key);
        try {
          client?.url(task.agent);
        } catch (error) {
          invalidCount++;
          if (invalidInputs.length < MAX_REPORTED_INVALID) invalidInputs.push({ line: task.line, reason: describeError(error) });
          continue;
        }
        unsettled.set(task.taskIndex, task.rollouts);
        for (let rolloutIndex = 0; rolloutIndex < task.rollouts; rolloutIndex++) {
          if (files?.done.has(task.taskIndex, rolloutIndex)) {
            summary.skipped++;
            settle(task.taskIndex);
            continue;
          }
          if (this.stopping) {
            summary.notStarted++;
            continue;
          }
          await this.waitForAdmission(semaphore, ordered);
          if (this.stopping) {
            semaphore?.release();
            summary.notStarted++;
            continue;
          }
          ordered?.launch(rolloutKey(task.taskIndex, rolloutIndex));
          const running = (
            executor === undefined
              ? this.runRollout(client as ServerClient, task, rolloutIndex)
              : executor.run({ agent: task.agent, taskIndex: task.taskIndex, rolloutIndex, body: requestBody(task, rolloutIndex) }, task)
          ).then((result) => {
            semaphore?.release();
            try {
              finish(task, rolloutIndex, result.outcome, result.line);
            } catch (error) {
              writeFailed(error);
            }
          });
          inFlight.add(running);
          void running.finally(() => inFlight.delete(running));
        }
      }
      await Promise.all(inFlight);
    } finally {
      this.stallWatch?.stop();
      await executor?.close();
      await files?.output.close().catch(writeFailed);
      await files?.failures.close().catch(writeFailed);
      progress.stop();
    }
    if (writeError !== undefined) {
      throw new NgymError(
        'NGYM_OUTPUT_WRITE',
        `Cannot write the output (${paths?.output}): ${describeError(writeError)}. Collection stopped; rollouts whose rows did not reach the file are not counted as done. Free space (or fix the path) and run the same command with +resume=true: it keeps every whole row in the file and collects the rest.`,
        { cause: writeError },
      );
    }

    // Every rollout in the output is in the metrics: this run's as they completed, an earlier run's from the resume pass.
    const totals: RolloutMetrics = metrics.result();
    const aggregateMetrics: Record<string, unknown> = {};
    if (paths !== undefined && files !== undefined) {
      if (options.ordered && (files.resumed || ordered?.outOfOrder)) await sortOutputFile(paths.output);
      if (client !== undefined) Object.assign(aggregateMetrics, await requestAggregateMetrics(client, paths.output, Object.keys(totals.agents).filter((agent) => !stalledAgents.has(agent))));
      writeFileSync(
        paths.metrics,
        `${JSON.stringify({ ...totals, failures: summary.failed, failures_by_class: summary.failuresByClass, invalid_input_lines: invalidCount, aggregate_metrics: aggregateMetrics }, null, 2)}\n`,
      );
    }
    return { paths, ...summary, invalidInputs, stoppedBecause: this.stopReason, metrics: totals, aggregateMetrics };
  }

  private async waitForAdmission(semaphore: Semaphore | undefined, ordered: OrderedWriter | undefined): Promise<void> {
    if (this.consumer) await this.queue.waitForSpace();
    if (ordered !== undefined) await ordered.waitForRoom(() => this.stopping);
    if (semaphore === undefined) return;
    // The semaphore wait ends early on stop(), so a stopping run never waits for a slot it will not use.
    let wake: (() => void) | undefined;
    const stopped = new Promise<void>((resolve) => {
      wake = resolve;
      this.wakeups.add(resolve);
    });
    const acquired = semaphore.acquire().then(() => 'acquired' as const);
    const outcome = await Promise.race([acquired, stopped.then(() => 'stopped' as const)]);
    this.wakeups.delete(wake as () => void);
    // A stop that raced an acquisition still holds a slot: the caller releases it.
    if (outcome === 'stopped') await acquired;
  }

  private async runRollout(client: ServerClient, task: Task, rolloutIndex: number): Promise<{ outcome: RolloutOutcome; line?: string }> {
    const options = this.options;
    const body = requestBody(task, rolloutIndex);
    const timeoutMs = options.rolloutTimeoutMs === undefined ? client.defaultTimeoutMs : options.rolloutTimeoutMs;
    const maxRetries = options.maxRetries ?? 3;
    const started = performance.now();
    const reference = () => ({ taskIndex: task.taskIndex, rolloutIndex, agent: task.agent, durationMs: performance.now() - started });
    const request = { agent: task.agent, taskIndex: task.taskIndex, rolloutIndex, body };
    for (let attempt = 0; ; attempt++) {
      const controller = new AbortController();
      const end = this.stallWatch?.begin(task.agent, (reason) => controller.abort(reason));
      const attempted = await attemptRollout(client, request, { timeoutMs, signal: controller.signal });
      end?.(attempted.ok || attempted.answered);
      if (attempted.ok) return { outcome: { ...reference(), status: 'completed', result: attempted.result, attempts: attempt + 1 }, line: attempted.line };
      const failure = attempted.failure;
      if (!failure.retryable || attempt >= maxRetries || this.stopping) {
        return { outcome: { ...reference(), status: 'failed', failure, attempts: attempt + 1 } };
      }
      await sleep(backoff(options.retryDelayMs ?? 1000, attempt));
    }
  }

  private async openFiles(paths: OutputPaths, numRepeats: number, metrics: MetricsAccumulator) {
    const options = this.options;
    const exists = existsSync(paths.output) && statSync(paths.output).size > 0;
    if (exists && !options.resume && !options.overwrite) {
      throw new NgymError(
        'NGYM_USAGE',
        `Output file ${paths.output} already exists. Pass +resume=true to continue that run, or +overwrite=true to start over.`,
      );
    }
    const manifest: RunManifest = {
      input: typeof options.input === 'string' ? options.input : '(rows passed in code)',
      input_size: 0,
      input_fingerprint: '',
      num_repeats: numRepeats,
      limit: options.limit ?? null,
      agent_name: options.agentName ?? null,
      responses_create_params: options.responsesCreateParams ?? {},
      started_at: new Date().toISOString(),
    };
    if (typeof options.input === 'string') {
      if (!existsSync(options.input)) throw new NgymError('NGYM_INPUT_INVALID', `Input file not found: ${options.input}`);
      const print = await fingerprint(options.input);
      manifest.input_size = print.size;
      manifest.input_fingerprint = print.hash;
    }
    const resumed = options.resume === true && exists;
    mkdirSync(dirname(paths.output), { recursive: true });
    let startedAt = manifest.started_at;
    if (resumed && existsSync(paths.manifest)) {
      const previous = JSON.parse(readFileSync(paths.manifest, 'utf8')) as RunManifest;
      checkResumable(previous, manifest, paths.manifest);
      startedAt = previous.started_at;
    } else {
      writeFileSync(paths.manifest, `${JSON.stringify(manifest, null, 2)}\n`);
    }
    const output = await JsonlAppender.open(paths.output, { truncate: !resumed });
    const done = resumed ? await readCompletedRollouts(paths.output, (row) => metrics.add(row)) : new CompletedRollouts();
    // Failures of an earlier attempt are retried now, so the failures file lists only what still fails.
    const failures = await JsonlAppender.open(paths.failures, { truncate: true, lazy: true });
    // The output file and the start of the run it holds: what a distributed run names its jobs by.
    const runId = createHash('sha256').update(`${resolve(paths.output)}\n${startedAt}`).digest('hex').slice(0, 16);
    return { output, failures, done, resumed, runId };
  }
}

/**
 * The row with its identity stamps. An input line that is already the row gets them appended to its text,
 * which spares re-serializing every row (prompts can be long) once per rollout.
 */
function requestBody(task: Task, rolloutIndex: number): string {
  const stamps = `"_ng_task_index":${task.taskIndex},"_ng_rollout_index":${rolloutIndex}`;
  const text = task.text?.trimEnd();
  if (text !== undefined && text.endsWith('}') && !('_ng_task_index' in task.row) && !('_ng_rollout_index' in task.row)) {
    return Object.keys(task.row).length === 0 ? `{${stamps}}` : `${text.slice(0, -1)},${stamps}}`;
  }
  return JSON.stringify({ ...task.row, _ng_task_index: task.taskIndex, _ng_rollout_index: rolloutIndex });
}

/** Rough total for the progress bar: input lines times repeats (before limits on duplicates). */
async function estimateRollouts(path: string, limit: number | null, numRepeats: number): Promise<number | undefined> {
  if (!existsSync(path)) return undefined;
  let lines = 0;
  let last = 10;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    for (let index = chunk.indexOf(10); index !== -1; index = chunk.indexOf(10, index + 1)) lines++;
    last = chunk.at(-1) ?? last;
  }
  if (last !== 10) lines++;
  return (limit === null ? lines : Math.min(limit, lines)) * numRepeats;
}

/** POSTs each agent's stripped results to its `/aggregate_metrics` (upstream's later API), if it serves one. */
async function requestAggregateMetrics(client: ServerClient, outputPath: string, agents: string[]): Promise<Record<string, unknown>> {
  const answers: Record<string, unknown> = {};
  for (const agent of agents) {
    let probe;
    try {
      probe = await client.post(agent, '/aggregate_metrics', { verify_responses: [] }, { timeoutMs: 30_000 });
    } catch {
      continue;
    }
    if (probe.status === 404 || probe.status === 405) continue;
    const rows: Row[] = [];
    for await (const { bytes } of readLinesWithOffsets(outputPath)) {
      if (bytes.length === 0) continue;
      const row = JSON.parse(bytes.toString('utf8')) as Row;
      if ((row.agent_ref as { name?: string } | undefined)?.name !== agent) continue;
      const { response, responses_create_params: _params, ...rest } = row;
      rows.push({ ...rest, response: { usage: (response as { usage?: unknown } | undefined)?.usage ?? null } });
    }
    const answer = await client.post(agent, '/aggregate_metrics', { verify_responses: rows }, { timeoutMs: 600_000 });
    if (answer.ok) answers[agent] = answer.json();
  }
  return answers;
}

/**
 * Writes results in launch order, which is (task, rollout) order for an input in task order: a result
 * waits until everything launched before it is resolved. Admission pauses while too many wait.
 */
class OrderedWriter {
  private readonly launched: number[] = [];
  private head = 0;
  private readonly resolved = new Map<number, string | undefined>();
  private readonly roomWaiters: (() => void)[] = [];
  private lastLaunched = -1;
  outOfOrder = false;

  constructor(
    private readonly appender: JsonlAppender,
    private readonly maxWaiting: number,
  ) {}

  launch(key: number): void {
    if (key < this.lastLaunched) this.outOfOrder = true;
    this.lastLaunched = key;
    this.launched.push(key);
  }

  resolve(key: number, line: string | undefined): void {
    this.resolved.set(key, line);
    while (this.head < this.launched.length && this.resolved.has(this.launched[this.head] as number)) {
      const next = this.launched[this.head] as number;
      const text = this.resolved.get(next);
      this.resolved.delete(next);
      if (text !== undefined) this.appender.append(text);
      this.head++;
    }
    if (this.head > 4096) {
      this.launched.splice(0, this.head);
      this.head = 0;
    }
    if (this.resolved.size < this.maxWaiting) for (const waiter of this.roomWaiters.splice(0)) waiter();
  }

  async waitForRoom(stopping: () => boolean): Promise<void> {
    while (this.resolved.size >= this.maxWaiting && !stopping()) await new Promise<void>((resolve) => this.roomWaiters.push(resolve));
  }
}

export function collectRollouts(options: CollectOptions): RolloutCollection {
  return new RolloutCollection(options);
}
