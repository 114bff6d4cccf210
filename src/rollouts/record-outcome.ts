/**
 * Recording a finished rollout: counted, written, yielded to the reader, shown in the progress line. A
 * connection failure stops the run, since every later rollout of an unreachable agent would fail too (resume
 * once it is back). So does a server's death (`server_oom_killed`, `server_heap_exhausted`, `server_died`): `ngym run` stops the gym
 * after one, and the rollouts in flight that then fail only because the gym went away (a refused connection, a
 * 5xx) are recorded as that death, the error they saw appended. A queue worker's death (`worker_oom_killed`,
 * `worker_heap_exhausted`, `worker_died`) stops the run the same way; the gym is still up, so nothing else is attributed to it.
 * With route_failures_to_sidecar=false, any failure stops the run (upstream's default ends it at a failed /run).
 */
import type { CollectionTally } from './collection-tally.ts';
import type { OutcomeStream } from './outcome-stream.ts';
import type { OutcomeWriter } from './outcome-writer.ts';
import { isServerDeath, isWorkerDeath, type RolloutFailure } from './failures.ts';
import type { FinishedRollout, RolloutOutcome } from './rollout-outcome.ts';
import type { StopSignal } from './stop-signal.ts';
import type { Task } from './task-source.ts';

/** Failures that a gym going away causes in the rollouts it was running. */
const GYM_GONE = new Set<RolloutFailure['failureClass']>(['connection', 'server_error']);

export class OutcomeRecorder {
  /** The first server death this run recorded. */
  private death: RolloutFailure | undefined;

  constructor(
    private readonly tally: CollectionTally,
    private readonly writer: OutcomeWriter,
    private readonly outcomes: OutcomeStream,
    private readonly signal: StopSignal,
    /** Any failure stops the run (route_failures_to_sidecar=false). */
    private readonly stopOnFailure = false,
  ) {}

  record(task: Task, rolloutIndex: number, finished: FinishedRollout): void {
    const outcome = this.attributed(finished.outcome);
    try {
      this.tally.countOutcome(outcome);
      this.writer.write(task, rolloutIndex, outcome, finished.line);
      if (outcome.status === 'failed' && outcome.failure.failureClass === 'connection') {
        this.signal.stop(`agent '${task.agent}' is unreachable: ${outcome.failure.message}`);
      }
      if (outcome.status === 'failed' && isServerDeath(outcome.failure)) {
        this.signal.stop(`a server behind agent '${task.agent}' died (${outcome.failure.failureClass}): ${outcome.failure.message}`);
      }
      if (outcome.status === 'failed' && this.stopOnFailure) {
        this.signal.stop(`a rollout of agent '${task.agent}' failed (${outcome.failure.failureClass}) and route_failures_to_sidecar is false: ${outcome.failure.message}`);
      }
      if (outcome.status === 'failed' && isWorkerDeath(outcome.failure)) {
        this.signal.stop(`the queue worker running a rollout of agent '${task.agent}' died (${outcome.failure.failureClass}): ${outcome.failure.message}`);
      }
      this.tally.settle(task.taskIndex);
      this.outcomes.push(outcome);
      this.tally.report();
    } catch (error) {
      // An earlier write failed (the appender throws its error again): the run stops, a resume collects the rest.
      this.writer.failed(error);
    }
  }

  /** The outcome, or, for a rollout the gym's going away failed after a server died, that death. */
  private attributed(outcome: RolloutOutcome): RolloutOutcome {
    if (outcome.status !== 'failed') return outcome;
    if (isServerDeath(outcome.failure)) {
      this.death ??= outcome.failure;
      return outcome;
    }
    if (this.death === undefined || !GYM_GONE.has(outcome.failure.failureClass)) return outcome;
    return { ...outcome, failure: { ...this.death, message: `${this.death.message} Then this rollout failed with: ${outcome.failure.message}` } };
  }
}
