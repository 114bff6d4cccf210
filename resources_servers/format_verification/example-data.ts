/**
 * The environment's example tasks (ours: short documents we wrote, with formatting or citation instructions in
 * upstream's row format) and the hand-written answers of their example rollouts. The three example files are
 * written from here: `data/example.jsonl` (three freeform rows, one of them `inline_prose`, and two citation rows),
 * `data/ds2_freeform_formatting_example.jsonl` and `data/ds3_citation_format_example.jsonl` (the configs' example
 * datasets, five rows each), and `data/example_rollouts.jsonl`, the rollouts of example.jsonl:
 *
 *   npx tsx resources_servers/format_verification/example-data.ts
 *
 * Each rollout runs its row through the agent the row names (simple_agent) and the real server, with a scripted
 * policy model giving the answer below. Rewards: 1, 0 (two bullet lines where three are asked), 1, 1, 0 (a
 * citation of a part that was not to be cited). The `*_metrics.json` files are then `ngym prepare-data`'s.
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGE_ROOT } from 'ngym/runtime';
import { assistantMessage, callServer, lastUserContent, scriptedModel, startInProcessGym } from 'ngym/testing';

const FREEFORM_AGENT = 'freeform_formatting_simple_agent';
const CITATION_AGENT = 'citation_format_simple_agent';
export const DATA_DIR = join(PACKAGE_ROOT, 'resources_servers', 'format_verification', 'data');
export const CONFIG_PATHS = ['resources_servers/format_verification/configs/freeform_formatting.yaml', 'resources_servers/format_verification/configs/citation_format.yaml'];

interface ExampleTask {
  prompt: string;
  verifier: Record<string, unknown>;
  agent: typeof FREEFORM_AGENT | typeof CITATION_AGENT;
  /** The answer of the example rollout (rows of example.jsonl only). */
  answer?: string;
}

const LIGHTHOUSE =
  'The Skerryvore lighthouse stands on a reef twelve miles south-west of the island of Tiree, in the Inner Hebrides. ' +
  'It was built between 1838 and 1844 to designs by Alan Stevenson, and at 48 metres it is the tallest lighthouse in Scotland. ' +
  'The granite for the tower was quarried on the island of Mull and shipped to the reef in calm weather only. ' +
  'A fire in 1954 put the light out of service until 1959; the station was automated in 1994.';

const OBSERVATORY =
  'The Jodrell Bank Observatory in Cheshire, England, was founded in 1945 by the astronomer Bernard Lovell. ' +
  'Its largest instrument, the Lovell Telescope, has a dish 76 metres across and was completed in 1957, just in time to track the rocket carrying Sputnik 1. ' +
  'The site became a UNESCO World Heritage Site in 2019.';

const CANAL =
  'The Canal du Midi links the Garonne at Toulouse with the Étang de Thau on the Mediterranean. ' +
  'Pierre-Paul Riquet directed its construction from 1666 to 1681. The canal is 240 kilometres long and has 63 locks; ' +
  'its summit is fed by water gathered in the Montagne Noire and stored in the Bassin de Saint-Ferréol. It has been a World Heritage Site since 1996.';

const freeform = (question: string, instructions: string, document: string) =>
  `Question: ${question}\n\nFormatting instructions: ${instructions}\n\nAnswer from this document:\n\n${document}`;

/** Citation prompts number the document's parts; the answer cites the parts it uses in the style asked. */
const cited = (style: string, question: string, parts: string[]) =>
  `Answer the question from the numbered parts below, citing each part you rely on as ${style}, placed right after the statement it supports.\n\n` +
  `${parts.map((part, index) => `[Part ${index + 1}]:\n${part}`).join('\n\n')}\n\nQuestion: ${question}`;

const VERSAILLES_PARTS = [
  'The Palace of Versailles began as a hunting lodge built for Louis XIII in 1623.',
  'Louis XIV enlarged it from 1661 and moved the royal court there in 1682.',
  'The Hall of Mirrors, 73 metres long, was built between 1678 and 1684.',
  'The palace was listed as a World Heritage Site in 1979.',
];

