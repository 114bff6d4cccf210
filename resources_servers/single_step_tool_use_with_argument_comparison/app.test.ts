/**
 * single_step_tool_use_with_argument_comparison through its HTTP surface: the rules of upstream 0.7.0's comparator
 * (messages, tool names, argument values by Python type, strings by shared words), parallel calls under every
 * call-count setting, and the bodies it refuses.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConfigDict, type ResponseItem, sharedHttpClient } from 'ngym';
import { assistantMessage, functionCall, type InProcessGym, modelResponse, readJsonlRows, replayExampleRollouts, scriptedModel, startInProcessGym } from 'ngym/testing';
import { StepRewardCategory as Category } from './categories.ts';
import { EXAMPLE_DATA, exampleRows, PARALLEL_EXAMPLE_PATH, parallelExampleRows } from './example-data.ts';

const http = sharedHttpClient();
const ENVIRONMENT = 'single_step_tool_use_with_argument_comparison';

/** A server instance with this comparator config. */
const server = (tool_call_comparator_config: ConfigDict): ConfigDict => ({ resources_servers: { [ENVIRONMENT]: { entrypoint: 'app.ts', domain: 'agent', tool_call_comparator_config } } });
const SERVERS = {
  default: server({ word_count_similarity_threshold: 0.1 }),
  strict: server({ word_count_similarity_threshold: 0.3, parallel_tool_call_rewarding: true }),
  f1: server({ word_count_similarity_threshold: 0.1, parallel_tool_call_rewarding: true, allow_subset: true, allow_superset: true, parallel_tool_call_reward_mode: 'f1' }),
  fractional: server({ word_count_similarity_threshold: 0.1, parallel_tool_call_rewarding: true, allow_subset: true, parallel_tool_call_reward_mode: 'fractional' }),
  permissive: server({ word_count_similarity_threshold: 0.1, parallel_tool_call_rewarding: true, allow_subset: true, allow_superset: true }),
  any_words: server({ word_count_similarity_threshold: 0.0, floating_point_comparison_threshold: 0.01 }),
};
type ServerName = keyof typeof SERVERS;

let gym: InProcessGym;
beforeAll(async () => {
  gym = await startInProcessGym({ config: SERVERS });
});
afterAll(async () => gym?.close());

const params = { input: [{ role: 'user', content: 'Move my booking KX7Q2P to the 09:15.' }] };
const call = (name: string, args: unknown, index = 0) => functionCall(name, typeof args === 'string' ? args : JSON.stringify(args), `call_${index}`);
const expectedCall = (name: string, args: unknown) => ({ type: 'function_call', name, arguments: typeof args === 'string' ? args : JSON.stringify(args) });
const batch = (...calls: ReturnType<typeof expectedCall>[]) => ({ type: 'function_call_batch', calls });

async function verify(expected_action: unknown, output: ResponseItem[], on: ServerName = 'default', row: Record<string, unknown> = {}) {
  const reply = await http.request(gym.url(on, '/verify'), { body: { responses_create_params: params, response: modelResponse(output), expected_action, ...row } });
  return { status: reply.status, body: reply.json<Record<string, any>>() };
}

async function scored(expected_action: unknown, output: ResponseItem[], on: ServerName = 'default') {
  const { status, body } = await verify(expected_action, output, on);
  expect(status, JSON.stringify(body)).toBe(200);
  return { reward: body.reward as number, category: body.category as string };
}

/** The category of one call against one expected call with these arguments (as JSON texts or values). */
async function argumentsCategory(expected: unknown, actual: unknown, on: ServerName = 'default') {
  return (await scored(expectedCall('f', expected), [call('f', actual)], on)).category;
}

