/**
 * Upstream's `num_repeats_add_seed`: each rollout's `responses_create_params.metadata.extra_body` carries
 * `seed: <rollout index>`, which vLLM model servers honour.
 */
import { isDict } from '../config/tree.ts';
import { pythonJsonLoadsWithFloats } from '../python-compat/python-json-loads.ts';
import { pythonJsonDumps } from '../python-compat/python-json.ts';

/**
 * `extra_body` is a JSON string inside `metadata` (the Responses API's metadata values are strings); the seed is
 * added to it as upstream does: parsed and dumped again the way Python's json module does.
 */
export function seeded(row: Record<string, unknown>, rolloutIndex: number): Record<string, unknown> {
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
