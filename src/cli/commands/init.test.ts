/**
 * `ngym init` end to end, in a fresh project (package.json `{"type": "module"}` with ngym, zod and
 * vitest installed as npm would link them): the scaffold passes `ngym test` (its own vitest tests and
 * the data checks), its committed metrics agree with `ngym prepare-data`, and it serves rollouts through
 * `ngym run` + `ngym collect` with replay_model replaying its example rollouts, so no LLM is needed.
 * `ngym test-all` then summarizes the project.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadGlobalConfig } from '../../config/global-config.ts';
import { runCli, startGymProcess } from '../../testing/cli-process.ts';
import { PACKAGE_ROOT } from '../../util/package-root.ts';
import { titleOf } from './init.ts';
import { readJsonlRows } from '../../testing/jsonl-rows.ts';

/** Keeps a nested vitest from writing the outer run's CI report. */
const env = { NGYM_TEST_REPORT: '' };
let project = '';

function newProject(): string {
  const root = mkdtempSync(join(tmpdir(), 'ngym-init-'));
  writeFileSync(join(root, 'package.json'), '{"type": "module"}\n');
  mkdirSync(join(root, 'node_modules'));
  symlinkSync(PACKAGE_ROOT, join(root, 'node_modules', 'ngym'));
  for (const name of ['zod', 'vitest']) symlinkSync(join(PACKAGE_ROOT, 'node_modules', name), join(root, 'node_modules', name));
  // ngym here is a linked checkout, not a built package: its tests resolve `ngym` to the sources (docs/api.md).
  writeFileSync(join(root, 'vitest.config.mjs'), "export default { ssr: { resolve: { conditions: ['ngym-source'] } } };\n");
  return root;
}


beforeAll(async () => {
  project = newProject();
  const created = await runCli(['init', '+entrypoint=resources_servers/Letter_Count'], { cwd: project, env });
  expect(created.code, created.stderr).toBe(0);
});

