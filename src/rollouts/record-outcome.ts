/**
 * Recording a finished rollout: counted, written, yielded to the reader, shown in the progress line. A
 * connection failure stops the run, since every later rollout of an unreachable agent would fail too (resume
 * once it is back).
 */
import type { CollectionTally } from './collection-tally.ts';
import type { OutcomeStream } from './outcome-stream.ts';
import type { OutcomeWriter } from './outcome-writer.ts';
import type { FinishedRollout } from './rollout-outcome.ts';
import type { StopSignal } from './stop-signal.ts';
import type { Task } from './task-source.ts';

export class OutcomeRecorder {
  constructor(
    private readonly tally: CollectionTally,
    private readonly writer: OutcomeWriter,
    private readonly outcomes: OutcomeStream,
    private readonly signal: StopSignal,
  ) {}

  record(task: Task, rolloutIndex: number, { outcome, line }: FinishedRollout): void {
    try {
      this.tally.countOutcome(outcome);
      this.writer.write(task, rolloutIndex, outcome, line);
      if (outcome.status === 'failed' && outcome.failure.failureClass === 'connection') {
        this.signal.stop(`agent '${task.agent}' is unreachable: ${outcome.failure.message}`);
      }
      this.tally.settle(task.taskIndex);
      this.outcomes.push(outcome);
      this.tally.report();
    } catch (error) {
      // An earlier write failed (the appender throws its error again): the run stops, a resume collects the rest.
      this.writer.failed(error);
    }
  }
}
