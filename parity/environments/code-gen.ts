/**
 * code_gen: upstream 0.7.0's example rollouts (joined to their rows) and ngym's, then generated problems with
 * stdin tests (sum, maximum, yes/no, a float quotient, reversed words) and call-based ones (`Solution().<fn>`:
 * add, maximum, reverse a string), plain or packed (zlib + base64, as upstream's large datasets store them), and
 * solutions a policy writes: right (with `input()`, `sys.stdin.read()`, a `main()` under `__main__`, `exit()`,
 * trailing spaces, `Yes` for `YES`, a float for an int), wrong (off by one, on one test only, no output, the wrong
 * case of a word, None returned), a syntax error, an exception (on every test or one), an infinite loop or a
 * sleep past the limit (the servers' limit is 2 s here); fenced ```` ```python ````, fenced without a language,
 * unfenced, two code blocks (the last counts), prose after the block, an unclosed fence (truncated), `<think>`
 * left in the answer, reasoning with two `<think>`, two messages, empty and blank text, a tool call only.
 * Compared: reward, the extracted output and code, `result` (per-test verdicts), the format-violation rate and
 * difficulty, and `metadata` without its execution time and traceback (file paths).
 */
import { deflateSync } from 'node:zlib';
import { type ParityCase, callOutput, dataRows, response, rolloutCase, textOutput, truncate, upstreamRolloutCases } from '../cases.ts';
import type { ParityEnvironment } from '../environment.ts';
import type { ResponseItem } from '../../src/protocol/index.ts';
import type { SeededRandom as Random } from 'ngym';

interface Problem {
  name: string;
  fn_name?: string;
  tests: (random: Random) => { inputs: string[]; outputs: string[] };
  /** Solutions by kind; `right*` pass every test, the others fail one. */
  solutions: Record<string, string>;
}

const ints = (random: Random, count: number) => Array.from({ length: count }, () => random.int(-50, 99));