describe('ngym init', () => {
  it('writes upstream-shaped files under the lowercased name', async () => {
    expect(titleOf('my_server')).toBe('MyServer');
    const directory = join(project, 'resources_servers', 'letter_count');
    expect(readFileSync(join(directory, 'app.ts'), 'utf8')).toContain("className: 'LetterCountResourcesServer'");
    expect(readFileSync(join(directory, 'README.md'), 'utf8')).toMatch(/# Description[\s\S]*# Licensing information[\s\S]*- nemo_gym: Apache 2.0/);
    expect(readFileSync(join(directory, 'data', '.gitignore'), 'utf8').split('\n')).toContain('*train_prepare.jsonl');
    const config = loadGlobalConfig({ overrides: ['+config_paths=[resources_servers/letter_count/configs/letter_count.yaml]', '+policy_model={responses_api_models: {replay_model: {entrypoint: app.ts}}}'], cwd: project, envYamlPath: null });
    expect(config.server('letter_count_resources_server')?.config.domain).toBe('other');
    const datasets = config.server('letter_count_simple_agent')?.config.datasets as Record<string, unknown>[];
    expect(datasets.map((dataset) => `${dataset.name}:${dataset.type}:${dataset.jsonl_fpath}`)).toEqual([
      'train:train:resources_servers/letter_count/data/train.jsonl',
      'validation:validation:resources_servers/letter_count/data/validation.jsonl',
      'example:example:resources_servers/letter_count/data/example.jsonl',
    ]);
    expect(readJsonlRows(join(directory, 'data', 'example_rollouts.jsonl')).map((rollout) => rollout.reward)).toEqual([1, 1, 1, 1, 1]);

    const again = await runCli(['init', '+entrypoint=resources_servers/letter_count'], { cwd: project, env });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Folder already exists');
    const wrong = await runCli(['init', '+entrypoint=letter_count'], { cwd: project, env });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("+entrypoint must be resources_servers/<name>, relative to your project's root; got 'letter_count'");
  });

  it('passes ngym test: its own tests, then the data checks', async () => {
    const result = await runCli(['test', '+entrypoint=resources_servers/letter_count'], { cwd: project, env });
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toMatch(/4 passed/);
    expect(result.stdout).toContain('The data for resources_servers/letter_count has been successfully validated!');
  });

  it('has example metrics that ngym prepare-data reproduces', async () => {
    const result = await runCli(
      [
        'prepare-data',
        '+config_paths=[resources_servers/letter_count/configs/letter_count.yaml,responses_api_models/openai_model/configs/openai_model.yaml]',
        '+output_dirpath=prepared',
        '+mode=example_validation',
      ],
      { cwd: project, env },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('example_metrics.json (up to date, not rewritten)');
    expect(readJsonlRows(join(project, 'prepared', 'example.jsonl'))[0]?.agent_ref).toEqual({ type: 'responses_api_agents', name: 'letter_count_simple_agent' });
  });

  it('serves rollouts through ngym run + ngym collect (replay_model replays its example rollouts)', async () => {
    const gym = await startGymProcess(
      [
        '+config_paths=[resources_servers/letter_count/configs/letter_count.yaml,responses_api_models/replay_model/configs/replay_model.yaml]',
        '+policy_model.responses_api_models.replay_model.rollouts_jsonl_fpath=resources_servers/letter_count/data/example_rollouts.jsonl',
        '+policy_model.responses_api_models.replay_model.strict=true',
      ],
      { cwd: project, env },
    );
    try {
      const output = join(project, 'results', 'rollouts.jsonl');
      const collected = await runCli(
        [
          'collect',
          `+head_server.port=${gym.headPort}`,
          '+agent_name=letter_count_simple_agent',
          '+input_jsonl_fpath=resources_servers/letter_count/data/example.jsonl',
          `+output_jsonl_fpath=${output}`,
        ],
        { cwd: project, env },
      );
      expect(collected.code, collected.stderr).toBe(0);
      const rollouts = readJsonlRows(output);
      expect(rollouts).toHaveLength(5);
      expect(rollouts.map((rollout) => rollout.reward)).toEqual([1, 1, 1, 1, 1]);
      const toolOutputs = rollouts.flatMap((rollout) => rollout.response.output.filter((item: any) => item.type === 'function_call_output').map((item: any) => item.output));
      expect(toolOutputs.sort()).toEqual(['{"count": 2}', '{"count": 3}', '{"count": 3}', '{"count": 3}', '{"count": 4}']);
    } finally {
      expect((await gym.stop()).code).toBe(0);
    }
  });
});

describe('ngym test and test-all', () => {
  it('fail with the reason when data is missing or a folder has no tests, and summarize', async () => {
    const directory = join(project, 'resources_servers', 'letter_count');
    const rollouts = readFileSync(join(directory, 'data', 'example_rollouts.jsonl'), 'utf8');
    rmSync(join(directory, 'data', 'example_rollouts.jsonl'));
    mkdirSync(join(project, 'responses_api_agents', 'untested'), { recursive: true });
    writeFileSync(join(project, 'responses_api_agents', 'untested', 'README.md'), '# untested\n');
    mkdirSync(join(project, 'responses_api_models', 'no_readme'), { recursive: true });
    try {
      const noTests = await runCli(['test', '+entrypoint=responses_api_agents/untested'], { cwd: project, env });
      expect(noTests.code).toBe(5);
      expect(noTests.stderr).toContain('No test files (*.test.ts) found in responses_api_agents/untested.');

      const all = await runCli(['test-all', '+fail_on_total_and_test_mismatch=true'], { cwd: project, env });
      expect(all.code).toBe(1);
      expect(all.stdout).toContain('Found 3 server folders, 2 with a README.md');
      expect(all.stdout).toContain('Passed: 1 / 2 (50.00%)');
      expect(all.stdout).toContain('No tests: 1 / 2 (50.00%)\n- responses_api_agents/untested');
      expect(all.stdout).toContain('Data validation failed: 1 / 2 (50.00%)\n- resources_servers/letter_count');
      expect(all.stdout).toContain('resources_servers/letter_count/data/example_rollouts.jsonl is missing');
      expect(all.stderr).toContain('These server folders have no README.md and were not tested: responses_api_models/no_readme');
    } finally {
      writeFileSync(join(directory, 'data', 'example_rollouts.jsonl'), rollouts);
    }
  });
});
