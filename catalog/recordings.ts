/**
 * Upstream's recorded rollouts (`data/example_rollouts.jsonl`) against a run's rollouts: rows matched to their task
 * of `data/example.jsonl` by input, then each rollout's reward and verify fields compared with a recorded one of the
 * same task. Also what a recording holds besides the policy model's replies (judge evaluations), and its reward
 * profile.
 */
import { existsSync, readFileSync } from 'node:fs';
import { normalizeInput, type ResponseItem } from 'ngym';
import { mean } from 'ngym/metrics';

export type Row = Record<string, unknown>;

export type JsonlRead = { rows: Row[] } | { problem: string };

/** A JSONL file's rows, or why it has none usable (missing, a placeholder, not JSON). */
export function readRows(path: string): JsonlRead {
  if (!existsSync(path)) return { problem: `${path} does not exist` };
  const rows: Row[] = [];
  const lines = readFileSync(path, 'utf8').split('\n');
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    try {
      const row = JSON.parse(line) as unknown;
      if (typeof row !== 'object' || row === null || Array.isArray(row)) return { problem: `${path}:${index + 1} is not a JSON object` };
      rows.push(row as Row);
    } catch {
      return { problem: `${path}:${index + 1} is not JSON (${JSON.stringify(line.slice(0, 40))})` };
    }
  }
  return rows.length === 0 ? { problem: `${path} has no rows` } : { rows };
}

/** The model replies a recording holds besides the policy model's own turns, as rows replay_model answers from. */
export interface RecordedReplies {
  /** `{responses_create_params, response}` rows: replies recorded with their request, answered by request. */
  byRequest: Row[];
  /** `{keyed_replies: {keys, order?, responses}}` rows: replies recorded without their request, answered by task and order. */
  keyed: Row[];
  /** The shapes found, as `field/field` paths (for the reader of catalog.json and the reasons). */
  shapes: string[];
}

/** Raw reply texts recorded without their request (a judge's output as it wrote it). */
const TEXT_REPLY_FIELD = /^(judge_output|judge_raw|judge_text|raw_output|judgement_[a-z_]+)$/;
/** Raw reply texts recorded beside the prompt they answer. */
const PROMPT_REPLY = ['judge_prompt', 'judge_response'] as const;
/** Keys shorter than this say little about which task a request is for. */
const MIN_KEY = 12;