describe('messages', () => {
  const message = { type: 'message', content: 'Which sailing would you like?' };

  it('rewards any assistant message where a message is expected, and a tool call nothing', async () => {
    expect(await scored(message, [assistantMessage('Something else entirely')])).toEqual({ reward: 1, category: Category.EXPECTED_CHAT_MESSAGE_FOUND });
    expect(await scored(message, [assistantMessage('')])).toEqual({ reward: 1, category: Category.EXPECTED_CHAT_MESSAGE_FOUND });
    expect(await scored(message, [call('list_sailings', {})])).toEqual({ reward: 0, category: Category.NO_EXPECTED_CHAT_MESSAGE });
  });

  it('finds no action in a response of reasoning, user messages or string contents only', async () => {
    const reasoning = { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'thinking' }] } as ResponseItem;
    const userMessage = { type: 'message', role: 'user', content: [{ type: 'output_text', text: 'hi', annotations: [] }] } as unknown as ResponseItem;
    const stringContent = { type: 'message', role: 'assistant', content: 'plain string' } as ResponseItem;
    for (const output of [[], [reasoning], [userMessage], [stringContent]]) {
      expect(await scored(message, output)).toEqual({ reward: 0, category: Category.NO_ACTION_FOUND });
    }
    const refusalOnly = { ...assistantMessage(''), content: [{ type: 'refusal', refusal: 'no' }] } as ResponseItem;
    expect(await scored(message, [refusalOnly, assistantMessage('later text')])).toEqual({ reward: 1, category: Category.EXPECTED_CHAT_MESSAGE_FOUND });
  });

  it('judges a response that both talks and calls on its calls', async () => {
    expect(await scored(message, [assistantMessage('Let me check.'), call('list_sailings', {})])).toEqual({ reward: 0, category: Category.NO_EXPECTED_CHAT_MESSAGE });
    const expected = expectedCall('list_sailings', { route: 'ORK-SKR' });
    expect(await scored(expected, [assistantMessage('Let me check.'), call('list_sailings', { route: 'ORK-SKR' })])).toEqual({ reward: 1, category: Category.EXPECTED_TOOL_CALL });
    expect(await scored(expected, [assistantMessage('Which route?')])).toEqual({ reward: 0, category: Category.NO_EXPECTED_TOOL_CALL });
  });
});

