/**
 * Overhead of the model dialects: the same conversation and the same scripted answer (a reasoning item, a
 * message and a tool call) through `/v1/chat/completions` and `/v1/messages` (converted to and from the
 * Responses API around the server's `responses`) and through `/v1/responses` with `stream: true`, side by
 * side with a direct `/v1/responses` call. One model server in-process, its answer instant, so what is
 * measured is the framework: HTTP, validation, conversion, stream synthesis. Rounds alternate the cases
 * (the machine's speed drifts); medians are printed, with each case's time and CPU per call against the
 * direct call's. Then the conversion work alone, without HTTP: microseconds per call of each dialect's
 * request and answer conversion and stream synthesis. Set sizes with BENCH_DIALECT_SECONDS (per case and
 * round), BENCH_ROUNDS, BENCH_CONCURRENCY.
 */
import { sharedHttpClient } from '../src/client/http-client.ts';
import { startInProcessGym } from '../src/gym/in-process.ts';
import { anthropicToResponsesRequest, responseToAnthropicMessage } from '../src/protocol/anthropic-conversion.ts';
import { AnthropicMessageCreateParams } from '../src/protocol/anthropic-messages.ts';
import { anthropicMessageEvents } from '../src/protocol/anthropic-stream.ts';
import { ChatCompletionCreateParams } from '../src/protocol/chat-completions.ts';
import { chatRequestToResponses, responseToChatCompletion } from '../src/protocol/chat-over-responses.ts';
import { chatCompletionChunks } from '../src/protocol/chat-stream.ts';
import { ResponseCreateParams } from '../src/protocol/responses.ts';
import { responseStreamEvents } from '../src/protocol/responses-stream.ts';
import { validateBody } from '../src/protocol/validation.ts';
import { assistantMessage, functionCall, modelResponse, scriptedModel, usage } from '../src/server/scripted-model.ts';
import { format, median } from './lib/measure.ts';

const SECONDS = Number(process.env.BENCH_DIALECT_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);

const SYSTEM = 'You are a helpful assistant. Use the tools when they help.';
const QUESTION = 'What is the weather in Paris, and should I bring a jacket?';
const TOOL_SCHEMA = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const ANSWER = [
  { type: 'reasoning' as const, id: 'rs_bench', summary: [{ type: 'summary_text', text: 'The user wants the weather; I should call the tool.' }] },
  assistantMessage('Let me check the weather in Paris.', { id: 'msg_bench' }),
  functionCall('get_weather', { city: 'Paris' }, 'call_bench'),
];

/** One conversation (system, question, a tool call and its output, a follow-up) in each dialect. */
const CASES: Array<{ name: string; path: string; body: Record<string, unknown> }> = (() => {
  const responses = {
    instructions: SYSTEM,
    input: [
      { role: 'user', content: QUESTION },
      { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city": "Paris"}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'Cold, 4 degrees, light rain.' },
      { role: 'user', content: 'And tomorrow?' },
    ],
    tools: [{ type: 'function', name: 'get_weather', parameters: TOOL_SCHEMA, strict: false }],
  };
  const chat = {
    messages: [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: QUESTION },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'Cold, 4 degrees, light rain.' },
      { role: 'user', content: 'And tomorrow?' },
    ],
    tools: [{ type: 'function', function: { name: 'get_weather', parameters: TOOL_SCHEMA } }],
  };
  const messages = {
    model: 'bench',
    max_tokens: 512,
    system: SYSTEM,
    messages: [
      { role: 'user', content: QUESTION },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'Cold, 4 degrees, light rain.' }, { type: 'text', text: 'And tomorrow?' }] },
    ],
    tools: [{ name: 'get_weather', input_schema: TOOL_SCHEMA }],
  };
  return [
    { name: '/v1/responses (direct)', path: '/v1/responses', body: responses },
    { name: '/v1/responses stream', path: '/v1/responses', body: { ...responses, stream: true } },
    { name: '/v1/chat/completions', path: '/v1/chat/completions', body: chat },
    { name: '/v1/chat/completions stream', path: '/v1/chat/completions', body: { ...chat, stream: true } },
    { name: '/v1/messages', path: '/v1/messages', body: messages },
    { name: '/v1/messages stream', path: '/v1/messages', body: { ...messages, stream: true } },
  ];
})();

interface Figures {
  callsPerSecond: number;
  /** Mean wall time of one call, ms. */
  latencyMs: number;
  /** CPU of this process (server and client) per call, µs. */
  cpuMicroseconds: number;
}

