/**
 * Sandbox throughput: executions per second of (1) a trivial Python program and (2) code_gen's test runner
 * over a task with its full test set (100 stdin/stdout tests), each run three ways side by side: as a plain
 * unsandboxed subprocess (the limit), in the sandbox with its warm pool (boxes reset and reused), and in
 * the sandbox without a pool (a fresh box per execution). One and two executions in flight. Then whole
 * code_gen gradings (runner plus the judge's comparisons) per second. Goal: the sandbox costs at most 2x
 * the plain subprocess per execution.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Grader } from '../resources_servers/code_gen/grade.ts';
import { bubblewrapUnavailableReason } from '../src/sandbox/availability.ts';
import { Sandbox } from '../src/sandbox/sandbox.ts';
import type { SandboxFile } from '../src/sandbox/types.ts';

const SECONDS = 5;
const PYTHON = '/usr/bin/python3';
const RUNNER = readFileSync(new URL('../resources_servers/code_gen/runner.py', import.meta.url), 'utf8');

interface Program {
  name: string;
  args: string[];
  files: SandboxFile[];
}

const TESTS = Array.from({ length: 100 }, (_, index) => ({ input: `${index} ${index * 7}\n`, output: `${index * 8}\n` }));
const SOLUTION = 'a, b = map(int, input().split())\nprint(a + b)';
const PROGRAMS: Program[] = [
  { name: 'trivial program (print)', args: ['-c', 'print(1)'], files: [] },
  {
    name: 'code_gen runner, 100 tests',
    args: ['runner.py'],
    files: [
      { path: 'runner.py', content: RUNNER },
      { path: 'solution.py', content: SOLUTION },
      { path: 'task.json', content: JSON.stringify({ inputs: TESTS.map((test) => test.input), fn_name: null, timeout: 10 }) },
    ],
  },
];

/** Runs `execute` with `inFlight` loops for SECONDS; executions per second. */
async function rate(inFlight: number, execute: () => Promise<void>): Promise<number> {
  for (let warm = 0; warm < 3; warm++) await execute();
  let count = 0;
  const started = performance.now();
  const deadline = started + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < deadline) {
        await execute();
        count++;
      }
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

function plainRunner(program: Program): () => Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'ngym-bench-plain-'));
  for (const file of program.files) writeFileSync(join(directory, file.path), file.content);
  return () =>
    new Promise((resolve, reject) => {
      const child = spawn(PYTHON, program.args, { cwd: directory, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 && output.length > 0 ? resolve() : reject(new Error(`plain run exited ${code}`))));
    });
}

function sandboxRunner(sandbox: Sandbox, program: Program): () => Promise<void> {
  return async () => {
    const result = await sandbox.run({ command: ['python3', ...program.args], files: program.files });
    if (result.exitCode !== 0 || result.stdout.length === 0) throw new Error(`sandboxed run: ${result.status} ${result.stderr}`);
  };
}

const format = (value: number) => value.toFixed(1).padStart(7);

export default async function sandboxBenchmark(): Promise<void> {
  const unavailable = bubblewrapUnavailableReason();
  if (unavailable !== null) {
    process.stdout.write(`skipped: ${unavailable}\n`);
    return;
  }
  const pooled = new Sandbox({ poolSize: 2, runsPerBox: 1000 });
  const unpooled = new Sandbox({ poolSize: 0 });
  try {
    process.stdout.write(`executions/s over ${SECONDS} s each (ratio: sandbox time per execution / plain)\n`);
    process.stdout.write(`${'workload'.padEnd(30)} ${'in flight'.padStart(9)} ${'plain'.padStart(7)} ${'pool'.padStart(7)} ${'no pool'.padStart(7)}   ratio pool   ratio no pool\n`);
    for (const program of PROGRAMS) {
      for (const inFlight of [1, 2]) {
        const plain = await rate(inFlight, plainRunner(program));
        const pool = await rate(inFlight, sandboxRunner(pooled, program));
        const fresh = await rate(inFlight, sandboxRunner(unpooled, program));
        process.stdout.write(
          `${program.name.padEnd(30)} ${String(inFlight).padStart(9)} ${format(plain)} ${format(pool)} ${format(fresh)}   ${(plain / pool).toFixed(2).padStart(10)}   ${(plain / fresh).toFixed(2).padStart(13)}\n`,
        );
      }
    }
    const grader = new Grader(pooled, 10);
    const tests = { inputs: TESTS.map((test) => test.input), outputs: TESTS.map((test) => test.output) };
    const grading = await rate(1, async () => {
      const grade = await grader.grade(SOLUTION, tests);
      if (grade.result.length !== 100 || !grade.result.every((entry) => entry === true)) throw new Error(`grading failed: ${JSON.stringify(grade)}`);
    });
    grader.close();
    process.stdout.write(`code_gen grading (runner + judge, 100 tests, pool): ${format(grading)} gradings/s, one in flight; boxes started: ${pooled.boxesStarted}\n`);
  } finally {
    await Promise.all([pooled.close(), unpooled.close()]);
    rmSync(join(tmpdir(), 'ngym-bench-plain-'), { recursive: true, force: true });
  }
}
