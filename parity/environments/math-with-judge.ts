/**
 * math_with_judge, library path (should_use_judge false on both sides): the example rollouts, then pairs of a gold
 * answer and a model's answer that are equivalent or not, across integers, fractions, decimals, percentages,
 * intervals, sets, matrices, expressions and units, written boxed (alone, twice, close together or far apart, empty,
 * unclosed), in LaTeX, markdown or unicode, with several candidates, empty or truncated.
 */
import { type ParityCase, callOutput, dataRows, response, rolloutCase, textResponse, truncate } from '../cases.ts';
import type { ParityEnvironment } from '../environment.ts';
import type { SeededRandom as Random } from 'ngym';

/** [family, gold, equivalent forms, non-equivalent forms] */
const PAIRS: [string, string, string[], string[]][] = [
  ['integer', '720', ['720', '720.0', '7.2 \\times 10^2', '720^\\circ', '\\text{720}'], ['721', '72', '-720']],
  ['integer', '-3', ['-3', '−3', '-3.0', '(-3)'], ['3', '-2']],
  ['fraction', '\\frac{1}{2}', ['\\frac12', '1/2', '0.5', '\\dfrac{1}{2}', '\\frac{2}{4}', '½'], ['\\frac{1}{3}', '2', '0.55']],
  ['fraction', '\\frac{3}{4}', ['0.75', '3/4', '\\tfrac{3}{4}', '\\frac{6}{8}'], ['\\frac{4}{3}', '0.7']],
  ['decimal', '0.125', ['\\frac{1}{8}', '.125', '0.1250', '1.25 \\times 10^{-1}'], ['0.12', '0.1255']],
  ['decimal', '3.14', ['3.14', '3.140'], ['\\pi', '3.1416', '3.1']],
  ['percentage', '25\\%', ['25', '25%', '0.25', '\\frac{1}{4}', '25 \\%'], ['2.5\\%', '75\\%']],
  ['percentage', '12.5\\%', ['12.5%', '0.125'], ['12%', '1.25']],
  ['interval', '(0, 1]', ['(0,1]', '\\left(0, 1\\right]', '0 < x \\le 1'], ['[0, 1]', '(0, 1)', '(0, 2]']],
  ['interval', '[2, \\infty)', ['[2,\\infty)', 'x \\geq 2', '[2, +\\infty)'], ['(2, \\infty)', '[3, \\infty)']],
  ['set', '\\{1, 2, 3\\}', ['\\{3, 2, 1\\}', '1, 2, 3', '\\{1,2,3\\}'], ['\\{1, 2\\}', '\\{1, 2, 4\\}']],
  ['set', '\\{-1, 1\\}', ['\\pm 1', '1, -1', 'x = \\pm 1'], ['1', '\\{-1, 0, 1\\}']],
  ['matrix', '\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}', ['\\begin{bmatrix} 1 & 2 \\\\ 3 & 4 \\end{bmatrix}', '\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}'], ['\\begin{pmatrix} 1 & 3 \\\\ 2 & 4 \\end{pmatrix}', '\\begin{pmatrix} 1 & 2 \\end{pmatrix}']],
  ['expression', '\\sqrt{2}', ['\\sqrt2', '2^{1/2}', '\\frac{2}{\\sqrt{2}}', '√2', '\\frac{\\sqrt{8}}{2}'], ['2', '\\sqrt{3}', '1.41']],
  ['expression', 'x^2 + 2x + 1', ['(x+1)^2', 'x^2+2x+1', '1 + 2x + x^2'], ['x^2 + 1', '(x-1)^2']],
  ['expression', '\\frac{\\pi}{3}', ['\\pi/3', '60^\\circ', '\\frac{1}{3}\\pi'], ['\\frac{\\pi}{6}', '\\pi']],
  ['expression', '2\\sqrt{3}', ['\\sqrt{12}', '2 \\sqrt 3'], ['3\\sqrt{2}', '\\sqrt{6}']],
  ['units', '5 \\text{ cm}', ['5', '5 cm', '5\\,\\text{cm}', '5 \\mathrm{cm}'], ['50 \\text{ mm}', '6 cm']],
  ['units', '30 \\text{ degrees}', ['30', '30^\\circ', '30°'], ['60', '\\frac{\\pi}{6}']],
  ['equation', 'x = 4', ['4', 'x=4', 'x = 4.0'], ['x = -4', 'y = 4']],
  ['tuple', '(1, -2)', ['(1,-2)', 'x=1, y=-2'], ['(-2, 1)', '(1, 2)']],
  ['complex', '3 + 4i', ['4i + 3', '3+4i'], ['3 - 4i', '4 + 3i']],
  ['integer', '1000', ['1{,}000', '1,000', '10^3', '1000.00'], ['100', '10^4', '1001']],
  ['integer', '0', ['0', '0.0', '-0'], ['1', 'o']],
  ['fraction', '-\\frac{2}{3}', ['\\frac{-2}{3}', '-2/3', '-\\dfrac{4}{6}', '-0.6666666667'], ['\\frac{2}{3}', '-\\frac{3}{2}', '-0.67']],
  ['fraction', '\\frac{7}{2}', ['3\\frac{1}{2}', '3.5', '\\frac{14}{4}'], ['\\frac{2}{7}', '3.2']],
  ['decimal', '2.5 \\times 10^{-3}', ['0.0025', '\\frac{1}{400}', '2.5 \\cdot 10^{-3}'], ['0.025', '2.5 \\times 10^{3}']],
  ['percentage', '40\\%', ['40%', '40 \\%', '0.4', '\\frac{2}{5}', '40 percent'], ['4\\%', '0.04', '60%']],
  ['interval', '(-\\infty, 3)', ['(-\\infty,3)', 'x < 3', '\\left(-\\infty, 3\\right)'], ['(-\\infty, 3]', '(3, \\infty)', 'x > 3']],
  ['interval', '(-\\infty, -1) \\cup (1, \\infty)', ['(-\\infty,-1)\\cup(1,\\infty)', '(1, \\infty) \\cup (-\\infty, -1)'], ['(-1, 1)', '(-\\infty, -1] \\cup [1, \\infty)']],
  ['set', '\\{2, 5\\}', ['\\{5, 2\\}', '2, 5', 'x = 2, x = 5', '2 \\text{ and } 5'], ['\\{2\\}', '\\{2, 5, 7\\}', '\\{-2, 5\\}']],
  ['set', '\\emptyset', ['\\emptyset', '\\{\\}'], ['\\{0\\}', '0']],
  ['matrix', '\\begin{pmatrix} 3 \\\\ -1 \\end{pmatrix}', ['\\begin{pmatrix}3\\\\-1\\end{pmatrix}', '\\begin{bmatrix} 3 \\\\ -1 \\end{bmatrix}'], ['\\begin{pmatrix} -1 \\\\ 3 \\end{pmatrix}', '\\begin{pmatrix} 3 & -1 \\end{pmatrix}', '(3, -1)']],
  ['expression', '\\frac{x+1}{x-1}', ['\\frac{1+x}{x-1}', '(x+1)/(x-1)', '\\frac{-x-1}{1-x}'], ['\\frac{x-1}{x+1}', '\\frac{x+1}{x}']],
  ['expression', '\\sin^2 x', ['(\\sin x)^2', '1 - \\cos^2 x', '\\sin(x)^2'], ['\\sin x', '\\cos^2 x']],
  ['expression', 'e^{2}', ['e^2', '\\exp(2)', 'e \\cdot e'], ['2e', 'e^{3}']],
  ['units', '\\$18.90', ['18.90', '18.9', '\\$18.9', '18.90 \\text{ dollars}'], ['18', '\\$19.80']],
  ['units', '45 \\text{ km/h}', ['45', '45 \\text{km/h}', '45\\,\\mathrm{km/h}'], ['54', '4.5']],
  ['units', '12 \\text{ m}^2', ['12', '12 m^2', '12 \\text{ square meters}'], ['144', '12 \\text{ m}^3', '13 \\text{ m}^2']],
];

