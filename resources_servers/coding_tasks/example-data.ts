/**
 * The environment's example tasks (ours) and the scripted fixes of their example rollouts.
 * `data/example.jsonl` and `data/example_rollouts.jsonl` are written from here, by running each task through
 * simple_agent and the real server (so the commands and tests run in the sandbox):
 *
 *   npx tsx resources_servers/coding_tasks/example-data.ts
 *
 * The scripted model reads the buggy file, writes its fix, checks it with a quiet test command and answers.
 * Rewards: 1 for the first four; 0 for the fifth, where the model edits the test instead of the code (verify
 * puts the task's test back, and the bug is still there).
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FunctionCallOutputItem, ResponseItem } from 'ngym';
import { assistantMessage, exampleData, functionCall, scriptedModel, writeExampleData } from 'ngym/testing';
import definition from './app.ts';
import type { TaskFile } from './workspace.ts';

export const EXAMPLE_DATA = exampleData('coding_tasks');

interface ExampleTask {
  task_id: string;
  /** The file with the bug, as the task gives it. */
  source: TaskFile;
  test: TaskFile;
  test_command: string[];
  /** What the scripted model writes, and where (the source, or the test for the task it games). */
  written: TaskFile;
}

const python = (task_id: string, source: TaskFile, test: TaskFile, fixed: string): ExampleTask => ({
  task_id,
  source,
  test,
  test_command: ['python3', '-m', 'unittest', test.path.replace(/\.py$/, '')],
  written: { path: source.path, content: fixed },
});

const javascript = (task_id: string, source: TaskFile, test: TaskFile, fixed: string): ExampleTask => ({
  task_id,
  source,
  test,
  test_command: ['node', '--test', test.path],
  written: { path: source.path, content: fixed },
});

const SUM_TO = 'def sum_to(n):\n    """Return 1 + 2 + ... + n, and 0 when n < 1."""\n    total = 0\n    for value in range(1, n):\n        total += value\n    return total\n';
const LEAP_YEAR = 'def is_leap_year(year):\n    """Gregorian calendar: every fourth year, except centuries not divisible by 400."""\n    return year % 4 == 0 and year % 100 != 0 and year % 400 == 0\n';
const AVERAGE = 'def average(values):\n    """The mean of values; 0.0 for an empty list."""\n    return sum(values) / len(values)\n';
const LAST_ITEMS = "function lastItems(items, count) {\n  // The last `count` items, in order; all of them when there are fewer.\n  return items.slice(items.length - count - 1);\n}\n\nmodule.exports = { lastItems };\n";
const CLAMP = "function clamp(value, low, high) {\n  // value, moved into [low, high].\n  if (value < low) return high;\n  if (value > high) return low;\n  return value;\n}\n\nmodule.exports = { clamp };\n";

const CLAMP_TEST =
  "const test = require('node:test');\nconst assert = require('node:assert');\nconst { clamp } = require('./clamp.js');\n\ntest('inside the range', () => assert.strictEqual(clamp(5, 0, 10), 5));\ntest('below and above', () => {\n  assert.strictEqual(clamp(-3, 0, 10), 0);\n  assert.strictEqual(clamp(12, 0, 10), 10);\n});\n";

