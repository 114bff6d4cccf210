/**
 * What the terminal task scripts share: a task folder of tasks/ as a row of upstream's shape, and the scripted model
 * that works a task as an agent would, running the task's solution/solve.sh with the `bash` tool, or giving up.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ResponseItem } from 'ngym';
import { PACKAGE_ROOT } from 'ngym/runtime';
import { assistantMessage, functionCall, scriptedModel, usage } from 'ngym/testing';

/** Task folders are named relative to the package root in rows, as the server reads them. */
export const TASKS = 'resources_servers/terminal_bench_2_1/tasks';

const BASH_TOOL = {
  type: 'function',
  name: 'bash',
  description: "Run a bash command in the task's box; its output and exit code come back. Files and installed packages persist between commands.",
  parameters: { type: 'object', properties: { command: { type: 'string', description: 'A bash command, e.g. "ls -la /app".' } }, required: ['command'], additionalProperties: false },
  strict: true,
};

export type Row = Record<string, any>;

/** The task folders of tasks/, by name. */
export const taskNames = (): string[] => readdirSync(join(PACKAGE_ROOT, TASKS), { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();

/** The row of a task folder: its instruction as the user message with the `bash` tool, and upstream's task fields. */
export function taskRow(name: string): Row {
  return {
    responses_create_params: { input: [{ role: 'user', content: readFileSync(join(PACKAGE_ROOT, TASKS, name, 'instruction.md'), 'utf8') }], tools: [BASH_TOOL] },
    task_name: `ngym/${name}`,
    docker_image: `localhost/ngym/tb.${name}:latest`,
    task_folder: `${TASKS}/${name}`,
  };
}

const userText = (input: ResponseItem[]) => input.flatMap((item) => ('role' in item && item.role === 'user' && typeof item.content === 'string' ? [item.content] : [])).join('\n');

/** A model that, on the task of `rows[index]`, runs its solution when `solves(index)`, and gives up otherwise. */
export function solutionModel(rows: Row[], solves: (index: number) => boolean) {
  return scriptedModel(({ input }) => {
    const index = rows.findIndex((row) => row.responses_create_params.input[0].content === userText(input));
    if (index === -1) throw new Error('the scripted model got a task it does not know');
    const solution = readFileSync(join(PACKAGE_ROOT, (rows[index] as Row).task_folder, 'solution', 'solve.sh'), 'utf8');
    const acted = input.some((item) => item.type === 'function_call_output');
    const output: ResponseItem[] =
      acted || !solves(index)
        ? [assistantMessage(acted ? 'Done.' : 'I cannot do this.', { id: `msg_example_${index}` })]
        : [functionCall('bash', { command: `bash <<'NGYM_SOLUTION'\n${solution}NGYM_SOLUTION` }, `call_example_${index}`)];
    return { id: `resp_example_${index}_${acted ? 2 : 1}`, created_at: 1_704_067_200 + index, model: 'example-model', output, usage: usage(300 + index, 60) };
  });
}
