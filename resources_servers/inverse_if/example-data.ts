/**
 * inverse_if's example tasks (ours: instructions that go against habit, in four of Inverse IF's categories), the
 * final answers of their example rollouts and the judge's reply to each criterion. `data/example.jsonl` and
 * `data/example_rollouts.jsonl` are written from here:
 *
 *   npx tsx resources_servers/inverse_if/example-data.ts
 *
 * The rollouts come from running the rows through simple_agent against the real server, with scripted models as
 * the policy (each task's answer) and as `judge_model` (the replies below, in the shapes judges write: a fenced
 * JSON block, a bare object, a lower-case result, a verdict word on the last line), so their rewards are the
 * server's: 1, 0.5, 2/3, 1/3, 1. The last task has no judge prompts of its own: the config's defaults judge it.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assistantMessage, callServer, exampleData, scriptedModel, startInProcessGym, usage } from 'ngym/testing';

export const EXAMPLE_DATA = exampleData('inverse_if');

interface ExampleTask {
  domain: string;
  taxonomy: string;
  prompt: string;
  reference: string;
  /** Each criterion with the judge's reply to it. */
  rubric: { criteria: string; judge: string }[];
  /** The example rollout's final answer. */
  answer: string;
  /** Whether the row carries its own judge prompts (else the config's defaults apply). */
  ownJudgePrompts: boolean;
}

/** Our per-task judge prompt and system prompt, in the shape Inverse IF's rows carry them. */
const JUDGE_TEMPLATE =
  '### Instruction\n{prompt}\n\n### Candidate answer\n{model_response}\n\n### Reference answer\n{standard_response}\n\n### Criterion to check\n{criteria}\n\nAnswer with {{"result": "PASS" or "FAIL", "explanation": "..."}}.';
const JUDGE_SYSTEM_PROMPT =
  'You check one instruction-following criterion at a time. Read only what the candidate answer literally contains; give PASS only when it meets the criterion exactly as written, otherwise FAIL. Reply with a fenced json block holding "result" and a one-sentence "explanation".';

const fenced = (result: 'PASS' | 'FAIL', explanation: string) => `\`\`\`json\n${JSON.stringify({ result, explanation }, null, 2)}\n\`\`\``;

export const EXAMPLE_TASKS: ExampleTask[] = [
  {
    domain: 'Science, Tech, & Environment',
    taxonomy: 'Counter-Conventional Formatting',
    prompt: 'List the four inner planets from the farthest from the Sun to the nearest, one per line, each name in capital letters, with no numbering or bullets.',
    reference: 'MARS\nEARTH\nVENUS\nMERCURY',
    rubric: [
      { criteria: 'Are exactly four planets listed, one per line?', judge: fenced('PASS', 'Four lines, one planet each.') },
      { criteria: 'Is the order Mars, Earth, Venus, Mercury?', judge: `Checking the order against the reference.\n${fenced('PASS', 'The order matches.')}` },
      { criteria: 'Is every name in capital letters, without numbers or bullets?', judge: '{"result": "PASS", "explanation": "All capitals, no list markers."}' },
    ],
    answer: 'MARS\nEARTH\nVENUS\nMERCURY',
    ownJudgePrompts: true,
  },
  {
    domain: 'Education & Research',
    taxonomy: 'Question Correction',
    prompt: 'Which of these elements has the chemical symbol K: iron, silver or gold? If none of them does, say so and name the element that does.',
    reference: 'None of them: iron is Fe, silver is Ag and gold is Au. K is the symbol of potassium.',
    rubric: [
      { criteria: 'Does the response say that none of the three listed elements has the symbol K?', judge: fenced('FAIL', 'It picks silver.') },
      { criteria: 'Does the response name potassium as the element with the symbol K?', judge: fenced('PASS', 'Potassium is named.') },
    ],
    answer: '<think>K... Kalium is potassium, but the question wants one of the three.</think>Silver is the closest match, though strictly K is potassium.',
    ownJudgePrompts: true,
  },
  {
    domain: 'Arts & Culture',
    taxonomy: 'Intentional Textual Flaws',
    prompt: 'Write one sentence about autumn leaves in which no word starts with a capital letter and the sentence has no final punctuation mark.',
    reference: 'red and amber leaves drift down over the quiet park as the days grow short',
    rubric: [
      { criteria: 'Does no word start with a capital letter?', judge: fenced('PASS', 'Every word is lower case.') },
      { criteria: 'Does the sentence end without a punctuation mark?', judge: 'The sentence ends with a period.\n\nResult: FAIL' },
      { criteria: 'Is the response a single sentence about autumn leaves?', judge: '```json\n{"result": "pass", "explanation": "One sentence about falling leaves."}\n```' },
    ],
    answer: 'golden leaves spin slowly down from the old maple by the river.',
    ownJudgePrompts: true,
  },
  {
    domain: 'Arts & Culture',
    taxonomy: 'Lexical Constraints',
    prompt: "Describe a thunderstorm in exactly two sentences without using the letter 'a' anywhere.",
    reference: 'Thunder rolls over the hills while rain hits every roof. Bright forks of light split the night sky.',
    rubric: [
      { criteria: 'Does the response have exactly two sentences?', judge: fenced('PASS', 'Two sentences.') },
      { criteria: "Does the response avoid the letter 'a' entirely?", judge: fenced('FAIL', "'and' and 'flash' contain the letter a.") },
      { criteria: 'Does the response describe a thunderstorm?', judge: fenced('FAIL', 'It describes a calm night instead.') },
    ],
    answer: 'The night was calm and still. A single flash lit the sky.',
    ownJudgePrompts: true,
  },
  {
    domain: 'Business, Finance, Industry',
    taxonomy: 'Counter-Conventional Formatting',
    prompt: 'Write a three-item agenda for a budget meeting, numbered in countdown order (3., 2., 1.), with each item under six words.',
    reference: '3. Review last quarter spending\n2. Agree on next budget\n1. Assign follow-up owners',
    rubric: [
      { criteria: 'Are the items numbered 3., 2., 1. in that order?', judge: fenced('PASS', 'The numbering counts down.') },
      { criteria: 'Is every item under six words?', judge: fenced('PASS', 'Each item has four words.') },
    ],
    answer: '3. Review quarterly spending\n2. Approve next budget\n1. Assign action owners',
    ownJudgePrompts: false,
  },
];