const RHINE_PARTS = [
  'The Rhine rises in the Swiss Alps and flows about 1,230 kilometres to the North Sea.',
  'It forms part of the border between Switzerland and Germany, and between France and Germany.',
  'Rotterdam, near its mouth, is the largest seaport in Europe.',
];

const BELL_PARTS = [
  'Alexander Graham Bell was born in Edinburgh in 1847.',
  'He was awarded the first United States patent for the telephone on 7 March 1876.',
  'He later co-founded the National Geographic Society in 1888.',
  'Bell died in Nova Scotia in 1922.',
];

export const EXAMPLE_TASKS: ExampleTask[] = [
  {
    prompt: freeform(
      'What facts does the document give about the Skerryvore lighthouse?',
      'Answer with a flat list: each fact on its own line, starting with a hyphen and a single space ("- "). Write no heading and no closing sentence.',
      LIGHTHOUSE,
    ),
    verifier: { type: 'regex', pattern_id: 'bullet_dash', verify_regex: ['^- .+'], verify_min_matches: 3 },
    agent: FREEFORM_AGENT,
    answer:
      '- It stands on a reef twelve miles south-west of Tiree.\n- It was built between 1838 and 1844 to designs by Alan Stevenson.\n- At 48 metres it is the tallest lighthouse in Scotland.\n- Its granite came from Mull.\n- It was automated in 1994.',
  },
  {
    prompt: freeform(
      'Which dates does the document mention, and what happened at each?',
      'Give one line per date in the form "- YEAR: event". Mention at least three dates.',
      OBSERVATORY,
    ),
    verifier: { type: 'regex', pattern_id: 'bullet_dash', verify_regex: ['^- \\d{4}: .+'], verify_min_matches: 3 },
    agent: FREEFORM_AGENT,
    // Two dated lines and one in prose: one line short of the three asked for.
    answer: '- 1945: Bernard Lovell founded the observatory.\n- 1957: the Lovell Telescope was completed.\nIt became a World Heritage Site in 2019.',
  },
  {
    prompt: freeform(
      'What are the key figures of the Canal du Midi?',
      'Answer in two or three sentences of running prose. Put every number in bold with double asterisks (for example **12**), and write each sentence on its own line.',
      CANAL,
    ),
    verifier: { type: 'inline_prose', pattern_id: 'inline_bold_numbers', verify_regex: ['\\*\\*\\d[\\d,.]*\\*\\*'], verify_min_matches: 2 },
    agent: FREEFORM_AGENT,
    answer:
      'The Canal du Midi is **240** kilometres long and climbs through **63** locks.\nIt was built from **1666** to **1681** under Pierre-Paul Riquet.\nIt has been a World Heritage Site since **1996**.',
  },
  {
    prompt: cited('[ref:N] (N is the part number)', 'When did the royal court move to Versailles, and how long is the Hall of Mirrors?', VERSAILLES_PARTS),
    verifier: { type: 'string_match', patterns: ['\\[ref:2\\]', '\\[ref:3\\]'], expected_markers: ['[ref:2]', '[ref:3]'] },
    agent: CITATION_AGENT,
    answer: 'Louis XIV moved the royal court to Versailles in 1682 [ref:2]. The Hall of Mirrors is 73 metres long [ref:3].',
  },
  {
    prompt: cited('[web:N] (N is the part number)', 'Where does the Rhine rise, and how long is it?', RHINE_PARTS),
    // A pattern for the whole style: a citation of any other part is spurious.
    verifier: { type: 'string_match', patterns: ['\\[web:\\d+\\]'], expected_markers: ['[web:1]'] },
    agent: CITATION_AGENT,
    answer: 'The Rhine rises in the Swiss Alps [web:1] and runs about 1,230 kilometres to the North Sea, reaching it near Rotterdam [web:3].',
  },
];