const STDIN: Problem[] = [
  {
    name: 'sum',
    tests: (random) => {
      const pairs = Array.from({ length: random.int(1, 4) }, () => ints(random, 2));
      return { inputs: pairs.map(([a, b]) => `${a} ${b}\n`), outputs: pairs.map(([a, b]) => `${(a as number) + (b as number)}\n`) };
    },
    solutions: {
      right: 'a, b = map(int, input().split())\nprint(a + b)',
      right_stdin_read: 'import sys\na, b = map(int, sys.stdin.read().split())\nsys.stdout.write(str(a + b) + "\\n")',
      right_main: 'def main():\n    a, b = map(int, input().split())\n    print(a + b)\n\nif __name__ == "__main__":\n    main()',
      right_exit: 'a, b = map(int, input().split())\nprint(a + b)\nexit()\nprint("never")',
      right_open0: 'a, b = map(int, open(0).read().split())\nprint(a + b)',
      right_blank_lines: 'a, b = map(int, input().split())\nprint()\nprint(a + b)\nprint()',
      right_trailing_space: 'a, b = map(int, input().split())\nprint(a + b, end="  \\n")',
      wrong_off_by_one: 'a, b = map(int, input().split())\nprint(a + b + 1)',
      wrong_on_negative: 'a, b = map(int, input().split())\nprint(abs(a) + abs(b))',
      wrong_no_output: 'a, b = map(int, input().split())',
      syntax_error: 'a, b = map(int, input().split()\nprint(a + b)',
      exception: 'a, b = map(int, input().split())\nprint((a + b) // 0)',
      exception_on_zero: 'a, b = map(int, input().split())\nprint((a + b) * (a // a) if a else 1 // 0)',
      infinite_loop: 'a, b = map(int, input().split())\nwhile True:\n    pass',
      sleep: 'import time\na, b = map(int, input().split())\ntime.sleep(5)\nprint(a + b)',
    },
  },
  {
    name: 'max',
    tests: (random) => {
      const lists = Array.from({ length: random.int(1, 3) }, () => ints(random, random.int(1, 6)));
      return { inputs: lists.map((list) => `${list.length}\n${list.join(' ')}\n`), outputs: lists.map((list) => `${Math.max(...list)}\n`) };
    },
    solutions: {
      right: 'n = int(input())\nprint(max(map(int, input().split())))',
      right_readlines: 'import sys\nlines = sys.stdin.readlines()\nprint(max(int(x) for x in lines[1].split()))',
      right_float_form: 'n = int(input())\nprint(float(max(map(int, input().split()))))',
      right_buffer: 'import sys\ndata = sys.stdin.buffer.read().split()\nprint(max(map(int, data[1:])))',
      wrong_star_print: 'n = int(input())\nprint(*sorted(map(int, input().split()))[-1:], n)',
      wrong_off_by_one: 'n = int(input())\nprint(max(map(int, input().split())) - 1)',
      wrong_min: 'n = int(input())\nprint(min(map(int, input().split())))',
      exception: 'n = int(input())\nxs = list(map(int, input().split()))\nprint(xs[n])',
      syntax_error: 'n = int(input())\nprint(max(map(int, input().split()))',
      infinite_loop: 'n = int(input())\nwhile n >= 0:\n    n += 1',
    },
  },
  {
    name: 'even',
    tests: (random) => {
      const numbers = ints(random, random.int(1, 4));
      return { inputs: numbers.map((n) => `${n}\n`), outputs: numbers.map((n) => (n % 2 === 0 ? 'YES\n' : 'NO\n')) };
    },
    solutions: {
      right: 'n = int(input())\nprint("YES" if n % 2 == 0 else "NO")',
      right_mixed_case: 'n = int(input())\nprint("Yes" if n % 2 == 0 else "no")',
      wrong_inverted: 'n = int(input())\nprint("NO" if n % 2 == 0 else "YES")',
      wrong_words: 'n = int(input())\nprint("EVEN" if n % 2 == 0 else "ODD")',
      exception: 'n = int(input())\nprint(["YES", "NO"][n])',
    },
  },
  {
    name: 'quotient',
    tests: (random) => {
      const pairs = Array.from({ length: random.int(1, 3) }, () => [random.int(1, 99), random.int(1, 9)] as const);
      return { inputs: pairs.map(([a, b]) => `${a} ${b}\n`), outputs: pairs.map(([a, b]) => `${(a / b).toFixed(6)}\n`) };
    },
    solutions: {
      right: 'a, b = map(int, input().split())\nprint(f"{a / b:.6f}")',
      right_full_precision: 'a, b = map(int, input().split())\nprint(a / b)',
      wrong_rounded: 'a, b = map(int, input().split())\nprint(f"{a / b:.2f}")',
      wrong_integer: 'a, b = map(int, input().split())\nprint(a // b)',
    },
  },
  {
    name: 'reverse_words',
    tests: (random) => {
      const lines = Array.from({ length: random.int(1, 3) }, () => random.shuffled(['alpha', 'beta', 'gamma', 'delta', 'x']).slice(0, random.int(1, 4)));
      return { inputs: lines.map((words) => `${words.join(' ')}\n`), outputs: lines.map((words) => `${[...words].reverse().join(' ')}\n`) };
    },
    solutions: {
      right: 'print(" ".join(input().split()[::-1]))',
      right_iteration: 'import sys\nfor line in sys.stdin:\n    print(" ".join(reversed(line.split())))',
      wrong_characters: 'print(input()[::-1])',
      wrong_upper: 'print(" ".join(input().split()[::-1]).upper())',
    },
  },
];

