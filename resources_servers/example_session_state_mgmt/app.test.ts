import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar, sharedHttpClient } from 'ngym';
import { type InProcessGym, startInProcessGym } from 'ngym/testing';

const http = sharedHttpClient();
let gym: InProcessGym;
beforeAll(async () => {
  gym = await startInProcessGym({ config: { counter: { resources_servers: { example_session_state_mgmt: { entrypoint: 'app.ts', domain: 'agent' } } } } });
});
afterAll(() => gym.close());

const response = { id: 'r', created_at: 0, model: 'm', object: 'response', output: [], parallel_tool_calls: true, tool_choice: 'auto', tools: [] };
const rcp = { input: 'add 1 then add 2 then get the count' };

async function session(initialCount: number): Promise<CookieJar> {
  const seeded = await http.request(gym.url('counter', '/seed_session'), { body: { responses_create_params: rcp, initial_count: initialCount } });
  expect(seeded.status).toBe(200);
  return seeded.cookies;
}

describe('example_session_state_mgmt', () => {
  it('keeps one counter per session, seeded from the row', async () => {
    const first = await session(3);
    const second = await session(100);
    for (const count of [1, 2]) {
      expect((await http.request(gym.url('counter', '/increment_counter'), { body: { count }, cookies: first })).text).toBe('{"success": true}');
    }
    expect((await http.request(gym.url('counter', '/get_counter_value'), { body: {}, cookies: first })).text).toBe('{"count": 6}');
    expect((await http.request(gym.url('counter', '/get_counter_value'), { body: {}, cookies: second })).text).toBe('{"count": 100}');
    // Upstream's get_counter_value takes no body: one sent without any is answered too.
    expect((await http.request(gym.url('counter', '/get_counter_value'), { method: 'POST', cookies: second })).text).toBe('{"count": 100}');
    const verify = (cookies: CookieJar, expected: number) =>
      http.request(gym.url('counter', '/verify'), { body: { responses_create_params: rcp, response, expected_count: expected }, cookies }).then((reply) => reply.json<{ reward: number }>().reward);
    expect(await verify(first, 6)).toBe(1);
    expect(await verify(second, 6)).toBe(0);
    // A session that was never seeded has no counter: reward 0.
    expect(await verify(new CookieJar(), 0)).toBe(0);
  });

  it('requires initial_count to seed and an integer count to increment', async () => {
    expect((await http.request(gym.url('counter', '/seed_session'), { body: { responses_create_params: rcp } })).status).toBe(422);
    const cookies = await session(0);
    const bad = await http.request(gym.url('counter', '/increment_counter'), { body: { count: 1.5 }, cookies });
    expect(bad.status).toBe(422);
  });
});
