/**
 * NeMo Gym's NeMo RL guide prepares DAPO-17k with math_with_judge's bytedtsinghua_dapo17k.yaml. Its
 * `ng_prepare_data` line runs here as written (through an `ng_prepare_data` link, as npm installs it), in a
 * project holding the two dataset files where the config says; without them the error names what is missing.
 */
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJsonlRows, runCli } from '../../testing/index.ts';
import { PACKAGE_ROOT } from '../../util/package-root.ts';

const GUIDE_LINE = [
  '+config_paths=[responses_api_models/openai_model/configs/openai_model.yaml,resources_servers/math_with_judge/configs/bytedtsinghua_dapo17k.yaml]',
  '+output_dirpath=data/bytedtsinghua_dapo17k',
  '+mode=train_preparation',
  '+should_download=true',
];

function project(): { root: string; bin: string } {
  const root = mkdtempSync(join(tmpdir(), 'ngym-dapo17k-'));
  const bin = join(root, 'ng_prepare_data');
  symlinkSync(join(PACKAGE_ROOT, 'bin', 'ngym.js'), bin);
  return { root, bin };
}

describe("the NeMo RL guide's DAPO-17k ng_prepare_data line", () => {
  it('collates the train and validation files for math_with_judge_simple_agent', async () => {
    const { root, bin } = project();
    const data = join(root, 'resources_servers/math_with_judge/data');
    mkdirSync(data, { recursive: true });
    const rows = readFileSync(join(PACKAGE_ROOT, 'resources_servers/math_with_judge/data/example.jsonl'), 'utf8').trim().split('\n');
    writeFileSync(join(data, 'dapo17k_bytedtsinghua_train.jsonl'), `${rows.slice(0, 3).join('\n')}\n`);
    writeFileSync(join(data, 'aime24_bytedtsinghua_validation.jsonl'), `${rows.slice(3).join('\n')}\n`);
    const result = await runCli(GUIDE_LINE, { cwd: root, bin });
    expect(result.code, result.stderr).toBe(0);
    const train = readJsonlRows(join(root, 'data/bytedtsinghua_dapo17k/train.jsonl'));
    const validation = readJsonlRows(join(root, 'data/bytedtsinghua_dapo17k/validation.jsonl'));
    expect([train.length, validation.length]).toEqual([3, rows.length - 3]);
    expect(train[0]?.agent_ref).toEqual({ type: 'responses_api_agents', name: 'math_with_judge_simple_agent' });
    // The metrics record upstream's dataset identifiers, as upstream's committed *_bytedtsinghua_*_metrics.json do.
    const metrics = JSON.parse(readFileSync(join(data, 'dapo17k_bytedtsinghua_train_metrics.json'), 'utf8'));
    expect(metrics.gitlab_identifier).toEqual({ dataset_name: 'bytedtsinghua_dapo17k', version: '0.0.1', artifact_fpath: 'dapo17k_bytedtsinghua_train.jsonl' });
    expect(metrics['Number of examples']).toBe(3);
  });

  it('says the files must be provided when they are missing (the identifiers are GitLab only)', async () => {
    const { root, bin } = project();
    const result = await runCli([...GUIDE_LINE, '+hf_token=hf_test'], { cwd: root, bin });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("dataset 'train' has only a gitlab_identifier");
    expect(result.stderr).toContain('resources_servers/math_with_judge/data/dapo17k_bytedtsinghua_train.jsonl');
  });
});
