/**
 * Builds the terminal tasks' images and validates the tasks (docs/environments/swe.md, "Terminal tasks"):
 *
 *   node --conditions=ngym-source --import tsx resources_servers/terminal_bench_2_1/scripts/build-tasks.ts [--only NAME,...]
 *
 * Every folder of tasks/ (instruction.md, environment/Dockerfile, tests/test.sh, solution/solve.sh) gets its image,
 * localhost/ngym/tb.<name>:latest, built with ngym's image builder (cached by content). Each task then runs through
 * environments/terminal_bench_2_1/config.yaml's simple_agent and the real server in boxes on the container engine
 * (DOCKER_HOST), twice, with a scripted model: once it runs solution/solve.sh with the `bash` tool (the reward must
 * be 1), once it gives up (the reward must be 0). A task that fails either is named, and the exit code is 1.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { callServer, startInProcessGym } from 'ngym/testing';
import { PACKAGE_ROOT } from 'ngym/runtime';
import { type Row, solutionModel, taskNames, taskRow } from './task-rows.ts';

const log = (line: string) => process.stderr.write(`[terminal build-tasks] ${line}\n`);

function buildImage(row: Row): Promise<void> {
  const args = [join(PACKAGE_ROOT, 'bin', 'ngym.js'), 'sandbox', 'image', 'build', '--dockerfile', join(PACKAGE_ROOT, row.task_folder, 'environment', 'Dockerfile'), '--tag', row.docker_image];
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.on('error', fail);
    child.on('close', (code) => (code === 0 ? (log(output.trim().split('\n').at(-1) ?? row.docker_image), done()) : fail(new Error(`building ${row.docker_image} failed (exit ${code}): ${output.trim().slice(-2000)}`))));
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { only: { type: 'string' } } });
  const only = values.only?.split(',').filter((name) => name !== '');
  const names = taskNames().filter((name) => only === undefined || only.includes(name));
  if (names.length === 0) throw new Error(`no task folder${only === undefined ? '' : ` named ${only.join(', ')}`}`);
  const rows = names.map(taskRow);
  for (const row of rows) await buildImage(row);

  let solving = true;
  const model = solutionModel(rows, () => solving);
  const gym = await startInProcessGym({
    overrides: ['+config_paths=[environments/terminal_bench_2_1/config.yaml]', '++policy_model={responses_api_models: {scripted: {entrypoint: app.ts}}}'],
    definitions: { policy_model: model.definition },
  });
  const invalid: string[] = [];
  try {
    for (const [expected, label] of [[1, 'with its solution'], [0, 'with no work done']] as const) {
      solving = expected === 1;
      for (const row of rows) {
        const result = await callServer(gym, 'terminal_bench_2_1_simple_agent', '/run', row);
        const ok = result.reward === expected && result.evaluation_completed === true;
        log(`${row.task_name} ${label}: reward ${result.reward}${ok ? '' : ` (expected ${expected}): ${String(result.unresolved_reason ?? result.test_output ?? '').slice(0, 500)}`}`);
        if (!ok) invalid.push(`${row.task_name} ${label}`);
      }
    }
  } finally {
    await gym.close();
  }
  if (invalid.length > 0) throw new Error(`not valid: ${invalid.join('; ')}`);
  log(`${rows.length} tasks valid`);
}

main().catch((error: unknown) => {
  process.stderr.write(`terminal build-tasks: ${(error as Error).message}\n`);
  process.exitCode = 1;
});