const CALL: Problem[] = [
  {
    name: 'add',
    fn_name: 'add',
    tests: (random) => {
      const pairs = Array.from({ length: random.int(1, 4) }, () => ints(random, 2));
      return { inputs: pairs.map(([a, b]) => `${a}\n${b}`), outputs: pairs.map(([a, b]) => `${(a as number) + (b as number)}`) };
    },
    solutions: {
      right: 'class Solution:\n    def add(self, a: int, b: int) -> int:\n        return a + b',
      right_float: 'class Solution:\n    def add(self, a, b):\n        return float(a + b)',
      right_module_function: 'def add(a, b):\n    return a + b',
      wrong_off_by_one: 'class Solution:\n    def add(self, a, b):\n        return a + b + 1',
      wrong_none: 'class Solution:\n    def add(self, a, b):\n        a + b',
      exception: 'class Solution:\n    def add(self, a, b):\n        return a + b + undefined_name',
      syntax_error: 'class Solution:\n    def add(self, a, b)\n        return a + b',
      infinite_loop: 'class Solution:\n    def add(self, a, b):\n        while True:\n            pass',
    },
  },
  {
    name: 'maximum',
    fn_name: 'maximum',
    tests: (random) => {
      const lists = Array.from({ length: random.int(1, 3) }, () => ints(random, random.int(1, 5)));
      return { inputs: lists.map((list) => JSON.stringify(list)), outputs: lists.map((list) => JSON.stringify(Math.max(...list))) };
    },
    solutions: {
      right: 'from typing import List\n\nclass Solution:\n    def maximum(self, nums: List[int]) -> int:\n        return max(nums)',
      right_sorted: 'class Solution:\n    def maximum(self, nums):\n        return sorted(nums)[-1]',
      wrong_first: 'class Solution:\n    def maximum(self, nums):\n        return nums[0]',
      wrong_list: 'class Solution:\n    def maximum(self, nums):\n        return [max(nums)]',
    },
  },
  {
    name: 'reverse',
    fn_name: 'reverse',
    tests: (random) => {
      const words = Array.from({ length: random.int(1, 3) }, () => random.pick(['abc', 'racecar', 'Hello', 'a b', '']));
      return { inputs: words.map((word) => JSON.stringify(word)), outputs: words.map((word) => JSON.stringify([...word].reverse().join(''))) };
    },
    solutions: {
      right: 'class Solution:\n    def reverse(self, s: str) -> str:\n        return s[::-1]',
      right_join: 'class Solution:\n    def reverse(self, s):\n        return "".join(reversed(s))',
      wrong_same: 'class Solution:\n    def reverse(self, s):\n        return s',
      wrong_list: 'class Solution:\n    def reverse(self, s):\n        return list(reversed(s))',
    },
  },
];

/** The model's answer around the code, in the forms policies write it. */
function answer(random: Random, code: string, other: string): { form: string; text: string } {
  const forms: [string, string][] = [
    ['fenced', `Here is my solution.\n\n\`\`\`python\n${code}\n\`\`\``],
    ['fenced', `\`\`\`python\n${code}\n\`\`\`\n`],
    ['fenced_no_language', `\`\`\`\n${code}\n\`\`\``],
    ['fenced_py3', `\`\`\`python3\n${code}\n\`\`\``],
    ['unfenced', code],
    ['two_blocks', `First attempt:\n\`\`\`python\n${other}\n\`\`\`\nBetter:\n\`\`\`python\n${code}\n\`\`\``],
    ['two_blocks_last_wrong', `\`\`\`python\n${code}\n\`\`\`\nAlternatively:\n\`\`\`python\n${other}\n\`\`\``],
    ['prose_after', `\`\`\`python\n${code}\n\`\`\`\nThis runs in O(n) time.`],
    ['indented_fence', `  \`\`\`python\n${code}\n  \`\`\``],
    ['unclosed', `\`\`\`python\n${code}\n`],
    ['truncated', truncate(`\`\`\`python\n${code}\n\`\`\``, random.pick([0.5, 0.8]))],
    ['think_in_answer', `<think>Let me plan.</think>\n\`\`\`python\n${code}\n\`\`\``],
    ['empty', ''],
    ['blank', '  \n\t '],
  ];
  const [form, text] = random.pick(forms);
  return { form, text };
}

