import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { globalConfigFromDict } from '../config/global-config.ts';
import type { ConfigDict } from '../config/tree.ts';
import { SHARED_SKIP_MESSAGE, sharedFixture, sharedFixturesAvailable } from '../testing/shared-fixtures.ts';
import { DatasetConfig } from '../config/schemas.ts';
import { computeDatasetMetrics, datasetMetricsFile, prepareData } from './prepare-data.ts';
import { pythonJsonDumpIndented } from '../python-compat/python-json.ts';

const row = (text: string, extra: Record<string, unknown> = {}) => JSON.stringify({ responses_create_params: { input: [{ role: 'user', content: text }] }, ...extra });

function project(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'ngym-prepare-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

function agent(datasets: ConfigDict[]): ConfigDict {
  return { responses_api_agents: { simple_agent: { entrypoint: 'app.ts', datasets } } };
}

const quiet = { print: () => {} };

describe('prepareData', () => {
  it('collates with agent_ref, repeats rows num_repeats times in place, and writes in upstream order', async () => {
    const first = '{"responses_create_params":{"input":[{"role":"user","content":"one"}]},"temperature_hint":1.0}';
    const root = project({ 'data/a.jsonl': `${first}\n${row('two')}\n`, 'data/b.jsonl': `${row('three')}\n` });
    const globalConfig = globalConfigFromDict({
      agent_a: agent([{ name: 'a', type: 'example', jsonl_fpath: 'data/a.jsonl', num_repeats: 3 }]),
      agent_b: agent([
        { name: 'b', type: 'example', jsonl_fpath: 'data/b.jsonl' },
        { name: 'ignored', type: 'train', jsonl_fpath: 'data/missing.jsonl', license: 'MIT' },
      ]),
    });
    const result = await prepareData({ globalConfig, outputDir: 'out/nested', mode: 'example_validation', cwd: root, ...quiet });
    const lines = readFileSync(join(root, 'out/nested/example.jsonl'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(7);
    expect(lines[0]).toBe(
      '{"responses_create_params": {"input": [{"role": "user", "content": "one"}]}, "temperature_hint": 1.0, "agent_ref": {"type": "responses_api_agents", "name": "agent_a"}}',
    );
    expect(lines.slice(0, 3).every((line) => line === lines[0])).toBe(true);
    expect(JSON.parse(lines[3] as string).responses_create_params.input[0].content).toBe('two');
    expect(JSON.parse(lines[6] as string).agent_ref).toEqual({ type: 'responses_api_agents', name: 'agent_b' });
    expect(readFileSync(join(root, 'data/a_prepare.jsonl'), 'utf8').trim().split('\n')).toHaveLength(6);
    expect(result.metrics.example?.['Number of examples']).toBe(7);
    const perDataset = JSON.parse(readFileSync(join(root, 'data/a_metrics.json'), 'utf8'));
    expect(perDataset).toMatchObject({ name: 'a', num_repeats: 3, 'Number of examples': 6, temperature_hint: { 'Total # non-null values': 3, Average: 1 } });
    expect(readFileSync(join(root, 'data/a_metrics.json'), 'utf8').endsWith('}')).toBe(true);
    const modified = (path: string) => statSync(join(root, path)).mtimeMs;
    expect(modified('out/nested/example_metrics.json')).toBeLessThanOrEqual(modified('data/a_prepare.jsonl'));
    expect(modified('data/b_prepare.jsonl')).toBeLessThanOrEqual(modified('out/nested/example.jsonl'));
  });

  it('reports every invalid row with file, line and reason, and stops before writing anything', async () => {
    const text = [row('ok'), 'not json', JSON.stringify({ responses_create_params: { input: 'x', seed: 3 } }), '', JSON.stringify({ prompt: 'x' }), '[1]', row('ok')].join('\n');
    const root = project({ 'data/example.jsonl': `${text}\n` });
    const globalConfig = globalConfigFromDict({ env_agent: agent([{ name: 'example', type: 'example', jsonl_fpath: 'data/example.jsonl' }]) });
    const run = prepareData({ globalConfig, outputDir: 'out', mode: 'example_validation', cwd: root, ...quiet });
    await expect(run).rejects.toThrow(/4 invalid row\(s\)/);
    const message = await run.catch((error: Error) => error.message);
    expect(message).toContain('data/example.jsonl:2: not valid JSON');
    expect(message).toContain('data/example.jsonl:3: responses_create_params.seed: Extra inputs are not permitted');
    expect(message).toContain('data/example.jsonl:5: responses_create_params: Field required');
    expect(message).toContain('data/example.jsonl:6: a row must be a JSON object, got an array');
    expect(message).not.toMatch(/:1:|:7:/);
    expect(readdirSync(join(root, 'data'))).toEqual(['example.jsonl']);

    const skipped = await prepareData({ globalConfig, outputDir: 'out', mode: 'example_validation', cwd: root, skipInvalidRows: true, ...quiet });
    expect(skipped.invalidRows.map((invalid) => invalid.line)).toEqual([2, 3, 5, 6]);
    expect(readFileSync(join(root, 'out/example.jsonl'), 'utf8').trim().split('\n')).toHaveLength(2);
    expect(skipped.metrics.example?.['Number of examples']).toBe(2);
  });

  it('writes <stem>_metrics_conflict.json and fails when committed metrics disagree; leaves agreeing ones untouched', async () => {
    const root = project({ 'data/example.jsonl': `${row('a b c')}\n` });
    const globalConfig = globalConfigFromDict({ env_agent: agent([{ name: 'example', type: 'example', jsonl_fpath: 'data/example.jsonl' }]) });
    const options = { globalConfig, outputDir: 'out', mode: 'example_validation' as const, cwd: root, ...quiet };
    await prepareData(options);
    const committed = readFileSync(join(root, 'data/example_metrics.json'), 'utf8');
    await prepareData(options);
    expect(readFileSync(join(root, 'data/example_metrics.json'), 'utf8')).toBe(committed);

    writeFileSync(join(root, 'data/example_metrics.json'), committed.replace('"Number of examples": 1', '"Number of examples": 1,\n    "Old key": 1'));
    await expect(prepareData(options)).rejects.toThrow(/Found conflicting aggregate metrics that need to be corrected:\n- .*example_metrics_conflict\.json/);
    expect(readFileSync(join(root, 'data/example_metrics_conflict.json'), 'utf8')).toBe(committed);
    await prepareData({ ...options, overwriteMetricsConflicts: true });
    expect(readFileSync(join(root, 'data/example_metrics.json'), 'utf8')).toBe(committed);
  });

  it('computes upstream single-sample numbers: words of json.dumps, no turns or temperature from top-level fields', async () => {
    const root = project({ 'data/x.jsonl': '{"responses_create_params":{"input":[]},"temperature":0.1}\n' });
    const { metrics, invalidRows } = await computeDatasetMetrics(join(root, 'data/x.jsonl'), 2);
    expect(invalidRows).toEqual([]);
    const aggregated = metrics.aggregate();
    expect(aggregated['Number of examples']).toBe(2);
    expect(aggregated['Json-dumped number of words (proxy for token count)']).toMatchObject({ 'Total # non-null values': 2, Max: { value: 2 } });
    expect(aggregated['Number of turns']['Total # non-null values']).toBe(0);
    expect(aggregated.Temperature['Total # non-null values']).toBe(0);
    expect(aggregated['Number of tools']['Total # non-null values']).toBe(0);
  });

  it('refuses missing example files, and missing train files when download is off', async () => {
    const root = project({});
    const example = globalConfigFromDict({ env_agent: agent([{ name: 'example', type: 'example', jsonl_fpath: 'data/example.jsonl' }]) });
    await expect(prepareData({ globalConfig: example, outputDir: 'out', mode: 'example_validation', cwd: root, ...quiet })).rejects.toThrow(
      'You must provide the above missing example jsonl files!',
    );
    const train = globalConfigFromDict({ hf_token: 'hf_x', env_agent: agent([{ name: 'train', type: 'train', jsonl_fpath: 'data/train.jsonl', license: 'MIT' }]) });
    await expect(prepareData({ globalConfig: train, outputDir: 'out', mode: 'train_preparation', cwd: root, ...quiet })).rejects.toThrow(
      /Missing local datasets .*download is disabled\. Run with `\+should_download=true`/,
    );
    await expect(prepareData({ globalConfig: train, outputDir: 'out', mode: 'train_preparation', cwd: root, shouldDownload: true, ...quiet })).rejects.toThrow(
      /dataset 'train' has no huggingface_identifier/,
    );
  });
});

describe('prepareData downloads from Hugging Face', () => {
  let hub: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => (hub ? hub.close(resolve) : resolve(undefined)));
  });

  it('fetches a missing train dataset with the configured token and endpoint, then prepares it', async () => {
    const body = `${row('downloaded 1')}\n${row('downloaded 2')}\n`;
    const seen: string[] = [];
    hub = createServer((request, response) => {
      seen.push(`${request.url} ${request.headers.authorization}`);
      response.writeHead(200, { 'content-length': String(Buffer.byteLength(body)) }).end(body);
    });
    await new Promise<void>((resolve) => hub?.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(hub.address() as AddressInfo).port}`;
    const root = project({});
    const globalConfig = globalConfigFromDict({
      hf_token: 'hf_abc',
      hf_endpoint: endpoint,
      env_agent: agent([
        { name: 'train', type: 'train', jsonl_fpath: 'data/train.jsonl', license: 'MIT', huggingface_identifier: { repo_id: 'nvidia/set', artifact_fpath: 'train.jsonl' } },
      ]),
    });
    await expect(prepareData({ globalConfig: globalConfigFromDict({ ...globalConfig.dict, hf_token: null }), outputDir: 'out', mode: 'train_preparation', cwd: root, shouldDownload: true, ...quiet })).rejects.toThrow(
      /needs `hf_token`/,
    );
    const result = await prepareData({ globalConfig, outputDir: 'out', mode: 'train_preparation', cwd: root, shouldDownload: true, ...quiet });
    expect(seen).toEqual(['/datasets/nvidia/set/resolve/main/train.jsonl Bearer hf_abc']);
    expect(readFileSync(join(root, 'data/train.jsonl'), 'utf8')).toBe(body);
    expect(result.metrics.train?.['Number of examples']).toBe(2);
    expect(existsSync(join(root, 'out/train.jsonl'))).toBe(true);
  });
});

describe.skipIf(!sharedFixturesAvailable())('metrics of upstream example data', () => {
  it('are byte-identical to every committed example_metrics.json that has a Median (the v0.1.1 format)', async () => {
    const environments = readdirSync(sharedFixture()).filter((env) => existsSync(sharedFixture(env, 'example_metrics.json')));
    let compared = 0;
    for (const env of environments) {
      const committed = readFileSync(sharedFixture(env, 'example_metrics.json'), 'utf8');
      const previous = JSON.parse(committed) as Record<string, unknown>;
      if (!committed.includes('"Median"')) continue;
      const dataset = DatasetConfig.parse({ name: previous.name, type: previous.type, jsonl_fpath: previous.jsonl_fpath, license: previous.license });
      const { metrics, invalidRows } = await computeDatasetMetrics(sharedFixture(env, 'example.jsonl'));
      expect(invalidRows, env).toEqual([]);
      // Older upstream versions wrote fewer dataset-config keys ahead of the metrics; compare those it wrote.
      const configKeys = ['name', 'type', 'jsonl_fpath', 'num_repeats', 'gitlab_identifier', 'huggingface_identifier', 'license'];
      const ours = Object.fromEntries(Object.entries(datasetMetricsFile(dataset, metrics)).filter(([key]) => key in previous || !configKeys.includes(key)));
      expect(pythonJsonDumpIndented(ours), env).toBe(committed);
      compared++;
    }
    expect(compared).toBeGreaterThanOrEqual(14);
  });
});

describe.skipIf(sharedFixturesAvailable())('metrics of upstream example data', () => {
  it.skip(SHARED_SKIP_MESSAGE, () => {});
});
