/**
 * The environment's example tasks (ours) and the answers of their example rollouts. `data/example.jsonl`
 * and `data/example_rollouts.jsonl` are written from here, by running each answer through simple_agent and
 * the real server (so its code runs in the sandbox):
 *
 *   npx tsx resources_servers/code_gen/example-data.ts
 *
 * Rewards: 1 (correct), 1 (a yes/no verdict in another case), 1 (a float within tolerance), 0 (wrong
 * answer on the second test), 0 (a runtime error on the third test).
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assistantMessage, exampleData, scriptedModel, usage, writeExampleData } from 'ngym/testing';

export const EXAMPLE_DATA = exampleData('code_gen');

const INSTRUCTIONS =
  'You are a helpful and harmless assistant. You should think step-by-step before responding to the instruction below.\n\n' +
  'Please use python programming language only.\n\n' +
  'You must use ```python for just the final solution code block with the following format:\n```python\n# Your code here\n```\n\n';

interface ExampleTask {
  statement: string;
  inputs: string[];
  outputs: string[];
  /** The example rollout's answer: reasoning, then the code block. */
  answer: string;
}

const fenced = (intro: string, code: string) => `${intro}\n\n\`\`\`python\n${code}\n\`\`\``;

export const EXAMPLE_TASKS: ExampleTask[] = [
  {
    statement:
      'Given an array of n integers, print the largest sum of a non-empty contiguous subarray.\n\n-----Input-----\nThe first line contains n (1 <= n <= 2*10^5). The second line contains n integers a_i (-10^9 <= a_i <= 10^9).\n\n-----Output-----\nPrint one integer.\n\n-----Example-----\nInput\n5\n-2 1 -3 4 -1\n\nOutput\n4',
    inputs: ['5\n-2 1 -3 4 -1\n', '1\n-7\n', '6\n2 -1 2 -1 2 -10\n', '4\n1000000000 1000000000 1000000000 1000000000\n'],
    outputs: ['4\n', '-7\n', '4\n', '4000000000\n'],
    answer: fenced(
      "Kadane's algorithm: keep the best sum of a subarray ending at each position.",
      'import sys\n\ndef main():\n    data = sys.stdin.read().split()\n    n = int(data[0])\n    best = current = int(data[1])\n    for value in map(int, data[2:n + 1]):\n        current = max(value, current + value)\n        best = max(best, current)\n    print(best)\n\nmain()',
    ),
  },
  {
    statement:
      'For each of t strings made of the characters ()[]{}, print YES if its brackets are balanced and NO otherwise.\n\n-----Input-----\nThe first line contains t. Each of the next t lines holds one non-empty string.\n\n-----Output-----\nPrint t lines.',
    inputs: ['3\n()[]{}\n([)]\n{[()]}\n', '2\n(((\n)(\n', '1\n[]\n'],
    outputs: ['YES\nNO\nYES\n', 'NO\nNO\n', 'YES\n'],
    answer: fenced(
      'A stack of open brackets; a closing bracket must match the top.',
      'pairs = {")": "(", "]": "[", "}": "{"}\nfor _ in range(int(input())):\n    stack = []\n    ok = True\n    for ch in input().strip():\n        if ch in pairs:\n            if not stack or stack.pop() != pairs[ch]:\n                ok = False\n                break\n        else:\n            stack.append(ch)\n    print("Yes" if ok and not stack else "No")',
    ),
  },
  {
    statement:
      'Print the average of n numbers. Answers within an absolute or relative error of 10^-6 are accepted.\n\n-----Input-----\nThe first line contains n, the second n integers.\n\n-----Output-----\nThe average, with at least six digits after the decimal point.',
    inputs: ['3\n1 2 2\n', '2\n-1 2\n', '4\n10 10 10 11\n'],
    outputs: ['1.666667\n', '0.500000\n', '10.250000\n'],
    answer: fenced('Sum divided by count; Python prints enough digits.', 'n = int(input())\nvalues = list(map(int, input().split()))\nprint(sum(values) / n)'),
  },
  {
    statement:
      'Count the distinct words of a line, ignoring letter case.\n\n-----Input-----\nOne line of words separated by spaces.\n\n-----Output-----\nThe number of distinct words.',
    inputs: ['apple banana apple\n', 'The the THE cat\n', 'one\n'],
    outputs: ['2\n', '2\n', '1\n'],
    // Forgets the case: counts "The", "the", "THE" as three words.
    answer: fenced('A set of the words gives the distinct ones.', 'print(len(set(input().split())))'),
  },
  {
    statement:
      'Print the second largest distinct value of an array, or -1 if it has fewer than two distinct values.\n\n-----Input-----\nThe first line contains n, the second n integers.\n\n-----Output-----\nOne integer.',
    inputs: ['4\n3 1 4 1\n', '3\n5 5 4\n', '2\n7 7\n'],
    outputs: ['3\n', '4\n', '-1\n'],
    // Fails on the third test: one distinct value leaves no second element.
    answer: fenced('Sort the distinct values and take the second from the end.', 'input()\nvalues = sorted(set(map(int, input().split())))\nprint(values[-2])'),
  },
];

export function exampleRows(): Record<string, unknown>[] {
  return EXAMPLE_TASKS.map((task, index) => ({
    responses_create_params: { input: [{ role: 'user', content: INSTRUCTIONS + task.statement }] },
    verifier_metadata: { unit_tests: { inputs: task.inputs, outputs: task.outputs } },
    hash_id: `ngym-code-gen-${index + 1}`,
    dataset: 'ngym',
    source: 'ngym',
  }));
}

/** The policy model of the example rollouts: it gives each task's answer. */
function exampleModel() {
  return scriptedModel(({ input }) => {
    const last = input.at(-1) as { content?: unknown };
    const index = EXAMPLE_TASKS.findIndex((task) => INSTRUCTIONS + task.statement === last.content);
    const task = EXAMPLE_TASKS[index] as ExampleTask;
    return { id: `resp_example_${index}`, created_at: 1_701_388_740, model: 'example-model', output: [assistantMessage(task.answer, { id: `msg_example_${index}` })], usage: usage(400, 150) };
  });
}

async function main(): Promise<void> {
  await writeExampleData(EXAMPLE_DATA, exampleRows(), exampleModel().definition);
  process.stdout.write(`wrote ${EXAMPLE_DATA.examplePath} and ${EXAMPLE_DATA.rolloutsPath}\n`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
