/**
 * `ngym reasoning-gym`: dataset tooling of the reasoning_gym environment. `create-dataset` writes
 * ready-to-train JSONL as upstream's `create_dataset.py` does, with the same flags; the same task, size,
 * seed and config always give the same file. `list-tasks` prints the tasks ngym implements.
 */
import { once } from 'node:events';
import { createWriteStream, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { createEntries, datasetRow, DEFAULT_AGENT_NAME } from '../../../resources_servers/reasoning_gym/tasks/dataset.ts';
import { TASKS, TaskConfigError, tasksByCategory } from '../../../resources_servers/reasoning_gym/tasks/index.ts';
import { NgymError } from '../../errors.ts';
import { pythonJsonDumps } from '../../python-compat/python-json.ts';
import type { CliCommand } from '../command.ts';

const USAGE = `Subcommands:
  create-dataset  (--task <name> | --tasks <a,b,...> | --category <name> | --all-tasks)
                  --output <file.jsonl> [--size 500] [--seed 42] [--config '<json>'] [--agent-name ${DEFAULT_AGENT_NAME}]
      Writes one row per line: {"responses_create_params": {"input": [{"role": "user", "content": <question>}]},
      "question", "answer", "metadata", "agent_ref": {"type": "responses_api_agents", "name": <agent-name>}}.
      With several tasks each row's task is drawn with equal weight, and --config is keyed by task name.
  list-tasks      Prints the tasks by category, with their config keys and defaults.

Examples:
  ngym reasoning-gym create-dataset --task mini_sudoku --size 2000 --seed 42 --output data/train.jsonl
  ngym reasoning-gym create-dataset --tasks knights_knaves,word_sorting --size 500 --output data/mix.jsonl
  ngym reasoning-gym create-dataset --task knights_knaves --config '{"n_people": 3}' --size 500 --output data/kk3.jsonl`;

function nonNegativeInteger(value: string): number {
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(parsed)) throw new InvalidArgumentError('expected a non-negative integer.');
  return parsed;
}

function jsonObject(value: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    throw new InvalidArgumentError(`not valid JSON (${(error as Error).message}).`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new InvalidArgumentError('expected a JSON object.');
  return parsed as Record<string, unknown>;
}

interface CreateDatasetOptions {
  task?: string;
  tasks?: string;
  category?: string;
  allTasks?: boolean;
  size: number;
  seed: number;
  config: Record<string, unknown>;
  agentName: string;
  output: string;
}

function selectedTasks(options: CreateDatasetOptions): string[] {
  if (options.task !== undefined) return [options.task];
  if (options.tasks !== undefined) return options.tasks.split(',').map((name) => name.trim()).filter((name) => name !== '');
  if (options.category !== undefined) {
    const names = tasksByCategory().get(options.category);
    if (names === undefined) throw new TaskConfigError(`Unknown category '${options.category}'. Categories: ${[...tasksByCategory().keys()].join(', ')}.`);
    return names;
  }
  if (options.allTasks) return [...TASKS.keys()];
  throw new TaskConfigError('Choose the tasks with one of --task, --tasks, --category or --all-tasks.');
}

/** Writes the dataset to a temporary file beside `output`, then renames it, so a failure leaves no half file. */
async function createDataset(options: CreateDatasetOptions): Promise<void> {
  const tasks = selectedTasks(options);
  const entries = createEntries({ tasks, size: options.size, seed: options.seed, config: options.config });
  const output = resolve(options.output);
  mkdirSync(dirname(output), { recursive: true });
  const partial = `${output}.partial`;
  const stream = createWriteStream(partial);
  const counts = new Map<string, number>();
  try {
    for (const entry of entries) {
      const task = entry.metadata.source_dataset as string;
      counts.set(task, (counts.get(task) ?? 0) + 1);
      if (!stream.write(`${pythonJsonDumps(datasetRow(entry, options.agentName))}\n`)) await once(stream, 'drain');
    }
    stream.end();
    await once(stream, 'close');
  } catch (error) {
    stream.destroy();
    await once(stream, 'close');
    rmSync(partial, { force: true });
    throw error;
  }
  renameSync(partial, output);
  const distribution = [...counts].map(([task, count]) => `${task}: ${count}`).join(', ');
  process.stdout.write(`Wrote ${options.size} rows (seed ${options.seed}${distribution ? `; ${distribution}` : ''}) to ${output}\n`);
}

function listTasks(): void {
  for (const [category, names] of tasksByCategory()) {
    process.stdout.write(`${category}:\n`);
    for (const name of names) {
      const task = TASKS.get(name);
      if (task === undefined) continue;
      process.stdout.write(`  ${name}  ${task.description}\n    config: ${JSON.stringify(task.config.parse({}))}\n`);
    }
  }
}

function program(): Command {
  const root = new Command('ngym reasoning-gym').exitOverride().configureOutput({
    writeOut: (text) => process.stdout.write(text),
    writeErr: (text) => process.stderr.write(text),
  });
  const taskOptions = ['task', 'tasks', 'category', 'allTasks'];
  const exclusive = (flags: string, description: string, name: string) =>
    new Option(flags, description).conflicts(taskOptions.filter((other) => other !== name));
  root
    .command('create-dataset')
    .description('Write a reasoning_gym dataset as JSONL.')
    .addOption(exclusive('--task <name>', 'one task, e.g. mini_sudoku', 'task'))
    .addOption(exclusive('--tasks <names>', 'comma-separated tasks, mixed with equal weight', 'tasks'))
    .addOption(exclusive('--category <name>', 'every task of a category (logic, arithmetic, algorithmic, games)', 'category'))
    .addOption(exclusive('--all-tasks', 'every task ngym implements', 'allTasks'))
    .option('--size <n>', 'number of rows', nonNegativeInteger, 500)
    .option('--seed <n>', 'random seed', nonNegativeInteger, 42)
    .option('--config <json>', 'task config as a JSON object (keyed by task name with several tasks)', jsonObject, {})
    .option('--agent-name <name>', 'agent_ref name of every row', DEFAULT_AGENT_NAME)
    .requiredOption('--output <file>', 'output JSONL path')
    .action(async (options: CreateDatasetOptions) => createDataset(options));
  root.command('list-tasks').description('List the tasks ngym implements.').action(listTasks);
  return root;
}

export const reasoningGymCommand: CliCommand = {
  name: 'reasoning-gym',
  aliases: [],
  summary: 'Create reasoning_gym datasets (mini_sudoku, knights_knaves, ...) as ready-to-train JSONL.',
  usage: '<create-dataset | list-tasks> [--option value ...]',
  description: USAGE,
  parameters: [],
  async run(args) {
    if (args.length === 0) {
      process.stderr.write(`Missing subcommand.\n\n${USAGE}\n`);
      return 2;
    }
    try {
      await program().parseAsync(args, { from: 'user' });
      return 0;
    } catch (error) {
      // Commander has already printed its own usage errors.
      if (error instanceof CommanderError) return error.exitCode;
      if (error instanceof TaskConfigError) throw new NgymError('NGYM_USAGE', error.message);
      throw error;
    }
  },
};
