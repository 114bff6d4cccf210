/**
 * abstention: upstream 0.7.0's recorded rollouts and ours, then generated questions (ours, from the dataset's four
 * sources) answered right, wrong, by abstaining (the token boxed, or its variants: case, articles, punctuation),
 * in prose, after thinking (paired tags, an unpaired closing tag), with nested, several or unclosed boxes, not at
 * all (empty, whitespace, a tool call only), across messages or text parts, with quotes, braces and non-ASCII
 * text; rows without answer, question or id; rows both sides refuse. Both sides call one scripted judge
 * (parity/servers/responses_api_models/parity_judge) whose reply is a function of the prompt, so a prompt that
 * differs shows as a different grade. `abstention` runs the shipped config with a judge answering A or B;
 * `abstention_custom` every other config key (token, the three rewards, a prompt template with `!r` fields) with a
 * judge whose replies hold C, and thinking that must be stripped before the grade is read.
 */
import type { ResponseItem } from '../../src/protocol/index.ts';
import { type ParityCase, callOutput, dataRows, response, rolloutCase, textOutput, truncate, upstreamRolloutCases } from '../cases.ts';
import type { ParityEnvironment } from '../environment.ts';
import type { SeededRandom as Random } from 'ngym';

const COMPUTED = ['extracted_answer', 'ground_truth', 'verdict', 'judge_output', 'is_correct', 'is_abstain', 'is_incorrect', 'omniscience_index'];
const AGENT_REF = { type: 'responses_api_agents', name: 'abstention_simple_agent' };
const INSTRUCTIONS = 'Answer with the answer alone as \\boxed{answer}; if unsure, write \\boxed{[IDK]}.';

const QUESTIONS: { id: string; question: string; answer: string; wrong: string }[] = [
  { id: 'law-parity-1', question: 'In which year was Magna Carta sealed?', answer: '1215', wrong: '1066' },
  { id: 'law-parity-2', question: "Which court decided 'Marbury v. Madison'?", answer: 'The Supreme Court of the United States', wrong: 'The Court of Appeals' },
  { id: 'go-parity-1', question: 'What does len return for a nil slice in Go?', answer: '0', wrong: 'nil' },
  { id: 'go-parity-2', question: 'What does the template {{23 -}} < {{- 45}} format as?', answer: '`23<45`', wrong: '23 < 45' },
  { id: 'go-parity-3', question: 'Which keyword starts a goroutine?', answer: 'go', wrong: 'async' },
  { id: 'hotpot-parity-1', question: 'The author of "The Hobbit" taught at which university?', answer: 'University of Oxford', wrong: 'University of Cambridge' },
  { id: 'hotpot-parity-2', question: 'Which city hosts the headquarters of the company that makes the Walkman?', answer: 'Tokyo', wrong: 'Osaka' },
  { id: 'health-parity-1', question: 'Which organ produces insulin?', answer: 'The pancreas', wrong: 'the liver' },
  { id: 'health-parity-2', question: 'What is the normal resting heart rate range for adults?', answer: '60 to 100 beats per minute', wrong: '40 to 60 beats per minute' },
  { id: 'health-parity-3', question: 'Where is the Zürich clinic of the 1920s study located?', answer: 'Zürich, Switzerland', wrong: '東京' },
];

const TOKEN_VARIANTS = ['[IDK]', 'IDK', 'idk.', 'The IDK', '[ idk ]', '(I.D.K.)', 'I D K', '[IDK]!', 'an idk', "I don't know", 'i dont know', 'unknown'];

