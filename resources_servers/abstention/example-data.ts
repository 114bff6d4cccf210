/**
 * The environment's example tasks (ours, one or two from each of upstream's sources: law, Go documentation,
 * HotPotQA-style multi-hop, health) with the policy's answers and the judge's grades of their example rollouts.
 * `data/example.jsonl` and `data/example_rollouts.jsonl` are written from here:
 *
 *   npx tsx resources_servers/abstention/example-data.ts
 *
 * Each rollout runs its row through simple_agent and the real server, the policy and the judge (`genrm_model`)
 * both scripted. Rewards: 1 (correct), 1 (correct after thinking), 0.5 (`\boxed{[IDK]}`, no judge call), 0
 * (incorrect), 0.5 (an unboxed "I do not know" the judge grades NOT_ATTEMPTED). `data/example_metrics.json` is
 * then `ngym prepare-data`'s.
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGE_ROOT } from 'ngym/runtime';
import { assistantMessage, callServer, type ModelScript, scriptedModel, startInProcessGym } from 'ngym/testing';

export const DATA_DIR = join(PACKAGE_ROOT, 'resources_servers', 'abstention', 'data');
export const CONFIG_PATH = 'resources_servers/abstention/configs/abstention.yaml';

/** Our wording of the row's instructions: answer only, boxed, or box the abstention token. */
const INSTRUCTIONS =
  'Answer the question with the answer alone, no explanation, written as \\boxed{your answer}.\n' +
  'If you are not sure of the answer, or would need more context or tools to find it, write \\boxed{[IDK]} instead.\n' +
  'A wrong answer is worse than no answer.';

interface ExampleTask {
  id: string;
  question: string;
  answer: string;
  /** The policy's reply in the example rollout. */
  reply: string;
  /** The judge's grade of that reply (none when the reply abstains with the token). */
  grade?: 'A' | 'B' | 'C';
}

export const EXAMPLE_TASKS: ExampleTask[] = [
  { id: 'law-ngym-0001', question: 'In which year did King John seal Magna Carta at Runnymede?', answer: '1215', reply: '\\boxed{1215}', grade: 'A' },
  {
    id: 'go-ngym-0001',
    question: 'What does the built-in function len return for a nil slice in Go?',
    answer: '0',
    reply: '<think>A nil slice has no elements, so its length is zero.</think>\\boxed{0}',
    grade: 'A',
  },
  { id: 'hotpot-ngym-0001', question: "At which university did the author of 'The Hobbit' hold the Rawlinson and Bosworth chair?", answer: 'University of Oxford', reply: '\\boxed{[IDK]}' },
  { id: 'health-ngym-0001', question: 'Which organ of the human body produces insulin?', answer: 'The pancreas', reply: '\\boxed{The liver}', grade: 'B' },
  {
    id: 'go-ngym-0002',
    question: 'Which environment variable sets the maximum number of operating system threads that execute Go code simultaneously?',
    answer: 'GOMAXPROCS',
    reply: 'I do not know this one without checking the runtime documentation.',
    grade: 'C',
  },
];

export const exampleRows = () =>
  EXAMPLE_TASKS.map((task) => ({
    id: task.id,
    question: task.question,
    answer: task.answer,
    agent_ref: { type: 'responses_api_agents', name: 'abstention_simple_agent' },
    responses_create_params: {
      input: [
        { role: 'system', content: INSTRUCTIONS },
        { role: 'user', content: task.question },
      ],
      tools: [],
      parallel_tool_calls: false,
    },
  }));

/** The task whose question `text` holds (the policy sees it as the user message, the judge inside its prompt). */
const taskIn = (text: string) => EXAMPLE_TASKS.find((task) => text.includes(`Question: ${task.question}\n`) || text === task.question);

/** A script answering each call with the text `pick` chooses for the task its last message names. */
export function scriptFor(pick: (task: ExampleTask) => string): ModelScript {
  return ({ input }) => {
    const last = input.at(-1) as { content?: unknown } | undefined;
    const task = taskIn(typeof last?.content === 'string' ? last.content : '');
    return [assistantMessage(task === undefined ? '' : pick(task))];
  };
}

async function recordRollouts(): Promise<Record<string, unknown>[]> {
  const policy = scriptedModel(scriptFor((task) => task.reply));
  const judge = scriptedModel(scriptFor((task) => task.grade ?? ''));
  const gym = await startInProcessGym({
    overrides: [
      `+config_paths=[${CONFIG_PATH}]`,
      '++policy_model={responses_api_models: {scripted: {entrypoint: app.ts}}}',
      '++genrm_model={responses_api_models: {scripted: {entrypoint: app.ts}}}',
    ],
    definitions: { policy_model: policy.definition, genrm_model: judge.definition },
  });
  try {
    const rollouts: Record<string, unknown>[] = [];
    for (const row of exampleRows()) rollouts.push(await callServer(gym, 'abstention_simple_agent', '/run', row));
    return rollouts;
  } finally {
    await gym.close();
  }
}

async function main(): Promise<void> {
  const rollouts = await recordRollouts();
  const toJsonl = (rows: readonly unknown[]) => rows.map((item) => JSON.stringify(item)).join('\n') + '\n';
  writeFileSync(join(DATA_DIR, 'example.jsonl'), toJsonl(exampleRows()));
  writeFileSync(join(DATA_DIR, 'example_rollouts.jsonl'), toJsonl(rollouts));
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
