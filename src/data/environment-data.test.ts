import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pythonJsonDumpIndented } from '../python-compat/python-json.ts';
import { DatasetConfig } from '../config/schemas.ts';
import { countLines, environmentDataProblems } from './environment-data.ts';
import { computeDatasetMetrics, datasetMetricsFile } from './prepare-data.ts';

const row = (index: number) => JSON.stringify({ responses_create_params: { input: `task ${index}` }, id: index });
const rows = (count: number) => Array.from({ length: count }, (_, index) => `${row(index)}\n`).join('');

function server(files: Record<string, string>): string {
  const directory = mkdtempSync(join(tmpdir(), 'ngym-env-data-'));
  mkdirSync(join(directory, 'data'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(directory, 'data', name), text);
  return directory;
}

describe('environment data checks (ngym test)', () => {
  it('counts lines as Python readlines does', () => {
    expect([countLines(''), countLines('a'), countLines('a\n'), countLines('a\nb'), countLines('a\n\n')]).toEqual([0, 1, 1, 2, 2]);
  });

  it('accepts 5 valid rows, metrics for 5 examples, 5 rollouts and no conflict file', async () => {
    const directory = server({ 'example.jsonl': rows(5), 'example_metrics.json': '{"Number of examples": 5}', 'example_rollouts.jsonl': rows(5) });
    expect(await environmentDataProblems(directory, 'resources_servers/x')).toEqual([]);
  });

  it('fails when the committed metrics are not those of the committed rows', async () => {
    const directory = server({ 'example.jsonl': rows(5), 'example_rollouts.jsonl': rows(5) });
    const dataset = DatasetConfig.parse({ name: 'example', type: 'example', jsonl_fpath: 'resources_servers/x/data/example.jsonl' });
    const { metrics } = await computeDatasetMetrics(join(directory, 'data', 'example.jsonl'));
    writeFileSync(join(directory, 'data', 'example_metrics.json'), pythonJsonDumpIndented(datasetMetricsFile(dataset, metrics)));
    expect(await environmentDataProblems(directory, 'resources_servers/x')).toEqual([]);

    // Same number of rows, but one task changed: its word count (and so the metrics) no longer match.
    writeFileSync(join(directory, 'data', 'example.jsonl'), rows(4) + `${JSON.stringify({ responses_create_params: { input: 'a much longer task than the others' }, id: 4 })}\n`);
    const problems = await environmentDataProblems(directory, 'resources_servers/x');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^resources_servers\/x\/data\/example_metrics\.json does not match resources_servers\/x\/data\/example\.jsonl \(.*Json-dumped number of words.*\): run `ngym prepare-data/);
  });

  it('names every problem and how to fix it', async () => {
    const broken = server({
      'example.jsonl': `${rows(3)}{"prompt": "no responses_create_params"}\n`,
      'example_metrics.json': '{"Number of examples": 4}',
      'example_metrics_conflict.json': '{}',
    });
    const problems = await environmentDataProblems(broken, 'resources_servers/x');
    expect(problems).toHaveLength(5);
    expect(problems[0]).toBe('resources_servers/x/data/example.jsonl has 4 lines; it must have exactly 5.');
    expect(problems[1]).toBe('invalid example row resources_servers/x/data/example.jsonl:4: responses_create_params: Field required');
    expect(problems[2]).toContain('"Number of examples": 4, expected 5: run `ngym prepare-data "+config_paths=[resources_servers/x/configs/<config>.yaml,responses_api_models/openai_model/configs/openai_model.yaml]"');
    expect(problems[3]).toContain('resources_servers/x/data/example_metrics_conflict.json exists');
    expect(problems[4]).toMatch(/example_rollouts\.jsonl is missing: start the servers with `ngym run .* and run `ngym collect .*\+limit=null`/);

    const empty = await environmentDataProblems(mkdtempSync(join(tmpdir(), 'ngym-env-data-')), 'resources_servers/y');
    expect(empty.map((problem) => problem.split(' ')[0])).toEqual([
      'resources_servers/y/data/example.jsonl',
      'resources_servers/y/data/example_metrics.json',
      'resources_servers/y/data/example_rollouts.jsonl',
    ]);
  });
});