describe('one tool call', () => {
  it('matches the name exactly and the arguments as values, in any key order and spacing', async () => {
    const expected = expectedCall('change_sailing', { booking_reference: 'KX7Q2P', sailing_id: 'ORK-0915' });
    expect(await scored(expected, [call('change_sailing', '{ "sailing_id":"ORK-0915",\n "booking_reference": "KX7Q2P" }')])).toEqual({ reward: 1, category: Category.EXPECTED_TOOL_CALL });
    expect(await scored(expected, [call('Change_Sailing', { booking_reference: 'KX7Q2P', sailing_id: 'ORK-0915' })])).toEqual({ reward: 0, category: Category.UNEXPECTED_TOOL });
    expect(await scored(expected, [call('change_sailing', '{"booking_reference": "KX7Q2P", "sailing_id": ')])).toEqual({ reward: 0, category: Category.ARGUMENTS_DECODE_ERROR });
  });

  it('compares types as Python isinstance does: ints are not floats, a bool is an int', async () => {
    expect(await argumentsCategory('{"n": 75}', '{"n": "75"}')).toBe(Category.ARGUMENT_VALUE_TYPE_DIFFERENT);
    expect(await argumentsCategory('{"n": 6.5}', '{"n": 6}')).toBe(Category.ARGUMENT_VALUE_TYPE_DIFFERENT);
    expect(await argumentsCategory('{"n": 6}', '{"n": 6.0}')).toBe(Category.ARGUMENT_VALUE_TYPE_DIFFERENT);
    expect(await argumentsCategory('{"n": 1}', '{"n": true}')).toBe(Category.EXPECTED_TOOL_CALL);
    expect(await argumentsCategory('{"n": 0}', '{"n": true}')).toBe(Category.ARGUMENT_VALUE_DIFFERENT);
    expect(await argumentsCategory('{"n": true}', '{"n": 1}')).toBe(Category.ARGUMENT_VALUE_TYPE_DIFFERENT);
    expect(await argumentsCategory('{"n": null}', '{"n": null}')).toBe(Category.EXPECTED_TOOL_CALL);
    expect(await argumentsCategory('{"n": null}', '{"n": 0}')).toBe(Category.ARGUMENT_VALUE_TYPE_DIFFERENT);
    expect(await argumentsCategory('{"n": 1}', '[1]')).toBe(Category.ARGUMENT_VALUE_TYPE_DIFFERENT);
  });

  it('compares integers exactly, and floats within the threshold (never NaN or infinities)', async () => {
    expect(await argumentsCategory('{"n": 9007199254740993}', '{"n": 9007199254740992}')).toBe(Category.ARGUMENT_VALUE_DIFFERENT);
    expect(await argumentsCategory('{"x": 0.1}', '{"x": 0.1000000001}')).toBe(Category.EXPECTED_TOOL_CALL);
    expect(await argumentsCategory('{"x": 0.1}', '{"x": 0.10001}')).toBe(Category.ARGUMENT_VALUE_DIFFERENT);
    expect(await argumentsCategory('{"x": 0.1}', '{"x": 0.105}', 'any_words')).toBe(Category.EXPECTED_TOOL_CALL);
    expect(await argumentsCategory('{"x": NaN}', '{"x": NaN}')).toBe(Category.ARGUMENT_VALUE_DIFFERENT);
    expect(await argumentsCategory('{"x": Infinity}', '{"x": Infinity}')).toBe(Category.ARGUMENT_VALUE_DIFFERENT);
  });

  it('compares objects by their key sets and lists by length, then element by element', async () => {
    expect(await argumentsCategory({ a: 1, b: 2 }, { a: 1 })).toBe(Category.ARGUMENT_OBJECT_KEYS_DIFFERENT);
    expect(await argumentsCategory({ a: 1 }, { a: 1, b: 2 })).toBe(Category.ARGUMENT_OBJECT_KEYS_DIFFERENT);
    expect(await argumentsCategory({ a: [1, 2] }, { a: [1] })).toBe(Category.ARGUMENT_LIST_LENGTH_DIFFERENT);
    expect(await argumentsCategory({ a: [1, 2] }, { a: [2, 1] })).toBe(Category.ARGUMENT_VALUE_DIFFERENT);
    expect(await argumentsCategory({ a: { b: [{ c: 'x' }] } }, { a: { b: [{ c: 'x' }] } })).toBe(Category.EXPECTED_TOOL_CALL);
    expect(await argumentsCategory({ a: { b: [{ c: 'x' }] } }, { a: { b: [{ d: 'x' }] } })).toBe(Category.ARGUMENT_OBJECT_KEYS_DIFFERENT);
  });

  it("reports the first difference in the expected object's written key order, integer-like keys included", async () => {
    // A JavaScript object would put "1" first and report the type difference instead.
    expect(await argumentsCategory('{"b": [1, 2], "1": "x"}', '{"b": [1], "1": 5}')).toBe(Category.ARGUMENT_LIST_LENGTH_DIFFERENT);
    expect(await argumentsCategory('{"1": "x", "b": [1, 2]}', '{"b": [1], "1": 5}')).toBe(Category.ARGUMENT_VALUE_TYPE_DIFFERENT);
  });

  it('reads a repeated key as Python does: its last value', async () => {
    expect(await argumentsCategory('{"a": 1}', '{"a": 2, "a": 1}')).toBe(Category.EXPECTED_TOOL_CALL);
    expect(await argumentsCategory('{"a": 1}', '{"a": 1, "a": 2}')).toBe(Category.ARGUMENT_VALUE_DIFFERENT);
  });

  it('compares strings of two words or more by shared words, shorter ones exactly', async () => {
    const summary = 'Customer wants a refund for booking KX7Q2P';
    // Shared words (case-insensitive, with repeats) over all words: 2/11 passes 0.1, fails 0.3.
    expect(await argumentsCategory({ s: summary }, { s: 'REFUND   request, booking unknown' })).toBe(Category.EXPECTED_TOOL_CALL);
    expect(await argumentsCategory({ s: summary }, { s: 'refund request, booking unknown' }, 'strict')).toBe(Category.ARGUMENT_VALUE_DIFFERENT);
    expect(await argumentsCategory({ s: summary }, { s: 'nothing in common here' })).toBe(Category.ARGUMENT_VALUE_DIFFERENT);
    expect(await argumentsCategory({ s: summary }, { s: 'nothing in common here' }, 'any_words')).toBe(Category.EXPECTED_TOOL_CALL);
    expect(await argumentsCategory({ s: 'KX7Q2P' }, { s: 'kx7q2p' }, 'any_words')).toBe(Category.ARGUMENT_VALUE_DIFFERENT);
    expect(await argumentsCategory({ s: 'KX7Q2P' }, { s: ' KX7Q2P' })).toBe(Category.ARGUMENT_VALUE_DIFFERENT);
    expect(await argumentsCategory({ s: 'camper van' }, { s: 'Camper\u3000VAN' })).toBe(Category.EXPECTED_TOOL_CALL);
  });
});

