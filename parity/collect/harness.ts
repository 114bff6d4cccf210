/** Runs cases of the collect parity matrix against one gym: upstream's collector, then ngym's, then the comparison. */
import type { CollectCase } from './cases.ts';
import { runCollector } from './collectors.ts';
import { type AspectResult, compareRuns } from './compare-runs.ts';
import { startCollectGym } from './gym.ts';

export interface CaseOutcome {
  name: string;
  covers: string;
  passed: boolean;
  exitCodes: { upstream: number | null; ngym: number | null };
  rowsAtKill?: { upstream?: number; ngym?: number };
  aspects: AspectResult[];
}

export async function runCollectParity(cases: readonly CollectCase[], root: string, onCase: (outcome: CaseOutcome) => void = () => {}): Promise<CaseOutcome[]> {
  // Agent omega serves only the resume cases.
  const gym = await startCollectGym(cases.some((testCase) => testCase.resumeKnobs !== undefined));
  const outcomes: CaseOutcome[] = [];
  try {
    for (const testCase of cases) {
      // One after the other: a dispatch budget or a kill mid-run must not share the servers with the other side.
      const upstream = await runCollector('upstream', testCase, gym.headPort, root);
      const ngym = await runCollector('ngym', testCase, gym.headPort, root);
      const aspects = compareRuns(testCase, upstream, ngym);
      const outcome: CaseOutcome = {
        name: testCase.name,
        covers: testCase.covers,
        passed: aspects.every((aspect) => aspect.status !== 'differ'),
        exitCodes: { upstream: upstream.exitCode, ngym: ngym.exitCode },
        ...(testCase.killAfterRows === undefined && testCase.resumeKnobs === undefined ? {} : { rowsAtKill: { upstream: upstream.rowsAtKill, ngym: ngym.rowsAtKill } }),
        aspects,
      };
      outcomes.push(outcome);
      onCase(outcome);
    }
  } finally {
    await gym.stop();
  }
  return outcomes;
}