/** More rows for the configs' example datasets (no rollouts: upstream records those of example.jsonl only). */
const MORE_FREEFORM: ExampleTask[] = [
  {
    prompt: freeform(
      'List the people named in the document.',
      'Number each name in parentheses, "(1) ", "(2) " and so on, one per line.',
      `${OBSERVATORY}\n\n${CANAL}`,
    ),
    verifier: { type: 'regex', pattern_id: 'numbered_paren', verify_regex: ['^\\(\\d+\\) .+'], verify_min_matches: 2 },
    agent: FREEFORM_AGENT,
  },
  {
    prompt: freeform(
      'Summarise the construction of the Skerryvore lighthouse and of the Canal du Midi.',
      'Answer with a Markdown table with the columns Structure, Built, Designer; one row per structure, every row starting and ending with a pipe (|).',
      `${LIGHTHOUSE}\n\n${CANAL}`,
    ),
    verifier: { type: 'regex', pattern_id: 'table_markdown', verify_regex: ['^\\|.*\\|\\s*$'], verify_min_matches: 4 },
    agent: FREEFORM_AGENT,
  },
];

const MORE_CITATION: ExampleTask[] = [
  {
    prompt: cited('<ref:N> (N is the part number)', 'When was Alexander Graham Bell granted the telephone patent?', BELL_PARTS),
    verifier: { type: 'string_match', patterns: ['<ref:2>'], expected_markers: ['<ref:2>'] },
    agent: CITATION_AGENT,
  },
  {
    prompt: cited('[N] (N is the part number)', 'Where was Bell born and where did he die?', BELL_PARTS),
    verifier: { type: 'string_match', patterns: ['\\[1\\]', '\\[4\\]'], expected_markers: ['[1]', '[4]'] },
    agent: CITATION_AGENT,
  },
  {
    prompt: cited('<<N>> (N is the part number)', 'Which borders does the Rhine form?', RHINE_PARTS),
    verifier: { type: 'string_match', patterns: ['<<2>>'], expected_markers: ['<<2>>'] },
    agent: CITATION_AGENT,
  },
];

const row = (task: ExampleTask) => ({
  responses_create_params: { input: [{ role: 'user', content: task.prompt }] },
  verifier: task.verifier,
  agent_ref: { type: 'responses_api_agents', name: task.agent },
});

export const exampleRows = () => EXAMPLE_TASKS.map(row);
export const freeformExampleRows = () => [...EXAMPLE_TASKS.filter((task) => task.agent === FREEFORM_AGENT), ...MORE_FREEFORM].map(row);
export const citationExampleRows = () => [...EXAMPLE_TASKS.filter((task) => task.agent === CITATION_AGENT), ...MORE_CITATION].map(row);

const toJsonl = (rows: readonly unknown[]) => rows.map((item) => JSON.stringify(item)).join('\n') + '\n';

/** Runs each example row through the agent it names, the policy model answering with the task's answer. */
async function recordRollouts(): Promise<Record<string, unknown>[]> {
  const answers = new Map(EXAMPLE_TASKS.map((task) => [JSON.stringify(task.prompt), task.answer ?? '']));
  const model = scriptedModel(({ input }) => [assistantMessage(answers.get(JSON.stringify(lastUserContent({ responses_create_params: { input } }))) ?? '')]);
  const gym = await startInProcessGym({
    overrides: [`+config_paths=[${CONFIG_PATHS.join(',')}]`, '++policy_model={responses_api_models: {scripted: {entrypoint: app.ts}}}'],
    definitions: { policy_model: model.definition },
  });
  try {
    const rollouts: Record<string, unknown>[] = [];
    for (const item of exampleRows()) rollouts.push(await callServer(gym, item.agent_ref.name, '/run', item));
    return rollouts;
  } finally {
    await gym.close();
  }
}

async function main(): Promise<void> {
  const rollouts = await recordRollouts();
  writeFileSync(join(DATA_DIR, 'example.jsonl'), toJsonl(exampleRows()));
  writeFileSync(join(DATA_DIR, 'ds2_freeform_formatting_example.jsonl'), toJsonl(freeformExampleRows()));
  writeFileSync(join(DATA_DIR, 'ds3_citation_format_example.jsonl'), toJsonl(citationExampleRows()));
  writeFileSync(join(DATA_DIR, 'example_rollouts.jsonl'), toJsonl(rollouts));
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
