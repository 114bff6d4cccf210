/**
 * `ngym reasoning-gym`: dataset tooling of the reasoning_gym environment (the CLI loads this file by path,
 * src/cli/commands/environment-command.ts). `create-dataset` writes ready-to-train JSONL as upstream's
 * `create_dataset.py` does, with the same flags; the same task, size, seed and config always give the same file. Tasks with a TypeScript port are made by ngym's generators
 * (no Python needed); every other task, or any with `--generator library`, by the reasoning-gym library
 * itself (resources_servers/reasoning_gym/scripts/create_dataset.py under the venv's Python), byte for byte
 * the library's rows. `list-tasks` prints both.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { NgymError } from 'ngym';
import { pythonJsonDumps } from 'ngym/python-compat';
import type { CliCommand } from 'ngym/runtime';
import { LIBRARY_SCRIPTS, libraryPython } from './library.ts';
import { createEntries, datasetRow, DEFAULT_AGENT_NAME } from './tasks/dataset.ts';
import { TASKS, TaskConfigError, tasksByCategory } from './tasks/index.ts';

const USAGE = `Subcommands:
  create-dataset  (--task <name> | --tasks <a,b,...> | --category <name> | --all-tasks)
                  --output <file.jsonl> [--size 500] [--seed 42] [--config '<json>'] [--agent-name ${DEFAULT_AGENT_NAME}]
                  [--generator ngym|library]
      Writes one row per line: {"responses_create_params": {"input": [{"role": "user", "content": <question>}]},
      "question", "answer", "metadata", "agent_ref": {"type": "responses_api_agents", "name": <agent-name>}}.
      With several tasks each row's task is drawn with equal weight, and --config is keyed by task name.
      Tasks ngym has ported (mini_sudoku, knights_knaves, basic_arithmetic, word_sorting, propositional_logic)
      are made by ngym; any other task, --category and --all-tasks by the reasoning-gym library in Python
      (npm run setup:python), whose rows are the library's own. --generator chooses explicitly.
  list-tasks      Prints ngym's ported tasks with their config keys and defaults, then the library's tasks.

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
  generator?: 'ngym' | 'library';
}

/** ngym's generators for ported tasks named one by one; the library for anything else. */
function generatorOf(options: CreateDatasetOptions): 'ngym' | 'library' {
  if (options.generator !== undefined) return options.generator;
  const named = options.task !== undefined ? [options.task] : options.tasks?.split(',').map((name) => name.trim());
  return named !== undefined && named.every((name) => name === '' || TASKS.has(name)) ? 'ngym' : 'library';
}

/** The library's create_dataset.py with the same flags; it prints its own progress and errors. */
async function createLibraryDataset(options: CreateDatasetOptions): Promise<void> {
  const which =
    options.task !== undefined
      ? ['--task', options.task]
      : options.tasks !== undefined
        ? ['--tasks', options.tasks]
        : options.category !== undefined
          ? ['--category', options.category]
          : options.allTasks
            ? ['--all-tasks']
            : [];
  if (which.length === 0) throw new TaskConfigError('Choose the tasks with one of --task, --tasks, --category or --all-tasks.');
  const args = [
    join(LIBRARY_SCRIPTS, 'create_dataset.py'),
    ...which,
    ...['--size', String(options.size), '--seed', String(options.seed), '--config', JSON.stringify(options.config)],
    ...['--agent-name', options.agentName, '--output', resolve(options.output)],
  ];
  const child = spawn(libraryPython(), args, { stdio: 'inherit' });
  const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
  if (code !== 0) throw new NgymError('NGYM_USAGE', `The reasoning-gym library's create_dataset.py failed (${signal ?? `exit code ${code}`}); its message is above.`);
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
  if (generatorOf(options) === 'library') return createLibraryDataset(options);
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
  let python: string;
  try {
    python = libraryPython();
  } catch (error) {
    process.stdout.write(`\nThe reasoning-gym library's tasks are not listed: ${(error as Error).message}\n`);
    return;
  }
  const listed = spawnSync(python, [join(LIBRARY_SCRIPTS, 'create_dataset.py'), '--list-tasks'], { encoding: 'utf8' });
  if (listed.status !== 0) throw new NgymError('NGYM_INTERNAL', `Listing the reasoning-gym library's tasks failed: ${listed.stderr.trim()}`);
  process.stdout.write('\nreasoning-gym library tasks (made and scored by the library in Python):\n');
  for (const [category, names] of Object.entries(JSON.parse(listed.stdout) as Record<string, string[]>)) {
    process.stdout.write(`${category}: ${names.join(', ')}\n`);
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
    .addOption(exclusive('--category <name>', 'every task of a category (logic, arithmetic, algorithmic, games, ...)', 'category'))
    .addOption(exclusive('--all-tasks', 'every task (of ngym\'s ports with --generator ngym)', 'allTasks'))
    .addOption(new Option('--generator <which>', 'ngym (TypeScript ports) or library (reasoning-gym in Python); default: ngym for ported tasks').choices(['ngym', 'library']))
    .option('--size <n>', 'number of rows', nonNegativeInteger, 500)
    .option('--seed <n>', 'random seed', nonNegativeInteger, 42)
    .option('--config <json>', 'task config as a JSON object (keyed by task name with several tasks)', jsonObject, {})
    .option('--agent-name <name>', 'agent_ref name of every row', DEFAULT_AGENT_NAME)
    .requiredOption('--output <file>', 'output JSONL path')
    .action(async (options: CreateDatasetOptions) => createDataset(options));
  root.command('list-tasks').description("List ngym's ported tasks and the reasoning-gym library's.").action(listTasks);
  return root;
}

export const command: CliCommand = {
  name: 'reasoning-gym',
  summary: 'Create reasoning_gym datasets (any reasoning-gym task: mini_sudoku, knights_knaves, ...) as ready-to-train JSONL.',
  usage: '<create-dataset | list-tasks> [--option value ...]',
  description: USAGE,
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
