import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import * as z from 'zod';
import { type InProcessGym, startInProcessGym } from '../gym/in-process.ts';
import { defineResourcesServer } from './resources-server.ts';

/** Counts the rollouts whose `verdict` is this instance's `pass_label`: the metric needs the instance's config. */
const labelled = defineResourcesServer({
  className: 'Labelled',
  config: { pass_label: z.string().default('PASS') },
  verify: () => ({ reward: 1 }),
  computeMetrics: (tasks, config) => {
    expectTypeOf(config.pass_label).toEqualTypeOf<string>();
    return { passed: tasks.flat().filter((rollout) => rollout.verdict === config.pass_label).length };
  },
  getKeyMetrics: (metrics, config) => ({ [`passed/${config.pass_label}`]: metrics.passed }),
});

let gym: InProcessGym | undefined;
afterEach(async () => {
  await gym?.close();
  gym = undefined;
});

describe('a resources server’s /aggregate_metrics', () => {
  it('gives the metric hooks the config of the instance that serves it', async () => {
    const instance = (config: Record<string, unknown>) => ({ resources_servers: { labelled: { entrypoint: 'app.ts', domain: 'other', ...config } } });
    gym = await startInProcessGym({ config: { plain: instance({}), custom: instance({ pass_label: 'OK' }) }, definitions: { plain: labelled, custom: labelled } });
    const verifyResponses = [
      { _ng_task_index: 0, _ng_rollout_index: 0, reward: 1, verdict: 'PASS' },
      { _ng_task_index: 1, _ng_rollout_index: 0, reward: 1, verdict: 'OK' },
      { _ng_task_index: 2, _ng_rollout_index: 0, reward: 1, verdict: 'OK' },
    ];
    const metricsOf = async (name: string) => {
      const response = await fetch((gym as InProcessGym).url(name, '/aggregate_metrics'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ verify_responses: verifyResponses }),
      });
      return response.json() as Promise<Record<string, any>>;
    };
    const plain = await metricsOf('plain');
    expect(plain.agent_metrics.passed).toBe(1);
    expect(plain.key_metrics).toEqual({ 'passed/PASS': 1 });
    const custom = await metricsOf('custom');
    expect(custom.agent_metrics.passed).toBe(2);
    expect(custom.key_metrics).toEqual({ 'passed/OK': 2 });
  });
});

/** What the metric hooks see is typed by `verify`'s result: no casts in an environment's `computeMetrics`. */
const typedMetrics = defineResourcesServer({
  className: 'TypedMetrics',
  verify: () => ({ reward: 0.5, library_reward: 1, extracted: 'x' as string | null }),
  computeMetrics: (tasks) => {
    const rollout = tasks[0]?.[0];
    if (rollout !== undefined) {
      expectTypeOf(rollout.reward).toEqualTypeOf<number>();
      expectTypeOf(rollout.library_reward).toEqualTypeOf<number>();
      expectTypeOf(rollout.extracted).toEqualTypeOf<string | null>();
    }
    return { library: tasks.flat().reduce((sum, rollout) => sum + rollout.library_reward, 0) };
  },
});

describe('typed metric hooks', () => {
  it('compute over the verify responses they are sent', async () => {
    gym = await startInProcessGym({ config: { typed: { resources_servers: { typed: { entrypoint: 'app.ts', domain: 'other' } } } }, definitions: { typed: typedMetrics } });
    const response = await fetch(gym.url('typed', '/aggregate_metrics'), {
      method: 'POST',
      body: JSON.stringify({ verify_responses: [0, 1].map((task) => ({ _ng_task_index: task, _ng_rollout_index: 0, reward: 0.5, library_reward: 1 })) }),
    });
    expect(((await response.json()) as { agent_metrics: Record<string, unknown> }).agent_metrics.library).toBe(2);
  });
});

/** Tool routes read their body as upstream's FastAPI routes do. */
const counter = defineResourcesServer({
  className: 'Counter',
  tools: {
    get_value: { parameters: z.object({}), handler: () => ({ value: 7 }) },
    add: { parameters: z.object({ count: z.number().int() }), handler: ({ count }) => ({ value: 7 + count }) },
    add_one_or_more: { parameters: z.object({ count: z.number().int().default(1) }), handler: ({ count }) => ({ value: 7 + count }) },
  },
  verify: () => ({ reward: 1 }),
});

describe('a tool call’s body', () => {
  const post = async (path: string, body?: string) => {
    const response = await fetch((gym as InProcessGym).url('counter', path), { method: 'POST', ...(body === undefined ? {} : { body }) });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };

  it('is not read by a tool without arguments: none, empty, or not JSON at all answers 200', async () => {
    gym = await startInProcessGym({ config: { counter: { resources_servers: { counter: { entrypoint: 'app.ts', domain: 'other' } } } }, definitions: { counter } });
    for (const body of [undefined, '', '{}', 'not json', '[1]']) expect(await post('/get_value', body), String(body)).toEqual({ status: 200, body: { value: 7 } });
  });

  it('is required by a tool with arguments, even optional ones: none is a 422 naming the missing body', async () => {
    gym = await startInProcessGym({ config: { counter: { resources_servers: { counter: { entrypoint: 'app.ts', domain: 'other' } } } }, definitions: { counter } });
    const missing = { status: 422, body: { detail: [{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }] } };
    expect(await post('/add')).toEqual(missing);
    expect(await post('/add_one_or_more', '')).toEqual(missing);
    expect(await post('/add_one_or_more', '{}')).toEqual({ status: 200, body: { value: 8 } });
    expect((await post('/add', '{}')).body.detail[0]).toMatchObject({ type: 'missing', loc: ['body', 'count'] });
    expect((await post('/add', 'not json')).body.detail[0]).toMatchObject({ type: 'json_invalid' });
  });
});
