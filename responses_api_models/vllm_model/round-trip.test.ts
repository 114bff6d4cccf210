/**
 * Upstream's `round_trip_test_data.json`: a real Qwen3-0.6B rollout (Responses output items) and the Chat
 * Completions messages upstream builds from it, with and without token ids. Ported from upstream's
 * `test_round_trip_chat_completions(_return_token_id_information)`, through the converter and through the
 * server's HTTP surface.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type ResponseItem, responsesToChatCompletion, sharedHttpClient } from 'ngym';
import {
  SHARED_SKIP_MESSAGE,
  sharedFixture,
  sharedFixturesAvailable,
  startInProcessGym,
  startVllmBackend,
} from 'ngym/testing';
import { policyModelConfig } from './test-config.ts';

const available = sharedFixturesAvailable();

function load(): { input: { output: ResponseItem[] }; expected_output: Record<string, any>; expected_output_return_token_id_information: Record<string, any> } {
  return JSON.parse(readFileSync(sharedFixture('models', 'vllm_model', 'tests', 'round_trip_test_data.json'), 'utf8'));
}

/** Upstream v0.1.1 sent `tool_calls: []` on assistant messages without calls; ngym omits it, as upstream HEAD. */
function withoutEmptyToolCalls(messages: Record<string, unknown>[]): Record<string, unknown>[] {
  return messages.map((message) => {
    if (!Array.isArray(message.tool_calls) || message.tool_calls.length > 0) return message;
    const { tool_calls: _empty, ...rest } = message;
    return rest;
  });
}

const history = (output: ResponseItem[]): ResponseItem[] => [{ role: 'system', content: 'system' }, { role: 'user', content: 'hello!' }, ...output];

describe.skipIf(!available)('upstream round_trip_test_data.json', () => {
  it('test_round_trip_chat_completions: converts the recorded rollout to upstream messages', () => {
    const data = load();
    const body = responsesToChatCompletion({ input: history(data.input.output) });
    expect(body.messages).toEqual(withoutEmptyToolCalls(data.expected_output.messages));
    expect(body.messages.some((message) => 'prompt_token_ids' in message)).toBe(false);
    // Every other key upstream dumps is null, except parallel_tool_calls, which HEAD drops without tools.
    const setKeys = Object.entries(data.expected_output).filter(([key, value]) => value !== null && key !== 'messages');
    expect(setKeys).toEqual([['parallel_tool_calls', true]]);
    expect(Object.keys(body)).toEqual(['messages']);
  });

  it('test_round_trip_chat_completions_return_token_id_information: carries each call\'s ids on its assistant message', () => {
    const data = load();
    const body = responsesToChatCompletion({ input: history(data.input.output) }, { returnTokenIdInformation: true });
    const expected = withoutEmptyToolCalls(data.expected_output_return_token_id_information.messages);
    expect(body.messages).toEqual(expected);
    expect(expected.filter((message) => Array.isArray(message.prompt_token_ids))).toHaveLength(2);
  });

  it('sends exactly those messages to the engine from a training vllm_model without a reasoning parser', async () => {
    const data = load();
    const engine = await startVllmBackend({ reply: () => ({ content: 'ok' }) });
    const gym = await startInProcessGym({ config: policyModelConfig(engine.baseUrl, { return_token_id_information: true, uses_reasoning_parser: false }) });
    try {
      const response = await sharedHttpClient().request(gym.url('policy_model', '/v1/responses'), { body: { input: history(data.input.output) } });
      expect(response.status, response.text).toBe(200);
      const sent = engine.chatRequests()[0]?.body;
      expect(sent.messages).toEqual(withoutEmptyToolCalls(data.expected_output_return_token_id_information.messages));
      expect(engine.tokenizeRequests()[0]?.body.messages).toEqual(sent.messages);
    } finally {
      await gym.close();
      await engine.close();
    }
  });
});

describe.skipIf(available)('upstream round_trip_test_data.json', () => {
  it.skip(SHARED_SKIP_MESSAGE, () => {});
});
