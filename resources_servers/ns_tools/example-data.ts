/**
 * The environment's example tasks (ours, in the shape of upstream's rows: question, expected_answer,
 * verifier_type, subset_for_metrics, reference_solution, the Python tool) and the turns of their example
 * rollouts. data/example.jsonl and data/example_rollouts.jsonl are written from here by running the turns through
 * simple_agent and the real servers (ns_tools in the sandbox, math_with_judge grading), so the tool outputs are real:
 *
 *   npx tsx resources_servers/ns_tools/example-data.ts
 *
 * Rewards: 1 (state kept across calls), 1 (a traceback, then fixed code), 1 (\frac{115}{462} for 115/462, equal
 * for the math library), 0 (the wrong factor reported), 0 (no boxed answer).
 *
 * The config used is ns_tools.yaml with math_with_judge as upstream's README starts it (library only), which
 * example.jsonl's own config cannot express: gymOverrides() is that, for recording, replaying and parity tests.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFileSync } from 'node:fs';
import { assistantMessage, callServer, exampleData, functionCall, readJsonlRows, scriptedModel, startInProcessGym, usage } from 'ngym/testing';
import type { ServerDefinition } from 'ngym';
import { PYTHON_TOOL_NAME, STATEFUL_PYTHON_TOOL } from './tool-specs.ts';

export const EXAMPLE_DATA = exampleData('ns_tools');

const INSTRUCTIONS = 'Work out the answer to the problem below. You can run Python with the stateful_python_code_exec tool. Give only the final answer inside \\boxed{}.';

/** ns_tools.yaml, and math_with_judge grading by its math library alone, as upstream's README starts the two. */
export function gymOverrides(extra: string[] = []): string[] {
  return [
    '+config_paths=[resources_servers/ns_tools/configs/ns_tools.yaml,resources_servers/math_with_judge/configs/math_with_judge.yaml]',
    '++math_with_judge.resources_servers.math_with_judge.should_use_judge=false',
    '++math_with_judge.resources_servers.math_with_judge.judge_model_server.name=policy_model',
    ...extra,
  ];
}

interface ExampleTask {
  question: string;
  expected: string;
  solution: string;
  /** The code of each tool call, in order; then the final answer. */
  calls: string[];
  answer: string;
}

export const EXAMPLE_TASKS: ExampleTask[] = [
  {
    question: 'A sequence has $a_1 = 2$, $a_2 = 3$ and $a_n = a_{n-1} + 2a_{n-2}$ for $n \\ge 3$. What is the remainder when $a_{30}$ is divided by $1000$?',
    expected: '853',
    solution: 'The characteristic roots are $2$ and $-1$, and the starting values give $a_n = \\frac{5 \\cdot 2^n - 2(-1)^n}{6}$, so $a_{30} = \\frac{5 \\cdot 2^{30} - 2}{6} = 894784853$ and the remainder is $853$.',
    calls: ['terms = [2, 3]\nwhile len(terms) < 30:\n    terms.append(terms[-1] + 2 * terms[-2])\nterms[:8]', 'terms[29], terms[29] % 1000'],
    answer: 'The 30th term is 894784853, so the remainder is \\boxed{853}.',
  },
  {
    question: 'How many four-digit palindromes are divisible by $7$?',
    expected: '18',
    solution: 'A four-digit palindrome $abba = 1001a + 110b$; since $1001 = 7 \\cdot 143$, it is divisible by $7$ exactly when $7 \\mid 110b$, i.e. $b \\in \\{0, 7\\}$: $9 \\cdot 2 = 18$.',
    calls: ['palindromes = [n for n in range(1000, 10000) if n == n[::-1]]', 'palindromes = [n for n in range(1000, 10000) if str(n) == str(n)[::-1]]\nlen(palindromes), sum(1 for n in palindromes if n % 7 == 0)'],
    answer: 'There are 90 four-digit palindromes and \\boxed{18} of them are multiples of 7.',
  },
  {
    question: 'Evaluate $\\displaystyle\\sum_{k=1}^{20} \\frac{1}{k(k+1)(k+2)}$ as a fraction in lowest terms.',
    expected: '115/462',
    solution: 'Telescoping: $\\frac{1}{k(k+1)(k+2)} = \\frac12\\left(\\frac{1}{k(k+1)} - \\frac{1}{(k+1)(k+2)}\\right)$, so the sum is $\\frac12\\left(\\frac12 - \\frac{1}{21 \\cdot 22}\\right) = \\frac{115}{462}$.',
    calls: ['import sympy as sp\nk = sp.symbols("k", integer=True, positive=True)\nsp.summation(1 / (k * (k + 1) * (k + 2)), (k, 1, 20))'],
    answer: 'The sum telescopes to $\\boxed{\\frac{115}{462}}$.',
  },
  {
    question: 'What is the largest prime factor of $2^{32} + 1$?',
    expected: '6700417',
    solution: "Euler's factorization: $2^{32} + 1 = 641 \\cdot 6700417$, and $6700417$ is prime.",
    calls: ['n = 2**32 + 1\nfactors = []\nd = 2\nwhile d * d <= n:\n    while n % d == 0:\n        factors.append(d)\n        n //= d\n    d += 1\nif n > 1:\n    factors.append(n)\nprint(factors)'],
    answer: 'The factorization is 641 times 6700417, so the prime factor asked for is \\boxed{641}.',
  },
  {
    question: 'How many points $(x, y)$ with integer coordinates lie strictly inside the circle $x^2 + y^2 = 50$?',
    expected: '149',
    solution: 'Count, for each $x$ with $x^2 < 50$, the integers $y$ with $y^2 < 50 - x^2$; the counts for $x = 0, \\pm1, \\dots, \\pm7$ add up to $149$.',
    calls: ['rows = {x: sum(1 for y in range(-8, 9) if x * x + y * y < 50) for x in range(-7, 8)}\nrows', 'sum(rows.values())'],
    answer: 'Adding the rows gives 149 points.',
  },
];

