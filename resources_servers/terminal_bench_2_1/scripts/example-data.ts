/**
 * The environment's example data, written from the task folders in tasks/: data/example.jsonl holds one row per
 * task (upstream's task_name, docker_image, task_folder, and the instruction as the user message with the `bash`
 * tool), data/example_rollouts.jsonl their rollouts, recorded by running them through
 * environments/terminal_bench_2_1/config.yaml's simple_agent and the real server, in boxes on the container engine
 * (DOCKER_HOST), with a scripted model: on every task but the last it runs the task's solution/solve.sh with the
 * `bash` tool (reward 1), on the last it gives up at once (reward 0). The task images are built first
 * (scripts/build-tasks.ts; docs/environments/swe.md, "Terminal tasks"):
 *
 *   node --conditions=ngym-source --import tsx resources_servers/terminal_bench_2_1/scripts/example-data.ts
 *
 * Then data/example_metrics.json: ngym prepare-data with +mode=example_validation.
 */
import { type ExampleData, exampleData, writeExampleData } from 'ngym/testing';
import { solutionModel, TASKS, taskNames, taskRow } from './task-rows.ts';

const EXAMPLE_DATA: ExampleData = { ...exampleData('terminal_bench_2_1'), configPath: 'environments/terminal_bench_2_1/config.yaml' };
/** The tasks in the examples, in this order (the last one's model gives up). */
const TASK_NAMES = ['word-count', 'log-analysis', 'service-config', 'csv-totals', 'config-backup'];

const missing = TASK_NAMES.filter((name) => !taskNames().includes(name));
if (missing.length > 0) throw new Error(`${TASKS} has no task folder ${missing.join(', ')}`);
const rows = TASK_NAMES.map(taskRow);
await writeExampleData(EXAMPLE_DATA, rows, solutionModel(rows, (index) => index < rows.length - 1).definition);
process.stdout.write(`wrote ${EXAMPLE_DATA.examplePath} and ${EXAMPLE_DATA.rolloutsPath}\n`);
