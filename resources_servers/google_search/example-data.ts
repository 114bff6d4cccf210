/**
 * The environment's example tasks (multiple-choice questions about the made-up Orsola Archipelago of
 * data/corpus.jsonl) and the hand-written model turns of their example rollouts. `data/example.jsonl` and
 * `data/example_rollouts.jsonl` are written from here:
 *
 *   npx tsx resources_servers/google_search/example-data.ts
 *
 * The rollouts come from running the turns below through simple_agent against the real server on the local
 * index, so every search result and page in them is what the server answers (they replay under
 * replay_model's strict mode).
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assistantMessage, exampleData, functionCall, scriptedModel, usage, writeExampleData } from 'ngym/testing';
import definition from './app.ts';

export const EXAMPLE_DATA = exampleData('google_search');

const PAGE = 'https://orsola.example.org/wiki/';

/** Upstream's row carries its instructions apart from the question; this is our wording of the same rules. */
export const INSTRUCTIONS =
  'Answer the multiple-choice question. Use the tools to find grounded evidence: `search` returns search results for a query, ' +
  'and `browse` returns the text of a page from those results; search again or browse as often as you need. Issue only one tool ' +
  'call at a time. When you are done, give your final answer with only the option letter (A, B, C, etc.) inside \\boxed{}.';

type Call = { name: 'search'; arguments: { query: string } } | { name: 'browse'; arguments: { url: string } };
const search = (query: string): Call => ({ name: 'search', arguments: { query } });
const browse = (page: string): Call => ({ name: 'browse', arguments: { url: PAGE + page } });

export interface ExampleTask {
  question: string;
  options: string[];
  expected: string;
  /** The example rollout: one tool call per model turn, then the final answer. */
  turns: Call[];
  answer: string;
}

export const EXAMPLE_TASKS: ExampleTask[] = [
  {
    question: 'In which year was the comet now called Comet Castell-Ny first observed?',
    options: ['1871', '1884', '1893', '1955'],
    expected: 'B',
    turns: [search('Comet Castell-Ny first observed'), browse('Imre_Castell')],
    answer: 'Imre Castell first observed the comet on 14 October 1884, and Lene Ny confirmed it a week later.\n\n\\boxed{B}',
  },
  {
    question: 'How many skerra make one sel, the currency of the Orsola Archipelago?',
    options: ['12', '28', '60', '100'],
    expected: 'C',
    turns: [search('sel currency skerra')],
    answer: 'One sel is divided into 60 skerra.\n\n\\boxed{C}',
  },
  {
    question: 'In which town was the Treaty of Ambermoor signed?',
    options: ['Port Teskin', 'Skerrin', 'Lake Siln', 'Dunmere'],
    expected: 'D',
    // This rollout answers from memory without searching, and is wrong: reward 0.
    turns: [],
    answer: 'Treaties of the archipelago were signed in the capital.\n\n\\boxed{A}',
  },
  {
    question: 'What does the Tidal Clock of Dunmere use instead of a pendulum?',
    options: ['A float in a stone well connected to the sea', 'A falling weight of kelmra moss', 'A windmill on its roof', 'Steam from Mount Varrow'],
    expected: 'A',
    // The right option, boxed as \text{A}: upstream's rule parses "\\text{A" and gives 0.
    turns: [search('Tidal Clock of Dunmere pendulum'), browse('Tidal_Clock_of_Dunmere')],
    answer: 'The clock uses a float in a stone well connected to the sea.\n\n\\boxed{\\text{A}}',
  },
  {
    question: 'Where do brimfin salmon return to spawn after their years at sea?',
    options: ['The Glass Shoals', 'Lake Siln', 'The Ostrin Strait', 'Port Teskin harbour'],
    expected: 'B',
    turns: [search('brimfin salmon spawning'), search('Maren Quill tagging study brimfin'), browse('Lake_Siln')],
    answer: 'Brimfin salmon return to Lake Siln, where they hatched.\n\n\\boxed{B}',
  },
];

const LETTERS = 'ABCDEFGH';

/** Upstream's input: the question, then one `X: option` line per option. */
export function questionText(task: ExampleTask): string {
  return [task.question, ...task.options.map((option, index) => `${LETTERS[index]}: ${option}`)].join('\n');
}

export function exampleRows(): Record<string, unknown>[] {
  return EXAMPLE_TASKS.map((task) => ({
    responses_create_params: {
      instructions: INSTRUCTIONS,
      input: questionText(task),
      tools: definition.toolDefinitions(),
      max_output_tokens: 32768,
      temperature: 0.6,
      parallel_tool_calls: false,
    },
    expected_answer: task.expected,
  }));
}

/** The policy model of the example rollouts: each task's turns, one tool call a model turn, then its answer. */
function exampleModel() {
  return scriptedModel(({ input }) => {
    const question = input.find((item) => 'role' in item && item.role === 'user');
    const taskIndex = EXAMPLE_TASKS.findIndex((task) => question !== undefined && 'content' in question && question.content === questionText(task));
    const task = EXAMPLE_TASKS[taskIndex] as ExampleTask;
    const step = input.filter((item) => item.type === 'function_call_output').length;
    const id = `${taskIndex}_${step}`;
    const turn = task.turns[step];
    const output = turn === undefined ? [assistantMessage(task.answer, { id: `msg_example_${id}` })] : [functionCall(turn.name, turn.arguments, `call_example_${id}`)];
    return { id: `resp_example_${id}`, created_at: 1_764_000_000 + step, model: 'example-model', output, usage: usage(450 + 600 * step, 60) };
  });
}

async function main(): Promise<void> {
  await writeExampleData(EXAMPLE_DATA, exampleRows(), exampleModel().definition);
  process.stdout.write(`wrote ${EXAMPLE_DATA.examplePath} and ${EXAMPLE_DATA.rolloutsPath}\n`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
