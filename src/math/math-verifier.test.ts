import { afterEach, describe, expect, it } from 'vitest';
import { MathVerifier } from './index.ts';

let verifier: MathVerifier | undefined;
afterEach(async () => {
  await verifier?.close();
  verifier = undefined;
});

describe('MathVerifier (worker threads with a time limit)', () => {
  it('checks answers off the main thread', async () => {
    verifier = new MathVerifier({ threads: 1, timeoutSeconds: 30 });
    const [right, wrong] = await Promise.all([verifier.check('\\frac{1}{2}', 'so \\boxed{0.5}'), verifier.check('-3', '\\boxed{-4}')]);
    expect(right).toMatchObject({ reward: 1, extractedAnswer: '1/2' });
    expect(wrong).toMatchObject({ reward: 0, extractedAnswer: '-4' });
    expect(right.failure).toBeUndefined();
  });

  it('bounds a pathological check by the time limit, scores it 0, and keeps serving', async () => {
    verifier = new MathVerifier({ threads: 1, timeoutSeconds: 0.5 });
    await verifier.warmUp();
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    // Evaluating 99999! or a sum of a million terms takes seconds in the Compute Engine.
    const slow = await verifier.check('1', '\\boxed{99999!}');
    clearInterval(ticker);
    expect(slow).toMatchObject({ reward: 0, extractedAnswer: null, failure: 'timeout' });
    expect(slow.elapsedMs).toBeGreaterThanOrEqual(490);
    expect(slow.elapsedMs).toBeLessThan(3_000);
    expect(ticks).toBeGreaterThan(20);
    const next = await verifier.check('32', '\\boxed{32}');
    expect(next).toMatchObject({ reward: 1, extractedAnswer: '32' });
    expect(verifier.stats()).toMatchObject({ timedOut: 1, replaced: 1 });
  });
});