function written(random: Random, answer: string, other: string): { form: string; text: string } {
  const forms: [string, string][] = [
    ['boxed', `The sum is computed as follows.\n\n\\boxed{${answer}}`],
    ['boxed_dollars', `So the answer is $\\boxed{${answer}}$.`],
    ['display_math', `\\[ \\boxed{${answer}} \\]`],
    ['fbox', `\\fbox{${answer}}`],
    ['inline_math', `The answer is $${answer}$.`],
    ['plain_final', `Final answer: ${answer}`],
    ['markdown', `**Answer:** $${answer}$`],
    ['two_boxed', `First guess \\boxed{${other}}, but correcting: \\boxed{${answer}}`],
    ['two_candidates', `It is either $${other}$ or $${answer}$. \\boxed{${answer}}`],
    ['whitespace', `\n\n   \\boxed{  ${answer}  }   \n`],
    ['no_answer', 'I am not sure how to solve this.'],
    ['empty', ''],
    ['truncated', truncate(`Let us compute carefully. \\boxed{${answer}}`, random.pick([0.4, 0.8, 0.95]))],
    ['think_then_boxed', `<think>maybe ${other}</think>\n\\boxed{${answer}}`],
    ['final_answer_hope', `The final answer is $\\boxed{${answer}}$. I hope it is correct.`],
    ['display_dollars', `$$\n\\boxed{${answer}}\n$$`],
    ['boxed_then_text', `\\boxed{${answer}}\n\nThis follows from the steps above.`],
    ['two_boxed_far', `A first attempt gave \\boxed{${other}}. That was a slip in the second step; redoing the whole computation carefully gives \\boxed{${answer}}`],
    ['two_boxed_and', `\\boxed{${other}} and \\boxed{${answer}}`],
    ['same_box_twice', `\\boxed{${answer}} ... so again \\boxed{${answer}}`],
    ['markdown_boxed', `## Solution\n\n- step one\n- step two\n\n**Final answer:** $\\boxed{${answer}}$`],
    ['unicode_prose', `Therefore → the answer is \\boxed{${answer}} ✓`],
    ['answer_colon_then_box', `Answer: ${other}\n\n\\boxed{${answer}}`],
    ['empty_box', `The answer is \\boxed{}`],
    ['unclosed_box', `The answer is \\boxed{${answer}`],
  ];
  const [form, text] = random.pick(forms);
  return { form, text };
}

