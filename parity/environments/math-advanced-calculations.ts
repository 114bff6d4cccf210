/**
 * math_advanced_calculations: upstream 0.7.0's example rollouts (with ground truths rebuilt, below) and ngym's, then generated
 * trajectories against ground truths of 1 to 4 values (integers, floats, negatives, zero and -0.0, huge and tiny):
 * every value among the tool outputs, one missing, one rounded, off by the float's last bit, values in text only,
 * duplicated or extra calls; tool outputs as the tools write them and in shapes a broken call leaves (a `detail`
 * error, the value as a string with spaces, underscores, `inf`/`nan`, a bool, null, a list, not JSON, a JSON list,
 * NaN/Infinity literals, an integer beyond 2^53, no outputs at all). Ground truths are written as Python and as
 * JavaScript print them, and 2% are not a JSON list (both refuse).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { upstreamWheel } from '../../src/testing/upstream-wheel.ts';
import { type ParityCase, callOutput, dataRows, response, rolloutCase, textOutput } from '../cases.ts';
import type { ParityEnvironment } from '../environment.ts';
import type { ResponseItem } from '../../src/protocol/index.ts';
import type { SeededRandom as Random } from 'ngym';

const TOOLS = ['add', 'subtract', 'multiply', 'divide', 'sin', 'cos', 'power', 'log', 'pi', 'negate', 'return_constant'];

function value(random: Random): number {
  switch (random.int(0, 7)) {
    case 0:
      return random.int(-20, 100);
    case 1:
      return Math.cos(random.int(1, 50) / 7);
    case 2:
      return Math.log(random.int(2, 1000)) / Math.log(random.pick([2, 2.5, 10]));
    case 3:
      return random.int(0, 1) === 0 ? 0 : -0;
    case 4:
      return random.int(1, 99) * 1e20;
    case 5:
      return random.int(1, 99) / 1e12;
    default:
      return Math.round(random.int(-1000, 1000) * 1.2 * 10) / 10 + 0.2;
  }
}

/** A float as Python's `json.dumps` writes it where that differs from JavaScript's (`11.0`, `-0.0`). */
function pythonFloat(number: number): string {
  if (Object.is(number, -0)) return '-0.0';
  const text = String(number);
  return Number.isInteger(number) && !text.includes('e') ? `${text}.0` : text;
}

function groundTruthText(random: Random, values: number[]): { form: string; text: string } {
  const roll = random.int(0, 99);
  if (roll < 1) return { form: 'not_a_list', text: String(values[0]) };
  // A list with a bool or a string is not generated: 0.7.0 compares it (True == 1.0), ngym refuses it (docs/parity.md).
  if (roll < 2) return { form: 'not_json', text: `[${values.join('; ')}` };
  if (roll < 50) return { form: 'python', text: `[${values.map(pythonFloat).join(', ')}]` };
  return { form: 'json', text: JSON.stringify(values) };
}

/** One tool output carrying `solution`, written the way the tool writes it or as a broken call leaves it. */
function solutionOutput(random: Random, solution: number): { form: string; output: string } {
  const forms: [string, string][] = [
    ['tool', `{"solution": ${pythonFloat(solution)}}`],
    ['tool', `{"solution": ${pythonFloat(solution)}}`],
    ['tool', `{"solution": ${pythonFloat(solution)}}`],
    ['compact', JSON.stringify({ solution })],
    ['string', JSON.stringify({ solution: String(solution) })],
    ['string_spaces', JSON.stringify({ solution: ` ${pythonFloat(solution)}\n` })],
    ['string_underscore', JSON.stringify({ solution: Number.isInteger(solution) && Math.abs(solution) >= 1000 ? String(solution).replace(/(\d)(\d{3})$/, '$1_$2') : String(solution) })],
    ['extra_key', `{"solution": ${pythonFloat(solution)}, "note": "ok"}`],
    ['rounded', `{"solution": ${Number(solution.toPrecision(6))}}`],
    ['last_bit', `{"solution": ${solution === 0 ? 5e-324 : solution * (1 + Number.EPSILON)}}`],
  ];
  const [form, output] = random.pick(forms);
  return { form, output };
}

const ODD_OUTPUTS: [string, string][] = [
  ['detail', '{"detail":"math domain error"}'],
  ['bool', '{"solution": true}'],
  ['null', '{"solution": null}'],
  ['list', '{"solution": [1.0]}'],
  ['not_json', 'solution: 3'],
  ['json_list', '[{"solution": 1.0}]'],
  ['nan_literal', '{"solution": NaN}'],
  ['infinity_literal', '{"solution": Infinity}'],
  ['inf_string', '{"solution": "inf"}'],
  ['nan_string', '{"solution": "nan"}'],
  ['huge_int', '{"solution": 123456789012345678901}'],
  ['empty', ''],
];

