/**
 * The environment's example tasks (ours) and the turns of their example rollouts. `data/example.jsonl` and
 * `data/example_rollouts.jsonl` are written from here by running the turns through simple_agent and the
 * real server (so the code runs in the sandbox and the tool outputs are real):
 *
 *   npx tsx resources_servers/math_with_code/example-data.ts
 *
 * Rewards, by the default rule (upstream 0.7.0's): 1 (variables kept across calls), 0 (\dfrac{1}{4} for 0.25:
 * equal only for the math verifier of `math_verify: true`), 0 (a NameError for `sorted`, then a wrong answer),
 * 1 (the boxed answer printed by the code), 0 (no boxed answer).
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assistantMessage, exampleData, functionCall, scriptedModel, usage, writeExampleData } from 'ngym/testing';
import definition from './app.ts';

export const EXAMPLE_DATA = exampleData('math_with_code');

export const SYSTEM_PROMPT =
  '# Instructions\nYou are a math assistant. Use the execute_python tool to run Python code for calculations; print what you need to see, since only stdout comes back. Variables stay defined between calls, so you can work step by step. numpy, scipy and pandas are available. When you are done, give the final answer as \\boxed{your_answer}.';

interface ExampleTask {
  question: string;
  expected: string;
  /** The code of each execute_python call, in order; then the final answer. */
  calls: string[];
  answer: string;
}

export const EXAMPLE_TASKS: ExampleTask[] = [
  {
    question: 'How many positive integers below 1000 are divisible by 7 but not by 11?',
    expected: '130',
    calls: ['multiples_of_7 = [n for n in range(1, 1000) if n % 7 == 0]\nprint(len(multiples_of_7))', 'print(len([n for n in multiples_of_7 if n % 11 != 0]))'],
    answer: 'There are 142 multiples of 7 below 1000, 12 of which are also multiples of 11, so the answer is \\boxed{130}.',
  },
  {
    question: 'Two fair coins are tossed. What is the probability that both show heads? Give a decimal.',
    expected: '0.25',
    calls: ['import itertools\noutcomes = list(itertools.product("HT", repeat=2))\nlen([o for o in outcomes if o == ("H", "H")]) / len(outcomes)'],
    answer: 'One of the four equally likely outcomes is two heads: \\boxed{\\dfrac{1}{4}}.',
  },
  {
    question: 'What is the median of the numbers 7, 3, 9, 1, 5, 8?',
    expected: '6',
    calls: ['values = sorted([7, 3, 9, 1, 5, 8])\nprint(values)', 'print(np.median([7, 3, 9, 1, 5, 8]))'],
    answer: 'The median is \\boxed{6.5}.',
  },
  {
    question: 'Find the determinant of the matrix [[2, 1], [7, 4]].',
    expected: '1',
    calls: ['d = int(np.rint(np.linalg.det(np.array([[2, 1], [7, 4]]))))', 'print("\\\\boxed{" + str(d) + "}")'],
    answer: 'The code computed it above.',
  },
  {
    question: 'What is the sum of the first 50 odd numbers?',
    expected: '2500',
    calls: ['print(sum(range(1, 100, 2)))'],
    answer: 'The sum is 2500.',
  },
];

export function exampleRows(): Record<string, unknown>[] {
  return EXAMPLE_TASKS.map((task, index) => ({
    id: index,
    responses_create_params: {
      input: [
        { role: 'system', content: SYSTEM_PROMPT },
        { role: 'user', content: task.question },
      ],
      tools: definition.toolDefinitions(),
      parallel_tool_calls: false,
    },
    expected_result: task.expected,
    expected_code_contains: '',
  }));
}

function exampleModel() {
  return scriptedModel(({ input }) => {
    const question = input.find((item) => 'role' in item && item.role === 'user');
    const taskIndex = EXAMPLE_TASKS.findIndex((task) => question !== undefined && 'content' in question && task.question === question.content);
    const task = EXAMPLE_TASKS[taskIndex] as ExampleTask;
    const step = input.filter((item) => item.type === 'function_call_output').length;
    const id = `${taskIndex}_${step}`;
    const code = task.calls[step];
    const output = code === undefined ? [assistantMessage(task.answer, { id: `msg_example_${id}` })] : [functionCall('execute_python', { code }, `call_example_${id}`)];
    return { id: `resp_example_${id}`, created_at: 1_701_388_740 + step, model: 'example-model', output, usage: usage(700 + 100 * step, 60) };
  });
}

async function main(): Promise<void> {
  await writeExampleData(EXAMPLE_DATA, exampleRows(), exampleModel().definition);
  process.stdout.write(`wrote ${EXAMPLE_DATA.examplePath} and ${EXAMPLE_DATA.rolloutsPath}\n`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
