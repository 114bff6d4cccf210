/**
 * Upstream's `ProceduralDataset.score_answer`, the scorer of every task that does not override it:
 * 1.0 for the oracle answer exactly, `len(oracle) / len(answer)` when the answer contains the oracle, else 0.
 */
import { pythonLength } from 'ngym/python-compat';
import type { TaskEntry } from './task.ts';

export function scoreExactOrContained(answer: string | null, entry: TaskEntry): number {
  const oracle = entry.answer;
  if (typeof answer !== 'string' || answer.length === 0 || typeof oracle !== 'string') return 0;
  if (answer === oracle) return 1;
  if (answer.includes(oracle)) return pythonLength(oracle) / pythonLength(answer);
  return 0;
}
