/**
 * The judged paths, both sides calling one scripted judge (parity/servers/responses_api_models/parity_judge):
 * math_with_judge with `should_use_judge: true` (the library cases; the judge is asked where the library says no)
 * and equivalence_llm_judge (every case goes to the judge, with and without the swap check). The judge's verdict
 * is a function of the prompt, so a prompt or request that differs between the sides shows as a disagreement.
 */
import type { ResponseItem } from '../../src/protocol/index.ts';
import { type ParityCase, callOutput, dataRows, response, rolloutCase, textOutput, truncate } from '../cases.ts';
import type { ParityEnvironment } from '../environment.ts';
import { mathWithJudge } from './math-with-judge.ts';
import type { SeededRandom as Random } from 'ngym';

const JUDGE = 'parity_judge';
const judgeServer = { [JUDGE]: { responses_api_models: { parity_judge: { entrypoint: 'app.ts' } } } };
const judgeRef = { type: 'responses_api_models', name: JUDGE };

export const mathWithJudgeJudged: ParityEnvironment = {
  ...mathWithJudge,
  instance: 'math_with_judge_judged',
  overrides: { should_use_judge: true, judge_model_server: judgeRef },
  servers: judgeServer,
};

const EQUIVALENCE_FIELDS = ['expected_answer', 'judge_evaluations'];
const OTHER_ANSWERS = ['mitochondria', 'the nucleus', '4', 'four', 'ohm', 'Ω', 'Isaac Newton', 'Newton', 'Paris', '3.0 x 10^8 m/s', ''];

/** A model's answer to a row, in one of the shapes its templates ask for or break. */
function answered(random: Random, row: Record<string, unknown>, index: number): { form: string; output: ResponseItem[] } {
  const expected = typeof row.expected_answer === 'string' ? row.expected_answer : '';
  const answer = random.chance(0.5) ? expected : random.pick(OTHER_ANSWERS);
  const forms: [string, string][] = [
    ['boxed', `After thinking it through, the answer is \\boxed{${answer}}.`],
    ['double_parentheses', `It is ((${answer})).`],
    ['final_answer_tags', `Briefly: a known fact. <final_answer>${answer}</final_answer>`],
    ['plain', answer],
    ['answer_colon', `Answer: ${answer}`],
    ['two_candidates', `Maybe ((${random.pick(OTHER_ANSWERS)})), but I settle on ((${answer})). \\boxed{${answer}}`],
    ['long', `${'Let me explain the background at some length before answering. '.repeat(4)}The answer is \\boxed{${answer}}.`],
    ['think_first', `<think>is it ${random.pick(OTHER_ANSWERS)}?</think>\\boxed{${answer}}`],
    ['unicode_whitespace', `\n\n  \\boxed{ ${answer} }  ✓\n`],
    ['truncated', truncate(`The answer is \\boxed{${answer}}`, random.pick([0.3, 0.7, 0.9]))],
    ['empty', ''],
  ];
  const shape = random.pick([...forms.map(([form]) => form), 'two_messages', 'tool_call_only']);
  if (shape === 'two_messages') return { form: shape, output: [textOutput(`Draft: ${random.pick(OTHER_ANSWERS)}`, index), textOutput(`\\boxed{${answer}}`, index + 1)] };
  if (shape === 'tool_call_only') return { form: shape, output: [callOutput('search', { query: String(row.question ?? '') }, index)] };
  return { form: shape, output: [textOutput(forms.find(([form]) => form === shape)?.[1] ?? '', index)] };
}

function equivalenceCases(random: Random, count: number): ParityCase[] {
  const cases = dataRows('equivalence_llm_judge', 'example_rollouts.jsonl').map((row) => rolloutCase(row, EQUIVALENCE_FIELDS));
  const rows = dataRows('equivalence_llm_judge', 'example.jsonl');
  for (let index = cases.length; index < count; index += 1) {
    const row = random.pick(rows);
    const { form, output } = answered(random, row, index);
    cases.push({ kind: form, detail: String(row.uuid), verify: { ...row, response: response(output, index) } });
  }
  return cases;
}

const equivalenceBase: ParityEnvironment = {
  name: 'equivalence_llm_judge',
  configs: { ngym: 'equivalence_llm_judge.yaml', upstream: 'equivalence_llm_judge.yaml' },
  overrides: { judge_model_server: judgeRef, check_twice_swap: false },
  servers: judgeServer,
  fields: EQUIVALENCE_FIELDS,
  generate: equivalenceCases,
};

export const equivalenceLlmJudge: ParityEnvironment = equivalenceBase;

export const equivalenceLlmJudgeSwap: ParityEnvironment = {
  ...equivalenceBase,
  instance: 'equivalence_llm_judge_swap',
  overrides: { judge_model_server: judgeRef, check_twice_swap: true },
};
