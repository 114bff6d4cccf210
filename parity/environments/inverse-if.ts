/**
 * inverse_if (judged, through the scripted judge parity/servers/responses_api_models/parity_judge, answering with
 * the JSON verdicts inverse_if reads, in its reply shapes): upstream 0.7.0's example rollouts (joined to their rows)
 * and ngym's, then generated instructions of Inverse IF's kinds with 1 to 4 criteria (ids absent, criteria
 * absent), the prompt, the reference answer and the rubric in the row, in metadata (the row's empty), in both or
 * nowhere; the row's own judge template (literal braces, a repr field, fields left unused) or the config's
 * (null, "", absent), its own system prompt or the config's; answers in the forms models write (multichallenge's
 * forms and shapes). 4% rows both sides refuse (a template with a placeholder it cannot fill, a lone brace or a
 * positional field; ids or criteria that are no strings; metadata texts that are no strings...), or leave unused.
 * Six instances: the shipped config (mean) and one per other aggregation mode, each with judge replies in another
 * shape (a bare object in any case, verdict words on the last line, a verdict inside a reasoning block, broken
 * JSON, braces inside the explanation) and other settings.
 */
import { type ParityCase, response, upstreamRolloutCases } from '../cases.ts';
import type { ParityEnvironment } from '../environment.ts';
import { answered, applyOne, exampleRolloutCases, judgeRef, judgeServer, written } from './multichallenge.ts';
import type { SeededRandom as Random } from 'ngym';

interface Task {
  taxonomy: string;
  prompt: string;
  reference: string;
  criteria: string[];
  answers: string[];
}

const TASKS: Task[] = [
  {
    taxonomy: 'Counter-Conventional Formatting',
    prompt: 'Write the days of the working week backwards, Friday first, separated by " < " and in lower case.',
    reference: 'friday < thursday < wednesday < tuesday < monday',
    criteria: ['Does the list start with Friday and end with Monday?', 'Are the days separated by " < "?', 'Is every day in lower case?', 'Are exactly five days listed?'],
    answers: ['friday < thursday < wednesday < tuesday < monday', 'Monday < Tuesday < Wednesday < Thursday < Friday', 'friday, thursday, wednesday, tuesday, monday'],
  },
  {
    taxonomy: 'Question Correction',
    prompt: 'How many legs does a spider have: six, seven or nine? If none of these is right, say so and give the right number.',
    reference: 'None of them: a spider has eight legs.',
    criteria: ['Does the response say that none of the options is right?', 'Does the response give eight as the number of legs?', 'Does the response avoid choosing six, seven or nine?'],
    answers: ['None of those: spiders have eight legs.', 'Six, like an insect.', 'Strictly none of them; the answer is 8.'],
  },
  {
    taxonomy: 'Intentional Textual Flaws',
    prompt: 'Write the sentence "The quick brown fox jumps over the lazy dog" with every vowel replaced by an asterisk.',
    reference: 'Th* q**ck br*wn f*x j*mps *v*r th* l*zy d*g',
    criteria: ['Is every vowel replaced by an asterisk?', 'Are all consonants kept in place?', 'Is the response only the altered sentence?'],
    answers: ['Th* q**ck br*wn f*x j*mps *v*r th* l*zy d*g', 'Here it is: Th* q**ck br*wn f*x j*mps *v*r th* l*zy d*g', 'The quick brown fox jumps over the lazy dog'],
  },
  {
    taxonomy: 'Lexical Constraints',
    prompt: "Describe the sea in one sentence of at most twelve words without the letter 'e'.",
    reference: 'A vast blue world rolls on, calm and glassy, without an end.',
    criteria: ["Does the response avoid the letter 'e'?", 'Is the response one sentence?', 'Does it have at most twelve words?', 'Is it about the sea?'],
    answers: ['A vast, calm, blue world of salt and sand.', 'The sea is endless and deep.', 'Calm blue water, glassy and vast, as far as an eye can look.'],
  },
  {
    taxonomy: 'Counter-Conventional Formatting',
    prompt: 'Give three tips for sleeping better as a JSON array of strings and nothing else.',
    reference: '["Keep a fixed bedtime", "Avoid screens late", "Keep the room cool"]',
    criteria: ['Is the response a JSON array of three strings?', 'Is there nothing outside the array?', 'Are the tips about sleep?'],
    answers: ['["Keep a fixed bedtime", "Avoid screens late", "Keep the room cool"]', 'Here you go:\n```json\n["Sleep early", "No coffee", "Dark room"]\n```', '{"tips": ["Sleep early", "No coffee", "Dark room"]}'],
  },
];

