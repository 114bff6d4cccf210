/**
 * `npm run parity -- <env|all> [--cases N] [--seed S] [--out DIR]`: differential testing of ngym's resources
 * servers against upstream NeMo Gym 0.7.0's Python ones (docs/parity.md). Prints `agree/total` per environment and
 * writes each disagreement (input and both answers) to `<out>/<env>.jsonl` (default results/parity/, git-ignored).
 * A last line `PARITY_JSON {...}` carries the figures for scripts (the CI smoke reads it), and the environments
 * skipped because upstream's server cannot run here (instruction_following without its local-only setup).
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { PACKAGE_ROOT } from '../src/util/package-root.ts';
import { instanceOf, type ParityEnvironment } from './environment.ts';
import { ENVIRONMENTS } from './environments/index.ts';
import { type PythonSetup, pythonSetup, startParityGym } from './gym.ts';
import { type EnvironmentResult, runEnvironment } from './harness.ts';
import { PART_NAME as SWEBENCH_GRADING, runSwebenchGrading, swebenchPython } from './swebench-grading/part.ts';
import { SeededRandom as Random } from 'ngym';

const USAGE = `Usage: npm run parity -- <environment|all> [--cases N] [--seed S] [--out DIR]\nEnvironments: ${ENVIRONMENTS.map(instanceOf).join(', ')}\nOther parts (no server, a library against its Python original): ${SWEBENCH_GRADING}`;

function positiveInteger(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) throw new Error(`--${name} must be a non-negative integer, got ${JSON.stringify(value)}\n${USAGE}`);
  return number;
}

const percent = (part: number, total: number): string => (total === 0 ? '-' : `${((100 * part) / total).toFixed(2)}%`);

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    options: { cases: { type: 'string' }, seed: { type: 'string' }, out: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const wanted = positionals.length === 0 ? [] : positionals.includes('all') ? [...ENVIRONMENTS.map(instanceOf), SWEBENCH_GRADING] : positionals;
  if (wanted.length === 0) throw new Error(`Name an environment or all.\n${USAGE}`);
  const environments = wanted.filter((name) => name !== SWEBENCH_GRADING).map((name) => {
    const environment = ENVIRONMENTS.find((candidate) => instanceOf(candidate) === name);
    if (environment === undefined) throw new Error(`No parity cases for environment ${JSON.stringify(name)}.\n${USAGE}`);
    return environment;
  });
  const count = positiveInteger(values.cases, 'cases', 2000);
  const seed = positiveInteger(values.seed, 'seed', 1);
  const out = resolve(values.out ?? join(PACKAGE_ROOT, 'results', 'parity'));
  mkdirSync(out, { recursive: true });

  const python = pythonSetup();
  const skipped: { environment: string; reason: string }[] = [];
  const runnable = environments.filter((environment) => {
    const reason = environment.unavailable?.(python);
    if (reason !== undefined) {
      skipped.push({ environment: instanceOf(environment), reason });
      process.stdout.write(`${instanceOf(environment)}: skipped: ${reason}\n`);
    }
    return reason === undefined;
  });
  const results: EnvironmentResult[] = [];
  if (runnable.length > 0) await runAll(runnable, python, { count, seed, out }, results);
  if (wanted.includes(SWEBENCH_GRADING)) {
    const swebench = swebenchPython();
    if ('unavailable' in swebench) {
      skipped.push({ environment: SWEBENCH_GRADING, reason: swebench.unavailable });
      process.stdout.write(`${SWEBENCH_GRADING}: skipped: ${swebench.unavailable}\n`);
    } else {
      const path = join(out, `${SWEBENCH_GRADING}.jsonl`);
      rmSync(path, { force: true });
      const started = Date.now();
      const result = runSwebenchGrading({ executable: swebench.executable, count, disagreementsPath: path, random: new Random(seed) });
      results.push(result);
      report(result, started, path);
    }
  }
  const summary = results.map((result) => ({ environment: result.environment, total: result.total, agree: result.agree, reward_agree: result.rewardAgree, upstream_positive: result.upstreamPositive, causes: Object.fromEntries(result.causes) }));
  process.stdout.write(`PARITY_JSON ${JSON.stringify({ seed, cases: count, results: summary, skipped })}\n`);
  return 0;
}

async function runAll(environments: ParityEnvironment[], python: PythonSetup, options: { count: number; seed: number; out: string }, results: EnvironmentResult[]): Promise<void> {
  const { count, seed, out } = options;
  process.stdout.write(`Starting ngym's and upstream 0.7.0's servers for ${environments.map(instanceOf).join(', ')}...\n`);
  const gym = await startParityGym(environments, python);
  // Ctrl-C stops the servers this run started rather than leaving them behind.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void gym.stop().finally(() => process.exit(130)));
  try {
    for (const environment of environments) {
      const cases = environment.generate(new Random(seed), count);
      const path = join(out, `${instanceOf(environment)}.jsonl`);
      rmSync(path, { force: true });
      const started = Date.now();
      const result = await runEnvironment(gym.client, environment, cases, path, (done, partial) => {
        if (done % 250 === 0 && done < cases.length) process.stdout.write(`  ${instanceOf(environment)}: ${done}/${cases.length} (agree ${partial.agree})\n`);
      });
      results.push(result);
      report(result, started, path);
    }
  } finally {
    await gym.stop();
  }
}

function report(result: EnvironmentResult, started: number, path: string): void {
  process.stdout.write(
    `${result.environment}: ${result.agree}/${result.total} agree (${percent(result.agree, result.total)}); reward ${result.rewardAgree}/${result.total} (${percent(result.rewardAgree, result.total)}); upstream reward > 0 on ${result.upstreamPositive}; ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
  for (const [cause, number] of [...result.causes].sort((left, right) => right[1] - left[1])) process.stdout.write(`    ${number}  ${cause}\n`);
  if (result.causes.size > 0) process.stdout.write(`    disagreements: ${path}\n`);
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`parity: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
