/**
 * `ngym env verify <environment>`: an environment's example rollouts collected again with replay and compared with
 * its recording. The environment (built in, in the project, or from an installed package) starts with replay_model
 * as the policy model over its recorded `<example>_rollouts.jsonl`; a model server it names besides the policy (a
 * judge) replays the model calls recorded inside those rollouts (`judge_evaluations`). Several environments start
 * in one gym. Every agent's example rows
 * are collected one at a time, in order (replay answers identical requests in recorded order), and each reward
 * must equal a recorded reward of the same task. `ngym env publish` runs the same check.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { ServerClient } from '../../client/server-client.ts';
import { packageOfPath } from '../../config/environment-packages.ts';
import { loadGlobalConfig } from '../../config/global-config.ts';
import { defaultSearchRoots } from '../../config/server-instances.ts';
import { type ConfigDict, isDict } from '../../config/tree.ts';
import { NgymError } from '../../errors.ts';
import { launch } from '../../gym/launcher.ts';
import { normalizeInput, type ResponseItem } from '../../protocol/responses.ts';
import { collectRollouts } from '../../rollouts/collect.ts';
import { createProgressReporter } from '../../rollouts/progress.ts';
import { PACKAGE_ROOT } from '../../util/package-root.ts';
import { readWithIncludes } from '../gym/catalog.ts';
import { assetConfigPath } from '../gym/flags.ts';

type Row = Record<string, unknown>;

export const REPLAY_CONFIG = join(PACKAGE_ROOT, 'responses_api_models', 'replay_model', 'configs', 'replay_model.yaml');
const POLICY_MODEL = 'policy_model';
/** The model server that stands in for an unset (`???`) model reference, such as a judge the user is to name. */
const REPLAYED_JUDGE = 'replayed_judge_model';

function readRows(path: string): Row[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, index) => {
      try {
        return JSON.parse(line) as Row;
      } catch {
        throw new NgymError('NGYM_INPUT_INVALID', `${path}:${index + 1} is not JSON.`);
      }
    });
}

/** A task's identity as the model sees it: its input, normalized (ids and formatting aside). */
function taskKey(row: Row): string {
  const input = (row.responses_create_params as Row | undefined)?.input;
  if (typeof input !== 'string' && !Array.isArray(input)) return 'null';
  return JSON.stringify(normalizeInput(input as string | ResponseItem[]).map((item) => ('content' in item ? [item.type, (item as { role?: string }).role, item.content] : item)));
}

/** Model calls recorded inside rollouts besides the policy's: nested `{responses_create_params.input, response.output}`. */
function nestedModelCalls(rows: readonly Row[]): Row[] {
  const found: Row[] = [];
  const visit = (value: unknown, depth: number): void => {
    if (Array.isArray(value)) for (const item of value) visit(item, depth + 1);
    else if (isDict(value)) {
      const params = value.responses_create_params;
      const response = value.response;
      if (depth > 0 && isDict(params) && params.input !== undefined && isDict(response) && Array.isArray(response.output)) found.push({ responses_create_params: params, response });
      for (const item of Object.values(value)) visit(item, depth + 1);
    }
  };
  for (const row of rows) visit(row, 0);
  return found;
}

interface ExampleSet {
  environment: string;
  agent: string;
  examples: string;
  recording: string;
}

/** Every model reference `{type: responses_api_models, name}` in the servers' configs, with its key path. */
function modelReferences(tree: ConfigDict): { path: string[]; name: string }[] {
  const found: { path: string[]; name: string }[] = [];
  const visit = (value: unknown, path: string[]): void => {
    if (!isDict(value)) return;
    if (value.type === 'responses_api_models' && typeof value.name === 'string') found.push({ path, name: value.name });
    for (const [key, inner] of Object.entries(value)) visit(inner, [...path, key]);
  };
  for (const [key, value] of Object.entries(tree)) if (key !== 'config_paths') visit(value, [key]);
  return found;
}

