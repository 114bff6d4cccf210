/**
 * Launching the rollouts: each task of the input is routed to its agent, then each of its rollouts is
 * skipped (an earlier run completed it), not started (the run is stopping) or started once admitted. They
 * run concurrently and are recorded as they finish; this resolves when the last one is recorded.
 */
import type { ServerClient } from '../client/server-client.ts';
import { describeError } from '../errors.ts';
import type { Admission } from './admission.ts';
import type { RolloutExecutor } from './collect-options.ts';
import type { CollectionTally } from './collection-tally.ts';
import type { CollectionTracing } from './collection-tracing.ts';
import type { OutcomeWriter } from './outcome-writer.ts';
import type { CompletedRollouts } from './output-files.ts';
import type { OutcomeRecorder } from './record-outcome.ts';
import type { FinishedRollout } from './rollout-outcome.ts';
import { rolloutRequest } from './rollout-request.ts';
import type { StopSignal } from './stop-signal.ts';
import type { Task } from './task-source.ts';

/** Runs one rollout to its outcome: here with retries (RetryingRunner), or through an executor. */
export interface RolloutRunner {
  run(task: Task, rolloutIndex: number): Promise<FinishedRollout>;
}

export function executorRunner(executor: RolloutExecutor): RolloutRunner {
  return { run: (task, rolloutIndex) => executor.run(rolloutRequest(task, rolloutIndex), task) };
}

export interface Launch {
  tasks: AsyncIterable<Task>;
  /** Checks each task's agent exists; undefined when an executor runs the rollouts without a client. */
  client: ServerClient | undefined;
  /** Rollouts an earlier run completed (resume). */
  done: CompletedRollouts | undefined;
  /** The input rows' top-level fields, which the metrics leave out. */
  inputFields: Set<string>;
  tally: CollectionTally;
  signal: StopSignal;
  admission: Admission;
  writer: OutcomeWriter;
  runner: RolloutRunner;
  recorder: OutcomeRecorder;
  tracing: CollectionTracing;
}

export async function launchRollouts(launch: Launch): Promise<void> {
  const { tally, admission } = launch;
  const inFlight = new Set<Promise<void>>();
  for await (const task of launch.tasks) {
    for (const key of Object.keys(task.row)) launch.inputFields.add(key);
    try {
      launch.client?.url(task.agent);
    } catch (error) {
      tally.countInvalid({ line: task.line, reason: describeError(error) });
      continue;
    }
    tally.openTask(task);
    for (let rolloutIndex = 0; rolloutIndex < task.rollouts; rolloutIndex++) {
      if (launch.done?.has(task.taskIndex, rolloutIndex)) {
        tally.countSkipped(task.taskIndex);
        continue;
      }
      if (launch.signal.stopping || !(await admission.admit())) {
        tally.countNotStarted();
        continue;
      }
      launch.writer.reservePlace(task.taskIndex, rolloutIndex);
      const running = launch.tracing.rollout(task.taskIndex, rolloutIndex, () => launch.runner.run(task, rolloutIndex)).then((finished) => {
        admission.release();
        launch.recorder.record(task, rolloutIndex, finished);
      });
      inFlight.add(running);
      void running.finally(() => inFlight.delete(running));
    }
  }
  await Promise.all(inFlight);
}
