/**
 * Launching the rollouts: each task of the input is routed to its agent, then each of its rollouts is
 * skipped (an earlier run completed it), not started (the run is stopping) or started once admitted. They
 * run concurrently and are recorded as they finish; this resolves when the last one is recorded.
 *
 * Rollouts start task by task (aabbcc), or with `interleave` round by round (abcabc: every rollout 0 in input
 * order, then every rollout 1, ...), which needs every task in hand first, as upstream holds them.
 */
import type { ServerClient } from '../client/server-client.ts';
import { describeError } from '../errors.ts';
import type { Admission } from './admission.ts';
import type { RolloutExecutor } from './collect-options.ts';
import type { CollectionTally } from './collection-tally.ts';
import type { CollectionTracing } from './collection-tracing.ts';
import type { OutcomeWriter } from './outcome-writer.ts';
import type { DispatchBudget } from './dispatch-budget.ts';
import type { CompletedRollouts } from './output-files.ts';
import type { PriorFailures } from './prior-failures.ts';
import type { OutcomeRecorder } from './record-outcome.ts';
import type { FinishedRollout } from './rollout-outcome.ts';
import { rolloutRequest } from './rollout-request.ts';
import type { StopSignal } from './stop-signal.ts';
import type { Task } from './task-source.ts';

/** Runs one rollout to its outcome: here with retries (RetryingRunner), or through an executor. */
export interface RolloutRunner {
  /** `attemptIndex`: a retry of a rollout an earlier run failed (upstream's `_ng_attempt_index`). */
  run(task: Task, rolloutIndex: number, attemptIndex?: number): Promise<FinishedRollout>;
}

export function executorRunner(executor: RolloutExecutor): RolloutRunner {
  return { run: (task, rolloutIndex, attemptIndex) => executor.run(rolloutRequest(task, rolloutIndex, attemptIndex), task) };
}

export interface Launch {
  tasks: AsyncIterable<Task>;
  /** Checks each task's agent exists; undefined when an executor runs the rollouts without a client. */
  client: ServerClient | undefined;
  /** Rollouts an earlier run completed (resume). */
  done: CompletedRollouts | undefined;
  /** What an earlier run's failures say: the terminal ones are not run again, the others carry their attempt index. */
  prior: PriorFailures | undefined;
  /** The input rows' top-level fields, which the metrics leave out. */
  inputFields: Set<string>;
  tally: CollectionTally;
  signal: StopSignal;
  admission: Admission;
  writer: OutcomeWriter;
  runner: RolloutRunner;
  recorder: OutcomeRecorder;
  tracing: CollectionTracing;
  /** Stops starting rollouts when upstream's dispatch_budget_s runs out. */
  budget?: DispatchBudget;
  /** Start the rollouts by rollout index (upstream's interleave_repeats). */
  interleave?: boolean;
}

interface PlannedRollout {
  task: Task;
  rolloutIndex: number;
  /** The task's first rollout in launch order: the task is opened then. */
  opens: boolean;
}

async function* inOrder(tasks: AsyncIterable<Task>, interleave: boolean): AsyncGenerator<PlannedRollout> {
  if (!interleave) {
    for await (const task of tasks) {
      for (let offset = 0; offset < task.rollouts; offset++) yield { task, rolloutIndex: task.firstRollout + offset, opens: offset === 0 };
    }
    return;
  }
  const held: Task[] = [];
  for await (const task of tasks) held.push(task);
  const end = Math.max(0, ...held.map((task) => task.firstRollout + task.rollouts));
  // By rollout index, each index in input order: upstream's stable sort of its rows by _ng_rollout_index.
  for (let rolloutIndex = 0; rolloutIndex < end; rolloutIndex++) {
    for (const task of held) {
      if (rolloutIndex >= task.firstRollout && rolloutIndex < task.firstRollout + task.rollouts) yield { task, rolloutIndex, opens: rolloutIndex === task.firstRollout };
    }
  }
}

/** The tasks whose agent this gym has; the others are invalid input lines. */
async function* routable(launch: Launch): AsyncGenerator<Task> {
  for await (const task of launch.tasks) {
    try {
      launch.client?.url(task.agent);
    } catch (error) {
      launch.tally.countInvalid({ line: task.line, reason: describeError(error) });
      continue;
    }
    yield task;
  }
}

export async function launchRollouts(launch: Launch): Promise<void> {
  const { tally, admission } = launch;
  const inFlight = new Set<Promise<void>>();
  for await (const { task, rolloutIndex, opens } of inOrder(routable(launch), launch.interleave === true)) {
    if (opens) {
      for (const key of Object.keys(task.row)) launch.inputFields.add(key);
      tally.openTask(task);
    }
    if (launch.done?.has(task.taskIndex, rolloutIndex)) {
      tally.countSkipped(task.taskIndex);
      continue;
    }
    if (launch.prior?.isTerminal(task.taskIndex, rolloutIndex)) {
      tally.countTerminal(task.taskIndex);
      continue;
    }
    if (launch.signal.stopping || !(await admission.admit())) {
      tally.countNotStarted(task, rolloutIndex);
      continue;
    }
    const drained = launch.budget?.drained();
    if (drained !== undefined) {
      // Nothing is written for it: resume starts it in the next allocation, with a whole budget ahead.
      admission.release();
      launch.signal.stop(drained);
      tally.countNotStarted(task, rolloutIndex);
      continue;
    }
    launch.writer.reservePlace(task.taskIndex, rolloutIndex);
    const started = performance.now();
    const running = launch.tracing.rollout(task.taskIndex, rolloutIndex, () => launch.runner.run(task, rolloutIndex, launch.prior?.attemptOf(task.taskIndex, rolloutIndex))).then((finished) => {
      admission.release();
      if (finished.outcome.status === 'completed') launch.budget?.record((performance.now() - started) / 1000);
      launch.recorder.record(task, rolloutIndex, finished);
    });
    inFlight.add(running);
    void running.finally(() => inFlight.delete(running));
  }
  await Promise.all(inFlight);
}
