/**
 * Three small SWE-bench-style instances of ours (tiny Python repositories under data/repos/, each with a
 * bug, an issue, a gold patch and a test patch whose new test fails before the fix) and the example
 * rollouts of the agent on them. `data/example.jsonl` and `data/example_rollouts.jsonl` are written from
 * here: the rows (base commits, patches) with the host's git, the rollouts by running scripted model turns
 * through the agent, so every command really runs in the sandbox:
 *
 *   npx tsx responses_api_agents/mini_swe_agent/example-data.ts
 *
 * Rewards: 1 (fixed and submitted), 1 (fixed after a format error), 0 (a wrong fix submitted).
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGE_ROOT } from 'ngym/runtime';
import { assistantMessage, type ExampleData, scriptedModel, usage, writeExampleData } from 'ngym/testing';
import { COMMIT_IDENTITY } from './app.ts';

const FOLDER = join(PACKAGE_ROOT, 'responses_api_agents', 'mini_swe_agent');
export const REPOS_DIR = join(FOLDER, 'data', 'repos');

export const EXAMPLE_DATA: ExampleData = {
  configPath: 'responses_api_agents/mini_swe_agent/configs/mini_swe_agent.yaml',
  agent: 'mini_swe_simple_agent',
  examplePath: join(FOLDER, 'data', 'example.jsonl'),
  rolloutsPath: join(FOLDER, 'data', 'example_rollouts.jsonl'),
};

interface ExampleTask {
  instanceId: string;
  repo: string;
  problem: string;
  /** The gold patch: per file, the text it replaces and the replacement. */
  fix: Record<string, [string, string]>;
  /** The test patch: per test file, the tests it appends. */
  tests: Record<string, string>;
  failToPass: string[];
  passToPass: string[];
  /** The model's answers, turn by turn (each one bash block, or a mistake). */
  turns: string[];
}

const step = (thought: string, command: string) => `THOUGHT: ${thought}\n\n\`\`\`bash\n${command}\n\`\`\``;
const SUBMIT = step('The change is done and checked; submitting.', 'echo MINI_SWE_AGENT_FINAL_OUTPUT && git add -A && git diff --cached');

export const EXAMPLE_TASKS: ExampleTask[] = [
  {
    instanceId: 'ngym__fractions_calc-1',
    repo: 'ngym/fractions_calc',
    problem: 'add() does not reduce its result\n\n`add((1, 4), (1, 4))` returns `(8, 16)`. The README says results are in lowest terms, and `mul()` already reduces: `add` should return `(1, 2)` here.',
    fix: { 'fractions_calc/__init__.py': ['    return (numerator, denominator)\n', '    return reduce((numerator, denominator))\n'] },
    tests: { 'tests/test_calc.py': '\n\ndef test_add_reduces():\n    assert add((1, 4), (1, 4)) == (1, 2)\n    assert add((1, 6), (-1, 3)) == (-1, 6)\n' },
    failToPass: ['tests/test_calc.py::test_add_reduces'],
    passToPass: ['tests/test_calc.py::test_reduce', 'tests/test_calc.py::test_reduce_zero_denominator', 'tests/test_calc.py::test_mul_reduces', 'tests/test_calc.py::test_add_values'],
    turns: [
      step('Let me see how add and mul are written.', 'cat fractions_calc/__init__.py'),
      step(
        'add builds the sum but never reduces it, unlike mul. I will return the reduced fraction and check the example from the issue.',
        "sed -i 's/^    return (numerator, denominator)$/    return reduce((numerator, denominator))/' fractions_calc/__init__.py && python3 -c 'from fractions_calc import add; print(add((1, 4), (1, 4)), add((1, 6), (-1, 3)))'",
      ),
      SUBMIT,
    ],
  },
  {
    instanceId: 'ngym__slugify-1',
    repo: 'ngym/slugify',
    problem: 'Slugs keep upper-case letters\n\n`slugify("Hello World")` gives `Hello-World`, but the docstring (and our URLs) expect `hello-world`.',
    fix: { 'slugify.py': ['    return "-".join(words)\n', '    return "-".join(words).lower()\n'] },
    tests: { 'tests/test_slugify.py': '\n\ndef test_lowercases():\n    assert slugify("Hello World") == "hello-world"\n' },
    failToPass: ['tests/test_slugify.py::test_lowercases'],
    passToPass: ['tests/test_slugify.py::test_joins_words', 'tests/test_slugify.py::test_drops_punctuation'],
    turns: [
      // Two commands in two blocks: the agent answers with its format error.
      'I will look at the code and at the tests.\n\n```bash\ncat slugify.py\n```\n\n```bash\ncat tests/test_slugify.py\n```',
      step('One command this time.', 'cat slugify.py'),
      step('The words are joined but never lower-cased.', 'sed -i \'s/    return "-".join(words)$/    return "-".join(words).lower()/\' slugify.py && python3 -c \'from slugify import slugify; print(slugify("Hello World"))\''),
      SUBMIT,
    ],
  },
  {
    instanceId: 'ngym__pager-1',
    repo: 'ngym/pager',
    problem: 'page(items, 1, size) skips the first page\n\nPages are numbered from 1, but `page(list(range(10)), 1, 3)` returns `[3, 4, 5]` instead of `[0, 1, 2]`.',
    fix: { 'pager.py': ['    start = number * size\n', '    start = (number - 1) * size\n'] },
    tests: { 'tests/test_pager.py': '\n\ndef test_first_and_last_page():\n    items = list(range(10))\n    assert page(items, 1, 3) == [0, 1, 2]\n    assert page(items, 4, 3) == [9]\n' },
    failToPass: ['tests/test_pager.py::test_first_and_last_page'],
    passToPass: ['tests/test_pager.py::test_page_count', 'tests/test_pager.py::test_empty'],
    turns: [
      step('Let me read page().', 'cat pager.py'),
      // A wrong fix: the first page starts at item 1.
      step('The start is one page too far; I will subtract one item.', "sed -i 's/    start = number \\* size$/    start = number * size - size + 1/' pager.py && python3 -c 'from pager import page; print(page(list(range(10)), 1, 3))'"),
      SUBMIT,
    ],
  },
];

