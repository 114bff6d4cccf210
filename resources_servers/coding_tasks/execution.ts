/**
 * What runs in the sandbox: the task's tests, and the agent's shell commands. Each run gets a copy of the
 * workspace in a fresh box (nothing of the host is visible, no network); a command's changes are copied back,
 * a test run's are not.
 */
import { readFileSync } from 'node:fs';
import type { Sandbox, SandboxFile, SandboxRunResult } from 'ngym';
import * as z from 'zod';
import { type TaskFile, type Workspace, workspaceSegments } from './workspace.ts';

const COMMAND_RUNNER = readFileSync(new URL('./command_runner.py', import.meta.url), 'utf8');
/** No bytecode caches in the workspace; Node and Python print no colours. */
const RUN_ENVIRONMENT = { PYTHONDONTWRITEBYTECODE: '1', NO_COLOR: '1' };
/** The box outlives the runner's own timeout by this much, so the runner can still report. */
const RUNNER_MARGIN_SECONDS = 10;

export interface TaskTests {
  files: TaskFile[];
  test_files: string[];
  test_command: string[];
}

export interface TestRun {
  result: SandboxRunResult;
  /** Test files the agent changed or deleted, put back as the task gave them for this run. */
  restoredTestFiles: string[];
}

/** Keeps the start and the end of a long output (where test runners print their summary). */
export function clipOutput(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const half = Math.floor(maxChars / 2);
  return `${text.slice(0, half)}\n[... ${text.length - 2 * half} characters left out ...]\n${text.slice(-half)}`;
}

/** The task's own copy of each of its test files (a test file the task does not hold is a bad row). */
function taskTestFiles(task: TaskTests): TaskFile[] {
  const byPath = new Map(task.files.map((file) => [workspaceSegments(file.path).join('/'), file]));
  return task.test_files.map((path) => {
    const file = byPath.get(workspaceSegments(path).join('/'));
    if (file === undefined) throw new Error(`test_files names ${JSON.stringify(path)}, which is not among the task's files`);
    return file;
  });
}

/** Runs the task's test command on the workspace, with the task's test files restored first. */
export async function runTaskTests(sandbox: Sandbox, workspace: Workspace, task: TaskTests, timeoutSeconds: number): Promise<TestRun> {
  const tests = taskTestFiles(task);
  const restoredTestFiles: string[] = [];
  for (const test of tests) {
    const current = await workspace.read(test.path).catch(() => null);
    if (current !== test.content) restoredTestFiles.push(test.path);
  }
  const result = await sandbox.run({
    command: task.test_command,
    files: await workspace.snapshot(tests),
    env: RUN_ENVIRONMENT,
    mergeStderr: true,
    limits: { wallSeconds: timeoutSeconds, cpuSeconds: timeoutSeconds },
  });
  return { result, restoredTestFiles };
}

export interface CommandOutcome {
  exit_code: number | null;
  timed_out: boolean;
  output: string;
}

/** The runner's last line. Untrusted: the command shares the box with the runner, so every path is checked again on the host. */
const RunnerReport = z.object({
  exit_code: z.number().int().nullable(),
  timed_out: z.boolean(),
  output: z.base64(),
  files: z.array(z.object({ path: z.string(), content: z.base64(), mode: z.number().int() })),
});

/** Why a command's run ended without the runner's report, in words for the model. */
function unreported(result: SandboxRunResult): string {
  if (result.status === 'exited') return `the command's runner exited with code ${result.exitCode} without a report (did the command kill it?)`;
  return `the run ended with ${result.status}${result.reason === null ? '' : ` (${result.reason})`}; the workspace is unchanged`;
}

/** Runs `sh -c command` on a copy of the workspace and copies the files it leaves back into the workspace. */
export async function runShellCommand(sandbox: Sandbox, workspace: Workspace, command: string, timeoutSeconds: number): Promise<CommandOutcome> {
  const result = await sandbox.run({
    command: ['python3', '-c', COMMAND_RUNNER, String(timeoutSeconds), 'sh', '-c', command],
    files: await workspace.snapshot(),
    env: RUN_ENVIRONMENT,
    limits: { wallSeconds: timeoutSeconds + RUNNER_MARGIN_SECONDS, cpuSeconds: timeoutSeconds },
  });
  const lastLine = result.stdout.trimEnd().split('\n').at(-1) ?? '';
  let report: z.infer<typeof RunnerReport>;
  try {
    report = RunnerReport.parse(JSON.parse(lastLine));
  } catch {
    return { exit_code: null, timed_out: result.status === 'wall_timeout', output: unreported(result) };
  }
  const files: SandboxFile[] = report.files.map((file) => ({ path: file.path, content: Buffer.from(file.content, 'base64'), mode: file.mode }));
  await workspace.replaceWith(files);
  return { exit_code: report.exit_code, timed_out: report.timed_out, output: Buffer.from(report.output, 'base64').toString('utf8') };
}