/** The agents with an `example` dataset, each with its data and recording (`<stem>_rollouts.jsonl` beside it). */
function exampleSets(tree: ConfigDict, roots: readonly string[], environment: string): ExampleSet[] {
  const sets: ExampleSet[] = [];
  for (const [instance, entry] of Object.entries(tree)) {
    const agents = isDict(entry) ? entry.responses_api_agents : undefined;
    if (!isDict(agents)) continue;
    for (const inner of Object.values(agents)) {
      const datasets = isDict(inner) && Array.isArray(inner.datasets) ? inner.datasets.filter(isDict) : [];
      for (const dataset of datasets.filter((candidate) => candidate.type === 'example')) {
        const path = String(dataset.jsonl_fpath);
        const examples = isAbsolute(path) ? path : roots.map((root) => resolve(root, path)).find(existsSync);
        if (examples === undefined) throw new NgymError('NGYM_INPUT_INVALID', `Environment '${environment}': its example data ${path} (agent ${instance}) is missing.`);
        const recording = join(dirname(examples), `${basename(examples, '.jsonl')}_rollouts.jsonl`);
        if (!existsSync(recording)) throw new NgymError('NGYM_INPUT_INVALID', `Environment '${environment}': ${relative(process.cwd(), examples)} has no recorded rollouts beside it (${basename(recording)}) to verify against.`);
        sets.push({ environment, agent: instance, examples, recording });
      }
    }
  }
  if (sets.length === 0) throw new NgymError('NGYM_USAGE', `Environment '${environment}' has no agent with an example dataset (type: example) to verify.`);
  return sets;
}

/** The `ngym run` overrides that start the environment with every model replayed. */
function replayOverrides(configFiles: readonly string[], tree: ConfigDict, sets: readonly ExampleSet[], workFolder: string): string[] {
  const recordings = [...new Set(sets.map((set) => set.recording))];
  const nested = join(workFolder, 'recorded_model_calls.jsonl');
  writeFileSync(nested, nestedModelCalls(recordings.flatMap(readRows)).map((row) => `${JSON.stringify(row)}\n`).join(''));
  const replay = (files: readonly string[]) => `{responses_api_models: {replay_model: {entrypoint: app.ts, rollouts_jsonl_fpath: [${files.map((file) => `'${file}'`).join(',')}], strict: false}}}`;
  const overrides = [
    `+config_paths=[${[...configFiles, REPLAY_CONFIG].join(',')}]`,
    `+${POLICY_MODEL}.responses_api_models.replay_model.rollouts_jsonl_fpath=[${recordings.map((file) => `'${file}'`).join(',')}]`,
    '++head_server={host: 127.0.0.1, port: 0}',
  ];
  const defined = new Set(Object.keys(tree));
  const replaced = new Set<string>();
  for (const reference of modelReferences(tree)) {
    if (reference.name === POLICY_MODEL || defined.has(reference.name)) continue;
    const name = reference.name === '???' ? REPLAYED_JUDGE : reference.name;
    if (reference.name === '???') overrides.push(`++${reference.path.join('.')}.name=${REPLAYED_JUDGE}`);
    replaced.add(name);
  }
  for (const name of replaced) overrides.push(`+${name}=${replay([nested])}`);
  return overrides;
}

interface ExampleMismatch {
  environment: string;
  agent: string;
  line: number;
  expected: number[];
  got: number | string;
}

export interface VerifyResult {
  /** Each environment with where it comes from: `ngym`, `project`, or the installed package's `name@version`. */
  environments: { name: string; source: string }[];
  rollouts: number;
  mismatches: ExampleMismatch[];
}

/** Compares collected rollouts with the recording: each reward must be one recorded for the same task. */
function compare(set: ExampleSet, collected: readonly Row[], recorded: readonly Row[]): ExampleMismatch[] {
  const byTask = new Map<string, number[]>();
  for (const row of recorded) if (typeof row.reward === 'number') byTask.set(taskKey(row), [...(byTask.get(taskKey(row)) ?? []), row.reward]);
  const mismatches: ExampleMismatch[] = [];
  for (const row of collected) {
    const expected = byTask.get(taskKey(row)) ?? [];
    const index = expected.indexOf(row.reward as number);
    const line = typeof row._ng_task_index === 'number' ? row._ng_task_index + 1 : 0;
    if (index >= 0) expected.splice(index, 1);
    else mismatches.push({ environment: set.environment, agent: set.agent, line, expected: byTask.get(taskKey(row)) ?? [], got: typeof row.reward === 'number' ? row.reward : 'no reward' });
  }
  return mismatches;
}

