/**
 * The CI sample of `npm run parity:collect`: its `sample` case (agent_name overriding agent_ref beside fan_out and repeats), both
 * collectors against one `ngym run`, every aspect agreeing or declared known. The whole matrix is the npm script;
 * its figures are in docs/parity.md.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { upstreamWheel } from '../../src/testing/upstream-wheel.ts';
import { CASES } from './cases.ts';
import { compareRuns } from './compare-runs.ts';
import type { CollectorRun } from './collectors.ts';
import { runCollectParity } from './harness.ts';

const { skipReason } = upstreamWheel();

describe('collect parity sample', () => {
  it.skipIf(skipReason !== null)(`upstream's ng_collect_rollouts and ngym collect write the same${skipReason === null ? '' : ` (${skipReason})`}`, { timeout: 240_000 }, async () => {
    const sample = CASES.filter((testCase) => testCase.sample);
    expect(sample.length).toBeGreaterThan(0);
    const outcomes = await runCollectParity(sample, mkdtempSync(join(tmpdir(), 'ngym-collect-parity-')));
    for (const outcome of outcomes) {
      expect(outcome.aspects.filter((aspect) => aspect.status === 'differ'), outcome.name).toEqual([]);
      expect(outcome.exitCodes, outcome.name).toEqual({ upstream: 0, ngym: 0 });
    }
  });
});

describe('compareRuns', () => {
  const run = (side: 'upstream' | 'ngym', exitCode: number, output: string): CollectorRun => ({ side, folder: join(tmpdir(), 'ngym-collect-parity-nothing-here'), exitCode, output });

  it('names a different exit code and a missing warning, and takes a declared reason as known', () => {
    const testCase = { name: 'x', covers: 'x', lines: [], knobs: [] };
    const upstream = run('upstream', 0, "agent_map overrode agent_ref values already present in the data: [('beta', 'alpha')].");
    const aspects = compareRuns(testCase, upstream, run('ngym', 1, ''));
    expect(aspects.find((aspect) => aspect.aspect === 'exit_code')).toEqual({ aspect: 'exit_code', status: 'differ', detail: 'upstream 0, ngym 1' });
    expect(aspects.find((aspect) => aspect.aspect === 'warnings')?.status).toBe('differ');
    const known = compareRuns({ ...testCase, known: { exit_code: 'a reason' } }, upstream, run('ngym', 1, upstream.output));
    expect(known.map((aspect) => aspect.status)).toEqual(['known', 'agree', 'agree', 'agree', 'agree']);
  });
});
