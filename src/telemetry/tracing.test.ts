/**
 * Traces through every hop: a collection in-process (simple_agent, example_single_tool_call, a scripted model)
 * exporting to an OTLP/HTTP receiver on port 0, whose JSON bodies are decoded into the span tree checked here.
 * Through a queue too: a real redis-server and an `ngym worker` process between the collector and the gym.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Job, Queue, QueueEvents, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { REDIS_AVAILABLE, type RedisProcess, startRedis } from '../../faults/redis-server.ts';
import { killHostsLeft, startWorker } from '../../faults/worker-process.ts';
import type { ConfigDict } from '../config/tree.ts';
import { type InProcessGym, startInProcessGym } from '../gym/in-process.ts';
import { LlmJudge, judgeConfigShape } from '../judge/llm-judge.ts';
import { collectRollouts } from '../rollouts/collect.ts';
import { connectRedis } from '../rollouts/queue/connection.ts';
import type { RolloutJobData, RolloutJobResult } from '../rollouts/queue/jobs.ts';
import { QueueExecutor } from '../rollouts/queue/queue-executor.ts';
import { defineResourcesServer } from '../server/resources-server.ts';
import { assistantMessage, functionCall, scriptedModel, usage } from '../server/scripted-model.ts';
import { simpleAgentConfig } from '../testing/agent-config.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../testing/otlp-receiver.ts';
import { droppedSpans, flushTracing, stopTracing } from './tracing.ts';

const GET_WEATHER = {
  type: 'function',
  name: 'get_weather',
  description: '',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  strict: true,
};
const ROW = { responses_create_params: { input: 'Should I bring a jacket to Paris today?', tools: [GET_WEATHER] } };
const SERVER = 2;
const CLIENT = 3;

/** Calls get_weather, then answers: two model calls and one tool call a rollout. */
function weatherModel() {
  return scriptedModel(({ input }) =>
    input.some((item) => item.type === 'function_call_output')
      ? { output: [assistantMessage('Yes, bring a jacket.')], usage: usage(41, 6) }
      : { output: [functionCall('get_weather', { city: 'Paris' })], usage: usage(30, 9) },
  );
}

function weatherGym(telemetry: ConfigDict | undefined): ConfigDict {
  return {
    ...simpleAgentConfig({ resources: { name: 'weather', implementation: 'example_single_tool_call' }, agent: 'weather_agent' }),
    policy_model: { responses_api_models: { scripted: { entrypoint: 'app.ts' } } },
    ...(telemetry === undefined ? {} : { telemetry }),
  };
}

let gym: InProcessGym | undefined;
let receiver: OtlpReceiver | undefined;
afterEach(async () => {
  await gym?.close();
  gym = undefined;
  await stopTracing();
  await receiver?.close();
  receiver = undefined;
});

async function tracedGym(config: (endpoint: string) => ConfigDict, definitions: Parameters<typeof startInProcessGym>[0]['definitions']): Promise<{ gym: InProcessGym; receiver: OtlpReceiver }> {
  receiver = await startOtlpReceiver();
  gym = await startInProcessGym({ config: config(receiver.url), definitions });
  return { gym, receiver };
}

/** The names from the trace's root down to `span`, each with the service that made it. */
function pathTo(span: ReceivedSpan, byId: Map<string, ReceivedSpan>): string {
  const names: string[] = [];
  for (let current: ReceivedSpan | undefined = span; current !== undefined; current = byId.get(current.parentSpanId)) {
    names.unshift(`${current.name} [${String(current.resource['service.name']).replace('nemo-gym/', '')}]`);
  }
  return names.join(' > ');
}

/** Every path from a root to a span no other span has as parent. */
function leafPaths(spans: ReceivedSpan[]): string[] {
  const byId = new Map(spans.map((span) => [span.spanId, span]));
  const parents = new Set(spans.map((span) => span.parentSpanId));
  return spans
    .filter((span) => !parents.has(span.spanId))
    .map((span) => pathTo(span, byId))
    .sort();
}

