/**
 * What is sent to an agent's `/run` for one rollout: the task's row stamped with its identity
 * (`_ng_task_index`, `_ng_rollout_index`, and `_ng_attempt_index` on a retry of a rollout an earlier run failed), so results can be matched and resumed whatever order they come in;
 * with `num_repeats_add_seed`, its `responses_create_params.metadata.extra_body` carries `seed: <rollout index>`.
 */
import { seeded } from './rollout-seed.ts';
import type { RolloutRequest } from './run-attempt.ts';
import type { Task } from './task-source.ts';

export function rolloutRequest(task: Task, rolloutIndex: number, attemptIndex?: number): RolloutRequest {
  return { agent: task.agent, taskIndex: task.taskIndex, rolloutIndex, ...(attemptIndex === undefined ? {} : { attemptIndex }), body: requestBody(task, rolloutIndex, attemptIndex) };
}

/**
 * The row with its identity stamps. An input line that is already the row gets them appended to its text,
 * which spares re-serializing every row (prompts can be long) once per rollout.
 */
function requestBody(task: Task, rolloutIndex: number, attemptIndex: number | undefined): string {
  const attempt = attemptIndex === undefined ? '' : `,"_ng_attempt_index":${attemptIndex}`;
  const stamps = `"_ng_task_index":${task.taskIndex},"_ng_rollout_index":${rolloutIndex}${attempt}`;
  const text = task.text?.trimEnd();
  if (!task.addSeed && text !== undefined && text.endsWith('}') && !('_ng_task_index' in task.row) && !('_ng_rollout_index' in task.row) && !('_ng_attempt_index' in task.row)) {
    return Object.keys(task.row).length === 0 ? `{${stamps}}` : `${text.slice(0, -1)},${stamps}}`;
  }
  const row = task.addSeed ? seeded(task.row, rolloutIndex) : task.row;
  return JSON.stringify({ ...row, _ng_task_index: task.taskIndex, _ng_rollout_index: rolloutIndex, ...(attemptIndex === undefined ? {} : { _ng_attempt_index: attemptIndex }) });
}