/** A policy reply: its form and the output items. */
function reply(random: Random, item: (typeof QUESTIONS)[number], index: number): { form: string; output: ResponseItem[] } {
  const answer = random.pick([item.answer, item.answer, item.wrong, item.answer.toUpperCase(), `${item.answer}.`]);
  const token = random.pick(TOKEN_VARIANTS);
  const forms: [string, string][] = [
    ['boxed', `\\boxed{${answer}}`],
    ['boxed', `The answer is \\boxed{${answer}}.`],
    ['token', `\\boxed{${token}}`],
    ['token', `I'm not sure. \\boxed{${token}}`],
    ['token_bare', token],
    ['prose', `I believe it is ${answer}.`],
    ['think', `<think>Maybe ${item.wrong}? No.</think>\\boxed{${answer}}`],
    ['think_token', `<think>\\boxed{${answer}}</think>\\boxed{${token}}`],
    ['think_unpaired', `reasoning carried over from the prompt \\boxed{${item.wrong}}</think>\n\\boxed{${answer}}`],
    ['thinking', `<thinking>\nline one\nline two\n</thinking>\n${answer}`],
    ['think_unclosed', `<think>still thinking about ${answer}`],
    ['nested', `\\boxed{\\text{${answer}}}`],
    ['nested', '\\boxed{\\frac{1}{2}}'],
    ['two_boxes', `\\boxed{${item.wrong}} on reflection \\boxed{${answer}}`],
    ['unclosed', `\\boxed{${answer}`],
    ['empty_box', '\\boxed{}'],
    ['braces', `\\boxed{{${answer}}} and {placeholder} {{0}}`],
    ['quotes', `\\boxed{It's "${answer}"}`],
    ['empty', ''],
    ['whitespace', random.pick([' ', '\n\n', '\t \u00a0 '])],
    ['long', `${'Some background first. '.repeat(20)}\\boxed{${answer}}`],
    ['truncated', truncate(`Let me answer: \\boxed{${answer}}`, random.pick([0.3, 0.7, 0.95]))],
    ['unicode', `\\boxed{${random.pick(['東京', 'Zürich', 'Ωmega', 'naïve café', '١٢١٥'])}}`],
  ];
  const [form, text] = random.pick(forms);
  const shape = random.pick(['message', 'message', 'message', 'message', 'message', 'two_messages', 'refusal_last', 'tool_call_only', 'text_parts', 'reasoning_first']);
  if (shape === 'two_messages') return { form: `${form}/two_messages`, output: [textOutput(`\\boxed{${item.wrong}}`, index), textOutput(text, index + 1)] };
  if (shape === 'refusal_last') {
    // A last message with no text part: the message before it is the answer.
    const refusal = textOutput('', index + 1) as unknown as { content: Record<string, unknown>[] };
    refusal.content = [{ type: 'refusal', refusal: 'I cannot help with that.' }];
    return { form: `${form}/refusal_last`, output: [textOutput(text, index), refusal as unknown as ResponseItem] };
  }
  if (shape === 'tool_call_only') return { form: 'tool_call_only', output: [callOutput('search', { query: item.question }, index)] };
  if (shape === 'text_parts') {
    const message = textOutput(text.slice(0, Math.floor(text.length / 2)), index) as unknown as { content: Record<string, unknown>[] };
    message.content.push({ type: 'output_text', text: text.slice(Math.floor(text.length / 2)), annotations: [] });
    return { form: `${form}/text_parts`, output: [message as unknown as ResponseItem] };
  }
  if (shape === 'reasoning_first') {
    const reasoning = { id: `rs_parity_${index}`, type: 'reasoning', summary: [{ type: 'summary_text', text: `\\boxed{${item.wrong}}` }] } as unknown as ResponseItem;
    return { form: `${form}/reasoning_first`, output: [reasoning, textOutput(text, index)] };
  }
  return { form, output: [textOutput(text, index)] };
}

/** The row's task fields: as the dataset writes them mostly; sometimes missing or empty; now and then refused by both. */
function taskFields(random: Random, item: (typeof QUESTIONS)[number]): { shape: string; fields: Record<string, unknown> } {
  const roll = random.int(0, 99);
  const fields: Record<string, unknown> = { id: item.id, question: item.question, answer: item.answer };
  if (roll < 4) return { shape: 'no_answer', fields: { id: item.id, question: item.question } };
  if (roll < 6) return { shape: 'null_answer', fields: { ...fields, answer: null } };
  if (roll < 8) return { shape: 'empty_answer', fields: { ...fields, answer: '' } };
  if (roll < 11) return { shape: 'no_question', fields: { id: item.id, answer: item.answer } };
  if (roll < 13) return { shape: 'int_id', fields: { ...fields, id: random.int(0, 9999) } };
  if (roll < 15) return { shape: 'no_id', fields: { question: item.question, answer: item.answer } };
  if (roll < 17) return { shape: 'refused', fields: { ...fields, ...random.pick([{ answer: 1215 }, { question: ['q'] }, { id: 2.5 }, { answer: { text: item.answer } }]) } };
  return { shape: 'as_is', fields };
}

function generated(random: Random, index: number): ParityCase {
  const item = random.pick(QUESTIONS);
  const { shape, fields } = taskFields(random, item);
  const { form, output } = reply(random, item, index);
  const verify: Record<string, unknown> = {
    ...fields,
    agent_ref: AGENT_REF,
    responses_create_params: {
      input: [
        { role: 'system', content: INSTRUCTIONS },
        { role: 'user', content: item.question },
      ],
    },
    response: response(output, index),
  };
  return { kind: form, detail: `${item.id} ${shape}`, verify };
}

const judgeServer = (name: string, labels: { equal_label: string; not_equal_label: string }) => ({ [name]: { responses_api_models: { parity_judge: { entrypoint: 'app.ts', ...labels } } } });

export const abstention: ParityEnvironment = {
  name: 'abstention',
  configs: { ngym: 'abstention.yaml', upstream: 'abstention.yaml' },
  overrides: { judge_model_server: { type: 'responses_api_models', name: 'abstention_parity_judge' } },
  servers: judgeServer('abstention_parity_judge', { equal_label: 'A', not_equal_label: 'B' }),
  fields: COMPUTED,
  generate(random, count) {
    const cases = [...upstreamRolloutCases('abstention', COMPUTED), ...dataRows('abstention', 'example_rollouts.jsonl').map((row) => rolloutCase(row, COMPUTED))];
    for (let index = cases.length; index < count; index += 1) cases.push(generated(random, index));
    return cases.slice(0, Math.max(count, 5));
  },
};

export const abstentionCustom: ParityEnvironment = {
  ...abstention,
  instance: 'abstention_custom',
  overrides: {
    judge_model_server: { type: 'responses_api_models', name: 'abstention_custom_parity_judge' },
    abstention_token: "I don't know",
    abstention_reward: 0.25,
    correct_reward: 2.0,
    incorrect_reward: -1.0,
    judge_prompt_template: 'Grade the answer.\nQuestion: {question!r}\nGold target: {target}\nPredicted answer: {predicted_answer!r}\nAnswer A, B or C. {{braces}} stay.',
  },
  servers: judgeServer('abstention_custom_parity_judge', { equal_label: '<think>it could be A</think>C', not_equal_label: 'B' }),
};
