/**
 * The command batches terminus agents answer with, and what NeMo Gym 0.7.0's terminus_judge checks of them: the schema
 * (`openapi_schema_validator.validate`: JSON Schema 2020-12 under OpenAPI 3.1, where these schemas use only plain
 * keywords; ajv checks them here, and only pass or fail reaches the reward), the task-complete flag, and how alike two
 * batches' keystrokes are. `terminus_1`: state_analysis, explanation, commands of {keystrokes, is_blocking,
 * timeout_sec}, is_task_complete, all required. `terminus_2`: analysis, plan, commands of {keystrokes, duration?},
 * task_complete?. No other keys anywhere.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { pythonSequenceRatio } from 'ngym/python-compat';

function commandBatch(fields: Record<string, string>, required: string[], command: Record<string, string>, commandRequired: string[]) {
  const typed = (entries: Record<string, string>) => Object.fromEntries(Object.entries(entries).map(([name, type]) => [name, { type }]));
  return {
    type: 'object',
    additionalProperties: false,
    definitions: { Command: { type: 'object', additionalProperties: false, properties: typed(command), required: commandRequired } },
    properties: { ...typed(fields), commands: { type: 'array', items: { $ref: '#/definitions/Command' } } },
    required,
  };
}

const SCHEMAS = {
  terminus_1: commandBatch(
    { state_analysis: 'string', explanation: 'string', is_task_complete: 'boolean' },
    ['state_analysis', 'explanation', 'commands', 'is_task_complete'],
    { keystrokes: 'string', is_blocking: 'boolean', timeout_sec: 'number' },
    ['keystrokes', 'is_blocking', 'timeout_sec'],
  ),
  terminus_2: commandBatch({ analysis: 'string', plan: 'string', task_complete: 'boolean' }, ['analysis', 'plan', 'commands'], { keystrokes: 'string', duration: 'number' }, ['keystrokes']),
};

export type Harness = keyof typeof SCHEMAS;

const HARNESSES = Object.keys(SCHEMAS) as Harness[];

export const isHarness = (value: unknown): value is Harness => typeof value === 'string' && Object.hasOwn(SCHEMAS, value);

const ajv = new Ajv2020({ strict: false, allErrors: false });
const VALIDATORS = Object.fromEntries(HARNESSES.map((harness) => [harness, ajv.compile(SCHEMAS[harness])])) as Record<Harness, ValidateFunction>;

/** Whether a parsed batch follows its harness's schema. */
export function followsSchema(batch: unknown, harness: Harness): boolean {
  return VALIDATORS[harness](batch) === true;
}

/**
 * Upstream's `check_task_complete`: when the expected batch says the task is complete (`task_complete`, else
 * `is_task_complete`), the model's batch must say so too, under the same key.
 */
export function taskCompleteAgrees(predicted: Record<string, unknown>, expected: Record<string, unknown>): boolean {
  if (Object.hasOwn(expected, 'task_complete') && expected.task_complete === true) return predicted.task_complete === true;
  if (Object.hasOwn(expected, 'is_task_complete') && expected.is_task_complete === true) return predicted.is_task_complete === true;
  return true;
}

/** The keystrokes of a batch's commands, in order (commands without any are skipped). */
function keystrokesOf(batch: Record<string, unknown>): string[] {
  const commands = Array.isArray(batch.commands) ? (batch.commands as Record<string, unknown>[]) : [];
  return commands.filter((command) => Object.hasOwn(command, 'keystrokes')).map((command) => String(command.keystrokes));
}

/**
 * Upstream's `command_similarity`: difflib's `SequenceMatcher(None, gold, model).ratio()` of the two batches'
 * keystrokes joined in order; 1.0 when neither has keystrokes, 0.0 when one has none.
 */
export function commandSimilarity(expected: Record<string, unknown>, predicted: Record<string, unknown>): number {
  const expectedKeys = keystrokesOf(expected);
  const predictedKeys = keystrokesOf(predicted);
  if (expectedKeys.length === 0 && predictedKeys.length === 0) return 1.0;
  if (expectedKeys.length === 0 || predictedKeys.length === 0) return 0.0;
  return pythonSequenceRatio(expectedKeys.join(''), predictedKeys.join(''));
}
