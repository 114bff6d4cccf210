/**
 * structured_outputs: trains a model to answer in a structured format (JSON, YAML, XML, TOML or CSV, the row's
 * `schema_type`) that conforms to a JSON Schema given in the prompt, or (`response_mode: tool_call`) through a
 * tool call's arguments; content is not graded. Reward 1.0 when the answer parses and validates against the
 * row's schema made strict (every listed property required, no others), else 0.0. Upstream NeMo Gym 0.7.0's rules.
 */
import { defineResourcesServer, responseOutputText, VerifyWorkerPool, verifyWorkersConfigShape } from 'ngym';
import { pythonStr, pythonTruthy } from 'ngym/python-compat';
import * as z from 'zod';
import { SCHEMA_TYPES } from './formats.ts';
import type { SchemaCheck } from './schema-validation.ts';
import { toolCallPayload } from './tool-call.ts';
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

const ECHOED_DEFAULTS: Record<string, unknown> = { schema_type: 'json', response_mode: 'text' };
for (const field of [
  'tool_name', 'tool_payload_key', 'problem_type', 'schema_repr', 'source_format', 'num_turns', 'source_record_id', 'tool_schema_mode', 'tool_choice', 'parallel_tool_calls',
  'source_schema_type', 'num_tools', 'num_distractors', 'has_distractors', 'instruction_layout', 'instruction_detail_level',
  'system_instruction_style', 'tool_name_style', 'distractor_style', 'tool_union_mode',
]) ECHOED_DEFAULTS[field] = null;

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
    /** Upstream's key: convert XML answers' text toward the schema's integer/number/boolean/string types. */
    xml_coerce_types: z.boolean().default(true),
    /** Compiled schema validators kept per worker thread (LRU); a dataset reuses its schemas across rollouts. */
    validator_cache_size: z.number().int().positive().default(512),
    // verify_workers threads compile schemas and validate (compiling one takes tens of milliseconds).
    ...verifyWorkersConfigShape,
  },
  setup: ({ config }) => ({
    cacheSize: config.validator_cache_size,
    xmlCoerceTypes: config.xml_coerce_types,
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
    schema_type: z.enum(SCHEMA_TYPES, { error: `schema_type must be one of ${SCHEMA_TYPES.join(', ')}` }).optional(),
    // Anything but 'tool_call' (null included) reads the answer from the text, as upstream.
    response_mode: z.string().nullish(),
    tool_name: z.string().nullish(),
    tool_payload_key: z.string().nullish(),
  }),
  computeMetrics: rewardBreakdowns,
  verify: async (request, context) => {
    const { pool, cacheSize, xmlCoerceTypes } = context.state;
    const schemaText = request.schema_str;
    // Upstream's response carries each of its request fields, with its default when the row has none.
    const echoed = Object.fromEntries(Object.entries(ECHOED_DEFAULTS).filter(([field]) => !Object.hasOwn(request, field)));
    if (request.response_mode !== 'tool_call') {
      const answer = { schemaType: request.schema_type ?? 'json', text: responseOutputText(request.response), xmlCoerceTypes };
      return { ...echoed, ...(await pool.run({ schemaText, answer, cacheSize })) };
    }
    const extracted = toolCallPayload(request);
    return { ...echoed, ...('payload' in extracted ? await pool.run({ schemaText, answer: extracted, cacheSize }) : extracted) };
  },
});
