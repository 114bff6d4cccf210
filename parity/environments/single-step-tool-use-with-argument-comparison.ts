/**
 * single_step_tool_use_with_argument_comparison: upstream 0.7.0's example rollouts (joined to their rows), ngym's,
 * and the parallel example rows answered, then generated steps: an expected message, tool call or batch of calls,
 * answered right (keys reordered, other spacing), near (one value changed in the ways Python's types tell apart: an
 * int for a float, a bool for an int, words of a string dropped or re-cased, a float nudged, a list cut, a key
 * added, a repeated key, NaN, a big int), wrong (another tool, a message for a call and back), with arguments that
 * are no JSON object, with no action at all, and for batches shuffled, cut short or padded with junk calls. Rows whose
 * expected arguments are no JSON, or whose expected action is malformed, are refused by both. The same cases run on
 * four servers: the main config (call count ignored), the parallel config (f1 with both gates), and two overridden
 * (fractional with allow_subset at threshold 0.3; binary_strict with allow_superset at threshold 0 and a coarse
 * float tolerance): every setting the comparator has.
 */
import type { ResponseItem } from '../../src/protocol/index.ts';
import { type ParityCase, callOutput, dataRows, response, rolloutCase, textOutput, truncate, upstreamRolloutCases } from '../cases.ts';
import type { ParityEnvironment } from '../environment.ts';
import type { SeededRandom as Random } from 'ngym';

const NAME = 'single_step_tool_use_with_argument_comparison';
const COMPUTED = ['category'];

/** An argument value as the generator writes it: `Float` keeps `6.0` a float, `Raw` is written as it is. */
class Float {
  constructor(readonly value: number) {}
}
class Raw {
  constructor(readonly text: string) {}
}
type Value = null | boolean | number | string | Float | Raw | Value[] | { [key: string]: Value };