/** Per-row judge templates in the shapes the dataset's rows carry (all four fields, some unused, literal braces, a repr). */
const TEMPLATES = [
  '## Question\n{prompt}\n\n---\n## Student Response\n{model_response}\n\n---\n## Standard Response\n{standard_response}\n\n---\n## Evaluation Criteria\n{criteria}\n\n---',
  'Instruction: {prompt}\nCandidate: {model_response!r}\nCriterion: {criteria}\nReturn {{"result": "PASS"|"FAIL", "explanation": "..."}}.',
  'Criterion: {criteria}\n\nResponse:\n{model_response}',
];
/** Templates both sides refuse to fill (upstream with 500). */
const BROKEN_TEMPLATES = ['Check {criteria} against {answer}', 'Reply {"result": "PASS"} if {model_response} meets {criteria}', 'Q: {0}', 'Unclosed {criteria'];
const SYSTEM_PROMPTS = ['You grade one criterion at a time. Reply with JSON {"result": "PASS" or "FAIL", "explanation": "..."}.', 'Be strict.'];

function criterionOf(random: Random, criteria: string, position: number): Record<string, unknown> {
  const roll = random.int(0, 19);
  if (roll === 0) return { criteria };
  if (roll === 1) return { id: `C${position + 1}` };
  return { id: random.pick([`C${position + 1}`, `R-${position}`, '']), criteria };
}

/** A change both sides refuse (upstream with 422 or 500, ngym with 422), or leave unused (both score). */
function broken(random: Random, verify: Record<string, unknown>): string {
  const metadata = (verify.metadata ??= {}) as Record<string, unknown>;
  const rubric = [{ id: 'C1', criteria: 'Is it right?' }];
  const breaks: [string, () => void][] = [
    ['template_unknown_field', () => ((verify.rubric = rubric), (verify.judge_prompt_template = random.pick(BROKEN_TEMPLATES)))],
    ['id_not_string', () => (verify.rubric = [{ id: 1, criteria: 'Is it right?' }])],
    ['criteria_null', () => (verify.rubric = [{ id: 'C1', criteria: null }])],
    ['rubric_item_string', () => (verify.rubric = ['Is it right?'])],
    ['metadata_rubric_string', () => ((verify.rubric = []), (metadata.rubric = 'Is it right?'))],
    ['metadata_rubric_null', () => ((verify.rubric = null), (metadata.rubric = null))],
    ['metadata_prompt_number', () => ((verify.prompt = ''), (metadata.prompt = 42))],
    ['metadata_reference_null', () => ((verify.reference_response = null), (metadata.reference_response = null))],
    ['prompt_list', () => (verify.prompt = ['a'])],
    ['system_prompt_number', () => (verify.judge_system_prompt = 1)],
    ['template_number', () => (verify.judge_prompt_template = 5)],
    ['task_id_float', () => (verify.task_id = 2.5)],
    // Unused, so both score: a broken template on a row without criteria, broken metadata behind the row's own fields.
    ['unused_template', () => ((verify.rubric = []), (verify.judge_prompt_template = random.pick(BROKEN_TEMPLATES)))],
    ['unused_metadata', () => ((verify.prompt = 'Given prompt.'), (verify.rubric = rubric), (metadata.prompt = 42), (metadata.rubric = 'x'))],
  ];
  return applyOne(random, breaks);
}