describe('parallel tool calls', () => {
  const alpha = expectedCall('get_tide_times', { port: 'Skerrin' });
  const beta = expectedCall('get_exchange_rate', { from_currency: 'GBP', to_currency: 'EUR' });
  const alphaCall = (index = 0) => call('get_tide_times', { port: 'Skerrin' }, index);
  const betaCall = (index = 1) => call('get_exchange_rate', { from_currency: 'GBP', to_currency: 'EUR' }, index);
  const junk = (index: number) => call('get_tide_times', { port: `Nowhere ${index}` }, index);

  it('matches a batch in any order; with rewarding off (default) surplus calls are free and missing ones fail', async () => {
    expect(await scored(batch(alpha, beta), [betaCall(0), alphaCall(1)])).toEqual({ reward: 1, category: Category.EXPECTED_TOOL_CALL_BATCH });
    expect(await scored(batch(alpha, beta), [alphaCall(0), betaCall(1), junk(2)])).toEqual({ reward: 1, category: Category.EXPECTED_TOOL_CALL_BATCH });
    expect(await scored(alpha, [junk(0), alphaCall(1)])).toEqual({ reward: 1, category: Category.EXPECTED_TOOL_CALL });
    expect(await scored(batch(alpha, beta), [alphaCall(0)])).toEqual({ reward: 0, category: Category.FUNCTION_CALL_BATCH_LENGTH_DIFFERENT });
    expect(await scored(batch(alpha), [alphaCall(0)])).toEqual({ reward: 1, category: Category.EXPECTED_TOOL_CALL });
  });

  it('names why an unmatched expected call missed, or the count when that is the only defect', async () => {
    expect(await scored(batch(alpha, beta), [alphaCall(0), call('get_exchange_rate', { from_currency: 'GBP', to_currency: 'USD' }, 1)])).toEqual({ reward: 0, category: Category.ARGUMENT_VALUE_DIFFERENT });
    expect(await scored(batch(alpha, beta), [alphaCall(0), call('get_weather', {}, 1)])).toEqual({ reward: 0, category: Category.UNEXPECTED_TOOL });
    expect(await scored(batch(alpha, beta), [alphaCall(0), alphaCall(1)])).toEqual({ reward: 0, category: Category.UNEXPECTED_TOOL });
  });

  it('with rewarding on and no gate, only the exact count is admissible', async () => {
    expect(await scored(batch(alpha, beta), [alphaCall(0), betaCall(1), junk(2)], 'strict')).toEqual({ reward: 0, category: Category.FUNCTION_CALL_BATCH_LENGTH_DIFFERENT });
    expect(await scored(alpha, [alphaCall(0), junk(1)], 'strict')).toEqual({ reward: 0, category: Category.FUNCTION_CALL_BATCH_LENGTH_DIFFERENT });
    expect(await scored(batch(alpha, beta), [betaCall(0), alphaCall(1)], 'strict')).toEqual({ reward: 1, category: Category.EXPECTED_TOOL_CALL_BATCH });
  });

  it('scores admitted shapes by reward mode: f1, fractional, binary_strict', async () => {
    const wrongBeta = call('get_exchange_rate', { from_currency: 'GBP', to_currency: 'USD' }, 1);
    const f1 = async (output: ResponseItem[]) => (await scored(batch(alpha, beta), output, 'f1')).reward;
    expect(await f1([betaCall(0), alphaCall(1)])).toBe(1);
    expect(await f1([alphaCall(0), wrongBeta])).toBe(0.5);
    expect(await f1([alphaCall(0)])).toBeCloseTo(2 / 3, 12);
    expect(await f1([alphaCall(0), betaCall(1), junk(2), junk(3), junk(4)])).toBeCloseTo(4 / 7, 12);
    expect(await scored(batch(alpha, beta), [alphaCall(0)], 'f1')).toMatchObject({ category: Category.FUNCTION_CALL_BATCH_LENGTH_DIFFERENT });

    expect(await scored(batch(alpha, beta), [alphaCall(0), wrongBeta], 'fractional')).toEqual({ reward: 0.5, category: Category.ARGUMENT_VALUE_DIFFERENT });
    expect(await scored(batch(alpha, beta), [alphaCall(0)], 'fractional')).toEqual({ reward: 1, category: Category.EXPECTED_TOOL_CALL_BATCH });
    expect(await scored(batch(alpha, beta), [alphaCall(0), betaCall(1), junk(2)], 'fractional')).toEqual({ reward: 0, category: Category.FUNCTION_CALL_BATCH_LENGTH_DIFFERENT });

    expect(await scored(batch(alpha, beta), [alphaCall(0), betaCall(1), junk(2), junk(3)], 'permissive')).toEqual({ reward: 1, category: Category.EXPECTED_TOOL_CALL_BATCH });
    expect(await scored(batch(alpha, beta), [alphaCall(0)], 'permissive')).toEqual({ reward: 1, category: Category.EXPECTED_TOOL_CALL_BATCH });
    expect(await scored(batch(alpha, beta), [alphaCall(0), wrongBeta], 'permissive')).toEqual({ reward: 0, category: Category.ARGUMENT_VALUE_DIFFERENT });
  });

  it('pairs calls as a maximum matching, not greedily in written order', async () => {
    // {n: 1} accepts {n: 1} and {n: true} (a bool is an int), {n: true} only {n: true}: pairing the first expected
    // call with the first actual call would strand the second.
    const output = [call('flag', { n: true }, 0), call('flag', { n: 1 }, 1)];
    expect(await scored(batch(expectedCall('flag', { n: 1 }), expectedCall('flag', { n: true })), output)).toEqual({ reward: 1, category: Category.EXPECTED_TOOL_CALL_BATCH });
  });
});