/** JSON text of a value: Python's json.dumps spacing, or compact, or indented; object keys in their order. */
function dump(value: Value, style: 'python' | 'compact' | 'indented', depth = 0): string {
  const [comma, colon] = style === 'compact' ? [',', ':'] : style === 'indented' ? [',', ': '] : [', ', ': '];
  const newline = style === 'indented' ? `\n${'  '.repeat(depth + 1)}` : '';
  const close = style === 'indented' ? `\n${'  '.repeat(depth)}` : '';
  if (value instanceof Raw) return value.text;
  if (value instanceof Float) return Number.isInteger(value.value) ? `${value.value}.0` : String(value.value);
  if (Array.isArray(value)) return value.length === 0 ? '[]' : `[${newline}${value.map((item) => dump(item, style, depth + 1)).join(comma + newline)}${close}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    return entries.length === 0 ? '{}' : `{${newline}${entries.map(([key, item]) => `${JSON.stringify(key)}${colon}${dump(item, style, depth + 1)}`).join(comma + newline)}${close}}`;
  }
  return JSON.stringify(value);
}

interface ToolStep {
  name: string;
  args: { [key: string]: Value };
  /** The expected arguments as written, where a JavaScript object cannot keep their order (integer-like keys). */
  text?: string;
  /** Answers written out, for what `args` cannot express. */
  probes?: string[];
}

const f = (value: number) => new Float(value);
const STEPS: ToolStep[] = [
  { name: 'change_sailing', args: { booking_reference: 'KX7Q2P', sailing_id: 'ORK-0915' } },
  { name: 'web_search', args: { query: 'tide tables Skerrin harbour July 2025', max_results: 5 } },
  { name: 'bash', args: { command: 'grep -rn "def parse_config" src/ --include=*.py', timeout: 30 } },
  { name: 'str_replace_editor', args: { command: 'str_replace', path: '/repo/src/utils/io.py', old_str: '    return None\n', new_str: '    return default\n' } },
  { name: 'refund_payment', args: { customer_id: 'HF-20417', amount: f(129.5), currency: 'EUR', notify: true } },
  { name: 'create_order', args: { items: [{ sku: 'A-1', quantity: 2 }, { sku: 'B-7', quantity: 1 }], express: false } },
  { name: 'get_weather', args: { city: 'Paris' } },
  { name: 'transfer_to_human_agent', args: { summary: 'Customer wants a refund for a sailing that was not cancelled because of a medical emergency in the family.' } },
  { name: 'list_open_tickets', args: {} },
  { name: 'search_products', args: { filters: { min_price: f(10.0), max_price: f(99.99), tags: ['red', 'wool'] }, page: 1 } },
  { name: 'sort_ids', args: { ids: [3, 1, 2], descending: false } },
  { name: 'set_priority', args: { note: null, priority: 0, ratio: f(0.25) } },
  {
    // Python reads keys in written order, JavaScript puts integer-like ones first: the first difference differs.
    name: 'label_rows',
    args: { '2': 'second', b: [1, 2], '1': 'first' },
    text: '{"2": "second", "b": [1, 2], "1": "first"}',
    probes: ['{"1": 5, "2": "second", "b": [1]}', '{"b": [1, 2], "1": "first", "2": "second"}', '{"2": 2, "b": "x", "1": "first"}', '{"1": "first", "b": [1, 2, 3], "2": null}'],
  },
  { name: 'send_message', args: { city: 'İstanbul', message: 'Straße  ΣΟΦΙΑΣ\u3000ok', tag: 'x\u001cy' } },
  { name: 'record_reading', args: { sensor_id: new Raw('12345678901234567890'), value: f(1e-7), scale: f(2.5e21) } },
  { name: 'get_tide_times', args: { port: 'Skerrin' } },
];

const MESSAGES = ['Which sailing would you like?', '', 'I have moved your booking to the 09:15 sailing.', 'Could you share the booking reference?'];
const WORDS = ['the', 'refund', 'customer', 'please', 'booking', 'July', 'harbour', 'zzz', 'Sailing', 'cancelled'];

/** One value of `args` changed the way a model gets an argument nearly right, and what was done. */
function nearMiss(random: Random, args: { [key: string]: Value }): { kind: string; args: { [key: string]: Value } } {
  const copy: { [key: string]: Value } = { ...args };
  const keys = Object.keys(copy);
  if (keys.length === 0) return { kind: 'extra_key', args: { unexpected: 1 } };
  const key = random.pick(keys);
  const value = copy[key] as Value;
  const change = (kind: string, next: Value) => {
    copy[key] = next;
    return { kind, args: copy };
  };
  if (random.chance(0.08)) {
    delete copy[key];
    return { kind: 'missing_key', args: copy };
  }
  if (random.chance(0.06)) return { kind: 'extra_key', args: { ...copy, extra_flag: true } };
  if (value instanceof Float) {
    return random.pick([
      () => change('float_as_int', Math.round(value.value)),
      () => change('float_nudged_in', f(value.value + 1e-9)),
      () => change('float_nudged_out', f(value.value + 0.005)),
      () => change('float_as_string', String(value.value)),
      () => change('float_nan', new Raw('NaN')),
      () => change('float_infinity', new Raw('Infinity')),
      () => change('float_huge', new Raw('1e400')),
    ])();
  }
  if (typeof value === 'number') {
    return random.pick([
      () => change('int_as_float', f(value)),
      () => change('int_as_string', String(value)),
      () => change('int_as_bool', value !== 0),
      () => change('int_off_by_one', value + 1),
      () => change('int_big', new Raw('90071992547409930')),
    ])();
  }
  if (typeof value === 'boolean') return random.pick([() => change('bool_flipped', !value), () => change('bool_as_int', value ? 1 : 0), () => change('bool_as_string', String(value))])();
  if (value === null) return random.pick([() => change('null_as_zero', 0), () => change('null_as_string', 'null')])();
  if (value instanceof Raw) return change('raw_as_int', 12345678901234567000);
  if (typeof value === 'string') {
    const words = value.split(' ');
    return random.pick([
      () => change('string_recased', random.chance(0.5) ? value.toUpperCase() : value.toLowerCase()),
      () => change('string_respaced', `  ${words.join('   ')}\n`),
      () => change('string_half_words', words.slice(0, Math.ceil(words.length / 2)).join(' ')),
      () => change('string_one_word', words[0] ?? ''),
      () => change('string_words_replaced', words.map((word) => (random.chance(0.5) ? random.pick(WORDS) : word)).join(' ')),
      () => change('string_other', random.pick(WORDS) + ' ' + random.pick(WORDS)),
      () => change('string_empty', ''),
      () => change('string_as_list', [value]),
    ])();
  }
  if (Array.isArray(value)) {
    return random.pick([
      () => change('list_reversed', [...value].reverse()),
      () => change('list_shorter', value.slice(1)),
      () => change('list_longer', [...value, value[0] ?? 0]),
      () => change('list_empty', []),
      () => change('list_as_object', Object.fromEntries(value.map((item, index) => [String(index), item]))),
    ])();
  }
  return change('object_changed', nearMiss(random, value as { [key: string]: Value }).args);
}

/** Arguments that are no JSON object, as models write them. */
const MALFORMED = [
  (text: string) => ['truncated', truncate(text, 0.6)],
  (text: string) => ['single_quotes', text.replaceAll('"', "'")],
  (text: string) => ['python_literals', text.replace(/true/g, 'True').replace(/null/g, 'None').replace(/false/g, 'False')],
  (text: string) => ['trailing_comma', text.replace(/}$/, ', }')],
  () => ['empty', ''],
  () => ['null', 'null'],
  () => ['list', '[]'],
  (text: string) => ['double_encoded', JSON.stringify(text)],
  (text: string) => ['bom', `\ufeff${text}`],
  (text: string) => ['prose_around', `Arguments: ${text}`],
  (text: string) => ['two_objects', `${text} ${text}`],
  () => ['control_character', '{"q": "a\u0001b"}'],
  () => ['nan_lowercase', '{"x": nan}'],
] as ((text: string) => [string, string])[];

/** How the model answered one expected call: the call it made (name and argument text) and what it was. */
function answerCall(random: Random, step: ToolStep): { kind: string; name: string; text: string } {
  const roll = random.int(0, 99);
  const style = random.pick(['python', 'compact', 'indented'] as const);
  if (step.probes !== undefined && roll < 15) return { kind: 'key_order_probe', name: step.name, text: random.pick(step.probes) };
  if (roll < 30) {
    const reordered = random.chance(0.5) ? Object.fromEntries(random.shuffled(Object.entries(step.args))) : step.args;
    return { kind: 'right', name: step.name, text: dump(reordered, style) };
  }
  if (roll < 70) {
    const { kind, args } = nearMiss(random, step.args);
    return { kind: `near:${kind}`, name: step.name, text: dump(args, style) };
  }
  if (roll < 75) {
    // A repeated key: Python keeps its last value, in the place it first came.
    const [key] = Object.keys(step.args);
    if (key === undefined) return { kind: 'right', name: step.name, text: '{}' };
    const right = dump(step.args, 'python');
    const last = random.chance(0.5);
    return { kind: `repeated_key:${last ? 'last_right' : 'first_right'}`, name: step.name, text: last ? `{${JSON.stringify(key)}: 0, ${right.slice(1)}` : `${right.slice(0, -1)}, ${JSON.stringify(key)}: 0}` };
  }
  if (roll < 85) {
    const other = random.pick(STEPS);
    const name = random.pick([other.name, step.name.toUpperCase(), `${step.name} `, `functions.${step.name}`]);
    return { kind: 'wrong_tool', name, text: dump(step.args, style) };
  }
  const [kind, text] = (random.pick(MALFORMED) as (text: string) => [string, string])(dump(step.args, 'python'));
  return { kind: `malformed:${kind}`, name: step.name, text };
}

const expectedCall = (step: ToolStep) => ({ type: 'function_call', name: step.name, arguments: step.text ?? dump(step.args, 'python') });

function generated(random: Random, index: number): ParityCase {
  const reasoning = { id: `rs_parity_${index}`, type: 'reasoning', summary: [{ type: 'summary_text', text: 'Checking the policy.' }] } as unknown as ResponseItem;
  const roll = random.int(0, 99);
  const expectation = roll < 15 ? 'message' : roll < 60 ? 'call' : 'batch';
  const steps = expectation === 'batch' ? Array.from({ length: random.int(2, 4) }, () => random.pick(STEPS)) : [random.pick(STEPS)];
  let expected: Record<string, unknown> =
    expectation === 'message' ? { type: 'message', content: random.pick(MESSAGES) } : expectation === 'call' ? expectedCall(steps[0] as ToolStep) : { type: 'function_call_batch', calls: steps.map(expectedCall) };
  let rowKind = expectation;
  if (random.chance(0.015)) {
    // A broken row: expected arguments that are no JSON (both refuse once a call of that name is compared), or a malformed action.
    rowKind = random.pick(['bad_expected_arguments', 'bad_expected_arguments', 'malformed_action']);
    const step = steps[0] as ToolStep;
    expected = rowKind === 'bad_expected_arguments' ? { type: 'function_call', name: step.name, arguments: dump(step.args, 'python').replaceAll('"', "'") } : random.pick([{ type: 'function_call', name: step.name }, { type: 'function_call_batch', calls: [] }, { type: 'tool', name: 'x' }, { type: 'message' }]);
  }

  const calls = steps.map((step) => answerCall(random, step));
  let output: ResponseItem[] = calls.map((call, position) => callOutput(call.name, call.text, index * 10 + position));
  let shape = calls.map((call) => call.kind).join('+');
  const variant = random.int(0, 99);
  if (variant < 12) {
    shape = 'message';
    output = [textOutput(random.pick(MESSAGES), index)];
  } else if (variant < 16) {
    shape = random.pick(['empty_output', 'reasoning_only']);
    output = shape === 'empty_output' ? [] : [reasoning];
  } else if (variant < 22) {
    shape = `text_and_calls/${shape}`;
    output = [reasoning, textOutput('Let me do that.', index), ...output];
  } else if (variant < 30 && output.length > 1) {
    shape = `shuffled/${shape}`;
    output = random.shuffled(output);
  } else if (variant < 36 && output.length > 1) {
    shape = `missing_call/${shape}`;
    output = output.slice(1);
  } else if (variant < 44) {
    shape = `junk_calls/${shape}`;
    const junk = Array.from({ length: random.int(1, 3) }, (_, position) => {
      const step = random.pick(STEPS);
      return callOutput(step.name, dump(random.chance(0.5) ? step.args : nearMiss(random, step.args).args, 'python'), index * 10 + 5 + position);
    });
    output = random.shuffled([...output, ...junk]);
  } else if (variant < 47) {
    shape = `duplicated/${shape}`;
    output = [...output, ...output.map((item, position) => ({ ...item, call_id: `call_parity_dup_${index}_${position}` }) as ResponseItem)];
  } else if (variant < 50) {
    shape = random.pick(['refusal_then_text', 'empty_text_then_text']);
    const first = shape === 'refusal_then_text' ? ({ ...textOutput('', index), content: [{ type: 'refusal', refusal: 'I cannot.' }] } as unknown as ResponseItem) : textOutput('', index);
    output = [first, textOutput('Here you go.', index + 1)];
  } else if (variant < 51 && random.chance(0.25)) {
    // A string content: upstream iterates its characters and fails (500); ngym reads no text part (knownCause).
    shape = 'string_content';
    output = [{ type: 'message', role: 'assistant', content: 'Which sailing would you like?' } as ResponseItem];
  }
  // Grouped by how the response is shaped and how its first call was answered (right, near, wrong_tool, malformed...).
  const firstCall = calls[0]?.kind.split(':')[0] ?? 'none';
  const form = output.some((item) => item.type === 'function_call') ? `${shape.includes('/') ? shape.split('/')[0] : 'calls'}:${firstCall}` : shape;
  return {
    kind: rowKind === expectation ? `${expectation}/${form}` : rowKind,
    detail: `${rowKind}: ${shape}`,
    verify: {
      responses_create_params: { input: [{ role: 'user', content: `Step ${index}: do what the customer asks.` }], tools: [], parallel_tool_calls: expectation === 'batch' },
      expected_action: expected,
      response: response(output, index),
    },
  };
}

/** The parallel example rows, each answered exactly, shuffled, one call short, or with a junk call. */
function parallelExampleCases(): ParityCase[] {
  const junk = callOutput('get_tide_times', '{"port": "Nowhere"}', 99);
  return dataRows(NAME, 'parallel_example.jsonl').flatMap((row, rowIndex) => {
    const expected = row.expected_action as { type: string; name?: string; arguments?: string; calls?: { name: string; arguments: string }[] };
    const calls = expected.calls ?? (expected.type === 'function_call' ? [{ name: expected.name as string, arguments: expected.arguments as string }] : []);
    const items = calls.map((call, position) => callOutput(call.name, call.arguments, rowIndex * 10 + position));
    const answers: [string, ResponseItem[]][] =
      items.length === 0 ? [['message', [textOutput('Glad to help.', rowIndex)]]] : [['exact', items], ['reversed', [...items].reverse()], ['one_short', items.slice(1)], ['junk_call', [...items, junk]]];
    return answers.map(([answer, output]) => ({ kind: `parallel_example:${answer}`, verify: { ...row, response: response(output, rowIndex) } }));
  });
}

const singleStep: ParityEnvironment = {
  name: NAME,
  configs: { ngym: `${NAME}.yaml`, upstream: `${NAME}.yaml` },
  fields: ['category', 'expected_action'],
  knownCause: (ngym, upstream) =>
    upstream.status === 500 && String(upstream.body).includes('has no attribute') && ngym.status === 200
      ? 'assistant message with a string content: 0.7.0 iterates its characters and fails (500), ngym reads no text part'
      : undefined,
  generate(random, count) {
    const cases = [...upstreamRolloutCases(NAME, COMPUTED), ...dataRows(NAME, 'example_rollouts.jsonl').map((row) => rolloutCase(row, COMPUTED)), ...parallelExampleCases()];
    for (let index = cases.length; index < count; index += 1) cases.push(generated(random, index));
    return cases.slice(0, Math.max(count, 5));
  },
};

/** The main config: call counts are not part of the verdict. */
export const singleStepToolUse: ParityEnvironment = singleStep;

/** Upstream's parallel_tool_calls config: rewarding on, both gates open, f1. */
export const singleStepToolUseParallel: ParityEnvironment = {
  ...singleStep,
  instance: `${NAME}_parallel`,
  configs: { ngym: `parallel_tool_calls_${NAME}.yaml`, upstream: `parallel_tool_calls_${NAME}.yaml` },
};

/** Rewarding on, fewer calls admitted, the matched share, a stricter string threshold. */
export const singleStepToolUseFractional: ParityEnvironment = {
  ...singleStep,
  instance: `${NAME}_fractional`,
  overrides: { tool_call_comparator_config: { word_count_similarity_threshold: 0.3, parallel_tool_call_rewarding: true, allow_subset: true, parallel_tool_call_reward_mode: 'fractional' } },
};

/** Rewarding on, more calls admitted, all or nothing, any strings of two words, floats within 0.01. */
export const singleStepToolUseStrict: ParityEnvironment = {
  ...singleStep,
  instance: `${NAME}_strict`,
  overrides: {
    tool_call_comparator_config: { word_count_similarity_threshold: 0.0, floating_point_comparison_threshold: 0.01, parallel_tool_call_rewarding: true, allow_superset: true, parallel_tool_call_reward_mode: 'binary_strict' },
  },
};
