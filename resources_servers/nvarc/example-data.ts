/**
 * The environment's example tasks (ours: small ARC-style puzzles) and the answers of their example rollouts.
 * `data/example.jsonl` and `data/example_rollouts.jsonl` are written from here by running the answers through the
 * transductive config's simple_agent and the real server (the inductive rows name their mode, so their programs run
 * in the sandbox):
 *
 *   npx tsx resources_servers/nvarc/example-data.ts
 *
 * Rewards: 1 (a boxed grid), 0 (a boxed grid one cell off), 1 (plain rows after a <think> block), 1 (a numpy
 * program), 0 (a program whose `class` statement the runner refuses, as upstream's does).
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assistantMessage, type ExampleData, exampleData, scriptedModel, usage, writeExampleData } from 'ngym/testing';
import type { Grid } from './grid.ts';

// Upstream's config files are named by mode, not after the environment.
export const EXAMPLE_DATA: ExampleData = { ...exampleData('nvarc'), configPath: 'resources_servers/nvarc/configs/transductive.yaml', agent: 'nvarc_transductive_simple_agent' };

const TRANSDUCTIVE_PROMPT =
  'Each puzzle shows input grids and the output grids a hidden rule makes from them. Colors are the digits 0-9. Work out the rule, apply it to the test input, and answer with the test output only, as \\boxed{...} holding one row per line with the digits separated by spaces.';
const INDUCTIVE_PROMPT =
  'Each puzzle shows input grids and the output grids a hidden rule makes from them. Colors are the digits 0-9. Write the rule as a Python function `transform(grid: list[list[int]]) -> list[list[int]]` in one ```python block; numpy is available. Your function is run on the test input.';

interface ExampleTask {
  id: string;
  mode: 'transductive' | 'inductive';
  train: { input: Grid; output: Grid }[];
  testInput: Grid;
  expected: Grid;
  /** The example rollout's answer. */
  answer: string;
}

const rowsOf = (grid: Grid) => grid.map((row) => row.join(' ')).join('\n');

export const EXAMPLE_TASKS: ExampleTask[] = [
  {
    id: 'mirror_rows',
    mode: 'transductive',
    train: [
      { input: [[1, 0, 0], [2, 2, 0]], output: [[0, 0, 1], [0, 2, 2]] },
      { input: [[3, 4], [0, 5], [6, 0]], output: [[4, 3], [5, 0], [0, 6]] },
    ],
    testInput: [[7, 0, 0, 1], [0, 8, 0, 0], [9, 9, 0, 2]],
    expected: [[1, 0, 0, 7], [0, 0, 8, 0], [2, 0, 9, 9]],
    answer: 'Every row is read right to left.\n\n\\boxed{1 0 0 7\n0 0 8 0\n2 0 9 9}',
  },
  {
    id: 'blue_to_red',
    mode: 'transductive',
    train: [
      { input: [[1, 0], [0, 1]], output: [[2, 0], [0, 2]] },
      { input: [[1, 1, 3], [0, 0, 1]], output: [[2, 2, 3], [0, 0, 2]] },
    ],
    testInput: [[3, 1, 1], [1, 0, 4], [0, 1, 0]],
    expected: [[3, 2, 2], [2, 0, 4], [0, 2, 0]],
    answer: 'Blue (1) becomes red (2), other colors stay.\n\\boxed{\n3 2 2\n2 0 4\n0 1 0\n}',
  },
  {
    id: 'transpose_square',
    mode: 'transductive',
    train: [{ input: [[1, 2], [3, 4]], output: [[1, 3], [2, 4]] }],
    testInput: [[5, 0, 6], [0, 7, 0], [8, 0, 9]],
    expected: [[5, 0, 8], [0, 7, 0], [6, 0, 9]],
    answer: '<think>Rows become columns. First row of the output: 5 0 8.</think>\n5 0 8\n0 7 0\n6 0 9',
  },
  {
    id: 'double_width',
    mode: 'inductive',
    train: [
      { input: [[1, 2]], output: [[1, 1, 2, 2]] },
      { input: [[3], [4]], output: [[3, 3], [4, 4]] },
    ],
    testInput: [[5, 0], [0, 6]],
    expected: [[5, 5, 0, 0], [0, 0, 6, 6]],
    answer: 'Each cell is repeated once to its right.\n\n```python\nimport numpy as np\n\ndef transform(grid):\n    return np.repeat(np.array(grid), 2, axis=1).tolist()\n```',
  },
  {
    id: 'frame_border',
    mode: 'inductive',
    train: [
      { input: [[0, 0, 0], [0, 0, 0], [0, 0, 0]], output: [[4, 4, 4], [4, 0, 4], [4, 4, 4]] },
      { input: [[0, 0], [0, 0]], output: [[4, 4], [4, 4]] },
    ],
    testInput: [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]],
    expected: [[4, 4, 4, 4], [4, 0, 0, 4], [4, 4, 4, 4]],
    answer:
      'A yellow frame is drawn around the grid.\n\n```python\nclass Frame:\n    def __init__(self, grid):\n        self.rows, self.cols = len(grid), len(grid[0])\n\n    def draw(self):\n        return [[4 if r in (0, self.rows - 1) or c in (0, self.cols - 1) else 0 for c in range(self.cols)] for r in range(self.rows)]\n\ndef transform(grid):\n    return Frame(grid).draw()\n```',
  },
];

function userPrompt(task: ExampleTask): string {
  const examples = task.train.map((pair, index) => `Example ${index + 1}\nInput:\n${rowsOf(pair.input)}\nOutput:\n${rowsOf(pair.output)}`);
  return `Solve this puzzle.\n\n${examples.join('\n\n')}\n\nTest input:\n${rowsOf(task.testInput)}`;
}

export function exampleRows(): Record<string, unknown>[] {
  return EXAMPLE_TASKS.map((task) => ({
    responses_create_params: {
      input: [
        { role: 'system', content: task.mode === 'inductive' ? INDUCTIVE_PROMPT : TRANSDUCTIVE_PROMPT },
        { role: 'user', content: userPrompt(task) },
      ],
    },
    train: task.train,
    test_input: task.testInput,
    expected_output: task.expected,
    task_id: task.id,
    problem_id: task.id,
    variant: task.mode === 'inductive' ? 'python_inductive' : 'transductive',
    agent_mode: task.mode,
  }));
}

function exampleModel() {
  return scriptedModel(({ input }) => {
    const question = input.find((item) => 'role' in item && item.role === 'user');
    const index = EXAMPLE_TASKS.findIndex((task) => question !== undefined && 'content' in question && question.content === userPrompt(task));
    const task = EXAMPLE_TASKS[index] as ExampleTask;
    return { id: `resp_example_${index}`, created_at: 1_701_388_740 + index, model: 'example-model', output: [assistantMessage(task.answer, { id: `msg_example_${index}` })], usage: usage(400 + 20 * index, 60) };
  });
}

async function main(): Promise<void> {
  await writeExampleData(EXAMPLE_DATA, exampleRows(), exampleModel().definition);
  process.stdout.write(`wrote ${EXAMPLE_DATA.examplePath} and ${EXAMPLE_DATA.rolloutsPath}\n`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