describe('bad input', () => {
  it('refuses a row without a valid expected_action with 422 naming it', async () => {
    for (const expected_action of [undefined, null, { type: 'tool' }, { type: 'function_call', name: 'f' }, { type: 'function_call', name: 'f', arguments: {} }, { type: 'message' }, batch()]) {
      const { status, body } = await verify(expected_action, [assistantMessage('hi')]);
      expect(status, JSON.stringify(expected_action)).toBe(422);
      expect(JSON.stringify(body.detail)).toContain('expected_action');
    }
  });

  it('refuses expected arguments that are not JSON with 422 once a call of that name is compared (upstream: 500)', async () => {
    const broken = { type: 'function_call', name: 'change_sailing', arguments: '{"sailing_id": ORK}' };
    const { status, body } = await verify(broken, [call('change_sailing', { sailing_id: 'ORK' })]);
    expect(status).toBe(422);
    expect(body.detail[0].loc).toEqual(['body', 'expected_action', 'arguments']);
    expect(body.detail[0].msg).toContain('JSONDecodeError: Expecting value');
    const inBatch = await verify(batch(expectedCall('a', {}), broken), [call('a', {}, 0), call('change_sailing', {}, 1)]);
    expect(inBatch.body.detail[0].loc).toEqual(['body', 'expected_action', 'calls', 1, 'arguments']);
    // Upstream scores these without reading the arguments, and so does ngym.
    expect(await scored(broken, [call('get_booking', {})])).toEqual({ reward: 0, category: Category.UNEXPECTED_TOOL });
    expect(await scored(broken, [assistantMessage('hi')])).toEqual({ reward: 0, category: Category.NO_EXPECTED_TOOL_CALL });
  });

  it('answers the expected action with only the keys it declares, and keeps the other row fields', async () => {
    const expected = { type: 'function_call', name: 'f', arguments: '{}', call_id: 'c1', extra: true };
    const { body } = await verify({ type: 'function_call_batch', calls: [expected], note: 'x' }, [call('f', {})], 'default', { task_id: 7 });
    expect(body.expected_action).toEqual({ type: 'function_call_batch', calls: [{ type: 'function_call', name: 'f', arguments: '{}' }] });
    expect(body.task_id).toBe(7);
  });

  it('refuses a comparator config without its threshold, or with a key it does not read, at start-up', async () => {
    await expect(startInProcessGym({ config: { broken: server({}) } })).rejects.toThrow(/word_count_similarity_threshold/);
    await expect(startInProcessGym({ config: { broken: server({ word_count_similarity_threshold: 0.1, allow_subet: true }) } })).rejects.toThrow(/allow_subet/);
  });
});