function generated(random: Random, index: number): ParityCase {
  const task = random.pick(TASKS);
  const chosen = random.shuffled(task.criteria).slice(0, random.int(1, Math.min(4, task.criteria.length)));
  const rubric = chosen.map((criteria, position) => criterionOf(random, criteria, position));
  const verify: Record<string, unknown> = {
    uuid: random.pick([`parity_${index}`, index]),
    task_id: random.pick([index, String(index), null]),
    responses_create_params: { input: [{ role: 'user', content: task.prompt }] },
  };
  const metadata: Record<string, unknown> = random.chance(0.7) ? { domain: 'Parity', l1_taxonomy: task.taxonomy } : {};
  const textsShape = random.pick(['row', 'row', 'row', 'row', 'row', 'metadata', 'both', 'absent']);
  if (textsShape === 'row' || textsShape === 'both') Object.assign(verify, { prompt: task.prompt, reference_response: task.reference });
  if (textsShape === 'metadata') Object.assign(verify, { prompt: random.pick(['', null, undefined]), reference_response: random.pick(['', null, undefined]) });
  if (textsShape === 'metadata' || textsShape === 'both') Object.assign(metadata, { prompt: textsShape === 'both' ? 'Unused.' : task.prompt, reference_response: textsShape === 'both' ? 'Unused.' : task.reference });
  const rubricShape = random.pick(['row', 'row', 'row', 'row', 'row', 'row', 'metadata', 'metadata', 'both', 'none']);
  if (rubricShape === 'row' || rubricShape === 'both') verify.rubric = rubric;
  if (rubricShape === 'metadata') verify.rubric = random.pick([[], null, undefined]);
  if (rubricShape === 'metadata' || rubricShape === 'both') metadata.rubric = rubricShape === 'both' ? [{ id: 'X', criteria: 'Unused?' }] : rubric;
  if (rubricShape === 'none') {
    verify.rubric = random.pick([[], null, undefined]);
    if (random.chance(0.5)) metadata.rubric = random.pick(['', {}, []]);
  }
  const templateShape = random.pick(['own', 'own', 'own', 'own', 'null', 'empty', 'absent']);
  if (templateShape === 'own') verify.judge_prompt_template = random.pick(TEMPLATES);
  if (templateShape === 'null' || templateShape === 'empty') verify.judge_prompt_template = templateShape === 'null' ? null : '';
  const system = random.pick([...SYSTEM_PROMPTS, null, '', undefined]);
  if (system !== undefined) verify.judge_system_prompt = system;
  if (Object.keys(metadata).length > 0 || random.chance(0.2)) verify.metadata = metadata;
  const breaking = random.chance(0.04) ? broken(random, verify) : undefined;

  const { form, text } = written(random, random.pick(task.answers), random.pick(task.answers));
  const { shape, output } = answered(random, text, index);
  verify.response = response(output, index);
  return {
    kind: breaking !== undefined ? `refused:${breaking}` : shape === 'message' ? form : `${shape}/${form}`,
    detail: `${task.taxonomy}; texts ${textsShape}; rubric ${rubricShape} (${rubric.length}); template ${templateShape}`,
    verify,
  };
}

const FIELDS = ['prompt', 'generated_response', 'reference_response', 'rubric_evaluations', 'aggregation_mode', 'num_passed', 'num_total'];
const FENCED = 'parity_judge_json';
const fenced = (result: string, explanation: string) => `\`\`\`json\n{"result": "${result}", "explanation": "${explanation}"}\n\`\`\``;

export const inverseIf: ParityEnvironment = {
  name: 'inverse_if',
  configs: { ngym: 'inverse_if.yaml', upstream: 'inverse_if.yaml' },
  overrides: { judge_model_server: judgeRef(FENCED) },
  servers: judgeServer(FENCED, fenced('PASS', 'The criterion is met.'), fenced('FAIL', 'The criterion is not met.')),
  fields: FIELDS,
  generate(random, count) {
    const cases = [...upstreamRolloutCases('inverse_if', FIELDS), ...exampleRolloutCases('inverse_if')];
    for (let index = cases.length; index < count; index += 1) cases.push(generated(random, index));
    return cases;
  },
};

/** The other aggregation modes, each on servers with other settings and a judge answering in another shape. */
function variant(mode: string, judge: [string, string, string], settings: Record<string, unknown> = {}): ParityEnvironment {
  const [name, pass, fail] = judge;
  return { ...inverseIf, instance: `inverse_if_${mode}`, overrides: { judge_model_server: judgeRef(name), aggregation_mode: mode, ...settings }, servers: judgeServer(name, pass, fail) };
}

export const inverseIfModes: readonly ParityEnvironment[] = [
  // A bare object, the result in any case; criteria judged one after another.
  variant('weighted', ['parity_judge_bare_json', '{"result": "pass", "explanation": "It holds."}', '{"result": "Fail", "explanation": "It does not hold."}'], { parallel_evaluation: false }),
  // No JSON: the verdict word on the last line.
  variant('min', ['parity_judge_words', 'Verdict: PASS', 'Verdict: FAIL']),
  // The other verdict inside a reasoning block, which is stripped from the reply first.
  variant('max', ['parity_judge_json_in_think', `<think>{"result": "FAIL"}</think>${fenced('PASS', 'ok')}`, `<think>{"result": "PASS"}</think>${fenced('FAIL', 'no')}`]),
  // Broken JSON (an unquoted value): the lines decide. Rows without a system prompt of their own get none.
  variant('all', ['parity_judge_broken_json', '```json\n{"result": "PASS", "explanation": unquoted}\n```', '```json\n{"result": "FAIL", "explanation": unquoted}\n```'], { default_judge_system_prompt: '' }),
  // Braces inside the explanation: the flat-object pattern cannot match it, and the lines decide.
  variant('any', ['parity_judge_braces', '{"result": "PASS", "explanation": "meets {it}"}', '{"result": "FAIL", "explanation": "misses {it}"}'], { parallel_evaluation: false }),
];
