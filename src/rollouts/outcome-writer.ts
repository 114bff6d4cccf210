/**
 * The writer of a collection: a completed rollout's row goes to the output (in (task, rollout) order with
 * `ordered`), a failed one's record to the failures file. A write that fails (a full disk, a vanished
 * directory) stops the run rather than ending it at once: the rollouts in flight finish, then one clear
 * error says how to go on.
 */
import { describeError, NgymError } from '../errors.ts';
import type { CollectOptions } from './collect-options.ts';
import type { OutputFiles } from './open-output-files.ts';
import { OrderedWriter } from './ordered-writer.ts';
import { rolloutKey } from './output-files.ts';
import type { RolloutOutcome } from './rollout-outcome.ts';
import type { StopSignal } from './stop-signal.ts';
import type { Task } from './task-source.ts';

export class OutcomeWriter {
  private readonly ordered: OrderedWriter | undefined;
  private readonly sortRequested: boolean;
  private writeError: unknown;

  /** Without files (no `outputPath`) it writes nothing. */
  constructor(
    private readonly files: OutputFiles | undefined,
    options: Pick<CollectOptions, 'ordered' | 'concurrency'>,
    private readonly signal: StopSignal,
  ) {
    this.ordered = options.ordered === true && files !== undefined ? new OrderedWriter(files.output, Math.max(64, (options.concurrency ?? 256) * 4)) : undefined;
    this.sortRequested = options.ordered ?? false;
  }

  /** Resolves once the ordered output holds back few enough results (at once for an unordered one). */
  async waitForRoom(): Promise<void> {
    if (this.ordered !== undefined) await this.ordered.waitForRoom(() => this.signal.stopping);
  }

  /** Takes the rollout's place in the output order as it starts. */
  reservePlace(taskIndex: number, rolloutIndex: number): void {
    this.ordered?.launch(rolloutKey(taskIndex, rolloutIndex));
  }

  write(task: Task, rolloutIndex: number, outcome: RolloutOutcome, line: string | undefined): void {
    const key = rolloutKey(task.taskIndex, rolloutIndex);
    if (outcome.status === 'completed') {
      if (this.ordered !== undefined) this.ordered.resolve(key, line);
      else this.files?.output.append(line as string);
      return;
    }
    this.ordered?.resolve(key, undefined);
    const declared = outcome.failure.declared;
    const attemptIndex = this.files?.prior.attemptOf(task.taskIndex, rolloutIndex);
    this.files?.failures.append(
      JSON.stringify({
        // An agent's own failure record keeps its fields (_ng_failure_terminal, elapsed_seconds, ...) and its class.
        ...declared,
        _ng_task_index: task.taskIndex,
        _ng_rollout_index: rolloutIndex,
        ...(attemptIndex === undefined ? {} : { _ng_attempt_index: attemptIndex }),
        agent_ref: { name: task.agent },
        _ng_failure_class: declared?._ng_failure_class ?? outcome.failure.failureClass,
        error: outcome.failure.message,
        status: outcome.failure.status ?? null,
        code: outcome.failure.code ?? null,
        attempts: outcome.attempts,
        input_line: task.line,
        failed_at: new Date().toISOString(),
      }),
    );
  }

  /** Keeps the first error for throwIfFailed(), and stops the run. */
  failed(error: unknown): void {
    this.writeError ??= error;
    this.signal.stop('the output cannot be written');
  }

  /** Flushes and closes both files; a failure here is a write failure too. */
  async close(): Promise<void> {
    await this.files?.output.close().catch((error: unknown) => this.failed(error));
    await this.files?.failures.close().catch((error: unknown) => this.failed(error));
  }

  /** After close(): a write that failed, as the error that tells how to resume. */
  throwIfFailed(outputPath: string | undefined): void {
    if (this.writeError === undefined) return;
    throw new NgymError(
      'NGYM_OUTPUT_WRITE',
      `Cannot write the output (${outputPath}): ${describeError(this.writeError)}. Collection stopped; rollouts whose rows did not reach the file are not counted as done. Free space (or fix the path) and run the same command with +resume=true: it keeps every whole row in the file and collects the rest.`,
      { cause: this.writeError },
    );
  }

  /** An ordered output that a resumed run appended to, or that rollouts were launched into out of order, is sorted at the end. */
  get needsSorting(): boolean {
    return this.sortRequested && (this.files?.resumed === true || this.ordered?.outOfOrder === true);
  }
}