describe('example data', () => {
  it('example.jsonl and parallel_example.jsonl are what example-data.ts writes', () => {
    expect(readJsonlRows(EXAMPLE_DATA.examplePath)).toEqual(JSON.parse(JSON.stringify(exampleRows())));
    expect(readJsonlRows(PARALLEL_EXAMPLE_PATH)).toEqual(JSON.parse(JSON.stringify(parallelExampleRows())));
  });

  it('the example rollouts replay in strict mode through the agent with their recorded rewards and categories', async () => {
    const replayed = await replayExampleRollouts(EXAMPLE_DATA);
    expect(replayed.map(({ recorded }) => recorded.reward)).toEqual([1, 1, 0, 0, 1]);
    expect(replayed.map(({ recorded }) => recorded.category)).toEqual([
      Category.EXPECTED_TOOL_CALL,
      Category.EXPECTED_CHAT_MESSAGE_FOUND,
      Category.ARGUMENT_VALUE_DIFFERENT,
      Category.NO_EXPECTED_TOOL_CALL,
      Category.EXPECTED_TOOL_CALL,
    ]);
    for (const { recorded, result } of replayed) expect({ reward: result.reward, category: result.category }).toEqual({ reward: recorded.reward, category: recorded.category });
  });

  it('scores the parallel examples under the parallel config when answered exactly, in reverse order', async () => {
    for (const row of parallelExampleRows()) {
      const expected = row.expected_action as { type: string; calls?: { name: string; arguments: string }[]; name?: string; arguments?: string };
      const calls = expected.calls ?? (expected.type === 'function_call' ? [expected as { name: string; arguments: string }] : []);
      const output = calls.length === 0 ? [assistantMessage('Glad to help.')] : calls.map((entry, index) => call(entry.name, entry.arguments, index)).reverse();
      const { status, body } = await verify(expected, output, 'f1');
      expect(status).toBe(200);
      expect(body.reward).toBe(1);
    }
  });

  it('runs a task end to end through the agent of the config (one model call, nothing run)', async () => {
    const model = scriptedModel(() => [functionCall('authenticate_customer', { customer_id: 'HF-20417', booking_reference: 'KX7Q2P' })]);
    const full = await startInProcessGym({
      overrides: [`+config_paths=[${EXAMPLE_DATA.configPath}]`, '++policy_model={responses_api_models: {scripted: {entrypoint: app.ts}}}'],
      definitions: { policy_model: model.definition },
    });
    try {
      const reply = await http.request(full.url(EXAMPLE_DATA.agent, '/run'), { body: exampleRows()[0] });
      expect(reply.status, reply.text).toBe(200);
      expect(reply.json<Record<string, unknown>>()).toMatchObject({ reward: 1, category: Category.EXPECTED_TOOL_CALL });
      expect(model.calls).toHaveLength(1);
    } finally {
      await full.close();
    }
  });
});
