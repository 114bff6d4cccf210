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
