/**
 * Upstream 0.7.0's `dispatch_budget_s` / `drain_margin_s`: new rollouts start only during the budget's first
 * seconds (the usable walltime of an allocation), and not at all once less time is left than the drain margin,
 * by default the run's own p75 rollout duration once 5 have finished. A rollout not started writes nothing, so
 * `+resume=true` in the next allocation starts it with a whole budget ahead of it, instead of one started and
 * killed part-way through.
 */
import { NgymError } from '../errors.ts';
import { pythonRound } from '../python-compat/python-round.ts';

export class DispatchBudget {
  private readonly deadline: number;
  /** Durations (seconds) of the rollouts that finished, kept sorted: the margin reads a quantile before each start. */
  private readonly durations: number[] = [];

  constructor(
    budgetSeconds: number,
    private readonly marginSeconds: number | null,
  ) {
    this.deadline = performance.now() / 1000 + budgetSeconds;
  }

  /** What upstream prints when the run starts. */
  static announcement(budgetSeconds: number, marginSeconds: number | null): string {
    const minutes = (seconds: number) => pythonRound(seconds / 60, 0).toFixed(0);
    return `Dispatch budget: ${minutes(budgetSeconds)} min. New rollouts stop being ${
      marginSeconds !== null ? `dispatched with under ${minutes(marginSeconds)} min left.` : "dispatched once less time remains than this run's observed p75 task duration."
    }`;
  }

  record(seconds: number): void {
    if (seconds <= 0) return;
    let low = 0;
    let high = this.durations.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((this.durations[middle] as number) <= seconds) low = middle + 1;
      else high = middle;
    }
    this.durations.splice(low, 0, seconds);
  }

  /** Why a rollout must not start now, or undefined when it may. */
  drained(): string | undefined {
    const remaining = this.deadline - performance.now() / 1000;
    const margin = this.marginSeconds ?? (this.durations.length < 5 ? null : this.quantile(0.75));
    if (remaining > 0 && (margin === null || remaining >= margin)) return undefined;
    return margin === null
      ? 'dispatch budget exhausted (dispatch_budget_s)'
      : `${Math.max(0, Math.round(remaining))}s left in dispatch budget, below the ${Math.round(margin)}s drain margin (dispatch_budget_s)`;
  }

  /** Linear interpolation between the two nearest, as upstream's tracker reads it. */
  private quantile(q: number): number {
    const position = (this.durations.length - 1) * q;
    const low = Math.floor(position);
    const high = Math.min(low + 1, this.durations.length - 1);
    return (this.durations[low] as number) * (1 - (position - low)) + (this.durations[high] as number) * (position - low);
  }
}

/** Upstream's check: without a cap on rollouts in flight, everything would start before the budget is looked at again. */
export function checkDispatchBudget(budgetSeconds: number | null | undefined, concurrency: number | null | undefined): void {
  if (budgetSeconds === null || budgetSeconds === undefined) return;
  if (!Number.isFinite(budgetSeconds) || budgetSeconds < 0) throw new NgymError('NGYM_USAGE', `dispatch_budget_s must be >= 0, got ${budgetSeconds}`);
  if (!concurrency) {
    throw new NgymError(
      'NGYM_USAGE',
      'dispatch_budget_s requires a finite positive num_samples_in_parallel; unbounded dispatch can POST the entire queue before the budget is re-checked',
    );
  }
}
