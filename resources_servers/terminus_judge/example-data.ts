/**
 * The environment's example tasks (ours: one step of a terminal task each, in terminus_1 or terminus_2 format) and
 * the answers of their example rollouts. `data/example.jsonl` and `data/example_rollouts.jsonl` are written from here
 * by running the answers through terminus_judge_simple.yaml's agent and the real server, with a scripted model that
 * is both the policy and the judge (that config's judge is the policy model):
 *
 *   npx tsx resources_servers/terminus_judge/example-data.ts
 *
 * Rewards: 1 (the gold keystrokes: string similarity, no judge), 1 (`ls -al` for `ls -la`: below the threshold,
 * equivalent for the judge both ways round), 0 (the task not declared complete), 0 (a command without `is_blocking`:
 * schema check), 0 (equivalent for the judge, not once swapped).
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ResponseItem } from 'ngym';
import { assistantMessage, type ExampleData, exampleData, scriptedModel, usage, writeExampleData } from 'ngym/testing';

// The simple config: its judge is the policy model, so one scripted model plays both.
export const EXAMPLE_DATA: ExampleData = { ...exampleData('terminus_judge'), configPath: 'resources_servers/terminus_judge/configs/terminus_judge_simple.yaml' };

type Harness = 'terminus_1' | 'terminus_2';

interface ExampleTask {
  uuid: string;
  harness: Harness;
  category: string;
  task: string;
  terminal: string;
  gold: Record<string, unknown>;
  answer: Record<string, unknown>;
  /** The judge's verdicts, asked as written and with the two batches swapped (a row the judge never sees has none). */
  verdicts?: { asked: string; swapped: string };
}

const FORMATS: Record<Harness, string> = {
  terminus_1:
    'Answer with one JSON object: "state_analysis" (what the terminal shows), "explanation" (what your commands do), "commands" (a list of {"keystrokes": string, "is_blocking": boolean, "timeout_sec": number}) and "is_task_complete" (boolean). Nothing else.',
  terminus_2:
    'Answer with one JSON object: "analysis" (what the terminal shows), "plan" (what you do next), "commands" (a list of {"keystrokes": string, "duration": number}) and optionally "task_complete" (boolean). Nothing else.',
};

export const EXAMPLE_TASKS: ExampleTask[] = [
  {
    uuid: 'ex-disk-usage-1',
    harness: 'terminus_2',
    category: 'first_round',
    task: 'Find which directory under /var/log takes the most space.',
    terminal: 'root@box:/# ',
    gold: { analysis: 'Nothing has run yet.', plan: 'Summarise the sizes of the directories under /var/log, largest last.', commands: [{ keystrokes: 'du -sh /var/log/* | sort -h\n', duration: 1.0 }], task_complete: false },
    answer: { analysis: 'A fresh shell.', plan: 'List directory sizes under /var/log sorted by size.', commands: [{ keystrokes: 'du -sh /var/log/* | sort -h\n', duration: 0.5 }], task_complete: false },
  },
  {
    uuid: 'ex-hidden-files-1',
    harness: 'terminus_1',
    category: 'first_round',
    task: 'Show every file in the project directory, hidden ones included.',
    terminal: 'user@box:~/project$ ',
    gold: { state_analysis: 'At the project root.', explanation: 'List all files with details.', commands: [{ keystrokes: 'ls -la\n', is_blocking: true, timeout_sec: 2 }], is_task_complete: false },
    answer: { state_analysis: 'In ~/project, nothing listed yet.', explanation: 'A long listing including dotfiles.', commands: [{ keystrokes: 'ls -al\n', is_blocking: true, timeout_sec: 3 }], is_task_complete: false },
    verdicts: { asked: '[[A=B]]', swapped: '[[A=B]]' },
  },
  {
    uuid: 'ex-service-restart-2',
    harness: 'terminus_2',
    category: 'later_round',
    task: 'Restart nginx and confirm it is running.',
    terminal: 'root@box:/# systemctl restart nginx\nroot@box:/# systemctl is-active nginx\nactive\nroot@box:/# ',
    gold: { analysis: 'nginx restarted and reports active.', plan: 'Nothing left to do.', commands: [], task_complete: true },
    answer: { analysis: 'nginx is active again.', plan: 'Check the status once more.', commands: [{ keystrokes: 'systemctl status nginx --no-pager\n', duration: 1.0 }], task_complete: false },
  },
  {
    uuid: 'ex-count-lines-1',
    harness: 'terminus_1',
    category: 'first_round',
    task: 'Count the lines of data.csv.',
    terminal: 'user@box:~$ ',
    gold: { state_analysis: 'In the home directory.', explanation: 'Count lines with wc.', commands: [{ keystrokes: 'wc -l data.csv\n', is_blocking: true, timeout_sec: 2 }], is_task_complete: false },
    answer: { state_analysis: 'Home directory.', explanation: 'wc counts the lines.', commands: [{ keystrokes: 'wc -l data.csv\n', timeout_sec: 2 }], is_task_complete: false },
  },
  {
    uuid: 'ex-python-version-1',
    harness: 'terminus_2',
    category: 'first_round',
    task: 'Make sure Python 3.11 is the default python3.',
    terminal: 'root@box:/# ',
    gold: { analysis: 'Nothing checked yet.', plan: 'Print the python3 version.', commands: [{ keystrokes: 'python3 --version\n', duration: 0.1 }] },
    answer: { analysis: 'Fresh shell.', plan: 'Look at where python3 points.', commands: [{ keystrokes: 'readlink -f $(which python3)\n', duration: 0.1 }] },
    verdicts: { asked: '[[A=B]]', swapped: '[[A!=B]]' },
  },
];

