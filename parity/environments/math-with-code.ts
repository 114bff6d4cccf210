/**
 * math_with_code: upstream 0.7.0's example rollouts (joined to their rows) and ngym's, then generated answers to
 * gold results in the forms upstream's data holds (integers, decimals, negatives, `\(...\)`, `$...$`, `\text{}`,
 * fractions, roots, words): right, numerically equal (`32.0`, `3.2e1`, `0032`, unicode and full-width digits,
 * within 1e-6), equal only to a math verifier (`\frac{64}{2}`), wrong; boxed plainly, twice, nested, unclosed,
 * empty, in `$...$`, `\text{}`, `\(...\)`, with inner whitespace; the box in the last message, only in an earlier
 * one, split across content parts, next to a refusal part, in reasoning only; the answer only in the tool's
 * stdout (upstream's fallback: JSON output, not JSON, a JSON list or string, `result` instead of `stdout`), in
 * both; no answer; tool calls only. Both servers run with their defaults: ngym's is 0.7.0's rule (its math
 * verifier, `math_verify: true`, is opt-in).
 */
import { type ParityCase, callOutput, dataRows, response, rolloutCase, textOutput, truncate, upstreamRolloutCases } from '../cases.ts';
import type { ParityEnvironment } from '../environment.ts';
import type { ResponseItem } from '../../src/protocol/index.ts';
import type { SeededRandom as Random } from 'ngym';

interface Gold {
  expected: string;
  /** What the model writes in the box when right. */
  right: string[];
  wrong: string[];
}

const GOLDS: Gold[] = [
  { expected: '32', right: ['32', '32.0', '3.2e1', '0032', ' 32 ', '٣٢', '３２', '32.0000000001', '+32', '\u00a032\u2003', '\u001f32'], wrong: ['31', '32.01', '3 2', 'thirty-two', '\\frac{64}{2}', '32\u200b', '3\u20032'] },
  { expected: '-3', right: ['-3', '-3.0', '$-3$', '\\(-3\\)', '\\text{-3}'], wrong: ['3', '[-3]', '-3, 2', '- 3x'] },
  { expected: '0.25', right: ['0.25', '.25', '2.5e-1', '0.2500000001'], wrong: ['\\frac{1}{4}', '\\dfrac{1}{4}', '1/4', '0.26'] },
  { expected: '\\(\\frac{1}{2}\\)', right: ['\\frac{1}{2}', '$\\frac{1}{2}$', '\\(\\frac{1}{2}\\)', ' \\frac{1}{2} '], wrong: ['0.5', '\\frac12', '\\frac{2}{4}', '1/2'] },
  { expected: '$x+1$', right: ['x+1', '$x+1$', '\\text{x+1}'], wrong: ['x + 1', '1+x', 'x+2'] },
  { expected: '\\text{yes}', right: ['yes', '\\text{yes}', '$yes$'], wrong: ['Yes', 'no', '\\textbf{yes}'] },
  { expected: '\\sqrt{2}', right: ['\\sqrt{2}', '$\\sqrt{2}$'], wrong: ['1.41421356', '\\sqrt2', '\\sqrt{3}'] },
  { expected: '1000', right: ['1000', '1e3', '1_000', '1000.0', '1E+3'], wrong: ['1,000', '999', '10^3'] },
  { expected: '\\( 2 \\pi \\)', right: ['2 \\pi', '2  \\pi', '\\(2 \\pi\\)'], wrong: ['2\\pi', '6.283185307', '\\pi'] },
  { expected: '83/499', right: ['83/499', ' 83/499'], wrong: ['\\dfrac{83}{499}', '0.16633266533'] },
  { expected: '1e-9', right: ['1e-9', '0.000000001', '0'], wrong: ['1e-3', 'small'] },
  { expected: 'inf', right: ['inf', 'Infinity', '-(-inf)'], wrong: ['\\infty', 'nan'] },
];

function boxedIn(random: Random, answer: string, other: string): { form: string; text: string } {
  const forms: [string, string][] = [
    ['boxed', `So the answer is \\boxed{${answer}}.`],
    ['boxed', `\\boxed{${answer}}`],
    ['boxed_two', `First guess \\boxed{${other}}, then checking: \\boxed{${answer}}`],
    ['boxed_then_other', `\\boxed{${answer}} ... actually \\boxed{${other}}`],
    ['boxed_dollars', `$\\boxed{${answer}}$`],
    ['boxed_display', `\\[\n\\boxed{${answer}}\n\\]`],
    ['boxed_spaces', `\\boxed{   ${answer}\n}`],
    ['boxed_nested', `\\boxed{{${answer}}}`],
    ['boxed_unclosed', `\\boxed{${answer}`],
    ['boxed_last_unclosed', `\\boxed{${answer}} and \\boxed{${other}`],
    ['boxed_empty', '\\boxed{}'],
    ['boxed_blank', '\\boxed{ \n }'],
    ['boxed_extra_close', `\\boxed{${answer}}}`],
    ['no_box', `The answer is ${answer}.`],
    ['truncated', truncate(`Computing... the answer is \\boxed{${answer}}`, random.pick([0.5, 0.9, 0.97]))],
    ['empty', ''],
  ];
  const [form, text] = random.pick(forms);
  return { form, text };
}

