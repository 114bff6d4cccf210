/**
 * The counts of a collection as it goes: rollouts completed, skipped (done by an earlier run), failed and not
 * started, the invalid input lines, and the progress line made of them. It also folds each task into the
 * metrics once its last rollout is in, so memory holds only the tasks still open.
 */
import type { MetricsAccumulator } from '../metrics/rollout-metrics.ts';
import { type CountedZero, missingCountedAsZero } from './counted-zeros.ts';
import type { FailureClass } from './failures.ts';
import type { ProgressReporter } from './progress.ts';
import type { RolloutOutcome } from './rollout-outcome.ts';
import type { InvalidInput, Task } from './task-source.ts';

/** More would only make the summary huge: the count still covers all. */
const MAX_REPORTED_INVALID = 1000;

export class CollectionTally {
  /** The summary's counts, in its order. */
  readonly counts = {
    completed: 0,
    skipped: 0,
    failed: 0,
    notStarted: 0,
    /** Failed terminally in an earlier run, so not run again (resume). */
    terminal: 0,
    failuresByClass: {} as Partial<Record<FailureClass, number>>,
  };
  readonly invalidInputs: InvalidInput[] = [];
  /** The rollouts not started, kept only when they are to count as 0 (count_missing_rollouts_as_zero). */
  readonly missing: CountedZero[] = [];
  private invalidLines = 0;
  private rewardTotal = 0;
  /** Rollouts of each started task not yet in. */
  private readonly unsettled = new Map<number, number>();
  private waitingForMemory: () => number = () => 0;

  constructor(
    private readonly metrics: MetricsAccumulator,
    private readonly progress: ProgressReporter,
    private readonly keepMissing = false,
  ) {}

  get invalidCount(): number {
    return this.invalidLines;
  }

  /** Where the progress line reads the rollouts held back by the memory budget. */
  watchAdmission(waiting: () => number): void {
    this.waitingForMemory = waiting;
  }

  countInvalid(invalid: InvalidInput): void {
    this.invalidLines++;
    if (this.invalidInputs.length < MAX_REPORTED_INVALID) this.invalidInputs.push(invalid);
  }

  /** A row fanned out to several agents opens its task once per agent. */
  openTask(task: Task): void {
    this.unsettled.set(task.taskIndex, (this.unsettled.get(task.taskIndex) ?? 0) + task.rollouts);
  }

  countSkipped(taskIndex: number): void {
    this.counts.skipped++;
    this.settle(taskIndex);
  }

  countTerminal(taskIndex: number): void {
    this.counts.terminal++;
    this.settle(taskIndex);
  }

  countNotStarted(task: Task, rolloutIndex: number): void {
    this.counts.notStarted++;
    if (this.keepMissing) this.missing.push(missingCountedAsZero(task.taskIndex, rolloutIndex, task.agent, task.row));
  }

  countOutcome(outcome: RolloutOutcome): void {
    const counts = this.counts;
    if (outcome.status === 'completed') {
      counts.completed++;
      this.rewardTotal += Number(outcome.result.reward);
      this.metrics.add(outcome.result);
      return;
    }
    counts.failed++;
    counts.failuresByClass[outcome.failure.failureClass] = (counts.failuresByClass[outcome.failure.failureClass] ?? 0) + 1;
  }

  /** One more rollout of the task is in; the last one closes the task. */
  settle(taskIndex: number): void {
    const left = (this.unsettled.get(taskIndex) ?? 1) - 1;
    if (left > 0) return void this.unsettled.set(taskIndex, left);
    this.unsettled.delete(taskIndex);
    this.metrics.closeTask(taskIndex);
  }

  report(): void {
    const counts = this.counts;
    const waiting = this.waitingForMemory();
    this.progress.update(counts.completed + counts.skipped + counts.failed, {
      failed: counts.failed,
      reward: counts.completed > 0 ? (this.rewardTotal / counts.completed).toFixed(3) : '-',
      // Only while admission holds rollouts back: the line stays as it was otherwise.
      ...(waiting > 0 ? { waiting_for_memory: waiting } : {}),
    });
  }
}
