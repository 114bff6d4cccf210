/**
 * The dialect conversions and synthesized streams against upstream NeMo Gym 0.7.0's own (run in the venv):
 * Anthropic request -> Responses request, Response -> Anthropic Message and its event stream, and the
 * chat.completion.chunk and Responses event streams of a complete answer. Where ngym deliberately sends more
 * (the Responses API's full event sequence, `stop_sequence: null`, `signature` on a thinking block's start,
 * `stop_reason: null` in `message_start` as Anthropic's API does), the comparison says so.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { upstreamWheel } from '../testing/upstream-wheel.ts';
import { anthropicToResponsesRequest, responseToAnthropicMessage } from './anthropic-conversion.ts';
import { anthropicMessageEvents } from './anthropic-stream.ts';
import type { ChatCompletion } from './chat-completions.ts';
import { chatCompletionChunks } from './chat-stream.ts';
import type { Response } from './responses.ts';
import { responseStreamEvents } from './responses-stream.ts';

const wheel = upstreamWheel();

const UPSTREAM = `
import json, sys
from nemo_gym.anthropic_converter import AnthropicConverter
from nemo_gym.chat_streaming import synthesize_chat_completion_sse
from nemo_gym.openai_utils import NeMoGymResponse
from nemo_gym.responses_streaming import synthesize_responses_sse
cases = json.load(sys.stdin)
converter = AnthropicConverter()
messages = [converter.responses_to_anthropic_response(NeMoGymResponse.model_validate(r), model="claude-test") for r in cases["responses"]]
print(json.dumps({
    "requests": [converter.anthropic_request_to_responses(r).model_dump(mode="json", exclude_unset=True) for r in cases["anthropic_requests"]],
    "messages": messages,
    "anthropic_sse": [list(converter.anthropic_response_to_sse(m)) for m in messages],
    "chat_sse": [list(synthesize_chat_completion_sse(c, include_usage=True)) for c in cases["completions"]],
    "responses_sse": [list(synthesize_responses_sse(NeMoGymResponse.model_validate(r).model_dump(mode="json", by_alias=True))) for r in cases["responses"]],
}))
`;

const ANTHROPIC_REQUESTS: any[] = [
  {
    model: 'claude-test',
    max_tokens: 5,
    system: 'Be brief.',
    temperature: 0.5,
    top_p: 0.9,
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }] },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm', signature: 'sig' }, { type: 'text', text: 'ok' }, { type: 'tool_use', id: 't1', name: 'f', input: { x: 1, y: 'é' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }] },
    ],
    tools: [{ name: 'f', description: 'F.', input_schema: { type: 'object', properties: { x: { type: 'integer' } } } }, { name: 'g', input_schema: { type: 'object' } }],
    tool_choice: { type: 'tool', name: 'f' },
  },
  {
    model: 'claude-test',
    max_tokens: 100,
    system: [{ type: 'text', text: 'one' }, { type: 'text', text: 'two' }],
    messages: [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: 'plain' }, { type: 'text', text: 'and?' }] },
    ],
    tool_choice: { type: 'any' },
  },
];

const response = (output: unknown[], extra: Record<string, unknown> = {}) => ({
  id: 'resp_1',
  object: 'response',
  created_at: 1,
  model: 'x',
  output,
  parallel_tool_calls: true,
  tool_choice: 'auto',
  tools: [],
  usage: { input_tokens: 3, output_tokens: 4, total_tokens: 7, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
  ...extra,
});
const message = (id: string, content: unknown[]) => ({ type: 'message', id, role: 'assistant', status: 'completed', content });
const RESPONSES: any[] = [
  response([message('msg_1', [{ type: 'output_text', text: 'hi', annotations: [] }])]),
  response([
    { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'th' }, { type: 'summary_text', text: 'more' }] },
    message('msg_2', [{ type: 'output_text', text: 'calling', annotations: [] }]),
    { type: 'function_call', id: 'fc_1', call_id: 'c1', name: 'f', arguments: '{"a": 1}', status: 'completed' },
  ]),
  response([message('msg_3', [{ type: 'output_text', text: 'cut', annotations: [] }])], { incomplete_details: { reason: 'max_output_tokens' }, status: 'incomplete' }),
  response([message('msg_4', [{ type: 'refusal', refusal: 'no' }])], { incomplete_details: { reason: 'content_filter' } }),
];

const COMPLETIONS: any[] = [
  {
    id: 'c1',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: 'hi', reasoning_content: 'r', tool_calls: [{ id: 't', type: 'function', function: { name: 'f', arguments: '{}' } }, { id: 'u', type: 'function', function: { name: 'g', arguments: '{"b": 2}' } }] } }],
    usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
  },
  { id: 'c2', object: 'chat.completion', created: 2, model: 'm', system_fingerprint: 'fp', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'plain' } }] },
];

function runUpstream(): Record<string, any[]> {
  const run = spawnSync(wheel.python, ['-c', UPSTREAM], {
    input: JSON.stringify({ anthropic_requests: ANTHROPIC_REQUESTS, responses: RESPONSES, completions: COMPLETIONS }),
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`upstream conversion failed: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

/** Without nulls (upstream dumps every unset optional field as null) and with reasoning ids (random on both sides) blanked. */
function normalized(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalized);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value).filter(([, entry]) => entry !== null && entry !== undefined);
  return Object.fromEntries(entries.map(([key, entry]) => [key, key === 'id' && typeof entry === 'string' && entry.startsWith('rs_') ? 'rs_*' : normalized(entry)]));
}

