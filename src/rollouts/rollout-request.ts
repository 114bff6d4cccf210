/**
 * What is sent to an agent's `/run` for one rollout: the task's row stamped with its identity
 * (`_ng_task_index`, `_ng_rollout_index`), so results can be matched and resumed whatever order they come in;
 * with `num_repeats_add_seed`, its `responses_create_params.metadata.extra_body` carries `seed: <rollout index>`.
 */
import { isDict } from '../config/tree.ts';
import { pythonJsonLoadsWithFloats } from '../python-compat/python-json-loads.ts';
import { pythonJsonDumps } from '../python-compat/python-json.ts';
import type { RolloutRequest } from './run-attempt.ts';
import type { Task } from './task-source.ts';

export function rolloutRequest(task: Task, rolloutIndex: number): RolloutRequest {
  return { agent: task.agent, taskIndex: task.taskIndex, rolloutIndex, body: requestBody(task, rolloutIndex) };
}

/**
 * The row with its identity stamps. An input line that is already the row gets them appended to its text,
 * which spares re-serializing every row (prompts can be long) once per rollout.
 */
function requestBody(task: Task, rolloutIndex: number): string {
  const stamps = `"_ng_task_index":${task.taskIndex},"_ng_rollout_index":${rolloutIndex}`;
  const text = task.text?.trimEnd();
  if (!task.addSeed && text !== undefined && text.endsWith('}') && !('_ng_task_index' in task.row) && !('_ng_rollout_index' in task.row)) {
    return Object.keys(task.row).length === 0 ? `{${stamps}}` : `${text.slice(0, -1)},${stamps}}`;
  }
  const row = task.addSeed ? seeded(task.row, rolloutIndex) : task.row;
  return JSON.stringify({ ...row, _ng_task_index: task.taskIndex, _ng_rollout_index: rolloutIndex });
}

/**
 * `extra_body` is a JSON string inside `metadata` (the Responses API's metadata values are strings); the seed is
 * added to it as upstream does: parsed and dumped again the way Python's json module does.
 */
function seeded(row: Record<string, unknown>, rolloutIndex: number): Record<string, unknown> {
  const params = row.responses_create_params as Record<string, unknown>;
  const metadata = isDict(params.metadata) ? params.metadata : {};
  const extraBody = typeof metadata.extra_body === 'string' ? (pythonJsonLoadsWithFloats(metadata.extra_body) as Record<string, unknown>) : {};
  extraBody.seed = rolloutIndex;
  return { ...row, responses_create_params: { ...params, metadata: { ...metadata, extra_body: pythonJsonDumps(extraBody) } } };
}

/** Why a row cannot take a seed (its metadata or extra_body is not what upstream's seeding expects), if it cannot. */
export function seedProblem(row: Record<string, unknown>): string | undefined {
  const params = row.responses_create_params;
  if (!isDict(params)) return undefined;
  if (params.metadata !== undefined && params.metadata !== null && !isDict(params.metadata)) return 'num_repeats_add_seed: responses_create_params.metadata must be an object';
  const extraBody = isDict(params.metadata) ? params.metadata.extra_body : undefined;
  if (extraBody === undefined) return undefined;
  if (typeof extraBody !== 'string') return 'num_repeats_add_seed: responses_create_params.metadata.extra_body must be a JSON string (metadata values are strings)';
  try {
    if (isDict(pythonJsonLoadsWithFloats(extraBody))) return undefined;
  } catch {
    // Reported below.
  }
  return 'num_repeats_add_seed: responses_create_params.metadata.extra_body is not a JSON object';
}
