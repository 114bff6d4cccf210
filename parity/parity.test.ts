import { describe, expect, it } from 'vitest';
import { compare } from './compare.ts';
import { instanceOf } from './environment.ts';
import { ENVIRONMENTS } from './environments/index.ts';
import { pythonSetup } from './gym.ts';
import { SeededRandom as Random } from 'ngym';

describe('compare', () => {
  const ok = (body: Record<string, unknown>) => ({ status: 200, body });

  it('agrees when reward and every listed field are equal, numbers within rounding, null and absent alike', () => {
    expect(compare(ok({ reward: 1, x: null, y: 0.30000000000000004 }), ok({ reward: 1.0, y: 0.3 }), ['x', 'y'])).toEqual({ rewardAgrees: true, differing: [] });
  });

  it('names each differing field, and ignores fields it was not told to compare', () => {
    expect(compare(ok({ reward: 1, x: 'A', t: 1 }), ok({ reward: 0, x: 'B', t: 2 }), ['x'])).toEqual({ rewardAgrees: false, differing: ['reward', 'x'] });
    expect(compare(ok({ reward: 0, list: [1, 2] }), ok({ reward: 0, list: [1, 2, 3] }), ['list']).differing).toEqual(['list']);
  });

  it('counts both refusing as agreement, one refusing as a status disagreement', () => {
    expect(compare({ status: 422, body: 'a' }, { status: 400, body: 'b' }, [])).toEqual({ rewardAgrees: true, differing: [] });
    expect(compare({ status: 422, body: 'a' }, ok({ reward: 0 }), [])).toEqual({ rewardAgrees: false, differing: ['status'] });
  });
});

// reasoning_gym's rows come from the reasoning-gym library in the venv of `npm run setup:python`.
const venvReason = (() => {
  try {
    pythonSetup();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
})();

describe('case generators', () => {
  it.for(ENVIRONMENTS.map((environment) => [instanceOf(environment), environment] as const))('%s: 2,000 cases, the example rollouts first, the same for the same seed', { timeout: 180_000 }, ([, environment], { skip }) => {
    if (environment.generatorNeedsPython && venvReason !== undefined) skip(`its rows need the venv: ${venvReason}`);
    const cases = environment.generate(new Random(3), 2000);
    expect(cases).toHaveLength(2000);
    expect(cases.slice(0, 5).every((item) => item.kind === 'rollout')).toBe(true);
    expect(JSON.stringify(environment.generate(new Random(3), 2000))).toBe(JSON.stringify(cases));
    expect(JSON.stringify(environment.generate(new Random(4), 2000))).not.toBe(JSON.stringify(cases));
    // A shorter run is the start of a longer one.
    expect(JSON.stringify(environment.generate(new Random(3), 300))).toBe(JSON.stringify(cases.slice(0, 300)));
    expect(new Set(cases.map((item) => item.kind)).size).toBeGreaterThan(5);
  });
});

describe('example_session_state_mgmt cases', () => {
  const environment = ENVIRONMENTS.find((candidate) => candidate.name === 'example_session_state_mgmt');

  it('replays each example rollout in a session: seeded with its initial count, then the calls of its transcript', () => {
    const cases = environment?.generate(new Random(1), 200) ?? [];
    const rollout = cases.find((item) => item.kind === 'rollout' && item.verify.initial_count === 10);
    expect(rollout?.seed).toEqual({ initial_count: 10 });
    expect(rollout?.calls).toEqual([
      { path: '/increment_counter', body: { count: 2 } },
      { path: '/increment_counter', body: { count: 5 } },
      { path: '/get_counter_value', body: {} },
    ]);
    // Generated sessions make calls and expect the count they leave, or a wrong one.
    expect(cases.filter((item) => item.kind !== 'rollout' && (item.calls?.length ?? 0) > 0).length).toBeGreaterThan(100);
    expect(new Set(cases.map((item) => item.kind.split('/')[0]))).toEqual(new Set(['rollout', 'seed', 'no_seed', 'two_seeds', 'seed_after_calls', 'seed_without_count']));
  });
});