/** JSON with keys sorted, to compare values whose key order differs. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, entry) =>
    entry !== null && typeof entry === 'object' && !Array.isArray(entry) ? Object.fromEntries(Object.entries(entry).sort(([a], [b]) => a.localeCompare(b))) : entry,
  );
}

/** An SSE text as its events: name and JSON data (or the raw data, `[DONE]`). */
function parsedEvents(texts: string[]): Array<{ event: string | undefined; data: unknown }> {
  return texts
    .join('')
    .split('\n\n')
    .filter((block) => block !== '')
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1] as string;
      return { event, data: data === '[DONE]' ? data : JSON.parse(data) };
    });
}

describe.skipIf(wheel.skipReason !== null)('model dialects: parity with upstream 0.7.0', () => {
  const upstream = wheel.skipReason === null ? runUpstream() : {};

  it('maps Anthropic requests onto the same Responses requests', () => {
    ANTHROPIC_REQUESTS.forEach((request, index) => {
      expect(normalized(anthropicToResponsesRequest(request)), `request ${index}`).toEqual(normalized(upstream.requests?.[index]));
    });
  });

  it('maps Responses onto the same Anthropic Messages (plus stop_sequence: null, as Anthropic sends)', () => {
    RESPONSES.forEach((body, index) => {
      const ours = responseToAnthropicMessage(body as Response, 'claude-test');
      expect(ours.stop_sequence).toBeNull();
      expect(normalized(ours), `response ${index}`).toEqual(normalized(upstream.messages?.[index]));
    });
  });

  it('streams an Anthropic Message as upstream does (the start events as Anthropic sends them)', () => {
    RESPONSES.forEach((body, index) => {
      const asUpstream = parsedEvents(anthropicMessageEvents(responseToAnthropicMessage(body as Response, 'claude-test'))).map(({ event, data }: any) => {
        if (data.type === 'message_start') return { event, data: { ...data, message: { ...data.message, stop_reason: upstream.messages?.[index].stop_reason } } };
        if (data.type === 'content_block_start' && data.content_block.type === 'thinking') {
          expect(data.content_block.signature).toBe('');
          const { signature: _signature, ...block } = data.content_block;
          return { event, data: { ...data, content_block: block } };
        }
        return { event, data };
      });
      expect(normalized(asUpstream), `response ${index}`).toEqual(normalized(parsedEvents(upstream.anthropic_sse?.[index])));
    });
  });

  it('streams a chat completion as the same chunks', () => {
    COMPLETIONS.forEach((completion, index) => {
      expect(parsedEvents(chatCompletionChunks(completion as ChatCompletion, true)), `completion ${index}`).toEqual(parsedEvents(upstream.chat_sse?.[index]));
    });
  });

  it("streams a Response with every event upstream sends, in upstream's order, inside the Responses API's full sequence", () => {
    RESPONSES.forEach((body, index) => {
      const ours = parsedEvents(responseStreamEvents(body as Response)).map(({ event, data }: any) => {
        const { sequence_number: _sequence, ...rest } = data;
        return canonical({ event, data: normalized(rest) });
      });
      const theirs = parsedEvents(upstream.responses_sse?.[index]).map(({ event, data }) => canonical({ event, data: normalized(data) }));
      expect(theirs.length).toBeGreaterThanOrEqual(3);
      let position = 0;
      for (const event of theirs) {
        while (position < ours.length && ours[position] !== event) position++;
        expect(position, `response ${index}: upstream's ${event.slice(0, 300)}`).toBeLessThan(ours.length);
        position++;
      }
    });
  });
});
