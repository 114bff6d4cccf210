/**
 * Allocation-free checks of the hot protocol bodies. zod builds a full copy of every value it checks, which
 * made validation a tenth of a server's CPU; these answer only "valid or not". `validateBody` skips zod when
 * a check passes and runs zod (for its 422 detail) when it fails, so a check must never accept anything the
 * zod schema rejects; being stricter only costs the slow path. `fast-checks.test.ts` holds them to that.
 */

type Value = unknown;

function isObject(value: Value): value is Record<string, Value> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const nullish = (value: Value): boolean => value === undefined || value === null;
const isString = (value: Value): value is string => typeof value === 'string';
const isNumber = (value: Value): boolean => typeof value === 'number' && Number.isFinite(value);
const isInteger = (value: Value): boolean => Number.isSafeInteger(value);
const optionalString = (value: Value): boolean => nullish(value) || isString(value);
const optionalNumber = (value: Value): boolean => nullish(value) || isNumber(value);
const optionalInteger = (value: Value): boolean => nullish(value) || isInteger(value);
const optionalBoolean = (value: Value): boolean => nullish(value) || typeof value === 'boolean';
const optionalObject = (value: Value): boolean => nullish(value) || isObject(value);

function numberArray(value: Value, integers: boolean): boolean {
  if (value === undefined) return true;
  if (!Array.isArray(value)) return false;
  const length = value.length;
  if (integers) {
    for (let index = 0; index < length; index++) if (!Number.isSafeInteger(value[index])) return false;
  } else {
    for (let index = 0; index < length; index++) if (!isNumber(value[index])) return false;
  }
  return true;
}

function trainingFields(item: Record<string, Value>): boolean {
  return numberArray(item.prompt_token_ids, true) && numberArray(item.generation_token_ids, true) && numberArray(item.generation_log_probs, false);
}

/** The `detail` values a message's input_image part may name (OpenAI's type requires one; so does upstream). */
export const IMAGE_DETAILS: readonly string[] = ['low', 'high', 'auto', 'original'];

/** A content part; `inMessage`: a message's, whose input_image parts must name their detail. */
function contentPart(part: Value, inMessage: boolean): boolean {
  if (!isObject(part) || !isString(part.type)) return false;
  if ((part.type === 'input_text' || part.type === 'output_text') && !isString(part.text)) return false;
  if (part.type === 'refusal' && !isString(part.refusal)) return false;
  if (inMessage && part.type === 'input_image' && !(isString(part.detail) && IMAGE_DETAILS.includes(part.detail))) return false;
  return true;
}

function contentParts(value: Value, inMessage: boolean): boolean {
  if (!Array.isArray(value)) return false;
  for (const part of value) if (!contentPart(part, inMessage)) return false;
  return true;
}

const ROLES = new Set(['user', 'assistant', 'system', 'developer']);

function isValidItem(item: Value): boolean {
  if (!isObject(item)) return false;
  const type = item.type;
  if (type === undefined || type === 'message') {
    if (type === undefined && !('role' in item)) return false;
    return (
      isString(item.role) &&
      ROLES.has(item.role) &&
      (isString(item.content) || contentParts(item.content, true)) &&
      optionalString(item.id) &&
      optionalString(item.status) &&
      trainingFields(item)
    );
  }
  if (type === 'function_call') {
    return isString(item.arguments) && isString(item.call_id) && isString(item.name) && optionalString(item.id) && optionalString(item.status) && trainingFields(item);
  }
  if (type === 'function_call_output') {
    return isString(item.call_id) && (isString(item.output) || contentParts(item.output, false)) && optionalString(item.id) && optionalString(item.status);
  }
  if (type === 'reasoning') {
    if (!isString(item.id) || !Array.isArray(item.summary) || !optionalString(item.encrypted_content) || !trainingFields(item)) return false;
    for (const entry of item.summary) if (!isObject(entry) || !isString(entry.text) || !isString(entry.type)) return false;
    return true;
  }
  return false;
}

function items(value: Value): boolean {
  if (!Array.isArray(value)) return false;
  for (const item of value) if (!isValidItem(item)) return false;
  return true;
}

function tool(value: Value): boolean {
  if (!isObject(value) || !isString(value.type)) return false;
  if (value.type !== 'function') return true;
  return isString(value.name) && optionalObject(value.parameters) && optionalBoolean(value.strict) && optionalString(value.description);
}

