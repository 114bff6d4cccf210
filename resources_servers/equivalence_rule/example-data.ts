/**
 * The environment's example tasks, written for ngym in the long-context shape of upstream's rows (MRCR-style: a
 * document of short pieces on a few topics, then a question about them whose answer is a count or a piece
 * reproduced with a code prepended or appended), and the hand-written answers of their example rollouts.
 * data/example.jsonl and data/example_rollouts.jsonl are written from here:
 *
 *   npx tsx resources_servers/equivalence_rule/example-data.ts
 *
 * The rollouts come from running each row through the config's simple_agent against the real server (exact rule).
 */
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assistantMessage, type ExampleData, scriptedModel, usage, writeExampleData } from 'ngym/testing';

const DATA = fileURLToPath(new URL('./data/', import.meta.url));
const AGENT = 'lc_equivalence_rule_simple_agent';

export const EXAMPLE_DATA: ExampleData = {
  configPath: 'resources_servers/equivalence_rule/configs/equivalence_rule.yaml',
  agent: AGENT,
  examplePath: join(DATA, 'example.jsonl'),
  rolloutsPath: join(DATA, 'example_rollouts.jsonl'),
};

interface Piece {
  kind: string;
  topic: string;
  text: string;
}

const HAIKU = 'haiku';
const REPORT = 'harbour report';
const RECIPE = 'recipe card';

/** The document's pieces, in order; the questions count and quote them. */
const PIECES: Piece[] = [
  { kind: HAIKU, topic: 'lighthouses', text: 'Salt wind on the stair\nthe keeper counts ninety steps\nthe lamp answers twice' },
  { kind: REPORT, topic: 'Skerrin', text: 'Skerrin harbour, 06:00. Swell 1.5 m from the west, visibility good. The 07:30 ferry sails on time; the fish market opens late.' },
  { kind: RECIPE, topic: 'oatcakes', text: 'Oatcakes for six: 200 g oatmeal, a pinch of salt, 30 g melted butter, hot water to bind. Roll thin, cut in rounds, bake 20 minutes.' },
  { kind: HAIKU, topic: 'lighthouses', text: 'Fog swallows the rocks\none white eye turns through the night\nboats steer by its blink' },
  { kind: HAIKU, topic: 'kelp', text: 'Kelp forest at dusk\notters tie themselves to stems\nthe tide rocks them all' },
  { kind: REPORT, topic: 'Skerrin', text: 'Skerrin harbour, 18:00. Gale warning from 21:00; all evening sailings cancelled. Moor small craft in the inner basin.' },
  { kind: HAIKU, topic: 'lighthouses', text: 'New bulb, old tower\nthe painter leaves one stripe red\nfor the gulls to judge' },
  { kind: RECIPE, topic: 'oatcakes', text: 'Cheese oatcakes: add 50 g of grated hard cheese to the dry mix and a little more water. Bake until the edges brown.' },
];

const DOCUMENT = ['Below are pieces of writing of several kinds.', ...PIECES.map((piece) => `Here is a ${piece.kind} about ${piece.topic}.\n\n${piece.text}`)].join('\n\n');

export interface ExampleTask {
  question: string;
  expected: string;
  /** The example rollout's answer. */
  answer: string;
  size: 'XS' | 'S';
}

const nth = (kind: string, topic: string, position: number) => (PIECES.filter((piece) => piece.kind === kind && piece.topic === topic)[position - 1] as Piece).text;

export const EXAMPLE_TASKS: ExampleTask[] = [
  {
    // Three haikus about lighthouses (odd): the code is prepended. Answered exactly.
    question: `Find the 2nd ${HAIKU} about lighthouses. If the number of ${HAIKU}s about lighthouses is even, prepend 'Qm7TzR2x'; otherwise prepend 'pL4vWc9n'.`,
    expected: `pL4vWc9n${nth(HAIKU, 'lighthouses', 2)}`,
    answer: `pL4vWc9n${nth(HAIKU, 'lighthouses', 2)}`,
    size: 'XS',
  },
  {
    // Answered with other case and line breaks: normalization makes them equal.
    question: `Return the total number of ${REPORT}s about Skerrin above. Count every one of them.`,
    expected: '2',
    answer: '  2\n',
    size: 'XS',
  },
  {
    // Miscounted: the exact rule gives nothing for a near answer.
    question: `Return the total number of ${HAIKU}s about lighthouses above. Count every one of them.`,
    expected: '3',
    answer: '4',
    size: 'XS',
  },
  {
    // Two recipe cards (even): the code is appended. The answer appends the other code.
    question: `Reproduce the 1st ${RECIPE} about oatcakes. If the number of ${RECIPE}s about oatcakes is even, append 'h8KdE3'; otherwise append 'Yr5sJ0'.`,
    expected: `${nth(RECIPE, 'oatcakes', 1)}h8KdE3`,
    answer: `${nth(RECIPE, 'oatcakes', 1)}Yr5sJ0`,
    size: 'S',
  },
  {
    // One haiku about kelp (odd): prepended. Answered in upper case with its lines joined by spaces, which normalizes equal.
    question: `Find the 1st ${HAIKU} about kelp. If the number of ${HAIKU}s about kelp is even, prepend 'c2NbX6'; otherwise prepend 'T9wqAe'.`,
    expected: `T9wqAe${nth(HAIKU, 'kelp', 1)}`,
    answer: `T9wqAe${nth(HAIKU, 'kelp', 1)}`.toUpperCase().replaceAll('\n', '  '),
    size: 'S',
  },
];

const prompt = (task: ExampleTask) => `${DOCUMENT}\n\n${task.question}`;

export function exampleRows(): Record<string, unknown>[] {
  return EXAMPLE_TASKS.map((task) => ({
    responses_create_params: { input: [{ role: 'user', content: prompt(task), type: 'message' }], temperature: 1.0, top_p: 1.0 },
    agent_ref: { type: 'responses_api_agents', name: AGENT },
    expected_answer: task.expected,
    question: task.question,
    dataset: `mrcr.ngym_example+${task.size}.0-8k`,
    source: 'mrcr',
    hashid: createHash('sha256').update(task.question).digest('hex').slice(0, 16),
    context_length: String(prompt(task).split(/\s+/).length),
  }));
}

/** The policy model of the example rollouts: each task's answer, found by its question. */
function exampleModel() {
  return scriptedModel(({ input }) => {
    const text = JSON.stringify(input);
    const index = EXAMPLE_TASKS.findIndex((task) => text.includes(JSON.stringify(task.question).slice(1, -1)));
    const task = EXAMPLE_TASKS[index] as ExampleTask;
    return { id: `resp_example_${index}`, created_at: 1_764_000_000 + index, model: 'example-model', output: [assistantMessage(task.answer, { id: `msg_example_${index}` })], usage: usage(420, 30) };
  });
}

async function main(): Promise<void> {
  await writeExampleData(EXAMPLE_DATA, exampleRows(), exampleModel().definition);
  process.stdout.write(`wrote ${EXAMPLE_DATA.examplePath} and ${EXAMPLE_DATA.rolloutsPath}\n`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