const batchText = (batch: Record<string, unknown>) => JSON.stringify(batch, null, 2);

function userPrompt(task: ExampleTask): string {
  return `You operate a Linux terminal to complete a task, one batch of commands at a time.\n\n${FORMATS[task.harness]}\n\nTask: ${task.task}\n\nTerminal:\n${task.terminal}`;
}

export function exampleRows(): Record<string, unknown>[] {
  return EXAMPLE_TASKS.map((task) => ({
    responses_create_params: { input: [{ role: 'user', content: userPrompt(task) }] },
    expected_answer: batchText(task.gold),
    uuid: task.uuid,
    metadata: { category: task.category, harness: task.harness },
  }));
}

/** The policy's answer to a task prompt, or the judge's verdict on a judge prompt (GOLD: ... CANDIDATE: ...). */
function exampleModel() {
  return scriptedModel(({ input }) => {
    const prompt = input.flatMap((item) => ('content' in item && typeof item.content === 'string' ? [item.content] : [])).join('\n');
    const index = EXAMPLE_TASKS.findIndex((task) => prompt.includes(batchText(task.answer)) || prompt === userPrompt(task));
    const task = EXAMPLE_TASKS[index] as ExampleTask;
    let text = batchText(task.answer);
    if (prompt.includes('CANDIDATE:')) {
      // Swapped, the model's batch is the one shown as GOLD (the prompt's last CANDIDATE: is the input one).
      const swapped = prompt.indexOf(batchText(task.answer)) < prompt.lastIndexOf('CANDIDATE:');
      text = `Both batches inspect the same thing.\n\n${swapped ? task.verdicts?.swapped : task.verdicts?.asked} they are judged`;
    }
    const output: ResponseItem[] = [assistantMessage(text, { id: `msg_example_${index}_${prompt.length}` })];
    return { id: `resp_example_${index}_${prompt.length}`, created_at: 1_701_388_740 + index, model: 'example-model', output, usage: usage(500 + index, 120) };
  });
}

async function main(): Promise<void> {
  await writeExampleData(EXAMPLE_DATA, exampleRows(), exampleModel().definition);
  process.stdout.write(`wrote ${EXAMPLE_DATA.examplePath} and ${EXAMPLE_DATA.rolloutsPath}\n`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
