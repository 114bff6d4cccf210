/**
 * One collection by either collector, as a user runs it: upstream 0.7.0's `ng_collect_rollouts` from the venv, or
 * `ngym collect`, each a child process against the gym's head server, in its own folder, with the case's input and
 * knobs. A case that kills the collector mid-run sends SIGKILL once enough rows are written, then runs it again
 * with `+resume_from_cache=true`; a case with resume knobs runs it to its end, then again with
 * `+resume_from_cache=true` and those knobs.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { upstreamWheel } from '../../src/testing/upstream-wheel.ts';
import { PACKAGE_ROOT } from '../../src/util/package-root.ts';
import type { CollectCase } from './cases.ts';

export type Side = 'upstream' | 'ngym';

export interface CollectorRun {
  side: Side;
  folder: string;
  /** The last invocation's exit code (the resumed one after a kill). */
  exitCode: number | null;
  /** stdout and stderr of every invocation, in order. */
  output: string;
  /** Rows in the output file after the kill (or the first run), when the case resumes. */
  rowsAtKill?: number;
}

export const OUTPUT_NAME = 'rollouts.jsonl';

/** Lines in a file, 0 when it does not exist yet. */
function lineCount(path: string): number {
  if (!existsSync(path)) return 0;
  return readFileSync(path, 'utf8').split('\n').filter((line) => line.trim() !== '').length;
}

function spawnCollector(side: Side, args: string[], cwd: string): ChildProcess {
  if (side === 'upstream') {
    const { venv } = upstreamWheel();
    return spawn(join(venv, 'bin', 'ng_collect_rollouts'), args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PYTHONUNBUFFERED: '1' } });
  }
  return spawn(process.execPath, [join(PACKAGE_ROOT, 'bin', 'ngym.js'), 'collect', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NGYM_LOG_LEVEL: 'warn' } });
}

/** Runs one invocation to its end; with `killAfterRows`, kills it (SIGKILL) once the output holds that many rows. */
async function invoke(side: Side, args: string[], cwd: string, killAfterRows?: number): Promise<{ code: number | null; output: string; killed: boolean }> {
  const child = spawnCollector(side, args, cwd);
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const ended = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  // A harness that stops (Ctrl-C, a test timeout) takes its collector with it.
  const stopChild = () => child.kill('SIGKILL');
  process.once('exit', stopChild);
  let killed = false;
  if (killAfterRows !== undefined) {
    let running = true;
    void ended.then(() => (running = false));
    // Polls the output file: the collector says nothing else about how far it got.
    while (running && lineCount(join(cwd, OUTPUT_NAME)) < killAfterRows) await sleep(20);
    if (running) {
      killed = child.kill('SIGKILL');
    }
  }
  const code = await ended;
  process.off('exit', stopChild);
  return { code, output, killed };
}

export async function runCollector(side: Side, testCase: CollectCase, headPort: number, root: string): Promise<CollectorRun> {
  const folder = join(root, testCase.name, side);
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'input.jsonl'), testCase.lines.map((line) => `${line}\n`).join(''));
  const args = [
    '+input_jsonl_fpath=input.jsonl',
    `+output_jsonl_fpath=${OUTPUT_NAME}`,
    '+head_server.host=127.0.0.1',
    `+head_server.port=${headPort}`,
    ...testCase.knobs,
  ];
  const first = await invoke(side, args, folder, testCase.killAfterRows);
  writeFileSync(join(folder, 'collector.log'), first.output);
  if (testCase.killAfterRows === undefined && testCase.resumeKnobs === undefined) return { side, folder, exitCode: first.code, output: first.output };
  if (testCase.killAfterRows !== undefined && !first.killed) throw new Error(`${testCase.name}: ${side} finished before ${testCase.killAfterRows} rows were written, so it was not killed mid-run (exit ${first.code}):\n${first.output.slice(-2000)}`);
  const rowsAtKill = lineCount(join(folder, OUTPUT_NAME));
  const resumed = await invoke(side, [...args, '+resume_from_cache=true', ...(testCase.resumeKnobs ?? [])], folder);
  writeFileSync(join(folder, 'collector-resumed.log'), resumed.output);
  const between = first.killed ? 'killed' : `exit ${first.code}`;
  return { side, folder, exitCode: resumed.code, output: `${first.output}\n--- ${between}, resumed ---\n${resumed.output}`, rowsAtKill };
}