function git(directory: string, args: string[]): string {
  return execFileSync('git', args, { cwd: directory, env: { ...process.env, ...COMMIT_IDENTITY }, encoding: 'utf8' });
}

/** The base commit of a task's repository, and its gold and test patches as `git diff` prints them. */
function taskCommits(task: ExampleTask): { baseCommit: string; patch: string; testPatch: string } {
  const directory = mkdtempSync(join(tmpdir(), 'ngym-swe-task-'));
  try {
    cpSync(join(REPOS_DIR, task.repo), directory, { recursive: true });
    git(directory, ['init', '-q', '-b', 'main']);
    git(directory, ['add', '-A']);
    git(directory, ['commit', '-q', '-m', 'base']);
    const baseCommit = git(directory, ['rev-parse', 'HEAD']).trim();
    const diff = (change: () => void) => {
      change();
      const text = git(directory, ['diff']);
      git(directory, ['checkout', '-q', '--', '.']);
      return text;
    };
    const patch = diff(() => {
      for (const [path, [before, after]] of Object.entries(task.fix)) {
        const text = readFileSync(join(directory, path), 'utf8');
        if (!text.includes(before)) throw new Error(`${task.instanceId}: ${path} has no ${JSON.stringify(before)}`);
        writeFileSync(join(directory, path), text.replace(before, after));
      }
    });
    const testPatch = diff(() => {
      for (const [path, tests] of Object.entries(task.tests)) appendFileSync(join(directory, path), tests);
    });
    return { baseCommit, patch, testPatch };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

export function exampleRows(): Record<string, unknown>[] {
  return EXAMPLE_TASKS.map((task) => {
    const { baseCommit, patch, testPatch } = taskCommits(task);
    return {
      instance_id: task.instanceId,
      hints_text: '',
      patch,
      test_patch: testPatch,
      created_at: '2024-01-01T00:00:00Z',
      problem_statement: task.problem,
      repo: task.repo,
      base_commit: baseCommit,
      version: '0.1',
      PASS_TO_PASS: task.passToPass,
      FAIL_TO_PASS: task.failToPass,
      subset: 'ngym',
      split: 'example',
      responses_create_params: { input: [] },
    };
  });
}

/** The policy model of the example rollouts: each task's turns, in order. */
function exampleModel() {
  return scriptedModel(({ input }) => {
    const instance = input.find((item) => 'role' in item && item.role === 'user' && typeof item.content === 'string');
    const taskIndex = EXAMPLE_TASKS.findIndex((task) => instance !== undefined && 'content' in instance && String(instance.content).includes(task.problem));
    const task = EXAMPLE_TASKS[taskIndex] as ExampleTask;
    const turn = input.filter((item) => 'role' in item && item.role === 'assistant').length;
    const id = `${taskIndex}_${turn}`;
    return {
      id: `resp_example_${id}`,
      created_at: 1_701_388_740 + turn,
      model: 'example-model',
      output: [assistantMessage(task.turns[turn] as string, { id: `msg_example_${id}` })],
      usage: usage(3000 + 400 * turn, 80),
    };
  });
}

async function main(): Promise<void> {
  await writeExampleData(EXAMPLE_DATA, exampleRows(), exampleModel().definition);
  process.stdout.write(`wrote ${EXAMPLE_DATA.examplePath} and ${EXAMPLE_DATA.rolloutsPath}\n`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
