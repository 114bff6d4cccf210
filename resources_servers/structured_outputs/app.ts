/**
 * structured_outputs: trains a model to answer in JSON that conforms to a JSON Schema given in the prompt
 * (content is not graded). Reward 1.0 when the whole assistant text parses as JSON and validates against the
 * row's schema made strict (every listed property required, no others), else 0.0.
 */
import { defineResourcesServer, pythonStr, pythonTruthy, responseOutputText, VerifyWorkerPool, verifyWorkersConfigShape } from 'ngym';
import * as z from 'zod';
import type { SchemaCheck } from './schema-validation.ts';
import type { SchemaTask } from './verify-worker.ts';

type Rollout = Record<string, unknown>;

/**
 * Upstream 0.7.0's run metrics: the mean reward per value of each task field that describes the prompt
 * (`mean/reward_<prefix><value>`), in upstream's order (a later breakdown wins a name clash, as there).
 */
type Breakdown = [field: string, prefix: string, valueOf: (value: unknown) => string | undefined];
const named = (value: unknown) => (pythonTruthy(value) ? pythonStr(value) : undefined);
const flag = (value: unknown) => (value === null || value === undefined ? undefined : String(pythonTruthy(value)));
const byName = (fields: string[]): Breakdown[] => fields.map((field) => [field, `${field}_`, named]);
const BREAKDOWNS: Breakdown[] = [
  ['schema_type', '', (value) => pythonStr(value === undefined ? 'unknown' : value)],
  ['problem_type', '', named],
  ['schema_repr', 'repr_', named],
  ...byName(['response_mode', 'tool_schema_mode', 'tool_choice']),
  ['parallel_tool_calls', 'parallel_tool_calls_', flag],
  ['num_tools', 'num_tools_', (value) => (value === null || value === undefined ? undefined : pythonStr(value))],
  ['has_distractors', 'has_distractors_', flag],
  ...byName(['instruction_layout', 'instruction_detail_level', 'system_instruction_style', 'tool_name_style', 'distractor_style', 'tool_union_mode']),
];

function rewardBreakdowns(tasks: Rollout[][]): Record<string, number> {
  const metrics: Record<string, number> = {};
  for (const [field, prefix, valueOf] of BREAKDOWNS) {
    const rewards = new Map<string, number[]>();
    for (const rollout of tasks.flat()) {
      const value = valueOf(rollout[field]);
      if (value !== undefined) rewards.set(value, [...(rewards.get(value) ?? []), Number(rollout.reward ?? 0)]);
    }
    for (const [value, list] of rewards) metrics[`mean/reward_${prefix}${value}`] = list.reduce((a, b) => a + b, 0) / list.length;
  }
  return metrics;
}

export default defineResourcesServer({
  className: 'StructuredOutputsResourcesServer',
  config: {
    /** Compiled schema validators kept per worker thread (LRU); a dataset reuses its schemas across rollouts. */
    validator_cache_size: z.number().int().positive().default(512),
    // verify_workers threads compile schemas and validate (compiling one takes tens of milliseconds).
    ...verifyWorkersConfigShape,
  },
  setup: ({ config }) => ({
    cacheSize: config.validator_cache_size,
    pool: new VerifyWorkerPool<SchemaTask, SchemaCheck>({
      module: new URL('./verify-worker.ts', import.meta.url),
      config,
      name: 'structured_outputs',
      check: 'schema check',
    }),
  }),
  close: (state) => state.pool.close(),
  verifyRequest: z.looseObject({
    schema_str: z.string(),
    schema_type: z.literal('json', { error: "schema_type must be 'json' (the only type in NeMo Gym v0.1.1)" }),
  }),
  computeMetrics: rewardBreakdowns,
  verify: async (request, context) => {
    const { pool, cacheSize } = context.state;
    return pool.run({ schemaText: request.schema_str, responseText: responseOutputText(request.response), cacheSize });
  },
});