async function measure(url: string, body: Record<string, unknown>, seconds: number): Promise<Figures> {
  const http = sharedHttpClient();
  let calls = 0;
  let busyMs = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline) {
        const begin = performance.now();
        const response = await http.request(url, { body });
        if (response.status !== 200 || /^event: (error|response\.failed)$/m.test(response.text)) throw new Error(`${url} answered ${response.status}: ${response.text.slice(0, 300)}`);
        busyMs += performance.now() - begin;
        calls++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  return { callsPerSecond: calls / elapsed, latencyMs: busyMs / calls, cpuMicroseconds: (cpu.user + cpu.system) / calls };
}

/** Microseconds per call of `work`, the median of five runs of a fixed number of calls. */
function microsecondsPerCall(work: () => unknown): number {
  const calls = 5_000;
  const runs: number[] = [];
  for (let run = 0; run < 6; run++) {
    const started = performance.now();
    for (let call = 0; call < calls; call++) work();
    // The first run warms the JIT.
    if (run > 0) runs.push(((performance.now() - started) * 1000) / calls);
  }
  return median(runs);
}

/** The conversion a call of each dialect does around the server's `responses`, without HTTP. */
function conversionAlone(): void {
  // The conversions leave their input as it is, so one body serves every call.
  const body = (name: string) => CASES.find((entry) => entry.name === name)?.body as Record<string, unknown>;
  const answer = modelResponse(ANSWER, { usage: usage(180, 40) });
  const rows: Array<[string, () => unknown]> = [
    ['/v1/responses: validate request', () => validateBody(ResponseCreateParams, body('/v1/responses (direct)'))],
    ['stream: Responses events', () => responseStreamEvents(answer)],
    [
      '/v1/chat/completions: both ways',
      () => {
        validateBody(ResponseCreateParams, chatRequestToResponses(validateBody(ChatCompletionCreateParams, body('/v1/chat/completions'))));
        return responseToChatCompletion(answer);
      },
    ],
    ['stream: chat chunks', () => chatCompletionChunks(responseToChatCompletion(answer), false)],
    [
      '/v1/messages: both ways',
      () => {
        const params = validateBody<AnthropicMessageCreateParams>(AnthropicMessageCreateParams, body('/v1/messages'));
        validateBody(ResponseCreateParams, anthropicToResponsesRequest(params));
        return responseToAnthropicMessage(answer, params.model);
      },
    ],
    ['stream: Anthropic events', () => anthropicMessageEvents(responseToAnthropicMessage(answer, 'bench'))],
  ];
  process.stdout.write(`\nConversion alone, no HTTP (one core, median of 5 x 5,000 calls)\n`);
  for (const [name, work] of rows) process.stdout.write(`${name.padEnd(40)} ${format(microsecondsPerCall(work), 1).padStart(7)} µs/call\n`);
}

export default async function modelDialectsBenchmark(): Promise<void> {
  const model = scriptedModel(() => ({ output: ANSWER, usage: usage(180, 40) }));
  const gym = await startInProcessGym({
    config: { policy_model: { responses_api_models: { scripted: { entrypoint: 'app.ts' } } } },
    definitions: { policy_model: model.definition },
  });
  try {
    for (const entry of CASES) await measure(gym.url('policy_model', entry.path), entry.body, 0.5);
    const rounds = new Map<string, Figures[]>(CASES.map((entry) => [entry.name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const entry of CASES) rounds.get(entry.name)?.push(await measure(gym.url('policy_model', entry.path), entry.body, SECONDS));
    }
    const medianOf = (name: string, pick: (figures: Figures) => number) => median((rounds.get(name) ?? []).map(pick));
    const direct = CASES[0]?.name as string;
    const directLatency = medianOf(direct, (figures) => figures.latencyMs);
    const directCpu = medianOf(direct, (figures) => figures.cpuMicroseconds);
    process.stdout.write(`One scripted model server in-process, ${CONCURRENCY} calls in flight, ${ROUNDS} rounds of ${SECONDS} s per case (medians)\n`);
    process.stdout.write(`${'case'.padEnd(30)} ${'calls/s'.padStart(8)} ${'ms/call'.padStart(8)} ${'x direct'.padStart(9)} ${'CPU µs/call'.padStart(12)} ${'x direct'.padStart(9)} ${'+µs CPU'.padStart(8)}\n`);
    for (const entry of CASES) {
      const latency = medianOf(entry.name, (figures) => figures.latencyMs);
      const cpu = medianOf(entry.name, (figures) => figures.cpuMicroseconds);
      process.stdout.write(
        `${entry.name.padEnd(30)} ${format(medianOf(entry.name, (figures) => figures.callsPerSecond), 0).padStart(8)} ${format(latency, 2).padStart(8)} ${format(latency / directLatency, 2).padStart(9)} ${format(cpu, 0).padStart(12)} ${format(cpu / directCpu, 2).padStart(9)} ${format(cpu - directCpu, 0).padStart(8)}\n`,
      );
    }
  } finally {
    await gym.close();
  }
  conversionAlone();
}
