/**
 * `npm run parity:collect [case ...]`: every case of the matrix (parity/collect/cases.ts), or the named ones, run
 * by upstream 0.7.0's `ng_collect_rollouts` and by `ngym collect` against the same `ngym run` gym, one after the
 * other, and compared aspect by aspect (compare-runs.ts). Prints a line per case, writes
 * results/parity-collect/<date>/report.json with both runs' files kept beside it, and exits 1 when any aspect
 * differs without a declared reason.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../src/util/package-root.ts';
import { pythonSetup } from '../gym.ts';
import { CASES, type CollectCase } from './cases.ts';
import { runCollectParity } from './harness.ts';

async function main(): Promise<number> {
  pythonSetup();
  const names = process.argv.slice(2);
  const unknown = names.filter((name) => !CASES.some((testCase) => testCase.name === name));
  if (unknown.length > 0) throw new Error(`No such case: ${unknown.join(', ')}. Cases: ${CASES.map((testCase) => testCase.name).join(', ')}`);
  const cases: CollectCase[] = names.length === 0 ? CASES : CASES.filter((testCase) => names.includes(testCase.name));
  const root = join(PACKAGE_ROOT, 'results', 'parity-collect', new Date().toISOString().replace(/[:.]/g, '-'));
  mkdirSync(root, { recursive: true });
  const started = performance.now();
  const outcomes = await runCollectParity(cases, root, (outcome) => {
    const counts = (status: string) => outcome.aspects.filter((aspect) => aspect.status === status).length;
    process.stdout.write(`${outcome.passed ? 'PASS' : 'FAIL'} ${outcome.name}: exit upstream ${outcome.exitCodes.upstream} ngym ${outcome.exitCodes.ngym}; ${counts('agree')} agree, ${counts('known')} known${counts('differ') > 0 ? `, ${counts('differ')} DIFFER` : ''}\n`);
    for (const aspect of outcome.aspects) if (aspect.status !== 'agree') process.stdout.write(`    ${aspect.status} ${aspect.aspect}: ${aspect.detail}\n`);
  });
  const aspects = outcomes.flatMap((outcome) => outcome.aspects);
  const summary = {
    date: new Date().toISOString(),
    cases: outcomes.length,
    passed: outcomes.filter((outcome) => outcome.passed).length,
    aspects: aspects.length,
    agree: aspects.filter((aspect) => aspect.status === 'agree').length,
    known: aspects.filter((aspect) => aspect.status === 'known').length,
    differ: aspects.filter((aspect) => aspect.status === 'differ').length,
    seconds: Math.round((performance.now() - started) / 1000),
  };
  writeFileSync(join(root, 'report.json'), `${JSON.stringify({ summary, outcomes }, null, 2)}\n`);
  process.stdout.write(`\n${summary.passed}/${summary.cases} cases pass; ${summary.aspects} aspects compared: ${summary.agree} agree, ${summary.known} known differences, ${summary.differ} differ (${summary.seconds} s). Report: ${join(root, 'report.json')}\n`);
  return summary.passed === summary.cases ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