export function exampleRows(): Record<string, unknown>[] {
  return EXAMPLE_TASKS.map((task, index) => ({
    uuid: `ngym_inverse_if_${index + 1}`,
    task_id: index + 1,
    agent_ref: { type: 'responses_api_agents', name: 'inverse_if_simple_agent' },
    responses_create_params: { input: [{ role: 'user', content: task.prompt }] },
    rubric: task.rubric.map(({ criteria }, position) => ({ id: `C${position + 1}`, criteria })),
    reference_response: task.reference,
    prompt: task.prompt,
    judge_prompt_template: task.ownJudgePrompts ? JUDGE_TEMPLATE : null,
    judge_system_prompt: task.ownJudgePrompts ? JUDGE_SYSTEM_PROMPT : null,
    metadata: { domain: task.domain, l1_taxonomy: task.taxonomy },
  }));
}

/** The judge's reply to a prompt: the one written for the criterion it asks about (the criterion ends both templates). */
export function judgeReply(prompt: string): string | undefined {
  return EXAMPLE_TASKS.flatMap((task) => task.rubric).find((item) => prompt.includes(`\n${item.criteria}\n`))?.judge;
}

/** The policy model of the example rollouts: it gives each task's answer. */
function policyModel() {
  return scriptedModel(({ input }) => {
    const index = EXAMPLE_TASKS.findIndex((task) => task.prompt === (input.at(-1) as { content?: unknown }).content);
    const task = EXAMPLE_TASKS[index] as ExampleTask;
    return { id: `resp_example_${index}`, created_at: 1_764_000_000, model: 'example-model', output: [assistantMessage(task.answer, { id: `msg_example_${index}` })], usage: usage(120, 60) };
  });
}

const judgeModel = () => scriptedModel(({ input }) => ({ model: 'example-judge', output: [assistantMessage(judgeReply(String(input.at(-1)?.content)) ?? 'no verdict', { id: 'msg_example_judge' })], usage: usage(500, 40) }));

const toJsonl = (rows: readonly unknown[]) => rows.map((row) => JSON.stringify(row)).join('\n') + '\n';

async function main(): Promise<void> {
  // writeExampleData serves only the policy model; this config also names `judge_model`.
  const gym = await startInProcessGym({
    overrides: [`+config_paths=[${EXAMPLE_DATA.configPath}]`, '++policy_model={responses_api_models: {scripted: {entrypoint: app.ts}}}', '++judge_model={responses_api_models: {scripted: {entrypoint: app.ts}}}'],
    definitions: { policy_model: policyModel().definition, judge_model: judgeModel().definition },
  });
  try {
    const rows = exampleRows();
    const rollouts = [];
    for (const row of rows) rollouts.push(await callServer(gym, EXAMPLE_DATA.agent, '/run', row));
    writeFileSync(EXAMPLE_DATA.examplePath, toJsonl(rows));
    writeFileSync(EXAMPLE_DATA.rolloutsPath, toJsonl(rollouts));
  } finally {
    await gym.close();
  }
  process.stdout.write(`wrote ${EXAMPLE_DATA.examplePath} and ${EXAMPLE_DATA.rolloutsPath}\n`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