export function exampleRows(): Record<string, unknown>[] {
  return EXAMPLE_TASKS.map((task, index) => ({
    id: `ngym-example-${index}`,
    question: task.question,
    expected_answer: task.expected,
    agent_ref: { type: 'responses_api_agents', name: EXAMPLE_DATA.agent },
    responses_create_params: { input: [{ role: 'user', content: `${INSTRUCTIONS}\n\n${task.question}` }], tools: [STATEFUL_PYTHON_TOOL] },
    verifier_type: 'math_with_judge',
    subset_for_metrics: 'ngym_examples',
    reference_solution: task.solution,
  }));
}

function exampleModel() {
  return scriptedModel(({ input }) => {
    const question = input.find((item) => 'role' in item && item.role === 'user');
    const taskIndex = EXAMPLE_TASKS.findIndex((task) => question !== undefined && 'content' in question && question.content === `${INSTRUCTIONS}\n\n${task.question}`);
    const task = EXAMPLE_TASKS[taskIndex] as ExampleTask;
    const step = input.filter((item) => item.type === 'function_call_output').length;
    const id = `${taskIndex}_${step}`;
    const code = task.calls[step];
    const output = code === undefined ? [assistantMessage(task.answer, { id: `msg_example_${id}` })] : [functionCall(PYTHON_TOOL_NAME, { code }, `call_example_${id}`)];
    return { id: `resp_example_${id}`, created_at: 1_701_388_740 + step, model: 'example-model', output, usage: usage(600 + 150 * step, 80) };
  });
}

/** Each row's `/run` answer with `policy_model` served by `policyModel` (or by the overrides' model). */
async function runRows(rows: readonly Record<string, unknown>[], overrides: string[], policyModel?: ServerDefinition): Promise<Record<string, any>[]> {
  const gym = await startInProcessGym({ overrides: gymOverrides(overrides), definitions: policyModel === undefined ? undefined : { policy_model: policyModel } });
  try {
    const results: Record<string, any>[] = [];
    for (const row of rows) results.push(await callServer(gym, EXAMPLE_DATA.agent, '/run', row));
    return results;
  } finally {
    await gym.close();
  }
}

/** The committed rows run again with replay_model in strict mode answering from the committed rollouts. */
export function replayExampleRows(): Promise<Record<string, any>[]> {
  return runRows(readJsonlRows(EXAMPLE_DATA.examplePath), [
    '+policy_model={responses_api_models: {replay_model: {entrypoint: app.ts, strict: true}}}',
    `+policy_model.responses_api_models.replay_model.rollouts_jsonl_fpath=${EXAMPLE_DATA.rolloutsPath}`,
  ]);
}

async function main(): Promise<void> {
  const rows = exampleRows();
  const rollouts = await runRows(rows, ['+policy_model={responses_api_models: {scripted: {entrypoint: app.ts}}}'], exampleModel().definition);
  const jsonl = (items: readonly unknown[]) => items.map((item) => JSON.stringify(item)).join('\n') + '\n';
  writeFileSync(EXAMPLE_DATA.examplePath, jsonl(rows));
  writeFileSync(EXAMPLE_DATA.rolloutsPath, jsonl(rollouts));
  process.stdout.write(`wrote ${EXAMPLE_DATA.examplePath} and ${EXAMPLE_DATA.rolloutsPath}\n`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