function generated(random: Random, index: number): ParityCase {
  const [family, gold, equivalent, different] = random.pick(PAIRS);
  const right = random.chance(0.55);
  const answer = right ? random.pick(equivalent) : random.pick(different);
  const { form, text } = written(random, answer, random.pick(different));
  const question = `Compute the ${family} answer of problem ${index}.`;
  const toolOnly = random.chance(0.02);
  return {
    kind: toolOnly ? 'tool_call_only' : family,
    detail: `${form}/${right ? 'equivalent' : 'different'}: ${answer}`,
    verify: {
      responses_create_params: { input: [{ role: 'user', content: `Solve and put the answer in \\boxed{}.\n\n${question}` }] },
      question,
      expected_answer: random.chance(0.2) ? `$${gold}$` : gold,
      response: toolOnly ? response([callOutput('python', { code: 'print(1)' }, index)], index) : textResponse(text, index),
    },
  };
}

const COMPUTED = ['extracted_answer', 'library_reward', 'judge_evaluations'];

export const mathWithJudge: ParityEnvironment = {
  name: 'math_with_judge',
  configs: { ngym: 'math_with_judge.yaml', upstream: 'math_with_judge.yaml' },
  // The judge is never called on this path, but both configs must name a model server: a replay of the rollouts.
  overrides: { should_use_judge: false, judge_model_server: { type: 'responses_api_models', name: 'parity_unused_judge' } },
  // Upstream verifies each answer in a new Python process killed after 10 s, which a loaded machine exceeds (a
  // reward of 0 that is no verdict); ngym's own limit is math_timeout_seconds. Both get time enough here.
  upstreamOverrides: { library_verifier_timeout_seconds: 300 },
  servers: {
    parity_unused_judge: { responses_api_models: { replay_model: { entrypoint: 'app.ts', rollouts_jsonl_fpath: 'resources_servers/math_with_judge/data/example_rollouts.jsonl', strict: false } } },
  },
  fields: COMPUTED,
  generate(random, count) {
    const cases = dataRows('math_with_judge', 'example_rollouts.jsonl').map((row) => rolloutCase(row, COMPUTED));
    for (let index = cases.length; index < count; index += 1) cases.push(generated(random, index));
    return cases;
  },
};
