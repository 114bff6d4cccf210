/**
 * `gym env init --environment NAME` / `--benchmark NAME`: upstream 0.7.0's manifest-backed scaffold
 * (nemo_gym/environment/scaffold.py), in ngym's layout. It writes `environments/NAME/` (or `benchmarks/NAME/`):
 *   manifest.yaml  upstream's catalog manifest, with the reward contract (`reward.range`, `reward.higher_is_better`);
 *   config.yaml    the workload's servers: the scorer's config included, an agent with the workload's dataset, and
 *                  an environment server in front of it (what `gym env start --environment NAME` starts);
 *   README.md, data/example.jsonl; a benchmark also data/source.jsonl, prompt.yaml and prepare.py (run by
 *                  `gym eval prepare --benchmark NAME` with nemo-gym's Python, as upstream's benchmarks are).
 * The scorer is a new resources server (`ngym init`'s, whose rewards are [0, 1], higher is better), or with
 * `--reuse-verifier RS` an existing one, whose reward contract must then be declared (`--reward-range LOW HIGH` and
 * `--higher-is-better` or `--lower-is-better`), as upstream requires. Nothing existing is overwritten.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import YAML from 'yaml';
import { isDict } from '../../config/tree.ts';
import { NgymError } from '../../errors.ts';
import { assetConfigPath } from './flags.ts';

export interface WorkloadRequest {
  kind: 'environment' | 'benchmark';
  name: string;
  profile: string;
  reuseVerifier?: string;
  rewardRange?: [number, number];
  higherIsBetter?: boolean;
}

const refuse = (message: string): never => {
  throw new NgymError('NGYM_USAGE', message);
};

/** Checks the request as upstream does, before anything is written; returns the reward contract. */
export function checkWorkloadRequest(request: WorkloadRequest): { range: [number, number]; higherIsBetter: boolean } {
  if (request.profile !== 'custom-gym-verifier') {
    refuse(
      `--profile ${request.profile}: ngym scaffolds the custom-gym-verifier profile only (a resources server scored by simple_agent). ` +
        'A custom agent loop is an ngym agent (defineAgent, docs/environments/authoring.md), and an external rollout driver has no ngym template; write either by hand and name it in config.yaml.',
    );
  }
  // Upstream's name rule, narrowed to what a new resources server's folder and class can be named after.
  if (!/^[a-z0-9][a-z0-9._-]*$/.test(request.name)) refuse("name must be one lowercase path segment containing letters, digits, '.', '_' or '-'");
  if (request.reuseVerifier === undefined && !/^[a-z][a-z0-9_]*$/.test(request.name)) refuse('a scaffold that creates a resources server needs a name of lowercase letters, digits and underscores, starting with a letter');
  if (request.reuseVerifier === undefined) {
    if (request.rewardRange !== undefined || request.higherIsBetter !== undefined) refuse('reward_range and higher_is_better are only accepted with reuse_verifier (--reuse-verifier): a new resources server rewards [0, 1], higher is better.');
    return { range: [0, 1], higherIsBetter: true };
  }
  if (request.rewardRange === undefined || request.higherIsBetter === undefined) refuse('reuse_verifier requires reward_range and higher_is_better (--reward-range LOW HIGH and --higher-is-better or --lower-is-better).');
  const [low, high] = request.rewardRange as [number, number];
  if (!Number.isFinite(low) || !Number.isFinite(high) || low >= high) refuse(`invalid reward contract: --reward-range needs finite LOW < HIGH, got ${low} ${high}.`);
  return { range: [low, high], higherIsBetter: request.higherIsBetter as boolean };
}

/** The reused scorer's config (`resources_servers/RS/configs/RS.yaml`) and the resources server instance it declares. */
function reusedVerifier(selector: string, cwd: string): { configPath: string; instance: string } {
  const path = assetConfigPath('resources-server', selector, cwd);
  const parsed: unknown = YAML.parse(readFileSync(path, 'utf8'));
  const instances = isDict(parsed) ? Object.entries(parsed).filter(([, block]) => isDict(block) && isDict(block.resources_servers)).map(([name]) => name) : [];
  if (instances.length !== 1) refuse(`--reuse-verifier ${selector}: ${path} must declare exactly one resources server, found ${instances.length === 0 ? 'none' : instances.join(', ')}.`);
  const [name, flavor] = selector.split('/', 2);
  return { configPath: `resources_servers/${name}/configs/${flavor ?? name}.yaml`, instance: instances[0] as string };
}

const SAMPLE_QUESTION = { question: 'What is 6 x 7?', expected_answer: '42' };

const PREPARE_PY = (name: string) => `"""Prepare source rows for the ${name} benchmark (scaffolded by ngym; run by \`gym eval prepare --benchmark ${name}\`)."""

import json
from pathlib import Path


BENCHMARK_DIR = Path(__file__).parent
SOURCE_PATH = BENCHMARK_DIR / "data" / "source.jsonl"
OUTPUT_PATH = BENCHMARK_DIR / "data" / "example.jsonl"


def prepare(source: Path = SOURCE_PATH, output: Path = OUTPUT_PATH) -> Path:
    output.parent.mkdir(parents=True, exist_ok=True)
    with source.open(encoding="utf-8") as rows, output.open("w", encoding="utf-8") as out:
        for line_number, line in enumerate(rows, start=1):
            row = json.loads(line)
            if not isinstance(row, dict) or not isinstance(row.get("question"), str) or not isinstance(row.get("expected_answer"), str):
                raise ValueError(f"invalid source row {line_number}")
            out.write(json.dumps({"question": row["question"], "expected_answer": row["expected_answer"]}) + "\\n")
    return output


if __name__ == "__main__":
    prepare()
`;

