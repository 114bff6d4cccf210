/**
 * `npm run parity:benchmarks -- [<benchmark>... | all] [--seed S] [--out DIR]`: upstream's benchmarks prepared and
 * run end to end under ngym (harness.ts), each checked against upstream 0.7.0's own aggregate metrics and prompt
 * rendering. Prints a line per benchmark and a last line `BENCHMARK_PARITY_JSON {...}`; the rollouts and metrics
 * stay in <out> (default results/benchmark-parity/, git-ignored). Exits 1 when any benchmark fails or disagrees.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { upstreamWheel } from '../../src/testing/upstream-wheel.ts';
import { PACKAGE_ROOT } from '../../src/util/package-root.ts';
import { type CaseRun, compareRuns, openWorkspace, runCase } from './harness.ts';
import { BENCHMARK_CASES } from './stand-in-data.ts';

const USAGE = `Usage: npm run parity:benchmarks -- [<benchmark>... | all] [--seed S] [--out DIR]\nBenchmarks: ${BENCHMARK_CASES.map((entry) => entry.name).join(', ')}`;

function tail(text: string, lines = 15): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({ options: { seed: { type: 'string' }, out: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const wanted = positionals.length === 0 || positionals.includes('all') ? BENCHMARK_CASES.map((entry) => entry.name) : positionals;
  const cases = wanted.map((name) => {
    const found = BENCHMARK_CASES.find((entry) => entry.name === name);
    if (found === undefined) throw new Error(`No stand-in data for benchmark ${JSON.stringify(name)}.\n${USAGE}`);
    return found;
  });
  const wheel = upstreamWheel();
  if (wheel.skipReason !== null) throw new Error(wheel.skipReason);
  const seed = Number(values.seed ?? 1);
  const out = resolve(values.out ?? join(PACKAGE_ROOT, 'results', 'benchmark-parity'));
  mkdirSync(out, { recursive: true });
  const started = Date.now();
  const workspace = await openWorkspace(cases, wheel, seed);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void workspace.close().finally(() => process.exit(130)));
  const runs: CaseRun[] = [];
  try {
    for (const entry of cases) {
      const caseStarted = Date.now();
      const run = await runCase(workspace, entry, out);
      runs.push(run);
      const failed = run.prepare.code !== 0 ? run.prepare : run.run?.code !== 0 ? run.run : undefined;
      process.stdout.write(`${entry.name}: ${failed === undefined ? 'prepared and run' : `FAILED (${run.prepare.code !== 0 ? 'prepare' : 'run'}):\n${tail(`${failed?.stdout}\n${failed?.stderr}`)}`} (${((Date.now() - caseStarted) / 1000).toFixed(1)} s)\n`);
    }
    const comparisons = await compareRuns(workspace, runs.flatMap((run) => (run.job === undefined ? [] : [run.job])));
    let failures = runs.filter((run) => run.job === undefined || run.run?.code !== 0).length;
    for (const comparison of comparisons) {
      const agree = comparison.aggregate_equal && comparison.prompt_mismatches.length === 0;
      if (!agree) failures++;
      process.stdout.write(
        `${comparison.benchmark}: ${comparison.rollouts} rollouts over ${comparison.tasks} tasks, mean reward ${comparison.mean_reward?.toFixed(3)}; aggregate metrics ${comparison.aggregate_equal ? 'equal' : `DIFFER: ${comparison.aggregate_differences.join('; ')}`}; prompts ${comparison.prompt_mismatches.length === 0 ? `equal (${comparison.prompts_checked})` : `DIFFER: ${JSON.stringify(comparison.prompt_mismatches[0])}`}\n`,
      );
    }
    const summary = { date: new Date().toISOString().slice(0, 10), seed, seconds: Math.round((Date.now() - started) / 1000), benchmarks: comparisons, failed_runs: runs.filter((run) => run.job === undefined).map((run) => run.benchmark) };
    writeFileSync(join(out, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
    process.stdout.write(`BENCHMARK_PARITY_JSON ${JSON.stringify({ ...summary, benchmarks: comparisons.map(({ key_metrics: _keyMetrics, ...rest }) => rest) })}\n`);
    return failures === 0 ? 0 : 1;
  } finally {
    await workspace.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