function execution(index: number, turn: number, code: string, output: string): ResponseItem[] {
  const id = `call_parity_${index}_${turn}`;
  return [
    { ...callOutput('execute_python', { code }, index), call_id: id } as ResponseItem,
    { type: 'function_call_output', call_id: id, output } as ResponseItem,
  ];
}

/** A tool output whose stdout says `text`, as the tool writes it or in the shapes upstream's fallback also reads. */
function toolOutput(random: Random, text: string): { form: string; output: string } {
  const forms: [string, string][] = [
    ['json', JSON.stringify({ success: true, stdout: `${text}\n`, stderr: '', error_message: null, result: null })],
    ['json', JSON.stringify({ stdout: text, stderr: '', result: null })],
    ['json_result_only', JSON.stringify({ success: true, stdout: '', stderr: '', result: text })],
    ['json_no_stdout', JSON.stringify({ success: false, error_message: text })],
    ['not_json', text],
    ['json_string', JSON.stringify(text)],
    ['json_list', JSON.stringify([{ stdout: text }])],
  ];
  const [form, output] = random.pick(forms);
  return { form, output };
}

function generated(random: Random, index: number): ParityCase {
  const gold = random.pick(GOLDS);
  const outcome = random.pick(['right', 'right', 'wrong']);
  const answer = random.pick(outcome === 'right' ? gold.right : gold.wrong);
  const other = random.pick(outcome === 'right' ? gold.wrong : gold.right);
  const { form, text } = boxedIn(random, answer, other);
  const where = random.pick(['last_message', 'last_message', 'last_message', 'earlier_message', 'split_parts', 'refusal_part', 'reasoning_only', 'stdout_only', 'stdout_only', 'stdout_and_message', 'tool_calls_only']);
  const items: ResponseItem[] = [];
  let turn = 0;
  for (let calls = random.int(0, 2); calls > 0; calls -= 1) items.push(...execution(index, turn++, 'print(2**5)', JSON.stringify({ success: true, stdout: '32\n', stderr: '', error_message: null, result: null })));
  let toolForm = '';
  switch (where) {
    case 'earlier_message':
      items.push(textOutput(text, index), ...execution(index, turn++, 'print(1)', '{"stdout": "1\\n"}'), textOutput('Done, see above.', index + 1));
      break;
    case 'split_parts': {
      const cut = Math.floor(text.length / 2);
      items.push({ ...textOutput('', index), content: [{ type: 'output_text', text: text.slice(0, cut), annotations: [] }, { type: 'output_text', text: text.slice(cut), annotations: [] }] } as ResponseItem);
      break;
    }
    case 'refusal_part':
      items.push({ ...textOutput('', index), content: [{ type: 'output_text', text, annotations: [] }, { type: 'refusal', refusal: `\\boxed{${other}}` }] } as ResponseItem);
      break;
    case 'reasoning_only':
      items.push({ type: 'reasoning', id: `rs_parity_${index}`, summary: [{ type: 'summary_text', text }] } as ResponseItem, textOutput('I am done.', index));
      break;
    case 'stdout_only':
    case 'stdout_and_message': {
      const written = toolOutput(random, text);
      toolForm = `/${written.form}`;
      items.push(...execution(index, turn++, `print(r"${text}")`, written.output));
      if (random.chance(0.3)) items.push(...execution(index, turn++, 'x = 1', JSON.stringify({ success: true, stdout: '', stderr: '', error_message: null, result: null })));
      items.push(textOutput(where === 'stdout_only' ? 'The printed value above is the answer.' : `\\boxed{${other}}`, index));
      break;
    }
    case 'tool_calls_only':
      items.push(callOutput('execute_python', { code: `print(${JSON.stringify(text)})` }, index));
      break;
    default:
      items.push(textOutput(text, index));
  }
  return {
    kind: `${where}/${form}`,
    detail: `${outcome}: ${JSON.stringify(answer)} for ${JSON.stringify(gold.expected)}${toolForm}`,
    verify: {
      responses_create_params: { input: [{ role: 'user', content: 'Compute it with Python.' }] },
      expected_result: gold.expected,
      expected_code_contains: '',
      id: index,
      response: response(items, index),
    },
  };
}

export const mathWithCode: ParityEnvironment = {
  name: 'math_with_code',
  configs: { ngym: 'math_with_code.yaml', upstream: 'math_with_code.yaml' },
  fields: ['extracted_answer', 'accuracy'],
  generate(random, count) {
    const computed = ['extracted_answer', 'accuracy'];
    const cases = [...upstreamRolloutCases('math_with_code', computed), ...dataRows('math_with_code', 'example_rollouts.jsonl').map((row) => rolloutCase(row, computed))];
    for (let index = cases.length; index < count; index += 1) cases.push(generated(random, index));
    return cases.slice(0, Math.max(count, 5));
  },
};