/** The workload's files, by path relative to the project root. */
export function workloadFiles(request: WorkloadRequest, contract: { range: [number, number]; higherIsBetter: boolean }, cwd: string, exampleRows?: string): Record<string, string> {
  const benchmark = request.kind === 'benchmark';
  const base = `${benchmark ? 'benchmarks' : 'environments'}/${request.name}`;
  const agent = `${request.name}_agent`;
  const reused = request.reuseVerifier === undefined ? undefined : reusedVerifier(request.reuseVerifier, cwd);
  const resourcesInstance = reused?.instance ?? `${request.name}_resources_server`;
  const dataset = {
    name: request.name,
    type: benchmark ? 'benchmark' : 'example',
    jsonl_fpath: `${base}/data/example.jsonl`,
    ...(benchmark ? { prepare_script: `${base}/prepare.py`, prompt_config: `${base}/prompt.yaml` } : {}),
    num_repeats: 1,
  };
  const manifest = {
    name: request.name,
    version: '0.1.0',
    experimental: true,
    kind: request.kind,
    integration_profile: request.profile,
    domain: 'other',
    description: `TODO: Describe the ${request.name} ${request.kind}.`,
    modality: 'text',
    licensing: 'unknown',
    authors: ['TODO'],
    reward: { range: contract.range, higher_is_better: contract.higherIsBetter },
    determinism: 'unknown',
    resources_server: request.reuseVerifier ?? request.name,
    agent_server: 'simple_agent',
    datasets: [dataset],
    model_server: 'policy_model',
    lifecycle: 'active',
    ...(benchmark ? { canonical_split: 'TODO', standard_prompt_config: `${base}/prompt.yaml` } : {}),
  };
  const config = {
    config_paths: [reused?.configPath ?? `resources_servers/${request.name}/configs/${request.name}.yaml`],
    [agent]: {
      responses_api_agents: {
        simple_agent: {
          entrypoint: 'app.ts',
          resources_server: { type: 'resources_servers', name: resourcesInstance },
          model_server: { type: 'responses_api_models', name: 'policy_model' },
          datasets: [dataset],
        },
      },
    },
    [`${request.name}_environment_server`]: { environment_servers: { legacy_agent: { entrypoint: 'app.ts', agent_server: { type: 'responses_api_agents', name: agent } } } },
  };
  const scorer = request.reuseVerifier ?? `resources_servers/${request.name}`;
  const files: Record<string, string> = {
    [`${base}/manifest.yaml`]: YAML.stringify(manifest),
    [`${base}/config.yaml`]: `# ${request.name}: scaffolded by \`gym env init --${request.kind} ${request.name}\`. Start it with\n#   gym env start --${request.kind} ${request.name} --model-type openai_model\n${YAML.stringify(config)}`,
    [`${base}/README.md`]: `# ${request.name}\n\nTODO: Describe this ${request.kind} and replace the sample data.\n\n- Integration profile: \`${request.profile}\`\n- Scorer: \`${scorer}\`\n- Reward: [${contract.range.join(', ')}], ${contract.higherIsBetter ? 'higher' : 'lower'} is better\n`,
  };
  if (benchmark) {
    const source = `${JSON.stringify(SAMPLE_QUESTION)}\n`;
    Object.assign(files, {
      [`${base}/data/source.jsonl`]: source,
      [`${base}/data/example.jsonl`]: source,
      [`${base}/prompt.yaml`]: 'user: |-\n  Answer the question. Return only the final answer.\n\n  {question}\n',
      [`${base}/prepare.py`]: PREPARE_PY(request.name),
    });
  } else {
    files[`${base}/data/example.jsonl`] = exampleRows ?? `${JSON.stringify({ responses_create_params: { input: [{ role: 'user', content: 'What is 6 x 7? Reply with only the answer.' }] }, expected_answer: '42' })}\n`;
  }
  return files;
}

/** Writes the files; refuses (writing nothing) when any of them exists with other content. */
export function writeWorkload(files: Record<string, string>, cwd: string): string[] {
  const conflicts = Object.entries(files).filter(([path, text]) => existsSync(resolve(cwd, path)) && readFileSync(resolve(cwd, path), 'utf8') !== text);
  if (conflicts.length > 0) refuse(`Scaffolding would overwrite existing content:\n${conflicts.map(([path]) => `  - ${path}`).join('\n')}`);
  const created: string[] = [];
  for (const [path, text] of Object.entries(files)) {
    const target = resolve(cwd, path);
    if (existsSync(target)) continue;
    mkdirSync(join(target, '..'), { recursive: true });
    writeFileSync(target, text);
    created.push(relative(cwd, target));
  }
  return created;
}