function packed(tests: { inputs: string[]; outputs: string[] }, fnName: string | undefined): Record<string, unknown> {
  return { packed: deflateSync(Buffer.from(JSON.stringify(tests))).toString('base64'), fn_name: fnName ?? null };
}

function generated(random: Random, index: number): ParityCase {
  const problem = random.pick(random.chance(0.7) ? STDIN : CALL);
  const tests = problem.tests(random);
  const kinds = Object.keys(problem.solutions);
  // Right solutions half of the time; loops and sleeps (which wait for the limit) rarely.
  let kind = random.chance(0.5) ? random.pick(kinds.filter((name) => name.startsWith('right'))) : random.pick(kinds.filter((name) => !name.startsWith('right')));
  if ((kind === 'infinite_loop' || kind === 'sleep') && random.chance(0.6)) kind = 'right';
  const code = problem.solutions[kind] as string;
  const other = problem.solutions[random.pick(kinds.filter((name) => name !== kind))] as string;
  const { form, text } = answer(random, code, other);
  const shape = random.pick(['message', 'message', 'message', 'message', 'two_messages', 'reasoning', 'reasoning_two_thinks', 'tool_call_only']);
  const items: ResponseItem[] = [];
  if (shape === 'reasoning' || shape === 'reasoning_two_thinks') {
    const summary = shape === 'reasoning' ? '<think>plan</think>' : '<think>a</think><think>b</think>';
    items.push({ type: 'reasoning', id: `rs_parity_${index}`, summary: [{ type: 'summary_text', text: summary }] } as ResponseItem);
  }
  if (shape === 'tool_call_only') items.push(callOutput('run_tests', { code }, index));
  else if (shape === 'two_messages') items.push(textOutput('Let me write the code.\n', index), textOutput(text, index + 1));
  else items.push(textOutput(text, index));
  const unitTests = random.chance(0.15) ? packed(tests, problem.fn_name) : { ...tests, ...(problem.fn_name === undefined ? {} : { fn_name: problem.fn_name }) };
  const metadata: Record<string, unknown> = { unit_tests: unitTests };
  if (random.chance(0.3)) metadata.difficulty = random.pick(['easy', 'medium', 'hard']);
  return {
    kind: `${kind}/${form}`,
    detail: `${problem.name}, ${tests.inputs.length} tests, ${shape}${'packed' in unitTests ? ', packed' : ''}`,
    verify: {
      responses_create_params: { input: [{ role: 'user', content: `Solve ${problem.name}. Use \`\`\`python for just the final solution code block.` }] },
      verifier_metadata: metadata,
      response: response(items, index),
    },
  };
}

const COMPUTED = ['extracted_model_output', 'extracted_model_code', 'result', 'metadata', 'unit_tests_time_taken', 'reasoning_format_violation_rate', 'difficulty'];

export const codeGen: ParityEnvironment = {
  name: 'code_gen',
  configs: { ngym: 'code_gen.yaml', upstream: 'code_gen.yaml' },
  // A short per-test limit so the loops and sleeps cost seconds, not minutes; fewer parallel gradings on 2 cores.
  overrides: { unit_test_timeout_secs: 2, num_processes: 4 },
  fields: ['extracted_model_output', 'extracted_model_code', 'result', 'metadata', 'reasoning_format_violation_rate', 'difficulty'],
  // metadata is compared without the run's timing and the traceback (file paths of each side's harness).
  normalize: (body) => {
    if (body.metadata === null || typeof body.metadata !== 'object') return body;
    const { 'execution time': _time, traceback: _traceback, ...metadata } = body.metadata as Record<string, unknown>;
    return { ...body, metadata };
  },
  generate(random, count) {
    const cases = [...upstreamRolloutCases('code_gen', COMPUTED), ...dataRows('code_gen', 'example_rollouts.jsonl').map((row) => rolloutCase(row, COMPUTED))];
    for (let index = cases.length; index < count; index += 1) cases.push(generated(random, index));
    return cases.slice(0, Math.max(count, 5));
  },
};