function call(random: Random, index: number, turn: number, output: string): ResponseItem[] {
  const id = `call_parity_${index}_${turn}`;
  return [
    { ...callOutput(random.pick(TOOLS), { a: random.int(1, 9), b: random.int(1, 9) }, index), call_id: id } as ResponseItem,
    { type: 'function_call_output', call_id: id, output } as ResponseItem,
  ];
}

function generated(random: Random, index: number): ParityCase {
  const values = Array.from({ length: random.pick([1, 1, 2, 3, 4]) }, () => value(random));
  const { form: truthForm, text: groundTruth } = groundTruthText(random, values);
  const plan = random.pick(['all', 'all', 'all', 'missing_one', 'wrong_one', 'text_only', 'duplicated', 'extra_calls', 'odd_output', 'odd_output', 'no_outputs']);
  const outputs: string[] = [];
  const forms: string[] = [];
  const dropped = random.int(0, values.length - 1);
  values.forEach((number, position) => {
    if (plan === 'missing_one' && position === dropped) return;
    const solution = plan === 'wrong_one' && position === dropped ? number + random.pick([1, 0.001, 1.2]) : number;
    const written = solutionOutput(random, solution);
    forms.push(written.form);
    outputs.push(written.output);
    if (plan === 'duplicated') outputs.push(written.output);
  });
  if (plan === 'extra_calls') outputs.splice(random.int(0, outputs.length), 0, `{"solution": ${pythonFloat(value(random))}}`);
  if (plan === 'odd_output') {
    const [form, output] = random.pick(ODD_OUTPUTS);
    forms.push(form);
    outputs.splice(random.int(0, outputs.length), 0, output);
  }
  const items: ResponseItem[] = plan === 'text_only' || plan === 'no_outputs' ? [] : outputs.flatMap((output, turn) => call(random, index, turn, output));
  const answer = `The values are ${values.join(', ')}.`;
  if (plan === 'no_outputs') items.push(callOutput('add', { a: 1, b: 2 }, index));
  if (plan !== 'no_outputs' || random.chance(0.5)) items.push(textOutput(answer, index));
  return {
    kind: plan,
    detail: `${values.length} values, ground truth ${truthForm}, outputs ${forms.join('/')}`,
    verify: {
      responses_create_params: { input: [{ role: 'user', content: 'Compute the values using only the given tools.' }] },
      ground_truth: groundTruth,
      id: index,
      depth: random.int(1, 3),
      breadth: values.length,
      response: response(items, index),
    },
  };
}

/**
 * Upstream's five recorded rollouts are of tasks its example.jsonl does not hold, so their rows are rebuilt: the
 * ground truth of each prompt's expression evaluated with 0.7.0's own tool functions, as its dataset_preprocess.py
 * makes them (sin(4.0) is cos(4.0); 8.0 ** 8.0 is power(8, 8) = 8 ** 10; 6.0 + 10.0 is add = 17.2; cos(6.0 - 2.0)
 * is sin(subtract(6, 2)) = sin(1.0); sin(log(2.0, 2.0)) is cos(log(2, 3.5))); the wheel's file gives the responses.
 */
const UPSTREAM_GROUND_TRUTHS = ['[-0.6536436208636119]', '[1073741824.0]', '[17.2]', '[0.8414709848078965]', '[0.8507977712171255]'];

const withoutNulls = (object: unknown): Record<string, unknown> => Object.fromEntries(Object.entries(object as Record<string, unknown>).filter(([, value]) => value !== null));

function upstreamRollouts(): ParityCase[] {
  const path = join(upstreamWheel('math_advanced_calculations').folder, 'data', 'example_rollouts.jsonl');
  if (!existsSync(path)) return [];
  const rollouts = readFileSync(path, 'utf8').split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as Record<string, unknown>);
  return rollouts.map((rollout, index) => ({
    // The recording dumps every request field, nulls included (`tool_choice: null`), which 0.7.0's own request
    // model refuses: the request is sent as a row holds it, without the nulls.
    ...rolloutCase({ ...rollout, responses_create_params: withoutNulls(rollout.responses_create_params), ground_truth: UPSTREAM_GROUND_TRUTHS[index], id: index, depth: 1, breadth: 1 }, []),
    detail: 'upstream (ground truth from its tools)',
  }));
}

export const mathAdvancedCalculations: ParityEnvironment = {
  name: 'math_advanced_calculations',
  configs: { ngym: 'math_advanced_calculations.yaml', upstream: 'math_advanced_calculations.yaml' },
  fields: [],
  generate(random, count) {
    const cases = [...upstreamRollouts(), ...dataRows('math_advanced_calculations', 'example_rollouts.jsonl').map((row) => rolloutCase(row, []))];
    for (let index = cases.length; index < count; index += 1) cases.push(generated(random, index));
    return cases.slice(0, Math.max(count, 5));
  },
};
