import { afterEach, describe, expect, it } from 'vitest';
import { type InProcessGym, startInProcessGym } from '../gym/in-process.ts';
import { defineAgent } from './agent-server.ts';

const unused = async () => {
  throw new Error('not called here');
};
const profiling = defineAgent({ className: 'Profiling', responses: unused, run: unused });
const relaying = defineAgent({
  className: 'Relaying',
  responses: unused,
  run: unused,
  routes: (app) => app.post('/aggregate_metrics', (http) => http.json({ relayed: true })),
});

let gym: InProcessGym | undefined;
afterEach(async () => {
  await gym?.close();
  gym = undefined;
});

describe('an agent’s /aggregate_metrics', () => {
  it('profiles the results itself when the agent does not serve it (as upstream agents do), and keeps an agent’s own route', async () => {
    const entry = (implementation: string) => ({ responses_api_agents: { [implementation]: { entrypoint: 'app.ts' } } });
    gym = await startInProcessGym({ config: { profiling: entry('profiling'), relaying: entry('relaying') }, definitions: { profiling, relaying } });
    const post = async (name: string) => {
      const body = { verify_responses: [{ _ng_task_index: 0, _ng_rollout_index: 0, reward: 1 }, { _ng_task_index: 1, _ng_rollout_index: 0, reward: 0 }] };
      const response = await fetch((gym as InProcessGym).url(name, '/aggregate_metrics'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return response.json() as Promise<Record<string, any>>;
    };
    expect((await post('profiling')).key_metrics).toEqual({ 'mean/reward': 0.5 });
    expect(await post('relaying')).toEqual({ relayed: true });
  });
});