export const EXAMPLE_TASKS: ExampleTask[] = [
  python(
    'sum_to_off_by_one',
    { path: 'sum_to.py', content: SUM_TO },
    {
      path: 'test_sum_to.py',
      content:
        'import unittest\n\nfrom sum_to import sum_to\n\n\nclass SumToTest(unittest.TestCase):\n    def test_small(self):\n        self.assertEqual(sum_to(1), 1)\n        self.assertEqual(sum_to(5), 15)\n\n    def test_zero_and_negative(self):\n        self.assertEqual(sum_to(0), 0)\n        self.assertEqual(sum_to(-3), 0)\n\n\nif __name__ == "__main__":\n    unittest.main()\n',
    },
    SUM_TO.replace('range(1, n)', 'range(1, n + 1)'),
  ),
  python(
    'leap_year_operator',
    { path: 'calendar_rules.py', content: LEAP_YEAR },
    {
      path: 'test_calendar_rules.py',
      content:
        'import unittest\n\nfrom calendar_rules import is_leap_year\n\n\nclass LeapYearTest(unittest.TestCase):\n    def test_ordinary_years(self):\n        self.assertTrue(is_leap_year(2024))\n        self.assertFalse(is_leap_year(2023))\n\n    def test_centuries(self):\n        self.assertFalse(is_leap_year(1900))\n        self.assertTrue(is_leap_year(2000))\n\n\nif __name__ == "__main__":\n    unittest.main()\n',
    },
    LEAP_YEAR.replace('year % 100 != 0 and year % 400 == 0', '(year % 100 != 0 or year % 400 == 0)'),
  ),
  python(
    'average_empty_list',
    { path: 'stats.py', content: AVERAGE },
    {
      path: 'test_stats.py',
      content:
        'import unittest\n\nfrom stats import average\n\n\nclass AverageTest(unittest.TestCase):\n    def test_values(self):\n        self.assertEqual(average([1, 2, 3, 6]), 3.0)\n\n    def test_empty(self):\n        self.assertEqual(average([]), 0.0)\n\n\nif __name__ == "__main__":\n    unittest.main()\n',
    },
    AVERAGE.replace('    return sum', '    if not values:\n        return 0.0\n    return sum'),
  ),
  javascript(
    'last_items_off_by_one',
    { path: 'last-items.js', content: LAST_ITEMS },
    {
      path: 'last-items.test.js',
      content:
        "const test = require('node:test');\nconst assert = require('node:assert');\nconst { lastItems } = require('./last-items.js');\n\ntest('the last two', () => assert.deepStrictEqual(lastItems([1, 2, 3, 4], 2), [3, 4]));\ntest('more than there are', () => assert.deepStrictEqual(lastItems([1, 2], 5), [1, 2]));\ntest('none', () => assert.deepStrictEqual(lastItems([1, 2], 0), []));\n",
    },
    LAST_ITEMS.replace('items.slice(items.length - count - 1)', 'items.slice(Math.max(items.length - count, 0))'),
  ),
  {
    ...javascript('clamp_swapped_bounds', { path: 'clamp.js', content: CLAMP }, { path: 'clamp.test.js', content: CLAMP_TEST }, CLAMP),
    // Games the task: makes the test expect the bug. Verify restores the test, so the reward is 0.
    written: { path: 'clamp.test.js', content: CLAMP_TEST.replace("clamp(-3, 0, 10), 0)", 'clamp(-3, 0, 10), 10)').replace('clamp(12, 0, 10), 10)', 'clamp(12, 0, 10), 0)') },
  },
];

function prompt(task: ExampleTask): string {
  return (
    `The tests of this workspace fail. They are ${task.test.path}, run with \`${task.test_command.join(' ')}\`. ` +
    `Find the bug in ${task.source.path} and fix it so that the tests pass, without changing the tests. ` +
    'Use the tools to list, read and write files, run shell commands and run the tests; answer briefly when done.'
  );
}

export function exampleRows(): Record<string, unknown>[] {
  return EXAMPLE_TASKS.map((task) => ({
    responses_create_params: { input: [{ role: 'user', content: prompt(task) }], tools: definition.toolDefinitions() },
    task_id: task.task_id,
    files: [task.source, task.test],
    test_files: [task.test.path],
    test_command: task.test_command,
  }));
}

/** A test command whose output is the same on every run (no timings), so the recordings replay strictly. */
const quietCheck = (task: ExampleTask) => `${task.test_command.join(' ')} >/dev/null 2>&1 && echo "tests pass" || echo "tests fail"`;

const userText = (input: ResponseItem[]) => input.find((item) => 'role' in item && item.role === 'user' && typeof item.content === 'string')?.content as string | undefined;

/** Reads, writes the fix, checks it, answers: one step per call, chosen by how many tool outputs came back. */
function fixingModel() {
  return scriptedModel(({ input }) => {
    const text = userText(input);
    const task = EXAMPLE_TASKS.find((candidate) => prompt(candidate) === text);
    if (task === undefined) throw new Error(`the scripted model got a prompt that is not an example task: ${text}`);
    const outputs = input.filter((item): item is FunctionCallOutputItem => item.type === 'function_call_output');
    switch (outputs.length) {
      case 0:
        return [functionCall('read_file', { path: task.source.path })];
      case 1:
        return [functionCall('write_file', task.written)];
      case 2:
        return [functionCall('run_command', { command: quietCheck(task) })];
      default:
        return [assistantMessage(`I edited ${task.written.path}; the check says: ${String(outputs.at(-1)?.output)}`)];
    }
  });
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await writeExampleData(EXAMPLE_DATA, exampleRows(), fixingModel().definition);
  process.stdout.write(`wrote ${EXAMPLE_DATA.examplePath} and ${EXAMPLE_DATA.rolloutsPath}\n`);
}
