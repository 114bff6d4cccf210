/**
 * example_session_state_mgmt: a counter per session that `/seed_session` starts, the tools change and verify
 * reads. Each case is a rollout's calls in one session: a seed (or none, or two), 0 to 5 tool calls
 * (`increment_counter` by positive, negative, zero and large counts; `get_counter_value`; arguments both sides
 * refuse: a fraction, null, a word, no count), sometimes a seed after the increments, then verify with the right
 * expected count or a wrong one (off by one, the initial count only, the increments only). The example rollouts
 * (upstream 0.7.0's, joined to their rows, and ngym's) come first, seeded with their rows' initial counts and
 * replaying the calls their transcripts hold.
 */
import { type ParityCase, dataRows, response, rolloutCase, upstreamRolloutCases } from '../cases.ts';
import type { ParityEnvironment } from '../environment.ts';
import type { SeededRandom as Random } from 'ngym';

type Call = NonNullable<ParityCase['calls']>[number];

const increment = (count: unknown): Call => ({ path: '/increment_counter', body: { count } });
const read: Call = { path: '/get_counter_value', body: {} };

/** A rollout replayed in a session: seeded with its row's initial count, then the tool calls its transcript made. */
function inSession(item: ParityCase): ParityCase {
  const output = (item.verify.response as { output: { type: string; name?: string; arguments?: string }[] }).output;
  const calls = output.filter((entry) => entry.type === 'function_call').map((entry) => ({ path: `/${entry.name}`, body: JSON.parse(entry.arguments ?? '{}') as unknown }));
  return { ...item, seed: { initial_count: item.verify.initial_count }, calls };
}

function generated(random: Random, index: number): ParityCase {
  const initial = random.pick([0, 0, random.int(-20, 20), random.int(0, 1000), -7, 2 ** 31, random.int(-1_000_000, 1_000_000)]);
  const calls: Call[] = [];
  let total = 0;
  let refused = false;
  for (let step = random.int(0, 5); step > 0; step -= 1) {
    const roll = random.int(0, 99);
    if (roll < 60) {
      const count = random.pick([random.int(1, 9), random.int(-9, -1), 0, random.int(10, 10_000), 2 ** 40]);
      total += count;
      calls.push(increment(count));
    } else if (roll < 85) calls.push(read);
    else {
      // Arguments both sides refuse (pydantic and zod alike): the counter stays as it was.
      refused = true;
      calls.push(random.pick([increment(2.5), increment(null), increment('three'), { path: '/increment_counter', body: {} }]));
    }
  }
  const seedShape = random.pick(['seed', 'seed', 'seed', 'seed', 'no_seed', 'two_seeds', 'seed_after_calls', 'seed_without_count']);
  const expectedShape = random.pick(['right', 'right', 'right', 'off_by_one', 'initial_only', 'calls_only']);
  // Without a seed the counter starts at 0 on the first call; a late seed leaves it as the calls made it.
  const start = seedShape === 'no_seed' || seedShape === 'seed_after_calls' || seedShape === 'seed_without_count' ? 0 : initial;
  const right = start + total;
  const expected = { right, off_by_one: right + random.pick([1, -1]), initial_only: initial, calls_only: total }[expectedShape];
  const verify = {
    responses_create_params: { input: [{ role: 'user', content: `Start at ${initial}, make the calls, then report the count.` }] },
    response: response([], index),
    initial_count: initial,
    expected_count: expected,
  };
  const item: ParityCase = { kind: `${seedShape}/${expectedShape}`, detail: `${calls.length} calls${refused ? ' (one refused)' : ''}`, verify, calls };
  if (seedShape === 'seed' || seedShape === 'two_seeds') item.seed = { initial_count: initial };
  if (seedShape === 'two_seeds') item.calls = [{ path: '/seed_session', body: { initial_count: initial + 100 } }, ...calls];
  if (seedShape === 'seed_after_calls') item.calls = [...calls, { path: '/seed_session', body: { initial_count: initial } }];
  if (seedShape === 'seed_without_count') item.seed = {};
  return item;
}

export const exampleSessionState: ParityEnvironment = {
  name: 'example_session_state_mgmt',
  configs: { ngym: 'example_session_state_mgmt.yaml', upstream: 'example_session_state_mgmt.yaml' },
  fields: ['call_statuses'],
  generate(random, count) {
    const cases = [...upstreamRolloutCases('example_session_state_mgmt', []), ...dataRows('example_session_state_mgmt', 'example_rollouts.jsonl').map((row) => rolloutCase(row, []))].map(inSession);
    for (let index = cases.length; index < count; index += 1) cases.push(generated(random, index));
    return cases.slice(0, Math.max(count, 5));
  },
};