/** Every root-to-leaf path of one weather_agent rollout (seed, model call, tool call, model call, verify) under `caller`, sorted. */
function weatherRolloutPaths(caller: string): string[] {
  const run = `${caller} > POST /run [weather_agent] > gym.rollout [weather_agent]`;
  const responses = `${run} > gym.agent.responses [weather_agent]`;
  const modelCall = `${responses} > gym.agent.model_call [weather_agent] > POST /v1/responses [policy_model] > gym.model.responses [policy_model]`;
  return [
    `${run} > gym.agent.seed_session [weather_agent] > POST /seed_session [weather]`,
    modelCall,
    `${responses} > gym.agent.tool_call [weather_agent] > POST /get_weather [weather]`,
    modelCall,
    `${run} > gym.agent.verify [weather_agent] > POST /verify [weather] > gym.verify [weather]`,
  ].sort();
}

describe('tracing through every hop', () => {
  it('makes one trace per rollout in which every hop is a child of the one that called it', async () => {
    const model = weatherModel();
    const { gym, receiver } = await tracedGym((endpoint) => weatherGym({ enabled: true, otlp_endpoint: endpoint }), { policy_model: model.definition });
    const summary = await collectRollouts({ client: gym.client, input: [ROW], agentName: 'weather_agent' }).done();
    expect(summary.completed).toBe(1);
    await flushTracing();

    const spans = receiver.spans;
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
    const root = spans.filter((span) => span.parentSpanId === '');
    expect(root.map((span) => span.name)).toEqual(['gym.collect.rollout']);
    expect(root[0]?.attributes).toMatchObject({ 'nemo.gym.rollout.status': 'completed', 'nemo.gym.rollout.attempts': 1, 'nemo.gym.agent.name': 'weather_agent' });

    expect(leafPaths(spans)).toEqual(weatherRolloutPaths('gym.collect.rollout [collector] > HTTP POST [collector]'));

    // Every span knows its rollout, whichever process made it (the identity travels as baggage).
    for (const span of spans) expect(span.attributes, span.name).toMatchObject({ 'nemo.gym.task.index': 0, 'nemo.gym.rollout.index': 0, 'nemo.gym.rollout.id': '0-0' });
    // A hop is a CLIENT span on the caller's side, a SERVER span on the callee's.
    const kinds = new Map(spans.map((span) => [span.name, span.kind]));
    expect([kinds.get('HTTP POST'), kinds.get('POST /run'), kinds.get('gym.agent.verify'), kinds.get('POST /verify')]).toEqual([CLIENT, SERVER, CLIENT, SERVER]);
    expect(spans.find((span) => span.name === 'gym.agent.verify')?.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.response.status_code': 200, 'url.full': expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/verify$/) });

    const modelCalls = spans.filter((span) => span.name === 'gym.agent.model_call').sort((a, b) => Number(a.attributes['nemo.gym.agent.step']) - Number(b.attributes['nemo.gym.agent.step']));
    expect(modelCalls.map((span) => [span.attributes['gen_ai.usage.input_tokens'], span.attributes['gen_ai.usage.output_tokens']])).toEqual([
      [30, 9],
      [41, 6],
    ]);
    expect(spans.filter((span) => span.name === 'gym.model.responses').map((span) => span.attributes['gen_ai.usage.input_tokens']).sort()).toEqual([30, 41]);
    expect(spans.find((span) => span.name === 'gym.agent.tool_call')?.attributes['gen_ai.tool.name']).toBe('get_weather');
    expect(spans.find((span) => span.name === 'POST /verify')?.attributes).toMatchObject({ 'http.route': '/verify', 'http.response.status_code': 200, 'nemo.gym.server.name': 'weather' });
  });

  it('puts the judge model call of a judged verify under that verify', async () => {
    const judge = scriptedModel(() => [assistantMessage('[[A=B]]')]);
    const judged = defineResourcesServer({
      className: 'JudgedWeather',
      config: judgeConfigShape,
      setup: ({ client, config }) => new LlmJudge(client, config),
      verify: async (_request, { state }) => {
        await state.call([{ role: 'user', content: 'Same answer?' }]);
        return { reward: 1 };
      },
    });
    const model = weatherModel();
    const { gym, receiver } = await tracedGym(
      (endpoint) => ({
        ...weatherGym({ enabled: true, otlp_endpoint: endpoint }),
        weather: { resources_servers: { judged: { entrypoint: 'app.ts', domain: 'other', judge_model_server: { type: 'responses_api_models', name: 'judge_model' } } } },
        judge_model: { responses_api_models: { scripted: { entrypoint: 'app.ts' } } },
      }),
      { policy_model: model.definition, judge_model: judge.definition, weather: judged },
    );
    await collectRollouts({ client: gym.client, input: [ROW], agentName: 'weather_agent' }).done();
    await flushTracing();
    const spans = receiver.spans.filter((span) => span.name !== 'gym.job');
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
    expect(leafPaths(spans).filter((path) => path.includes('[judge_model]'))).toEqual([
      'gym.collect.rollout [collector] > HTTP POST [collector] > POST /run [weather_agent] > gym.rollout [weather_agent] > gym.agent.verify [weather_agent] > POST /verify [weather] > gym.verify [weather] > HTTP POST [weather] > POST /v1/responses [judge_model] > gym.model.responses [judge_model]',
    ]);
  });

  it("joins a caller's trace through an environment server (legacy_agent) in front of the agent", async () => {
    const model = weatherModel();
    const { gym, receiver } = await tracedGym(
      (endpoint) => ({
        ...weatherGym({ enabled: true, otlp_endpoint: endpoint }),
        weather_environment: { environment_servers: { legacy_agent: { entrypoint: 'app.ts', agent_server: { type: 'responses_api_agents', name: 'weather_agent' } } } },
      }),
      { policy_model: model.definition },
    );
    const callerTrace = '0af7651916cd43dd8448eb211c80319c';
    const relayed = await gym.client.post('weather_environment', '/run', { ...ROW, _ng_task_index: 4, _ng_rollout_index: 1 }, { headers: { traceparent: `00-${callerTrace}-b7ad6b7169203331-01` } });
    expect(relayed.status).toBe(200);
    await flushTracing();
    expect(new Set(receiver.spans.map((span) => span.traceId))).toEqual(new Set([callerTrace]));
    const byId = new Map(receiver.spans.map((span) => [span.spanId, span]));
    const verify = receiver.spans.find((span) => span.name === 'gym.verify') as ReceivedSpan;
    expect(pathTo(verify, byId)).toBe(
      'POST /run [weather_environment] > HTTP POST [weather_environment] > POST /run [weather_agent] > gym.rollout [weather_agent] > gym.agent.verify [weather_agent] > POST /verify [weather] > gym.verify [weather]',
    );
    expect(verify.attributes).toMatchObject({ 'nemo.gym.task.index': 4, 'nemo.gym.rollout.index': 1 });
  });

  it("joins a caller's trace from its traceparent, and starts a new one when the header is malformed", async () => {
    const model = weatherModel();
    const { gym, receiver } = await tracedGym((endpoint) => weatherGym({ enabled: true, otlp_endpoint: endpoint }), { policy_model: model.definition });
    const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpan = '00f067aa0ba902b7';
    const joined = await gym.client.post('weather_agent', '/run', ROW, {
      headers: { traceparent: `00-${callerTrace}-${callerSpan}-01`, baggage: 'team=rl, nemo.gym.task.index=7;origin=trainer, nemo.gym.rollout.index=2' },
    });
    const malformed = await gym.client.post('weather_agent', '/run', ROW, { headers: { traceparent: '00-not-a-trace-at-all-01' } });
    expect([joined.status, malformed.status]).toEqual([200, 200]);
    await flushTracing();

    const runs = receiver.spans.filter((span) => span.name === 'POST /run');
    expect(runs).toHaveLength(2);
    const [caller, fresh] = runs[0]?.traceId === callerTrace ? runs : [...runs].reverse();
    expect(caller).toMatchObject({ traceId: callerTrace, parentSpanId: callerSpan });
    // The rollout's identity came as baggage: every span of the trace has it, the model server's too.
    for (const span of receiver.spans.filter((each) => each.traceId === callerTrace)) expect(span.attributes, span.name).toMatchObject({ 'nemo.gym.task.index': 7, 'nemo.gym.rollout.index': 2 });
    expect(fresh?.parentSpanId).toBe('');
    expect(fresh?.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(fresh?.traceId).not.toBe(callerTrace);
    // Each trace holds its whole rollout: the model calls below the agent joined it.
    for (const run of runs) expect(receiver.spans.filter((span) => span.traceId === run.traceId && span.name === 'gym.model.responses')).toHaveLength(2);
  });

  it('finishes every rollout when the OTLP endpoint is unreachable, and counts the spans it dropped', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    const model = weatherModel();
    gym = await startInProcessGym({ config: weatherGym({ enabled: true, otlp_endpoint: `http://127.0.0.1:${port}` }), definitions: { policy_model: model.definition } });
    const summary = await collectRollouts({ client: gym.client, input: [ROW, ROW, ROW], agentName: 'weather_agent' }).done();
    expect([summary.completed, summary.failed]).toEqual([3, 0]);
    await flushTracing();
    // 3 rollouts of 18 spans each, all refused.
    expect(droppedSpans()).toBe(3 * 18);
    const scrape = await gym.client.get('weather', '/metrics');
    expect(scrape.text).toMatch(/^gym_tracing_dropped_spans_total 54$/m);
  });

  it("with upstream's default groups, records the run as a gym.job trace that each rollout's trace links to", async () => {
    const model = weatherModel();
    const { gym, receiver } = await tracedGym((endpoint) => weatherGym({ enabled: true, otlp_endpoint: endpoint, span_groups: 'default' }), { policy_model: model.definition });
    await collectRollouts({ client: gym.client, input: [ROW, ROW], agentName: 'weather_agent' }).done();
    await flushTracing();
    const job = receiver.spans.filter((span) => span.name === 'gym.job');
    expect(job).toHaveLength(1);
    const roots = receiver.spans.filter((span) => span.name === 'gym.collect.rollout');
    expect(roots.map((span) => span.links)).toEqual([0, 1].map(() => [{ traceId: job[0]?.traceId, spanId: job[0]?.spanId }]));
    expect(new Set([job[0]?.traceId, ...roots.map((span) => span.traceId)]).size).toBe(3);
    // The spine only: no agent step, verify or model-call spans.
    expect(new Set(receiver.spans.map((span) => span.name.split(' ')[0]))).toEqual(new Set(['gym.job', 'gym.collect.rollout', 'HTTP', 'POST', 'gym.rollout']));
  });

  it('records only the span groups asked for, and still joins every hop into one trace', async () => {
    const model = weatherModel();
    const { gym, receiver } = await tracedGym((endpoint) => weatherGym({ enabled: true, otlp_endpoint: endpoint, span_groups: 'rollout,verify' }), { policy_model: model.definition });
    await collectRollouts({ client: gym.client, input: [ROW], agentName: 'weather_agent' }).done();
    await flushTracing();
    expect(new Set(receiver.spans.map((span) => span.traceId)).size).toBe(1);
    expect(leafPaths(receiver.spans)).toEqual(['gym.collect.rollout [collector] > gym.rollout [weather_agent] > gym.agent.verify [weather_agent] > gym.verify [weather]']);
  });
});

describe('tracing off', () => {
  it('exports nothing and sends no trace context', async () => {
    receiver = await startOtlpReceiver();
    const seen: (string | undefined)[] = [];
    const spy = defineResourcesServer({
      className: 'Spy',
      verify: (_request, { http }) => {
        seen.push(http.req.header('traceparent') ?? http.req.header('baggage'));
        return { reward: 1 };
      },
    });
    const model = weatherModel();
    gym = await startInProcessGym({ config: weatherGym({ enabled: false, otlp_endpoint: receiver.url }), definitions: { policy_model: model.definition, weather: spy } });
    const summary = await collectRollouts({ client: gym.client, input: [ROW], agentName: 'weather_agent' }).done();
    expect(summary.completed).toBe(1);
    await flushTracing();
    expect(receiver.requests).toBe(0);
    expect(seen).toEqual([undefined]);
    expect(droppedSpans()).toBe(0);
  });
});

const QUEUE = 'ngym_rollouts';

describe.skipIf(!REDIS_AVAILABLE)('tracing through a queue (needs redis-server: skipped when it is not installed)', () => {
  let redis: RedisProcess | undefined;
  const connections: Redis[] = [];
  const closers: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await killHostsLeft();
    for (const connection of connections.splice(0)) connection.disconnect();
    await redis?.kill();
    redis = undefined;
  });

  async function redisConnection(): Promise<Redis> {
    redis ??= await startRedis();
    const connection = connectRedis(redis.url);
    connections.push(connection);
    return connection;
  }

  /**
   * Takes the queue's jobs in place of a worker, answering each with its row and a reward of 1: the jobs it took,
   * in order, are in `taken`; closed after the test.
   */
  async function startTaker(): Promise<{ taker: Worker<RolloutJobData, RolloutJobResult>; taken: Job<RolloutJobData, RolloutJobResult>[] }> {
    const taken: Job<RolloutJobData, RolloutJobResult>[] = [];
    const taker = new Worker<RolloutJobData, RolloutJobResult>(
      QUEUE,
      async (job) => {
        taken.push(job);
        return { line: JSON.stringify({ ...JSON.parse(job.data.body), reward: 1 }), attempts: 1 };
      },
      { connection: await redisConnection() },
    );
    closers.push(() => taker.close());
    return { taker, taken };
  }

  /** A collector whose rollouts go to the queue (its own Redis connection, as in another process). */
  async function queuedCollection(client: InProcessGym['client'], input: Record<string, unknown>[]) {
    const executor = new QueueExecutor({ connection: await redisConnection(), name: QUEUE, maxRetries: 0, retryDelayMs: 0, rolloutTimeoutMs: undefined });
    return collectRollouts({ client, input, agentName: 'weather_agent', executor }).done();
  }

  it('continues the collector\'s trace in the worker: one trace per rollout, every hop a child of its caller', { timeout: 180_000 }, async () => {
    const model = weatherModel();
    const { gym, receiver } = await tracedGym((endpoint) => weatherGym({ enabled: true, otlp_endpoint: endpoint }), { policy_model: model.definition });
    redis = await startRedis();
    // A real `ngym worker` (supervisor and worker process): it reads the gym's telemetry block from the head server.
    const worker = await startWorker(Number(new URL(gym.headUrl).port), redis.url);

    const summary = await queuedCollection(gym.client, [ROW, ROW]);
    expect([summary.completed, summary.failed]).toEqual([2, 0]);

    // Jobs from elsewhere: an older collector's (no trace context) and one whose context is garbage. Each
    // rollout still runs, in a trace of its own.
    const queue = new Queue<RolloutJobData, RolloutJobResult>(QUEUE, { connection: await redisConnection() });
    const events = new QueueEvents(QUEUE, { connection: await redisConnection() });
    closers.push(() => queue.close(), () => events.close());
    await events.waitUntilReady();
    const foreign = (taskIndex: number, traceContext?: Record<string, string>) =>
      queue.add('rollout', { agent: 'weather_agent', taskIndex, rolloutIndex: 0, body: JSON.stringify({ ...ROW, _ng_task_index: taskIndex, _ng_rollout_index: 0 }), ...(traceContext && { traceContext }) });
    const jobs = [await foreign(5), await foreign(6, { traceparent: '00-not-a-trace-at-all-01', tracestate: 'x' })];
    for (const job of jobs) expect(await job.waitUntilFinished(events, 60_000)).toHaveProperty('line');

    // Stopped, the worker exports the spans it has left before it exits; the collector and servers are here.
    worker.child.kill('SIGTERM');
    await worker.exited;
    await flushTracing();

    const traces = new Map<string, ReceivedSpan[]>();
    for (const span of receiver.spans) traces.set(span.traceId, [...(traces.get(span.traceId) ?? []), span]);
    expect(traces.size).toBe(4);
    for (const taskIndex of [0, 1]) {
      const collected = receiver.spans.find((span) => span.name === 'gym.collect.rollout' && span.attributes['nemo.gym.task.index'] === taskIndex) as ReceivedSpan;
      const spans = traces.get(collected.traceId) as ReceivedSpan[];
      // The collector's span is the only root: the worker's and everything below it joined its trace.
      expect(spans.filter((span) => span.parentSpanId === '')).toEqual([collected]);
      expect(leafPaths(spans)).toEqual(weatherRolloutPaths('gym.collect.rollout [collector] > gym.worker.rollout [worker] > HTTP POST [worker]'));
      for (const span of spans) expect(span.attributes, span.name).toMatchObject({ 'nemo.gym.task.index': taskIndex, 'nemo.gym.rollout.index': 0 });
      const attempt = spans.find((span) => span.name === 'gym.worker.rollout') as ReceivedSpan;
      expect(attempt.attributes).toMatchObject({ 'nemo.gym.agent.name': 'weather_agent', 'nemo.gym.queue.attempt': 1, 'nemo.gym.queue.job_id': expect.stringMatching(new RegExp(`-${taskIndex}-0$`)) });
      expect(attempt.attributes['nemo.gym.queue.wait_ms']).toBeGreaterThanOrEqual(0);
      // Each span says where it ran: the collector in this process, the worker's spans in the worker process.
      expect(collected.resource).toMatchObject({ 'host.name': hostname(), 'process.pid': process.pid });
      expect(attempt.resource['host.name']).toBe(hostname());
      expect(attempt.resource['process.pid']).toEqual(expect.any(Number));
      expect(attempt.resource['process.pid']).not.toBe(process.pid);
    }

    for (const taskIndex of [5, 6]) {
      const root = receiver.spans.find((span) => span.name === 'gym.worker.rollout' && span.attributes['nemo.gym.task.index'] === taskIndex) as ReceivedSpan;
      expect(root.parentSpanId).toBe('');
      const spans = traces.get(root.traceId) as ReceivedSpan[];
      expect(spans.filter((span) => span.parentSpanId === '')).toEqual([root]);
      expect(spans.filter((span) => span.name === 'gym.model.responses')).toHaveLength(2);
    }
  });

  it("gives a resumed run's jobs not yet taken this collector's trace context, not the context of the collector that added them", { timeout: 60_000 }, async () => {
    const { gym, receiver } = await tracedGym((endpoint) => weatherGym({ enabled: true, otlp_endpoint: endpoint }), { policy_model: weatherModel().definition });
    const folder = mkdtempSync(join(tmpdir(), 'ngym-queue-resume-'));
    closers.push(async () => rmSync(folder, { recursive: true, force: true }));
    const outputPath = join(folder, 'rollouts.jsonl');
    const { taker, taken } = await startTaker();
    const collect = async (resume: boolean) => {
      const executor = new QueueExecutor({ connection: await redisConnection(), name: QUEUE, maxRetries: 0, retryDelayMs: 0, rolloutTimeoutMs: undefined });
      return collectRollouts({ client: gym.client, input: [ROW, ROW], agentName: 'weather_agent', executor, outputPath, resume });
    };
    expect((await (await collect(false)).done()).completed).toBe(2);
    const first = taken.find((job) => job.data.taskIndex === 0)!;
    const jobId = first.id as string;

    // An earlier collector of this run (gone now, task 0's row lost) left that rollout's job waiting, with its context.
    await taker.pause();
    writeFileSync(outputPath, readFileSync(outputPath, 'utf8').split('\n').filter((line) => line.includes('"_ng_task_index":1')).join('\n') + '\n');
    const queue = new Queue<RolloutJobData, RolloutJobResult>(QUEUE, { connection: await redisConnection() });
    closers.push(() => queue.close());
    const gone = { traceparent: `00-${'ab'.repeat(16)}-${'cd'.repeat(8)}-01` };
    await queue.add('rollout', { ...first.data, traceContext: gone }, { jobId });

    // The resume finds it waiting and gives it its own context before any worker takes it.
    const resumed = (await collect(true)).done();
    await vi.waitFor(async () => expect((await Job.fromId<RolloutJobData>(queue, jobId))?.data.traceContext).not.toEqual(gone), { timeout: 20_000, interval: 10 });
    taker.resume();
    expect((await resumed).completed).toBe(1);
    await flushTracing();
    const resumedRollout = receiver.spans.filter((span) => span.name === 'gym.collect.rollout').at(-1)!;
    expect(taken).toHaveLength(3);
    expect(taken[2]!.data.traceContext?.traceparent?.split('-')[1]).toBe(resumedRollout.traceId);
  });

  it('puts no trace context in the jobs with tracing off', async () => {
    const model = weatherModel();
    gym = await startInProcessGym({ config: weatherGym({ enabled: false }), definitions: { policy_model: model.definition } });
    // What the collector submitted is all this test looks at.
    const { taken } = await startTaker();
    const summary = await queuedCollection(gym.client, [ROW]);
    expect(summary.completed).toBe(1);
    expect(taken).toHaveLength(1);
    expect(Object.keys(taken[0]!.data).sort()).toEqual(['agent', 'body', 'rolloutIndex', 'taskIndex']);
  });
});