/**
 * Starts the environments in one gym (so environments of several packages run side by side) with replay, collects
 * every example row, compares; stops everything however it ends.
 */
export async function verifyExamples(environments: readonly string[], options: { cwd?: string; outputDir: string; write?: (text: string) => void }): Promise<VerifyResult> {
  const cwd = resolve(options.cwd ?? process.cwd());
  const write = options.write ?? ((text: string) => process.stdout.write(text));
  const configFiles: string[] = [];
  const described: VerifyResult['environments'] = [];
  const sets: ExampleSet[] = [];
  let tree: ConfigDict = {};
  for (const environment of environments) {
    const configFile = assetConfigPath('environment', environment, cwd);
    const owner = packageOfPath(configFile, cwd);
    const ownTree = readWithIncludes(configFile, cwd);
    configFiles.push(configFile);
    described.push({ name: environment, source: owner !== undefined ? `${owner.name}@${owner.version}` : dirname(dirname(dirname(configFile))) === cwd ? 'project' : 'ngym' });
    sets.push(...exampleSets(ownTree, [owner?.root ?? cwd, ...defaultSearchRoots(cwd)], environment));
    tree = { ...tree, ...ownTree };
  }
  const outputDir = resolve(cwd, options.outputDir);
  mkdirSync(outputDir, { recursive: true });
  const globalConfig = loadGlobalConfig({ overrides: replayOverrides(configFiles, tree, sets, outputDir), cwd, envYamlPath: null });
  write(`Verifying ${described.map((one) => `${one.name} (${one.source})`).join(', ')}: example rollouts replayed (replay_model; no LLM is called)...\n`);
  const gym = await launch({ globalConfig, output: () => {} });
  const mismatches: ExampleMismatch[] = [];
  let rollouts = 0;
  try {
    const client = new ServerClient(globalConfig);
    for (const set of sets) {
      const outputPath = join(outputDir, `${set.agent}_rollouts.jsonl`);
      const summary = await collectRollouts({
        client,
        agentName: set.agent,
        input: set.examples,
        outputPath,
        overwrite: true,
        // One at a time, in order: replay answers tasks that send the same input in the recording's order.
        concurrency: 1,
        ordered: true,
        progress: createProgressReporter(`Collecting ${set.agent}`, { intervalMs: 60_000 }),
      }).done();
      if (summary.failed > 0 || summary.invalidInputs.length > 0) {
        throw new NgymError('NGYM_EXAMPLES_DIFFER', `${set.environment}: ${summary.failed} of its example rollouts of ${set.agent} failed (${summary.invalidInputs.length} invalid rows); see ${summary.paths?.failures}.`);
      }
      const collected = readRows(outputPath);
      rollouts += collected.length;
      mismatches.push(...compare(set, collected, readRows(set.recording)));
    }
  } finally {
    await gym.stop();
  }
  return { environments: described, rollouts, mismatches };
}

/** Prints the result; throws NGYM_EXAMPLES_DIFFER when a reward differs from the recording. */
export function reportVerification(result: VerifyResult, write: (text: string) => void = (text) => process.stdout.write(text)): void {
  const names = result.environments.map((one) => `${one.name} (${one.source})`).join(', ');
  if (result.mismatches.length === 0) {
    write(`${names}: all ${result.rollouts} example rollouts re-verify with their recorded rewards.\n`);
    return;
  }
  const lines = result.mismatches.map((mismatch) => `  ${mismatch.environment}: ${mismatch.agent} example ${mismatch.line}: reward ${mismatch.got}, recorded ${mismatch.expected.length === 0 ? 'nothing for this task' : mismatch.expected.join(' or ')}`);
  throw new NgymError('NGYM_EXAMPLES_DIFFER', `${names}: ${result.mismatches.length} of ${result.rollouts} example rollouts no longer earn their recorded reward:\n${lines.join('\n')}`);
}
