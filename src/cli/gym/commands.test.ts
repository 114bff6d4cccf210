/**
 * The `gym` leaves that need no running gym, run in process: dataset download (against a local stand-in of the
 * Hugging Face hub), render and collate; env resolve, validate, prefetch, packages and init; eval prepare's
 * errors, aggregate and profile; dev test.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { captureOutput } from './__fixtures__/captured-output.ts';
import { readJsonlRows } from '../../testing/jsonl-rows.ts';
import { PACKAGE_ROOT } from '../../util/package-root.ts';
import { mainGym } from './tree.ts';

const printed = captureOutput();

const dir = () => mkdtempSync(join(tmpdir(), 'ngym-gym-'));
const MODEL = ['--model-type', 'openai_model', '--model', 'm', '--model-url', 'http://127.0.0.1:1/v1', '--model-api-key', 'k'];
const rollout = (task: number, repeat: number, reward: number) =>
  JSON.stringify({ _ng_task_index: task, _ng_rollout_index: repeat, agent_ref: { type: 'responses_api_agents', name: 'a_agent' }, responses_create_params: { input: `q${task}` }, response: { output: [] }, reward });

describe('gym dataset', () => {
  let hub: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => (hub ? hub.close(resolve) : resolve(undefined)));
    hub = undefined;
  });

  it('download fetches a file from the hub with the token, to --output', async () => {
    const body = '{"responses_create_params": {"input": "x"}}\n';
    const seen: string[] = [];
    hub = createServer((request, response) => {
      seen.push(`${request.url} ${request.headers.authorization}`);
      response.writeHead(200, { 'content-length': String(Buffer.byteLength(body)) }).end(body);
    });
    await new Promise<void>((resolve) => hub?.listen(0, '127.0.0.1', resolve));
    const output = join(dir(), 'train.jsonl');
    const endpoint = `http://127.0.0.1:${(hub.address() as AddressInfo).port}`;
    expect(await mainGym(['dataset', 'download', '--repo-id', 'nvidia/set', '--artifact', 'data/train.jsonl', '-o', output, '+hf_token=hf_abc', `+hf_endpoint=${endpoint}`]), printed.err).toBe(0);
    expect(seen).toEqual(['/datasets/nvidia/set/resolve/main/data/train.jsonl Bearer hf_abc']);
    expect(readFileSync(output, 'utf8')).toBe(body);
    expect(await mainGym(['dataset', 'download', '--repo-id', 'nvidia/set', '--artifact', 'a.jsonl', `+hf_endpoint=${endpoint}`])).toBe(1);
    expect(printed.err).toContain('hf_token');
  });

  it('download --split concatenates the JSON Lines files of the split, listed by the tree API', async () => {
    const files: Record<string, string> = { 'data/validation-00000.jsonl': '{"a": 1}\n', 'data/validation-00001.jsonl': '{"a": 2}\n', 'data/train.jsonl': '{"a": 0}\n' };
    hub = createServer((request, response) => {
      const url = request.url ?? '';
      if (url.startsWith('/api/datasets/nvidia/set/tree/main')) {
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(Object.keys(files).map((path) => ({ type: 'file', path }))));
        return;
      }
      const body = files[url.replace('/datasets/nvidia/set/resolve/main/', '')];
      if (body === undefined) response.writeHead(404).end();
      else response.writeHead(200, { 'content-length': String(Buffer.byteLength(body)) }).end(body);
    });
    await new Promise<void>((resolve) => hub?.listen(0, '127.0.0.1', resolve));
    const outputDir = dir();
    const endpoint = `http://127.0.0.1:${(hub.address() as AddressInfo).port}`;
    expect(await mainGym(['dataset', 'download', '--repo-id', 'nvidia/set', '--split', 'validation', '--output-dir', outputDir, '+hf_token=hf_abc', `+hf_endpoint=${endpoint}`]), printed.err).toBe(0);
    expect(readFileSync(join(outputDir, 'validation.jsonl'), 'utf8')).toBe('{"a": 1}\n{"a": 2}\n');
  });

  it('render fills the prompt templates from each row, and refuses rows that already have an input', async () => {
    const root = dir();
    writeFileSync(join(root, 'raw.jsonl'), `${JSON.stringify({ question: 'What is 2+2?', level: 1, responses_create_params: { temperature: 0.5 } })}\n`);
    writeFileSync(join(root, 'prompt.yaml'), 'system: "Level {level} tutor. Use {{braces}} literally."\nuser: "Q: {question}"\n');
    const output = join(root, 'rendered.jsonl');
    expect(await mainGym(['dataset', 'render', '-i', join(root, 'raw.jsonl'), '--prompt-config', join(root, 'prompt.yaml'), '-o', output]), printed.err).toBe(0);
    const row = readJsonlRows(output)[0] ?? {};
    expect(row.responses_create_params).toEqual({
      temperature: 0.5,
      input: [
        { role: 'system', content: 'Level 1 tutor. Use {braces} literally.' },
        { role: 'user', content: 'Q: What is 2+2?' },
      ],
    });
    expect(row.prompt_config_used).toBe(join(root, 'prompt.yaml'));
    writeFileSync(join(root, 'bad.yaml'), 'user: "{missing}"\n');
    expect(await mainGym(['dataset', 'render', '-i', join(root, 'raw.jsonl'), '--prompt-config', join(root, 'bad.yaml'), '-o', output])).toBe(1);
    expect(printed.err).toContain("references field 'missing'");
    expect(await mainGym(['dataset', 'render', '-i', output, '--prompt-config', join(root, 'prompt.yaml'), '-o', join(root, 'again.jsonl')])).toBe(1);
    expect(printed.err).toContain('Rows 0 already have responses_create_params.input');
  });

  it('collate validates and collates the example data (prepare-data)', async () => {
    const output = dir();
    expect(await mainGym(['dataset', 'collate', '--resources-server', 'example_multi_step', '--model-type', 'openai_model', '--mode', 'example_validation', '--output-dir', output]), printed.err).toBe(0);
    const rows = readJsonlRows(join(output, 'example.jsonl'));
    expect(rows).toHaveLength(5);
    expect(rows[0]?.agent_ref).toEqual({ type: 'responses_api_agents', name: 'example_multi_step_simple_agent' });
  });
});

describe('gym env (no servers started)', () => {
  it('resolve prints the composed config of an environment package', async () => {
    expect(await mainGym(['env', 'resolve', '--environment', 'mcqa', ...MODEL]), printed.err).toBe(0);
    expect(printed.out).toContain('mcqa_simple_agent:');
    expect(printed.out).toContain('base_url: http://127.0.0.1:1/v1');
  });

  it('validate and prefetch check every server; a bad key is named', async () => {
    expect(await mainGym(['env', 'validate', 'mcqa', ...MODEL]), printed.err).toBe(0);
    expect(printed.out).toContain('All 4 servers valid.');
    expect(await mainGym(['env', 'prefetch', '--environment', 'mcqa', '--model-type', 'openai_model', '+policy_base_url=http://127.0.0.1:1/v1', '+policy_api_key=k', '+policy_model_name=m']), printed.err).toBe(0);
    expect(printed.out).toContain('Prefetch complete.');
    expect(printed.out).toMatch(/mcqa\s+resources_servers\/mcqa\s+TypeScript\s+nothing to build/);
    expect(await mainGym(['env', 'validate', '--environment', 'mcqa', ...MODEL, '+mcqa.resources_servers.mcqa.grading_mod=x'])).toBe(1);
    expect(printed.err).toContain('mcqa.resources_servers.mcqa.grading_mod');
    expect(await mainGym(['env', 'validate', '--environment', 'mcqq'])).toBe(1);
    expect(printed.err).toContain('(did you mean `mcqa`?)');
  });

  it('packages lists the npm packages a server imports', async () => {
    expect(await mainGym(['env', 'packages', '--resources-server', 'example_single_tool_call', '--json']), printed.err).toBe(0);
    expect(JSON.parse(printed.out)).toContainEqual({ name: 'ngym', version: 'this package' });
  });

  it('init scaffolds a resources server (ngym init), and an environment around it with its manifest', async () => {
    const root = dir();
    // The scaffold loads its app.ts, which imports ngym and zod: the project has them installed.
    mkdirSync(join(root, 'node_modules'));
    for (const [name, target] of [['ngym', PACKAGE_ROOT], ['zod', join(PACKAGE_ROOT, 'node_modules', 'zod')]] as const) symlinkSync(target, join(root, 'node_modules', name));
    const cwd = process.cwd();
    process.chdir(root);
    try {
      expect(await mainGym(['env', 'init', '--resources-server', 'my_env']), printed.err).toBe(0);
      expect(existsSync(join(root, 'resources_servers/my_env/app.ts'))).toBe(true);
      expect(await mainGym(['env', 'init', '--environment', 'my_env']), printed.err).toBe(0);
      const manifest = parseYaml(readFileSync(join(root, 'environments/my_env/manifest.yaml'), 'utf8'));
      expect(manifest).toMatchObject({ name: 'my_env', kind: 'environment', integration_profile: 'custom-gym-verifier', reward: { range: [0, 1], higher_is_better: true }, resources_server: 'my_env' });
      // The environment's example rows are the resources server's, and its config composes into a gym.
      expect(readFileSync(join(root, 'environments/my_env/data/example.jsonl'), 'utf8')).toBe(readFileSync(join(root, 'resources_servers/my_env/data/example.jsonl'), 'utf8'));
      expect(await mainGym(['env', 'validate', 'my_env', ...MODEL]), printed.err).toBe(0);
      // Its manifest answers upstream's catalog facets.
      printed.out = '';
      expect(await mainGym(['list', 'environments', '--modality', 'text', '--status', 'experimental', '--lifecycle', 'active', '--json'])).toBe(0);
      expect((JSON.parse(printed.out) as { name: string }[]).map((entry) => entry.name)).toEqual(['my_env']);
      printed.out = '';
      expect(await mainGym(['list', 'environments', '--licensing', 'Apache-2.0', '--json'])).toBe(0);
      expect(JSON.parse(printed.out)).toEqual([]);
      // Again: nothing to do; a file edited since: refused, naming it, and left alone.
      expect(await mainGym(['env', 'init', '--environment', 'my_env']), printed.err).toBe(0);
      expect(printed.out).toContain('environments/my_env is already up to date.');
      writeFileSync(join(root, 'environments/my_env/README.md'), 'mine\n');
      expect(await mainGym(['env', 'init', '--environment', 'my_env'])).toBe(1);
      expect(printed.err).toContain('Scaffolding would overwrite existing content:\n  - environments/my_env/README.md');
      expect(readFileSync(join(root, 'environments/my_env/README.md'), 'utf8')).toBe('mine\n');
    } finally {
      process.chdir(cwd);
    }
  }, 60_000);

  it('init --benchmark --reuse-verifier records the declared reward contract (lower is better)', async () => {
    const root = dir();
    const cwd = process.cwd();
    process.chdir(root);
    try {
      const args = ['env', 'init', '--benchmark', 'weather_bench', '--reuse-verifier', 'example_single_tool_call'];
      expect(await mainGym([...args, '--lower-is-better', '--reward-range', '-1', '0']), printed.err).toBe(0);
      const manifest = parseYaml(readFileSync(join(root, 'benchmarks/weather_bench/manifest.yaml'), 'utf8'));
      expect(manifest).toMatchObject({ kind: 'benchmark', reward: { range: [-1, 0], higher_is_better: false }, resources_server: 'example_single_tool_call', standard_prompt_config: 'benchmarks/weather_bench/prompt.yaml' });
      const config = parseYaml(readFileSync(join(root, 'benchmarks/weather_bench/config.yaml'), 'utf8'));
      expect(config.config_paths).toEqual(['resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml']);
      // The scorer's instance, read from its config.
      expect(config.weather_bench_agent.responses_api_agents.simple_agent.resources_server.name).toBe('example_single_tool_call');
      for (const file of ['prepare.py', 'prompt.yaml', 'data/source.jsonl', 'data/example.jsonl']) expect(existsSync(join(root, 'benchmarks/weather_bench', file))).toBe(true);
      expect(existsSync(join(root, 'resources_servers'))).toBe(false);
    } finally {
      process.chdir(cwd);
    }
  });

  it.each([
    [['--benchmark', 'b', '--reuse-verifier', 'example_single_tool_call'], 'reuse_verifier requires reward_range and higher_is_better'],
    [['--environment', 'e', '--reward-range', '0', '1', '--higher-is-better'], 'only accepted with reuse_verifier'],
    [['--environment', 'e', '--reuse-verifier', 'example_single_tool_call', '--reward-range', '1', '0', '--higher-is-better'], 'needs finite LOW < HIGH'],
    [['--environment', 'e', '--reuse-verifier', 'x', '--reward-range', '0', '--higher-is-better'], '--reward-range takes two numbers'],
    [['--environment', 'e', '--profile', 'external-agent-loop'], '--profile external-agent-loop: ngym scaffolds the custom-gym-verifier profile only'],
    [['--resources-server', 'r', '--environment', 'e'], 'select a resources server or a manifest-backed workload, not both'],
    [['--resources-server', 'r', '--lower-is-better'], 'require --environment or --benchmark'],
    [['--environment', 'e', '--reuse-verifier', 'example_single_tool_call', '--reward-range', '0', '1', '--higher-is-better', '--lower-is-better'], 'mutually exclusive'],
    [['--environment', 'e', '--reuse-verifier', 'no_such_server', '--reward-range', '0', '1', '--higher-is-better'], '--resources-server no_such_server: no config'],
  ])('init %j is refused before anything is written', async (args, message) => {
    const root = dir();
    const cwd = process.cwd();
    process.chdir(root);
    try {
      expect(await mainGym(['env', 'init', ...args])).toBe(1);
      expect(printed.err).toContain(message);
      expect(readdirSync(root)).toEqual([]);
    } finally {
      process.chdir(cwd);
    }
  });
});

describe('gym eval (offline)', () => {
  it('prepare needs a benchmark or a config declaring one (benchmark.test.ts prepares them)', async () => {
    expect(await mainGym(['eval', 'prepare'])).toBe(1);
    expect(printed.err).toContain('gym eval prepare needs a benchmark');
    expect(await mainGym(['eval', 'prepare', '--config', 'resources_servers/mcqa/configs/mcqa.yaml'])).toBe(1);
    expect(printed.err).toContain('No preparable dataset in the config');
  });

  it('aggregate merges shards in (task, rollout) order and writes metrics and reward profiles', async () => {
    const root = dir();
    writeFileSync(join(root, 'rollouts-0.jsonl'), `${rollout(1, 0, 1)}\n${rollout(0, 1, 0)}\n`);
    writeFileSync(join(root, 'rollouts-1.jsonl'), `${rollout(0, 0, 1)}\n${rollout(1, 1, 1)}\n`);
    const output = join(root, 'all.jsonl');
    expect(await mainGym(['eval', 'aggregate', '-i', join(root, 'rollouts-*.jsonl'), '-o', output]), printed.err).toBe(0);
    expect(readJsonlRows(output).map((row) => [row._ng_task_index, row._ng_rollout_index])).toEqual([[0, 0], [0, 1], [1, 0], [1, 1]]);
    const metrics = JSON.parse(readFileSync(join(root, 'all_metrics.json'), 'utf8'));
    expect(metrics).toMatchObject({ rollouts: 4, tasks: 2, metrics: { reward: 0.75, 'pass@1': 0.75, 'pass@2': 1 } });
    // Upstream's format: a list of per-agent entries named by agent_ref.
    const [entry, ...others] = JSON.parse(readFileSync(join(root, 'all_aggregate_metrics.json'), 'utf8'));
    expect(others).toEqual([]);
    expect(entry.agent_ref).toEqual({ name: 'a_agent' });
    expect(entry.key_metrics['mean/reward']).toBe(0.75);
    expect(await mainGym(['eval', 'aggregate', '-i', join(root, 'none-*.jsonl'), '-o', output])).toBe(1);
    expect(printed.err).toContain('No rollout shards match');
  });

  it("profile writes upstream's reward profile of a rollouts file", async () => {
    const root = dir();
    writeFileSync(join(root, 'r.jsonl'), `${rollout(0, 0, 1)}\n${rollout(0, 1, 0)}\n`);
    expect(await mainGym(['eval', 'profile', '--rollouts', join(root, 'r.jsonl')]), printed.err).toBe(0);
    const profile = JSON.parse(readFileSync(join(root, 'r_reward_profile.json'), 'utf8'));
    expect(profile.a_agent.key_metrics['mean/reward']).toBe(0.5);
    expect(printed.out).toContain('a_agent:');
    // With the materialized inputs: how complete the collection is (task 1 has one of its two rollouts, task 2 none).
    const inputs = [[0, 0], [0, 1], [1, 0], [1, 1], [2, 0]].map(([task, repeat]) => JSON.stringify({ _ng_task_index: task, _ng_rollout_index: repeat, agent_ref: { name: 'a_agent' } }));
    writeFileSync(join(root, 'inputs.jsonl'), `${inputs.join('\n')}\n`);
    writeFileSync(join(root, 'r.jsonl'), `${rollout(0, 0, 1)}\n${rollout(0, 1, 0)}\n${rollout(1, 0, 1)}\n`);
    expect(await mainGym(['eval', 'profile', '--rollouts', join(root, 'r.jsonl'), '--inputs', join(root, 'inputs.jsonl')]), printed.err).toBe(0);
    expect(printed.out).toContain('Reward profile completion: 3/5 rollout rows (60.00%)\nInput rows: 3 total; 1 complete; 1 partial; 1 without rollouts.');
  });
});

describe('gym dev test', () => {
  it('runs test-all over the server folders of the working directory', async () => {
    const root = dir();
    mkdirSync(join(root, 'resources_servers'));
    const cwd = process.cwd();
    process.chdir(root);
    try {
      expect(await mainGym(['dev', 'test']), printed.err).toBe(0);
      expect(printed.out).toContain('Found 0 server folders');
    } finally {
      process.chdir(cwd);
    }
  });
});
