/**
 * The swebench environment end to end as a user runs it: `gym env start --environment swebench` with replay_model
 * as a scripted model, then `ngym collect` over a local task set. Each task comes twice: once the model applies the
 * gold patch through the `bash` tool (resolved), once it gives up at once (the empty patch: unresolved). The task of
 * __fixtures__/test-task.ts always runs; with NGYM_SWE_PYPI_TASK=1 the first task of data/pypi_tasks.jsonl (a real project's)
 * runs too when its image is on the engine (`npm run swe:build-tasks`), and is reported skipped otherwise (it adds
 * about 40 s on a loaded machine, beyond CI's budget).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { containerEngineForTests, readJsonlRows, runCli, startGymProcess } from 'ngym/testing';
import { ImageEngine } from '../../src/sandbox/images/image-engine.ts';
import { PACKAGE_ROOT } from '../../src/util/package-root.ts';
import { buildTestTaskImage, row } from './__fixtures__/test-task.ts';

const engine = await containerEngineForTests();
const skipReason = 'skipReason' in engine ? engine.skipReason : undefined;
const folder = mkdtempSync(join(tmpdir(), 'ngym-swebench-collect-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
const PYPI_TASKS = join(PACKAGE_ROOT, 'resources_servers/swebench/data/pypi_tasks.jsonl');

type Row = Record<string, any>;

/** The row with a user message of its own (so the replayed model tells the two apart) and the bash tool. */
function variant(task: Row, mode: 'gold' | 'empty'): Row {
  const statement = `${task.problem_statement ?? task.responses_create_params.input[0].content}\n(${mode})`;
  const tools = [{ type: 'function', name: 'bash', description: 'Run a bash command in the task box.', parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'], additionalProperties: false }, strict: true }];
  return { ...task, instance_id: task.instance_id, responses_create_params: { input: [{ role: 'user', content: statement }], tools }, expected_reward: mode === 'gold' ? 1 : 0 };
}

/** What the scripted model does on the variant: apply the gold patch, then stop; or stop at once. */
function recording(task: Row): Row {
  const done = { type: 'message', role: 'assistant', status: 'completed', id: 'msg_done', content: [{ type: 'output_text', text: 'Done.', annotations: [] }] };
  const output =
    task.expected_reward === 1
      ? [
          { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'bash', arguments: JSON.stringify({ command: `git apply <<'NGYM_PATCH'\n${task.patch}NGYM_PATCH` }), status: 'completed' },
          { type: 'function_call_output', call_id: 'call_1', output: '{}' },
          done,
        ]
      : [done];
  return { responses_create_params: task.responses_create_params, response: { id: 'resp_1', object: 'response', model: 'scripted', output } };
}

async function realTask(): Promise<{ task: Row } | { skip: string }> {
  if (process.env.NGYM_SWE_PYPI_TASK !== '1') return { skip: 'set NGYM_SWE_PYPI_TASK=1 to run it' };
  if (!existsSync(PYPI_TASKS)) return { skip: `${PYPI_TASKS} is absent` };
  const task = readJsonlRows(PYPI_TASKS)[0] as Row | undefined;
  if (task === undefined) return { skip: `${PYPI_TASKS} has no task` };
  const images = new ImageEngine((engine as { dockerHost: string }).dockerHost);
  try {
    return (await images.inspectImage(task.image)) ? { task } : { skip: `${task.image} is not on the engine (npm run swe:build-tasks builds it)` };
  } finally {
    await images.close();
  }
}

describe.skipIf(skipReason !== undefined)('swebench end to end: gym env start --environment swebench, then ngym collect', () => {
  it('resolves every task whose model applies the gold patch and none whose model changes nothing', async () => {
    if ('skipReason' in engine) return;
    await buildTestTaskImage(engine.dockerHost, engine.baseImage);
    const real = await realTask();
    if ('skip' in real) process.stderr.write(`[swebench collect] the real PyPI task is skipped: ${real.skip}\n`);
    const tasks = [row(), ...('task' in real ? [real.task] : [])].flatMap((task) => [variant(task, 'gold'), variant(task, 'empty')]);
    const input = join(folder, 'tasks.jsonl');
    const recordings = join(folder, 'scripted.jsonl');
    const output = join(folder, 'rollouts.jsonl');
    writeFileSync(input, tasks.map((task) => JSON.stringify(task)).join('\n'));
    writeFileSync(recordings, tasks.map((task) => JSON.stringify(recording(task))).join('\n'));
    // `gym` as npm links it: the upstream-style command tree.
    const gymBin = join(folder, 'gym');
    symlinkSync(join(PACKAGE_ROOT, 'bin', 'ngym.js'), gymBin);
    const gym = await startGymProcess(['--environment', 'swebench', '--model-type', 'replay_model', `+policy_model.responses_api_models.replay_model.rollouts_jsonl_fpath=${recordings}`], { bin: gymBin, command: ['env', 'start'] });
    try {
      const collected = await runCli(['collect', `+head_server.port=${gym.headPort}`, '+agent_name=swebench_simple_agent', `+input_jsonl_fpath=${input}`, `+output_jsonl_fpath=${output}`, '+num_samples_in_parallel=2']);
      expect(collected.code, collected.stderr).toBe(0);
      const results = readFileSync(output, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Row);
      expect(results).toHaveLength(tasks.length);
      for (const result of results) {
        expect({ instance: result.instance_id, reward: result.reward, resolved: result.resolved }).toEqual({ instance: result.instance_id, reward: result.expected_reward, resolved: result.expected_reward === 1 });
      }
    } finally {
      expect((await gym.stop()).code).toBe(0);
    }
  }, 240_000);
});

describe.skipIf(skipReason === undefined)('swebench end to end: gym env start --environment swebench, then ngym collect', () => {
  it.skip(`skipped: ${skipReason ?? ''}`, () => {});
});