function tools(value: Value): boolean {
  if (!Array.isArray(value)) return false;
  for (const entry of value) if (!tool(entry)) return false;
  return true;
}

function stringRecord(value: Value): boolean {
  if (!isObject(value)) return false;
  for (const key in value) if (!isString(value[key])) return false;
  return true;
}

// A Map, not an object: a key such as `toString` or `__proto__` must not find an inherited function.
const CREATE_PARAM_CHECKS = new Map<string, (value: Value) => boolean>(Object.entries({
  background: optionalBoolean,
  context_management: (value) => nullish(value) || (Array.isArray(value) && value.every(isObject)),
  conversation: (value) => nullish(value) || isString(value) || (isObject(value) && isString(value.id)),
  moderation: optionalObject,
  prompt_cache_key: optionalString,
  prompt_cache_retention: (value) => nullish(value) || value === 'in_memory' || value === '24h',
  safety_identifier: optionalString,
  stream_options: optionalObject,
  include: (value) => nullish(value) || (Array.isArray(value) && value.every(isString)),
  input: (value) => isString(value) || items(value),
  instructions: optionalString,
  max_output_tokens: optionalInteger,
  max_tool_calls: optionalInteger,
  metadata: (value) => nullish(value) || stringRecord(value),
  model: optionalString,
  parallel_tool_calls: optionalBoolean,
  previous_response_id: optionalString,
  prompt: optionalObject,
  reasoning: optionalObject,
  service_tier: (value) => nullish(value) || value === 'auto' || value === 'default' || value === 'flex' || value === 'scale' || value === 'priority',
  store: optionalBoolean,
  temperature: optionalNumber,
  text: optionalObject,
  tool_choice: (value) => nullish(value) || isString(value) || isObject(value),
  tools: (value) => nullish(value) || tools(value),
  top_logprobs: optionalInteger,
  top_p: optionalNumber,
  truncation: (value) => nullish(value) || value === 'auto' || value === 'disabled',
  user: optionalString,
  stream: (value: Value) => nullish(value) || value === false,
}));

/** `ResponseCreateParams`: only its keys, `input` required. */
export function isValidResponseCreateParams(value: Value): boolean {
  if (!isObject(value) || !('input' in value)) return false;
  for (const key in value) {
    const check = CREATE_PARAM_CHECKS.get(key);
    if (check === undefined || !check(value[key])) return false;
  }
  return true;
}

function usage(value: Value): boolean {
  if (nullish(value)) return true;
  if (!isObject(value) || !isNumber(value.input_tokens) || !isNumber(value.output_tokens) || !isNumber(value.total_tokens)) return false;
  const input = value.input_tokens_details;
  const output = value.output_tokens_details;
  return (nullish(input) || (isObject(input) && optionalNumber(input.cached_tokens))) && (nullish(output) || (isObject(output) && optionalNumber(output.reasoning_tokens)));
}

/** `Response`: a Responses API object (extra keys allowed). */
export function isValidResponse(value: Value): boolean {
  if (!isObject(value)) return false;
  const incomplete = value.incomplete_details;
  return (
    isString(value.id) &&
    isNumber(value.created_at) &&
    isString(value.model) &&
    value.object === 'response' &&
    items(value.output) &&
    typeof value.parallel_tool_calls === 'boolean' &&
    (isString(value.tool_choice) || isObject(value.tool_choice)) &&
    tools(value.tools) &&
    (nullish(incomplete) || (isObject(incomplete) && optionalString(incomplete.reason))) &&
    usage(value.usage)
  );
}

/** `RunRequest`: a dataset row (extra keys allowed). */
export function isValidRunRequest(value: Value): boolean {
  if (!isObject(value) || !isValidResponseCreateParams(value.responses_create_params)) return false;
  const ref = value.agent_ref;
  return ref === undefined || (isObject(ref) && isString(ref.name) && (ref.type === undefined || ref.type === 'responses_api_agents'));
}

/** `VerifyRequest`: a row plus the agent's `response`. */
export function isValidVerifyRequest(value: Value): boolean {
  return isValidRunRequest(value) && isValidResponse((value as Record<string, Value>).response);
}
