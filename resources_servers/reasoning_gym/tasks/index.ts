/**
 * The task library: seeded generators and upstream-exact scorers for the reasoning_gym tasks ngym ships.
 * Dataset creation (upstream's `create_dataset.py`) is in dataset.ts.
 */
import { basicArithmetic } from './basic-arithmetic.ts';
import { knightsKnaves } from './knights-knaves.ts';
import { miniSudoku } from './mini-sudoku.ts';
import { propositionalLogic } from './propositional-logic.ts';
import type { ReasoningTask } from './task.ts';
import { wordSorting } from './word-sorting.ts';

export type { ReasoningTask, TaskEntry } from './task.ts';

export const TASKS: ReadonlyMap<string, ReasoningTask> = new Map(
  ([miniSudoku, knightsKnaves, basicArithmetic, wordSorting, propositionalLogic] as unknown as ReasoningTask[]).map((task) => [task.name, task]),
);

function taskNames(): string[] {
  return [...TASKS.keys()];
}

/** Task names by upstream category (logic, arithmetic, algorithmic, games). */
export function tasksByCategory(): Map<string, string[]> {
  const byCategory = new Map<string, string[]>();
  for (const task of TASKS.values()) byCategory.set(task.category, [...(byCategory.get(task.category) ?? []), task.name]);
  return byCategory;
}

/** A dataset request the user must fix (unknown task, bad config): its message names the problem. */
export class TaskConfigError extends Error {
  override name = 'TaskConfigError';
}

export function findTask(name: string): ReasoningTask {
  const task = TASKS.get(name);
  if (task === undefined) throw new TaskConfigError(`Unknown task '${name}'. Available tasks: ${taskNames().join(', ')}.`);
  return task;
}

/** The task's config with defaults filled in; unknown keys and bad values are errors naming the key. */
export function resolveTaskConfig(task: ReasoningTask, overrides: unknown = {}): Record<string, unknown> {
  const result = task.config.safeParse(overrides ?? {});
  if (!result.success) {
    const problems = result.error.issues.map((issue) =>
      issue.code === 'unrecognized_keys' ? `unknown key(s) ${issue.keys.join(', ')}` : `${issue.path.join('.') || '(config)'}: ${issue.message}`,
    );
    throw new TaskConfigError(`Invalid config for ${task.name}: ${problems.join('; ')}.`);
  }
  const problem = task.validate?.(result.data);
  if (problem !== undefined) throw new TaskConfigError(`Invalid config for ${task.name}: ${problem}.`);
  return result.data;
}
