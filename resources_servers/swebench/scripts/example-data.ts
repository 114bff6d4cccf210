/**
 * The environment's example data: data/example.jsonl holds five tasks of data/pypi_tasks.jsonl (the first task of
 * each of the first five projects there), data/example_rollouts.jsonl their rollouts, recorded by running them
 * through environments/swebench/config.yaml's simple_agent and the real server, in boxes on the container engine
 * (DOCKER_HOST), with a scripted model: on the first four it applies the task's gold patch with the `bash` tool
 * (resolved, reward 1), on the fifth it gives up at once (the empty patch: unresolved, reward 0).
 *
 *   npm run setup:containers && npm run swe:build-tasks     # the engine and the task images
 *   node --conditions=ngym-source --import tsx resources_servers/swebench/scripts/example-data.ts
 *
 * Then data/example_metrics.json: ngym prepare-data with +mode=example_validation (docs/environments/swe.md).
 */
import { join } from 'node:path';
import type { ResponseItem } from 'ngym';
import { assistantMessage, type ExampleData, exampleData, functionCall, readJsonlRows, scriptedModel, usage, writeExampleData } from 'ngym/testing';

// The package config: the server, its simple_agent and the sandbox block (the docker provider and the image map).
const EXAMPLE_DATA: ExampleData = { ...exampleData('swebench'), configPath: 'environments/swebench/config.yaml' };
const EXAMPLES = 5;
/** The examples whose model gives up instead of applying the gold patch (the last one). */
const GIVES_UP = new Set([EXAMPLES - 1]);

type Row = Record<string, any>;

/** The first task of each project, in the order of pypi_tasks.jsonl. */
function exampleRows(): Row[] {
  const rows = readJsonlRows(join(EXAMPLE_DATA.examplePath, '..', 'pypi_tasks.jsonl')) as Row[];
  const firstOfEach = rows.filter((row, index) => rows.findIndex((other) => other.repo === row.repo) === index);
  if (firstOfEach.length < EXAMPLES) throw new Error(`pypi_tasks.jsonl has tasks from ${firstOfEach.length} projects; the examples need ${EXAMPLES}`);
  return firstOfEach.slice(0, EXAMPLES);
}

const userText = (input: ResponseItem[]) => input.flatMap((item) => ('role' in item && item.role === 'user' && typeof item.content === 'string' ? [item.content] : [])).join('\n');

function exampleModel(rows: Row[]) {
  return scriptedModel(({ input }) => {
    const index = rows.findIndex((row) => row.problem_statement === userText(input));
    if (index === -1) throw new Error('the scripted model got a task that is not an example');
    const row = rows[index] as Row;
    const acted = input.some((item) => item.type === 'function_call_output');
    const output: ResponseItem[] =
      acted || GIVES_UP.has(index)
        ? [assistantMessage(acted ? 'The fix is applied.' : 'I cannot fix this.', { id: `msg_example_${index}` })]
        : [functionCall('bash', { command: `git apply <<'NGYM_PATCH'\n${row.patch}NGYM_PATCH` }, `call_example_${index}`)];
    return { id: `resp_example_${index}_${acted ? 2 : 1}`, created_at: 1_704_067_200 + index, model: 'example-model', output, usage: usage(800 + index, 60) };
  });
}

const rows = exampleRows();
await writeExampleData(EXAMPLE_DATA, rows, exampleModel(rows).definition);
process.stdout.write(`wrote ${EXAMPLE_DATA.examplePath} and ${EXAMPLE_DATA.rolloutsPath}\n`);
