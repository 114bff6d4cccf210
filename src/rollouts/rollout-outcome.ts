/**
 * What one rollout came to, as the collection yields it: its result or its failure, with how many attempts
 * it took. Both the local runner and a distributed executor produce these.
 */
import type { RolloutFailure } from './failures.ts';

interface RolloutRef {
  taskIndex: number;
  rolloutIndex: number;
  agent: string;
  attempts: number;
  /** From the start of the first attempt to the end of the last, retries and backoff included. */
  durationMs: number;
}

export type RolloutOutcome =
  | (RolloutRef & { status: 'completed'; result: Record<string, unknown> })
  | (RolloutRef & { status: 'failed'; failure: RolloutFailure });

/** An outcome with the output row of a completed rollout, already serialized (`line`). */
export interface FinishedRollout {
  outcome: RolloutOutcome;
  line?: string;
}
