/**
 * The judged paths, both sides calling one scripted judge (parity/servers/responses_api_models/parity_judge):
 * math_with_judge with `should_use_judge: true` (the library cases; the judge is asked where the library says no)
 * and equivalence_llm_judge (0.7.0's shipped settings, and `_swap` with every branch of the flow on). The judge's verdict
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

const EQUIVALENCE_FIELDS = ['expected_answer', 'judge_evaluations', 'failure_reason'];
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
    ['whitespace_only', random.pick([' ', '\n\n', '\t \u00a0'])],
    ['bold', `I am fairly sure: **${answer}**.`],
    ['regex_empty_group', `(()) then (( ${answer} ))`],
  ];
  const shape = random.pick([...forms.map(([form]) => form), 'two_messages', 'tool_call_only', 'text_blocks', 'reasoning_then_text']);
  if (shape === 'two_messages') return { form: shape, output: [textOutput(`Draft: ${random.pick(OTHER_ANSWERS)}`, index), textOutput(`\\boxed{${answer}}`, index + 1)] };
  if (shape === 'tool_call_only') return { form: shape, output: [callOutput('search', { query: String(row.question ?? '') }, index)] };
  if (shape === 'text_blocks') {
    // One message split into several text parts (and an empty one), as some providers send it.
    const message = textOutput(`It is ((${answer}))`, index) as unknown as { content: { text: string }[] };
    message.content.push({ ...(message.content[0] as { text: string }), text: '' }, { ...(message.content[0] as { text: string }), text: `  **${answer}**  ` });
    return { form: shape, output: [message as unknown as ResponseItem] };
  }
  if (shape === 'reasoning_then_text') {
    const reasoning = { id: `rs_parity_${index}`, type: 'reasoning', summary: [{ type: 'summary_text', text: `Thinking about ${random.pick(OTHER_ANSWERS)}` }] } as unknown as ResponseItem;
    return { form: shape, output: [reasoning, textOutput(random.pick(['', `((${answer}))`]), index)] };
  }
  return { form: shape, output: [textOutput(forms.find(([form]) => form === shape)?.[1] ?? '', index)] };
}

const LONG_GOLD = ' — the full statement a grader expects, with its conditions, units and the reasoning that makes it hold in general.';

/** The row as the policy saw it, sometimes reshaped: a long gold answer, a numeric gold in metadata, a multimodal question. */
function reshaped(random: Random, source: Record<string, unknown>): { row: Record<string, unknown>; shape: string } {
  const row = structuredClone(source);
  const shape = random.pick(['as_is', 'as_is', 'long_gold', 'metadata_number', 'content_list']);
  if (shape === 'long_gold' && typeof row.expected_answer === 'string') row.expected_answer += LONG_GOLD;
  if (shape === 'metadata_number') {
    delete row.expected_answer;
    row.metadata = { expected_answer: random.pick([4, 2.5, 1e-7, true, null]) };
  }
  if (shape === 'content_list') {
    const params = row.responses_create_params as { input: { role: string; content: unknown }[] };
    const last = params.input.at(-1);
    if (last !== undefined && typeof last.content === 'string') last.content = [{ type: 'input_text', text: last.content }, { type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'auto' }, { type: 'input_text', text: 'Look at the picture.' }];
  }
  return { row, shape };
}

function equivalenceCases(random: Random, count: number): ParityCase[] {
  const cases = dataRows('equivalence_llm_judge', 'example_rollouts.jsonl').map((row) => rolloutCase(row, EQUIVALENCE_FIELDS));
  const rows = dataRows('equivalence_llm_judge', 'example.jsonl');
  for (let index = cases.length; index < count; index += 1) {
    const { row, shape } = reshaped(random, random.pick(rows));
    const { form, output } = answered(random, row, index);
    cases.push({ kind: form, detail: `${String(row.uuid)} ${shape}`, verify: { ...row, response: response(output, index) } });
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
  // The swap check, and the per-row regex settings of upstream's class defaults (the rescue, the length skip),
  // with an answer length limit: every branch of the verify flow.
  overrides: {
    judge_model_server: judgeRef,
    check_twice_swap: true,
    reward_if_swap_fails: -1.0,
    extraction_length_threshold: 120,
    check_full_generation_on_fail: true,
    reward_if_full_generation_succeeds: 0.5,
    max_answer_chars: 150,
  },
};