const isObject = (value: unknown): value is Row => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A reply text as a Responses API response (one assistant message). */
function textResponse(text: string, id: string, usage?: unknown): Row {
  return {
    id,
    object: 'response',
    created_at: 0,
    model: 'recorded',
    status: 'completed',
    output: [{ type: 'message', id: `msg_${id}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] }],
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    ...(usage === undefined ? {} : { usage }),
  };
}

/** A recorded response as a Responses API one: already one, a Chat Completion (its first choice), or a text. */
function asResponse(value: unknown, id: string): Row | undefined {
  if (typeof value === 'string') return value === '' ? undefined : textResponse(value, id);
  if (!isObject(value)) return undefined;
  if (Array.isArray(value.output)) return value;
  const message = Array.isArray(value.choices) && isObject(value.choices[0]) ? (value.choices[0].message as Row | undefined) : undefined;
  return typeof message?.content === 'string' ? textResponse(message.content, typeof value.id === 'string' ? value.id : id, value.usage) : undefined;
}

/** Chat Completions' request messages as Responses input items. */
function chatInput(messages: readonly unknown[]): Row[] {
  return messages.filter(isObject).map((message) => ({
    role: message.role,
    content: Array.isArray(message.content)
      ? message.content.map((part) => (isObject(part) && part.type === 'text' ? { type: 'input_text', text: part.text } : part))
      : message.content,
  }));
}

/** The texts of a message's content. */
function contentTexts(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.filter(isObject).map((part) => part.text).filter((text): text is string => typeof text === 'string');
}

/**
 * What tells a recorded rollout's task in the requests its server makes: the task's own texts (fields the example
 * rows have), the user messages of its input and the policy model's last reply, each at least MIN_KEY long.
 */
function taskKeys(row: Row, taskFields: ReadonlySet<string>): string[] {
  const keys = new Set<string>();
  for (const field of taskFields) if (field !== 'responses_create_params' && field !== 'agent_ref' && typeof row[field] === 'string') keys.add(row[field]);
  const input = (row.responses_create_params as Row | undefined)?.input;
  if (typeof input === 'string') keys.add(input);
  else if (Array.isArray(input)) for (const item of input.filter(isObject)) if (item.role === 'user') for (const text of contentTexts(item.content)) keys.add(text);
  const answer = finalReplyText(row);
  if (answer !== undefined) keys.add(answer);
  return [...keys].filter((key) => key.length >= MIN_KEY);
}

/** The text of the policy model's last message in a recorded rollout. */
function finalReplyText(row: Row): string | undefined {
  const output = (row.response as Row | undefined)?.output;
  if (!Array.isArray(output)) return undefined;
  const message = [...output].reverse().find((item) => isObject(item) && item.type === 'message' && item.role === 'assistant') as Row | undefined;
  const text = message === undefined ? '' : contentTexts(message.content).join('');
  return text === '' ? undefined : text;
}

/**
 * Every model reply a recording holds besides the policy model's turns of each row, in each shape upstream's servers
 * store them: with their request (`<prefix>responses_create_params` + `<prefix>response` at any depth, aalcr's
 * `judge_` pair; `request` + `response`, nemo_user_sim's invocations; Chat Completions' `chat_create_params` +
 * `response`, gdp_pdf's criteria), beside their prompt (`judge_prompt` + `judge_response`, inverse_if), or alone
 * (judge texts: `judge_output`, `judge_raw`, `judge_text`, `raw_output`, `judgement_*`; Response lists: `responses`,
 * conversational_tool_use_simulation's simulator turns), the last two keyed by the row's task and served in order.
 */
export function recordedModelReplies(rows: readonly Row[], taskFields: ReadonlySet<string>): RecordedReplies {
  const byRequest: Row[] = [];
  const keyed: Row[] = [];
  const shapes = new Set<string>();
  rows.forEach((row, rowIndex) => {
    const keys = taskKeys(row, taskFields);
    const inOrder: Row[] = [];
    const id = () => `resp_recorded_${rowIndex + 1}_${byRequest.length + keyed.length + inOrder.length + 1}`;
    const answer = finalReplyText(row);
    const baseline = typeof row.baseline_answer === 'string' ? row.baseline_answer : undefined;
    const visit = (value: unknown, depth: number, name: string) => {
      if (Array.isArray(value)) {
        for (const item of value) visit(item, depth + 1, name);
        return;
      }
      if (!isObject(value)) return;
      let paired = false;
      for (const key of Object.keys(value)) {
        const prefix = /^(.*)responses_create_params$/.exec(key)?.[1];
        if (prefix === undefined || (prefix === '' && depth === 0)) continue;
        const params = value[key] as Row | undefined;
        const response = asResponse(value[`${prefix}response`], id());
        if (params?.input === undefined || response === undefined) continue;
        byRequest.push({ responses_create_params: params, response });
        shapes.add(`${key} + ${prefix}response`);
        paired = true;
      }
      if (depth > 0 && isObject(value.request) && value.request.input !== undefined) {
        const response = asResponse(value.response, id());
        if (response !== undefined) {
          byRequest.push({ responses_create_params: value.request, response });
          shapes.add(`${name}.request + response`);
          paired = true;
        }
      }
      if (isObject(value.chat_create_params) && Array.isArray(value.chat_create_params.messages)) {
        const response = asResponse(value.response, id());
        if (response !== undefined) {
          byRequest.push({ responses_create_params: { input: chatInput(value.chat_create_params.messages) }, response });
          shapes.add(`${name}.chat_create_params + response`);
          paired = true;
        }
      }
      const [promptField, replyField] = PROMPT_REPLY;
      if (typeof value[promptField] === 'string' && typeof value[replyField] === 'string' && value[promptField] !== '') {
        keyed.push({ keyed_replies: { keys: [value[promptField]], responses: [textResponse(value[replyField], id())] } });
        shapes.add(`${name}.${promptField} + ${replyField}`);
        paired = true;
      }
      const responseList = depth > 0 && Array.isArray(value.responses) && value.source !== 'agent' ? value.responses.map((item) => asResponse(item, id())).filter((item) => item !== undefined && typeof item !== 'string') : [];
      if (responseList.length > 0) {
        // One reply can be stored twice in a row (a verification result and its diagnostics copy): once in the order.
        inOrder.push(...(responseList as Row[]).filter((response) => !inOrder.some((seen) => seen.id !== undefined && seen.id === response.id)));
        shapes.add(`${name}.responses[]`);
        paired = true;
      }
      if (!paired) {
        for (const [key, field] of Object.entries(value)) {
          if (!TEXT_REPLY_FIELD.test(key) || typeof field !== 'string' || field === '') continue;
          shapes.add(depth === 0 ? key : `${name}.${key}`);
          // A judge asked twice with the answers swapped: each verdict goes to the call with its order of answers.
          const order = key === 'judgement_gen_base' ? [answer, baseline] : key === 'judgement_base_gen' ? [baseline, answer] : undefined;
          if (order !== undefined && order.every((text) => text !== undefined && text !== '')) keyed.push({ keyed_replies: { keys, order, responses: [textResponse(field, id())] } });
          else inOrder.push(textResponse(field, id()));
        }
      }
      for (const [key, child] of Object.entries(value)) {
        if (depth === 0 && (key === 'responses_create_params' || key === 'response')) continue;
        visit(child, depth + 1, key);
      }
    };
    visit(row, 0, '');
    if (inOrder.length > 0 && keys.length > 0) keyed.push({ keyed_replies: { keys, responses: inOrder } });
  });
  return { byRequest, keyed, shapes: [...shapes].sort() };
}

export interface RewardProfile {
  mean: number;
  min: number;
  max: number;
  count: number;
}

export function rewardProfile(rows: readonly Row[]): RewardProfile | undefined {
  const rewards = rows.map((row) => row.reward).filter((reward): reward is number => typeof reward === 'number');
  if (rewards.length === 0) return undefined;
  return { mean: mean(rewards), min: Math.min(...rewards), max: Math.max(...rewards), count: rewards.length };
}

/** What identifies a conversation item for matching (ids, defaults and formatting do not). */
function itemIdentity(item: ResponseItem): string {
  if (item.type === 'function_call') return JSON.stringify(['call', item.name, item.arguments]);
  if (item.type === 'function_call_output') return JSON.stringify(['output', item.output]);
  if (item.type === 'reasoning') return JSON.stringify(['reasoning']);
  const content = typeof item.content === 'string' ? item.content : item.content.map(partIdentity).join('');
  return JSON.stringify([item.role, content]);
}

/** A content part by what it carries (text, an image's URL, a file), not by defaults such as `detail: auto`. */
function partIdentity(part: Record<string, unknown>): string {
  for (const key of ['text', 'refusal', 'image_url', 'file_url', 'file_data', 'file_id']) if (typeof part[key] === 'string') return part[key];
  const { detail: _detail, ...rest } = part;
  return JSON.stringify(rest);
}

/** The task of each recorded rollout (undefined: its input starts with no example's input). */
export function recordedTasks(examples: readonly Row[], recorded: readonly Row[]): (number | undefined)[] {
  const exampleInputs = examples.map(inputOf);
  return recorded.map((row) => taskOf(row, examples, exampleInputs));
}

/** Whether two different example rows share one input: replay_model, which answers by input, cannot tell them apart. */
export function sharedInputs(examples: readonly Row[]): boolean {
  const byInput = new Map<string, string>();
  for (const example of examples) {
    const input = JSON.stringify(inputOf(example));
    const whole = JSON.stringify(example);
    if (byInput.has(input) && byInput.get(input) !== whole) return true;
    byInput.set(input, whole);
  }
  return false;
}

/**
 * Whether some rows send the model one same input (repeats, or tasks differing only in other fields): replay_model
 * answers those in the recording's task order, so they must run one at a time, in order.
 */
export function repeatedInputs(rows: readonly Row[]): boolean {
  const inputs = rows.map((row) => JSON.stringify(inputOf(row)));
  return new Set(inputs).size < inputs.length;
}

function inputOf(row: Row): string[] | undefined {
  const input = (row.responses_create_params as Row | undefined)?.input;
  if (typeof input !== 'string' && !Array.isArray(input)) return undefined;
  try {
    return normalizeInput(input as string | ResponseItem[]).map(itemIdentity);
  } catch {
    return undefined;
  }
}

/**
 * Fields not compared, at any depth: the collector's own stamps (`_ng_*`: task and rollout indexes, ids), the agent
 * instance's name (`agent_ref`: the recording's may be a benchmark's), and timings, which no two runs share.
 */
const UNCOMPARED_KEY = /^(_ng_.*|agent_ref)$|(^|_)(time|times|seconds|secs|sec|ms|latency|duration|elapsed|timestamp|wall_clock_s.*)$/i;

function sameScalar(recorded: unknown, result: unknown): boolean {
  if (typeof recorded === 'number' && typeof result === 'number') {
    if (Number.isNaN(recorded) && Number.isNaN(result)) return true;
    return recorded === result || Math.abs(recorded - result) <= 1e-9 * Math.max(1, Math.abs(recorded));
  }
  return recorded === result;
}

/** A value short enough to show (catalog.json keeps a few differences of each rollout). */
function clip(value: unknown): unknown {
  const text = JSON.stringify(value);
  return text === undefined || text.length <= 200 ? value : `${text.slice(0, 200)}...`;
}

export interface Difference {
  /** Where: `reward`, `response.output[2].arguments`, ... */
  field: string;
  /** The value (`undefined`: the field is missing on that side). */
  recorded: unknown;
  result: unknown;
}

/**
 * A value upstream's pydantic models write for a field nobody set, which ngym, passing items through as received
 * (decision 0002), does not, or which a recording made before the field existed lacks: a null, a message item's
 * `type: "message"`, the request's `parallel_tool_calls: true`, `tool_choice: "auto"` and `tools: []`
 * (NeMoGymResponseCreateParamsNonStreaming's), and 0.7.0's `mask_sample: false` (BaseVerifyResponse's). Absent and
 * such a value are one field.
 */
function isMaterializedDefault(key: string, value: unknown, container: Row, path: string): boolean {
  if (value === null || (key === 'type' && value === 'message' && 'role' in container) || (path === 'mask_sample' && value === false)) return true;
  // NeMoGymResponseCreateParamsNonStreaming's defaults that are not null (OpenAI's).
  if (path === `responses_create_params.${key}`) return (key === 'parallel_tool_calls' && value === true) || (key === 'tool_choice' && value === 'auto') || (key === 'tools' && Array.isArray(value) && value.length === 0);
  return false;
}

/**
 * Every field of two rollouts, nested too (objects key by key, arrays item by item), other than UNCOMPARED_KEY; a
 * field on one side only is a difference, unless it is a materialized default (isMaterializedDefault) or, on the
 * run's side at the top, one of `echoed`: the task row's own fields, which ngym's /verify returns whole (decision
 * 0002) and upstream's drops where its response class does not declare them. Numbers equal within 1e-9 relative (a
 * float printed by another language).
 */
export function differences(recorded: unknown, result: unknown, echoed: ReadonlySet<string> = new Set(), path = ''): Difference[] {
  if (Array.isArray(recorded) && Array.isArray(result)) {
    const found: Difference[] = [];
    for (let index = 0; index < Math.max(recorded.length, result.length); index++) {
      const at = `${path}[${index}]`;
      if (index >= recorded.length || index >= result.length) found.push({ field: at, recorded: recorded[index], result: result[index] });
      else found.push(...differences(recorded[index], result[index], new Set(), at));
    }
    return found;
  }
  if (isObject(recorded) && isObject(result)) {
    const found: Difference[] = [];
    const keys = [...new Set([...Object.keys(recorded), ...Object.keys(result)])].filter((key) => !UNCOMPARED_KEY.test(key));
    // The reward first: it is what a reader looks for.
    keys.sort((a, b) => Number(b === 'reward') - Number(a === 'reward'));
    for (const key of keys) {
      const at = path === '' ? key : `${path}.${key}`;
      if (key in recorded && key in result) found.push(...differences(recorded[key], result[key], new Set(), at));
      else if (key in recorded ? !isMaterializedDefault(key, recorded[key], recorded, at) : !(echoed.has(key) || isMaterializedDefault(key, result[key], result, at))) {
        found.push({ field: at, recorded: recorded[key], result: result[key] });
      }
    }
    return found;
  }
  return sameScalar(recorded, result) ? [] : [{ field: path, recorded, result }];
}

/**
 * The task of `examples` a rollout belongs to: the example whose input its input starts with (an agent may have
 * added to it), the longest such; among equal inputs, the one sharing most scalar fields with the rollout, and among
 * those the one at the rollout's `_ng_task_index` (a recording that kept none of its task's other fields).
 */
function taskOf(row: Row, examples: readonly Row[], exampleInputs: readonly (string[] | undefined)[]): number | undefined {
  const input = inputOf(row);
  if (input === undefined) return undefined;
  let best: { index: number; length: number; shared: number; atIndex: boolean } | undefined;
  exampleInputs.forEach((exampleInput, index) => {
    if (exampleInput === undefined || exampleInput.length > input.length || !exampleInput.every((item, position) => item === input[position])) return;
    const example = examples[index] as Row;
    const shared = Object.keys(example).filter((key) => key !== 'responses_create_params' && key in row && JSON.stringify(example[key]) === JSON.stringify(row[key])).length;
    const atIndex = row._ng_task_index === index;
    const better =
      best === undefined ||
      exampleInput.length > best.length ||
      (exampleInput.length === best.length && (shared > best.shared || (shared === best.shared && atIndex && !best.atIndex)));
    if (better) best = { index, length: exampleInput.length, shared, atIndex };
  });
  return best?.index;
}

export interface Comparison {
  /** Recorded rollouts a result equals in every field (see differences). */
  equal: number;
  /** Recorded rollouts. */
  total: number;
  /** Results that came back (not failed). */
  results: number;
  /** The first differences of rollouts that did not equal a recorded one. */
  differing: { task: number | undefined; differences: Difference[]; fields: number }[];
  /** Results whose task could not be told from the input. */
  unmatched: number;
}

/** Each result paired with an equal recorded rollout of its task where there is one (repeats may finish in any order). */
export function compareWithRecording(examples: readonly Row[], recorded: readonly Row[], results: readonly Row[]): Comparison {
  const exampleInputs = examples.map(inputOf);
  // Rows that are one task given twice (a recording holding its task several times) are one group: the first of them.
  const texts = examples.map((example) => JSON.stringify(example));
  const canonical = (task: number | undefined) => (task === undefined ? undefined : texts.indexOf(texts[task] as string));
  const group = (rows: readonly Row[]) => {
    const groups = new Map<number | undefined, Row[]>();
    for (const row of rows) {
      const task = canonical(taskOf(row, examples, exampleInputs));
      groups.set(task, [...(groups.get(task) ?? []), row]);
    }
    return groups;
  };
  // The task row's own fields, which the run's rollout echoes (decision 0002); its request is compared as recorded.
  const echoedFields = (task: number) => new Set(Object.keys(examples[task] ?? {}).filter((key) => key !== 'responses_create_params'));
  const recordedByTask = group(recorded);
  const resultsByTask = group(results);
  const comparison: Comparison = { equal: 0, total: recorded.length, results: results.length, differing: [], unmatched: resultsByTask.get(undefined)?.length ?? 0 };
  for (const [task, taskResults] of resultsByTask) {
    if (task === undefined) continue;
    const open = [...(recordedByTask.get(task) ?? [])];
    const unequal: Row[] = [];
    for (const result of taskResults) {
      const match = open.findIndex((candidate) => differences(candidate, result, echoedFields(task)).length === 0);
      if (match >= 0) {
        open.splice(match, 1);
        comparison.equal++;
      } else unequal.push(result);
    }
    for (const result of unequal) {
      // Shown against the recorded rollout of its task it is nearest to (fewest differences), each used once.
      const candidates = open.map((candidate, index) => ({ index, found: differences(candidate, result, echoedFields(task)) })).sort((a, b) => a.found.length - b.found.length);
      const nearest = candidates[0];
      if (nearest !== undefined) open.splice(nearest.index, 1);
      const found = nearest === undefined ? [{ field: 'task', recorded: 'no recorded rollout left', result: 'an extra rollout' }] : nearest.found;
      comparison.differing.push({ task, differences: found.slice(0, 20).map(({ field, recorded, result: value }) => ({ field, recorded: clip(recorded), result: clip(value) })), fields: found.length });
    }
  }
  return comparison;
}
