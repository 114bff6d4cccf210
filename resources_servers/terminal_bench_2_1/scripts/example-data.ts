/**
 * The environment's example data, written from the task folders in tasks/: data/example.jsonl holds one row per
 * task (upstream's task_name, docker_image, task_folder, and the instruction as the user message with the `bash`
 * tool), data/example_rollouts.jsonl their rollouts, recorded by running them through
 * environments/terminal_bench_2_1/config.yaml's simple_agent and the real server, in boxes on the container engine
 * (DOCKER_HOST), with a scripted model: on every task but the last it runs the task's solution/solve.sh with the
 * `bash` tool (reward 1), on the last it gives up at once (reward 0). The task images are built first
 * (docs/environments/swe.md, "Terminal tasks"):
 *
 *   npx tsx resources_servers/terminal_bench_2_1/scripts/example-data.ts
 *
 * Then data/example_metrics.json: ngym prepare-data with +mode=example_validation.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ResponseItem } from 'ngym';
import { assistantMessage, type ExampleData, exampleData, functionCall, scriptedModel, usage, writeExampleData } from 'ngym/testing';
import { PACKAGE_ROOT } from '../../../src/util/package-root.ts';

const EXAMPLE_DATA: ExampleData = { ...exampleData('terminal_bench_2_1'), configPath: 'environments/terminal_bench_2_1/config.yaml' };
const TASKS = 'resources_servers/terminal_bench_2_1/tasks';
/** The tasks in the examples, in this order (the last one's model gives up). */
const TASK_NAMES = ['word-count', 'log-analysis', 'service-config', 'csv-totals', 'config-backup'];

const BASH_TOOL = {
  type: 'function',
  name: 'bash',
  description: "Run a bash command in the task's box; its output and exit code come back. Files and installed packages persist between commands.",
  parameters: { type: 'object', properties: { command: { type: 'string', description: 'A bash command, e.g. "ls -la /app".' } }, required: ['command'], additionalProperties: false },
  strict: true,
};

type Row = Record<string, any>;

function exampleRows(): Row[] {
  const folders = readdirSync(join(PACKAGE_ROOT, TASKS)).sort();
  const missing = TASK_NAMES.filter((name) => !folders.includes(name));
  if (missing.length > 0) throw new Error(`${TASKS} has no task folder ${missing.join(', ')}`);
  return TASK_NAMES.map((name) => ({
    responses_create_params: { input: [{ role: 'user', content: readFileSync(join(PACKAGE_ROOT, TASKS, name, 'instruction.md'), 'utf8') }], tools: [BASH_TOOL] },
    task_name: `ngym/${name}`,
    docker_image: `localhost/ngym/tb.${name}:latest`,
    task_folder: `${TASKS}/${name}`,
  }));
}

const userText = (input: ResponseItem[]) => input.flatMap((item) => ('role' in item && item.role === 'user' && typeof item.content === 'string' ? [item.content] : [])).join('\n');

function exampleModel(rows: Row[]) {
  return scriptedModel(({ input }) => {
    const index = rows.findIndex((row) => row.responses_create_params.input[0].content === userText(input));
    if (index === -1) throw new Error('the scripted model got a task that is not an example');
    const solution = readFileSync(join(PACKAGE_ROOT, (rows[index] as Row).task_folder, 'solution', 'solve.sh'), 'utf8');
    const acted = input.some((item) => item.type === 'function_call_output');
    const output: ResponseItem[] =
      acted || index === rows.length - 1
        ? [assistantMessage(acted ? 'Done.' : 'I cannot do this.', { id: `msg_example_${index}` })]
        : [functionCall('bash', { command: `bash <<'NGYM_SOLUTION'\n${solution}NGYM_SOLUTION` }, `call_example_${index}`)];
    return { id: `resp_example_${index}_${acted ? 2 : 1}`, created_at: 1_704_067_200 + index, model: 'example-model', output, usage: usage(300 + index, 60) };
  });
}

const rows = exampleRows();
await writeExampleData(EXAMPLE_DATA, rows, exampleModel(rows).definition);
process.stdout.write(`wrote ${EXAMPLE_DATA.examplePath} and ${EXAMPLE_DATA.rolloutsPath}\n`);
