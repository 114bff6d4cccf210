/**
 * One upstream resources server against its own recording: `ngym run` of its config with replay_model, `ngym
 * collect` over its example.jsonl, each rollout compared with the recorded one of its task. When it cannot run or
 * does not come out as recorded, the reason.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { readServerRequirements } from '../src/gym/python-requirements.ts';
import { PACKAGE_ROOT } from '../src/util/package-root.ts';
import { collect, type EnvironmentBuild, startGym } from './gym-session.ts';
import { compareWithRecording, type Comparison, readRows, recordedModelReplies, recordedTasks, repeatedInputs, type RewardProfile, rewardProfile, type Row, sharedInputs } from './recordings.ts';
import { firstDivergence, firstErrorLine, hostInTraceback, investigatedCause, missingWheelData, networkFailed, placeholderDistribution, type Reason, replayDivergence, runtimeReason, startFailureReason, unsetDataVariable } from './reasons.ts';
import { replayArguments } from './replay-setup.ts';
import { checkRewardRange, declaredRewardRange, type RewardRange } from './reward-range.ts';
import { upstreamValidationRefuses } from './upstream-validation.ts';
import { instancesOf, POLICY_MODEL, readConfig, type ResourcesServerPlan, sandboxProviderOf } from './upstream-servers.ts';
import { License } from '../src/config/schemas.ts';
import { stringify } from 'yaml';

export interface RunOptions {
  sitePackages: string;
  /** Where this server's log, rollouts and replay files go. */
  workFolder: string;
  cold: boolean;
  startTimeoutMs: number;
  collectTimeoutMs: number;
}

export interface ServerResult {
  name: string;
  kind: 'resources_servers' | 'responses_api_agents' | 'responses_api_models' | 'environment_servers';
  /** The config run, relative to the wheel's site-packages. */
  config?: string;
  agent?: string;
  agentImpl?: string;
  /** `TypeScript`, or `Python` (upstream's app.py under ngym), for the server itself. */
  hosting?: 'TypeScript' | 'Python';
  /** What runs every instance of the config (the `runs` column), by instance. */
  runs?: Record<string, string>;
  /** Python environments built by this start, by `<type>/<name>`, seconds. */
  builds?: Record<string, number>;
  /** Whether the server runs on the base interpreter or a venv of its own (Python-hosted only). */
  environment?: 'base' | 'venv';
  readySeconds?: number;
  collectSeconds?: number;
  /** Rollouts equal to a recorded one / recorded rollouts. */
  equal?: number;
  total?: number;
  recorded?: RewardProfile;
  /**
   * `equal`: every recorded rollout came out as recorded; `in-range`: an environment that draws at random, unseeded
   * upstream, whose every row ran (with replay's fallback replies) and scored inside its declared reward range;
   * `started`: (agents, models) it starts.
   */
  status: 'equal' | 'in-range' | 'differs' | 'failed' | 'started';
  /** The declared reward range an environment that draws at random was checked against, and the rewards it scored. */
  rewardRange?: RewardRange & { rewards: unknown[] };
  reason?: Reason;
  /** Input rows taken from the recording because no example row has their input (recorded on other data). */
  inputsFromRecording?: number;
  /** Rollouts equal to the recording with upstream's app.py in place of ngym's TypeScript version (+prefer_upstream=true), when that one differs. */
  upstreamEqual?: number;
  /** Every recorded reward is the same: equality says less (a verifier that always gives it would equal too). */
  weak?: boolean;
  /** Where the recording holds model replies besides the policy's turns (see recordedModelReplies). */
  recordedReplyShapes?: string[];
  /** A value of the config that upstream's validation refuses and the catalog stood in for (spartqa's license). */
  refusedValue?: string;
  /** The config defining the agent when it is not the server's own, relative to site-packages. */
  agentConfig?: string;
  /** A few differing fields, for the reader of catalog.json. */
  differences?: Comparison['differing'];
  log?: string;
  /** What the start was given besides the server's own config (a resources server to serve, a placeholder endpoint). */
  note?: string;
  /** An agent that was not started alone: the resources server whose run started it. */
  via?: string;
  /** The date of the run this result is from, when it is older than the catalog's (a result merged in, not re-run). */
  ranOn?: string;
}

const relativeTo = (root: string, path: string) => (path.startsWith(root) ? relative(root, path) : path);

export function venvFolderOf(type: string, name: string): string {
  return join(PACKAGE_ROOT, 'cache', 'venvs', type, name);
}

function requirementLinesOf(folder: string): string[] {
  try {
    return readServerRequirements(folder).lines;
  } catch {
    return [];
  }
}

/** The folder whose build failed (`... server <names> (<type>/<name>) failed`), else the server's own. */
function failedBuildFolder(output: string, sitePackages: string, fallback: string): string {
  const match = /Building the Python environment of server .*? \(([a-z_]+\/[^)]+)\) failed/.exec(output);
  return match === null ? fallback : join(sitePackages, match[1] as string);
}

/**
 * A copy of a config whose agents' dataset licenses are all values ngym's (and upstream's) validation accepts, with
 * each other value read as `TBD`, and the values it replaced; undefined when every license is accepted.
 */
export function withKnownLicenses(config: string, workFolder: string): { config: string; refused: string } | undefined {
  const tree = readConfig(config);
  if (tree === undefined) return undefined;
  const refused = new Set<string>();
  for (const instance of instancesOf(tree).filter((candidate) => candidate.kind === 'responses_api_agents')) {
    for (const dataset of Array.isArray(instance.body.datasets) ? instance.body.datasets : []) {
      const license = (dataset as Row | null)?.license;
      if (typeof license === 'string' && !(License.options as readonly string[]).includes(license)) {
        refused.add(license);
        (dataset as Row).license = 'TBD';
      }
    }
  }
  if (refused.size === 0) return undefined;
  const copy = join(workFolder, 'config-licenses.yaml');
  writeFileSync(copy, `# ${config} with the dataset licenses ${[...refused].join(', ')} (no value validation accepts) read as TBD.\n${stringify(tree)}`);
  return { config: copy, refused: [...refused].map((license) => `license ${license}`).join(', ') };
}

export async function checkResourcesServer(plan: ResourcesServerPlan, options: RunOptions): Promise<ServerResult> {
  const { sitePackages, workFolder } = options;
  rmSync(workFolder, { recursive: true, force: true });
  mkdirSync(workFolder, { recursive: true });
  const logPath = join(workFolder, 'ngym.log');
  const log = relativeTo(PACKAGE_ROOT, logPath);
  const result: ServerResult = { name: plan.name, kind: 'resources_servers', status: 'failed', log };
  const recording = readRows(plan.recordingPath);
  if ('rows' in recording) {
    const profile = rewardProfile(recording.rows);
    if (profile !== undefined) result.recorded = profile;
  }
  if (plan.config === undefined || plan.agentInstance === undefined) {
    result.reason = { category: 'no-config', text: plan.problem ?? 'no config names an agent for it' };
    return result;
  }
  result.config = relativeTo(sitePackages, plan.config);
  result.agent = plan.agentInstance;
  if (plan.agentConfig !== undefined) result.agentConfig = relativeTo(sitePackages, plan.agentConfig);
  // A dataset license value no validation accepts is metadata: the server is loaded with it read as TBD, the value listed.
  const licensed = withKnownLicenses(plan.config, workFolder);
  if (licensed !== undefined) {
    result.refusedValue = licensed.refused;
  }
  const runConfig = licensed?.config ?? plan.config;
  if (plan.agentImpl !== undefined) result.agentImpl = plan.agentImpl;
  if ('problem' in recording) {
    result.reason = { category: 'no-recording', text: `its recording is not usable: ${recording.problem.replace(sitePackages + '/', '')}` };
    return result;
  }
  const examples = readRows(plan.examplePath);
  if ('problem' in examples) {
    result.reason = { category: 'no-recording', text: `its example data is not usable: ${examples.problem.replace(sitePackages + '/', '')}` };
    return result;
  }
  const unusable = unreplayableRow(recording.rows);
  if (unusable !== undefined) {
    result.reason = { category: 'no-recording', text: unusable };
    return result;
  }
  if (options.cold) rmSync(venvFolderOf('resources_servers', plan.name), { recursive: true, force: true });
  const inputs = inputRows(examples.rows, recording.rows);
  if (inputs.fromRecording > 0) result.inputsFromRecording = inputs.fromRecording;
  const inputPath = join(workFolder, 'inputs.jsonl');
  writeFileSync(inputPath, inputs.rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
  const context = { plan, examples: inputs.rows, recording: recording.rows, options, logPath, inputPath };

  // Every model reply the recording holds besides the policy's turns: the other model servers (judges, simulators)
  // answer from them; the policy model too when the verifier calls it as its judge.
  const replies = recordedModelReplies(recording.rows, new Set(examples.rows.flatMap((row) => Object.keys(row))));
  if (replies.shapes.length > 0) result.recordedReplyShapes = replies.shapes;
  const modelCalls = join(workFolder, 'recorded-model-calls.jsonl');
  writeFileSync(modelCalls, [...replies.byRequest, ...replies.keyed].map((row) => `${JSON.stringify(row)}\n`).join(''));
  const policyCalls = join(workFolder, 'recorded-policy-calls.jsonl');
  const policyJudges = plan.verifierModels.includes(POLICY_MODEL);
  writeFileSync(policyCalls, [...replies.byRequest, ...(policyJudges ? replies.keyed : [])].map((row) => `${JSON.stringify(row)}\n`).join(''));
  const calls = replies.byRequest.length + replies.keyed.length;
  const setup = {
    config: runConfig,
    companionConfigs: plan.companionConfigs,
    replayPolicy: true,
    policyRecordings: replies.byRequest.length > 0 || (policyJudges && replies.keyed.length > 0) ? [plan.recordingPath, policyCalls] : [plan.recordingPath],
    otherModels: plan.otherModels,
    otherRecordings: [modelCalls],
    workFolder,
  };
  const args = [...replayArguments(setup), ...plan.overrides];
  const first = await runAndCompare(args, 'rollouts', context);
  result.builds = buildsRecord(first.builds);
  if (!first.ready) {
    result.reason = await whyNotStarted(first.output, first.ending, plan, options, log);
    return result;
  }
  result.readySeconds = round(first.readySeconds);
  result.collectSeconds = round(first.collectSeconds);
  result.runs = first.runs;
  const own = first.runs[plan.resourcesInstance ?? ''];
  if (own !== undefined) result.hosting = own === 'TypeScript' ? 'TypeScript' : 'Python';
  if (result.hosting === 'Python') result.environment = existsSync(join(venvFolderOf('resources_servers', plan.name), '.venv')) ? 'venv' : 'base';
  const { comparison, failed } = first;
  result.equal = comparison.equal;
  result.total = comparison.total;
  if (result.recorded !== undefined && result.recorded.min === result.recorded.max) result.weak = true;
  if (comparison.equal === comparison.total && comparison.results === comparison.total && failed.length === 0) {
    result.status = 'equal';
    return result;
  }
  result.status = 'differs';
  if (comparison.differing.length > 0) result.differences = comparison.differing.slice(0, 3);
  result.reason = whyDiffers({
    run: first.collect,
    failed,
    comparison,
    gymOutput: first.output,
    plan,
    log,
    timedOut: first.collect.code === 'timeout',
    sharedInputs: sharedInputs(inputs.rows),
    recordedModelCalls: calls,
    replyShapes: replies.shapes,
    options,
    inputsFromRecording: inputs.fromRecording,
    recordedTaskLines: new Set(recordedTasks(inputs.rows, recording.rows).filter((task) => task !== undefined)),
    inputCount: inputs.rows.length,
    hasMediaInput: inputs.rows.some((row) => /"type":\s*"input_(image|file|audio)"/.test(JSON.stringify(row.responses_create_params ?? {}))),
  });
  if (result.reason.category === 'random') {
    await checkInRange(result, [...replayArguments({ ...setup, fallback: true }), ...plan.overrides], context);
    return result;
  }
  // ngym's TypeScript version of an upstream server that does not come out as recorded: does upstream's own app.py?
  if (result.hosting === 'TypeScript' && ['differs', 'error', 'judge', 'replay'].includes(result.reason.category)) {
    const upstream = await runAndCompare([...args, '+prefer_upstream=true'], 'rollouts-upstream', context);
    if (upstream.ready) {
      const upstreamEqual = upstream.comparison.equal === upstream.comparison.total && upstream.failed.length === 0;
      result.upstreamEqual = upstream.comparison.equal;
      result.reason = {
        ...result.reason,
        text: upstreamEqual
          ? `ngym's TypeScript version differs from upstream's app.py, which equals the recording (${upstream.comparison.equal} / ${upstream.comparison.total} under ngym with +prefer_upstream=true): ${result.reason.text}`
          : `upstream's own app.py does not equal the recording either (${upstream.comparison.equal} / ${upstream.comparison.total} under ngym with +prefer_upstream=true): ${result.reason.text}`,
      };
    }
  }
  return result;
}

/**
 * Why a recording cannot be replayed, row by row: no rollout shape at all (other fields only), no request to match
 * (an empty input), or no model reply (an empty output).
 */
export function unreplayableRow(rows: readonly Row[]): string | undefined {
  for (const [index, row] of rows.entries()) {
    const input = (row.responses_create_params as Row | undefined)?.input;
    const output = (row.response as Row | undefined)?.output;
    const at = `row ${index + 1}`;
    if (input === undefined && output === undefined) {
      const fields = Object.keys(row).slice(0, 6).join(', ');
      return `its recording holds no rollouts in the shape replay answers from: ${at} has no responses_create_params.input and no response.output (its fields: ${fields}${Object.keys(row).length > 6 ? ', ...' : ''})`;
    }
    if (input === undefined) return `its recording holds replies without their requests: ${at} has no responses_create_params.input`;
    if (!Array.isArray(output)) return `its recording holds task inputs, not rollouts: ${at} has no response.output (no model reply to replay)`;
    if ((typeof input === 'string' && input === '') || (Array.isArray(input) && input.length === 0)) {
      return `its recording is empty of requests: ${at}'s responses_create_params.input is empty${output.length === 0 ? ' and its response.output too' : ''}, so no request the agent sends can be matched to it`;
    }
    if (output.length === 0) return `its recording is empty of replies: ${at}'s response.output is empty (no model reply to replay)`;
  }
  return undefined;
}

/**
 * An environment that draws at random with no seed upstream lets one set, so the recorded replies do not fit its
 * observations: run it again with replay's fallback replies (replay_model's `fallback: nearest`), and it passes when
 * every row runs and scores inside the reward range upstream declares for it (`in-range`, counted apart from equal).
 */
async function checkInRange(result: ServerResult, args: string[], context: RunContext): Promise<void> {
  const { plan, options } = context;
  const reason = result.reason as Reason;
  const range = declaredRewardRange(options.sitePackages, plan.name, plan.config, plan.resourcesInstance);
  if (range === undefined) {
    result.reason = { ...reason, text: `${reason.text}; upstream declares no reward range for it (no manifest.yaml, no reward in its config's description) to check its rows against` };
    return;
  }
  const run = await runAndCompare(args, 'rollouts-fallback', context);
  if (!run.ready) {
    result.reason = { ...reason, text: `${reason.text}; with fallback replies it did not start: ${firstErrorLine(run.output) ?? run.ending}` };
    return;
  }
  const rewards = run.rows.map((row) => row.reward);
  result.rewardRange = { ...range, rewards };
  const check = checkRewardRange(rewards, context.examples.length, run.failed.length, range);
  if (check.ok) {
    result.status = 'in-range';
    result.reason = { category: 'random', text: `draws at random with no seed upstream lets one set: with replay's fallback replies every row runs and scores within its declared reward range ${range.lower}..${range.upper} (${range.source}); rewards ${rewards.join(', ')}` };
    return;
  }
  const why = check.problem + (run.failed.length > 0 ? `: ${firstErrorLine(run.failed.map((row) => String(row.error ?? '')).join('\n')) ?? ''}` : '');
  result.reason = { ...reason, text: `${reason.text}; with replay's fallback replies not every row runs within its declared reward range ${range.lower}..${range.upper} (${range.source}): ${why}` };
}

/**
 * The rows to collect: example.jsonl when its tasks are the recorded rollouts' tasks, one rollout each; otherwise one
 * row per recorded rollout, in the recording's task order (`_ng_task_index`, `_ng_rollout_index`, then file order, the
 * order replay_model answers identical requests in): its example task where it has one (a recording of some tasks,
 * several rollouts each), else the recorded row itself (the recording was made on other data than the example
 * file): its fields that task rows have (the example file's), without its agent_ref.
 */
export function inputRows(examples: readonly Row[], recorded: readonly Row[]): { rows: Row[]; fromRecording: number } {
  const tasks = recordedTasks(examples, recorded);
  const oncePerExample = tasks.length === examples.length && new Set(tasks).size === examples.length && tasks.every((task) => task !== undefined);
  if (oncePerExample) return { rows: [...examples], fromRecording: 0 };
  // The fields a task row has (the example file's), not what verification added to the recorded row.
  const taskFields = new Set(examples.flatMap((example) => Object.keys(example)));
  const stamp = (row: Row, key: string) => (Number.isInteger(row[key]) ? (row[key] as number) : Number.MAX_SAFE_INTEGER);
  const order = recorded.map((row, index) => ({ row, index })).sort((a, b) => stamp(a.row, '_ng_task_index') - stamp(b.row, '_ng_task_index') || stamp(a.row, '_ng_rollout_index') - stamp(b.row, '_ng_rollout_index') || a.index - b.index);
  const rows = order.map(({ row, index }) => {
    const task = tasks[index];
    if (task !== undefined) return examples[task] as Row;
    // Its agent_ref names the agent of the run that recorded it (a benchmark's), not necessarily one of this config.
    return Object.fromEntries(Object.entries(row).filter(([key]) => taskFields.has(key) && key !== 'agent_ref'));
  });
  return { rows, fromRecording: tasks.filter((task) => task === undefined).length };
}

interface RunContext {
  inputPath: string;
  plan: ResourcesServerPlan;
  examples: Row[];
  recording: Row[];
  options: RunOptions;
  logPath: string;
}

type RunOutcome =
  | { ready: false; output: string; ending: string; builds: EnvironmentBuild[] }
  | {
      ready: true;
      output: string;
      builds: EnvironmentBuild[];
      readySeconds: number;
      collectSeconds: number;
      runs: Record<string, string>;
      collect: { code: string; output: string };
      comparison: Comparison;
      /** The rollouts that came back, and those that failed. */
      rows: Row[];
      failed: Row[];
    };

/** One `ngym run` + `ngym collect` over the examples, compared with the recording; the gym is stopped whatever happens. */
async function runAndCompare(args: string[], outputName: string, context: RunContext): Promise<RunOutcome> {
  const { plan, options, logPath } = context;
  const gym = await startGym(args, { logPath, timeoutMs: options.startTimeoutMs });
  if (!gym.ready) return { ready: false, output: gym.output, ending: gym.ending, builds: gym.builds };
  try {
    const output = join(options.workFolder, `${outputName}.jsonl`);
    // Rows that send one same input are answered in the recording's task order: run them in that order.
    const sequential = repeatedInputs(context.examples);
    const run = await collect(gym.headPort, plan.agentInstance as string, context.inputPath, output, { logPath, timeoutMs: options.collectTimeoutMs, sequential });
    const results = existsSync(output) ? readRows(output) : { problem: 'no output' };
    const failuresPath = join(options.workFolder, `${outputName}_failures.jsonl`);
    const failures = existsSync(failuresPath) ? readRows(failuresPath) : { problem: 'none' };
    return {
      ready: true,
      output: gym.output(),
      builds: gym.builds,
      readySeconds: gym.readySeconds,
      collectSeconds: run.seconds,
      runs: Object.fromEntries(gym.servers.map((row) => [row.instance, row.runs])),
      collect: run,
      comparison: compareWithRecording(context.examples, context.recording, 'rows' in results ? results.rows : []),
      rows: 'rows' in results ? results.rows : [],
      failed: 'rows' in failures ? failures.rows : [],
    };
  } finally {
    await gym.stop();
  }
}

function round(seconds: number): number {
  return Math.round(seconds * 10) / 10;
}

function buildsRecord(builds: readonly EnvironmentBuild[]): Record<string, number> {
  return Object.fromEntries(builds.map((build) => [build.folder, build.seconds]));
}

async function whyNotStarted(output: string, ending: string, plan: ResourcesServerPlan, options: RunOptions, log: string): Promise<Reason> {
  if (/almost-servers? detected|almost-server\(s\) with validation errors/.test(output)) {
    const problem = /^\s+- (.+)$/m.exec(output)?.[1]?.replace(/\(from [^)]*\)/, '').trim() ?? 'an almost-server';
    const refused = plan.config === undefined ? undefined : await upstreamValidationRefuses(plan.config, options.sitePackages);
    if (refused === true) return { category: 'upstream-config', text: `upstream 0.7.0's own validation refuses its config too (ng_dump_config: almost-server): ${problem.slice(0, 300)}` };
    return { category: 'error', text: `ngym refuses its config${refused === false ? ', which upstream 0.7.0 accepts' : ''}: ${problem.slice(0, 300)} (log ${log})` };
  }
  const placeholder = placeholderDistribution(output, join(venvFolderOf('resources_servers', plan.name), '.venv'));
  if (placeholder !== undefined) return placeholder;
  const requirementLines = requirementLinesOf(failedBuildFolder(output, options.sitePackages, plan.folder));
  const reason = startFailureReason(output, { ending, requirementLines, logPath: log, folder: plan.folder });
  const sandbox = reason.category === 'error' || reason.category === 'timeout' ? sandboxProviderOf(options.sitePackages, [plan.config ?? '', ...plan.companionConfigs]) : undefined;
  return sandbox === undefined ? reason : { category: 'container', text: `needs ${sandbox}: ${reason.text}` };
}

export interface DiffContext {
  run: { code: string; output: string };
  failed: Row[];
  comparison: Comparison;
  gymOutput: string;
  plan: ResourcesServerPlan;
  log: string;
  timedOut: boolean;
  sharedInputs: boolean;
  hasMediaInput: boolean;
  recordedModelCalls: number;
  /** The shapes the recorded model replies came in. */
  replyShapes: readonly string[];
  options: RunOptions;
  inputsFromRecording: number;
  /** Rows of the input file that some recorded rollout belongs to, and how many rows it has. */
  recordedTaskLines: Set<number>;
  inputCount: number;
}

export function whyDiffers(context: DiffContext): Reason {
  const { failed, comparison, log } = context;
  const errors = failed.map((row) => String(row.error ?? '')).join('\n');
  const text = `${errors}\n${context.gymOutput}`;
  const judgeUnanswered = failed.length === 0 && /No recorded r/.test(context.gymOutput);
  if (judgeUnanswered) {
    return { category: 'judge', text: `a model call besides the policy's (${context.plan.otherModels.join(', ') || 'the judge, through the policy model'}) has no recorded reply, so verification scored without it: ${comparison.equal} of ${comparison.total} rollouts equal the recording` };
  }
  if (failed.length > 0 && context.plan.verifierModels.length > 0 && context.recordedModelCalls === 0 && /No recorded r/.test(context.gymOutput)) {
    return { category: 'judge', text: `its verifier calls ${context.plan.verifierModels.join(', ')}, whose replies are not in the recording: ${failed.length} of ${comparison.total} rollouts failed` };
  }
  const missingField = /\\?"missing\\?",\s*\\?"loc\\?":\s*\[\\?"body\\?",\s*\\?"(\w+)/.exec(errors)?.[1];
  if (failed.length > 0 && context.inputsFromRecording > 0 && missingField !== undefined) {
    return {
      category: 'no-recording',
      text: `its recording was made on other tasks than data/example.jsonl (${context.inputsFromRecording} of ${comparison.total}), and its rows lack the task field ${missingField} to run them again`,
    };
  }
  if (failed.length > 0 && /usage\.input_tokens: Field required/.test(errors)) {
    return { category: 'no-recording', text: `its recorded responses are not valid Responses (usage in Chat Completions' shape: prompt_tokens, completion_tokens), which agents refuse (upstream's simple_agent too): ${failed.length} of ${comparison.total} rollouts failed` };
  }
  if (failed.length > 0) {
    const diverged = replayDivergence(errors);
    if (diverged === 'first-observation') {
      return { category: 'no-recording', text: `its recording does not hold the observation the environment's reset now sends first (the recorded conversation goes from the task's prompt straight to a model reply, the agent sends a user message there): ${failed.length} of ${comparison.total} rollouts failed` };
    }
    if (diverged === 'observation') {
      return { category: 'random', text: `the environment's observations differ from the recording after the same replies (it draws at random past its seed), so the recorded replies stop applying mid-episode: ${failed.length} of ${comparison.total} rollouts failed` };
    }
    const missing = missingWheelData(text, context.plan.folder) ?? unsetDataVariable(text);
    if (missing !== undefined) return missing;
    const divergence = firstDivergence(errors, context.options.sitePackages);
    if (divergence !== undefined) return { category: 'diverges', text: `${divergence}: ${failed.length} of ${comparison.total} rollouts failed` };
    const sandbox = sandboxProviderOf(context.options.sitePackages, [context.plan.config ?? '', ...context.plan.companionConfigs]);
    if (sandbox !== undefined) return { category: 'container', text: `needs ${sandbox}: ${failed.length} of ${comparison.total} rollouts failed: ${(firstErrorLine(errors) ?? '').slice(0, 300)} (log ${log})` };
    const runtime = runtimeReason(text, log);
    const unrecorded = failed.filter((row) => typeof row.input_line === 'number' && !context.recordedTaskLines.has(row.input_line - 1)).length;
    if (/No recorded rollout starts with this input/.test(errors) && unrecorded > 0) {
      return { category: 'no-recording', text: `its recording holds ${context.recordedTaskLines.size} of the example file's ${context.inputCount} tasks (several rollouts of the same ones): ${unrecorded} rollouts of unrecorded tasks failed` };
    }
    if (/No recorded rollout starts with this input/.test(errors)) {
      const holds = [...errors.matchAll(/The replay model holds (\d+) recorded rollouts/g)].map((match) => Number(match[1]));
      const judgeCall = holds.some((count) => count !== comparison.total) || context.plan.otherModels.length > 0;
      const judges = context.plan.otherModels.join(', ') || 'the judge';
      if (judgeCall && context.recordedModelCalls > 0) {
        return { category: 'judge', text: `${judges} was sent requests none of the recording's ${context.recordedModelCalls} recorded model replies (${context.replyShapes.join('; ')}) answers: ${failed.length} of ${comparison.total} rollouts failed` };
      }
      if (judgeCall) return { category: 'judge', text: `a model call besides the policy's (${judges}) has no recorded reply: ${failed.length} of ${comparison.total} rollouts failed` };
      if (context.hasMediaInput) {
        return { category: 'replay', text: `replay_model finds no recording for its image/file inputs (it compares content parts whole, and the recording's carry \`detail: "auto"\`): ${failed.length} of ${comparison.total} rollouts failed` };
      }
      return { category: 'random', text: `the environment's observations differ from the recording (it draws at random, with no seed in its config), so the recorded replies do not apply: ${failed.length} of ${comparison.total} rollouts failed` };
    }
    if (runtime !== undefined) return runtime;
    const host = networkFailed(text) ? hostInTraceback(text) : undefined;
    if (host !== undefined) return { category: 'download', text: `download from ${host.host} (while running: the host ${host.file}:${host.line} of the failing traceback names)` };
    const first = firstErrorLine(errors) ?? errors.split('\n')[0] ?? '';
    return { category: 'error', text: `${failed.length} of ${comparison.total} rollouts failed: ${first.slice(0, 400)} (log ${log})` };
  }
  if (context.timedOut) {
    const sandbox = sandboxProviderOf(context.options.sitePackages, [context.plan.config ?? '', ...context.plan.companionConfigs]);
    if (sandbox !== undefined) return { category: 'container', text: `needs ${sandbox}: ngym collect did not finish in time, its rollouts waiting on a sandbox (log ${log})` };
    return { category: 'timeout', text: `ngym collect did not finish in time (log ${log})` };
  }
  const skipped = /^\s*line \d+: (.+)$/m.exec(context.run.output)?.[1];
  if (skipped !== undefined) return { category: 'error', text: `ngym collect skipped its input rows: ${skipped.slice(0, 300)} (log ${log})` };
  if (context.run.code !== '0' && comparison.results === 0) {
    return { category: 'error', text: `ngym collect exited ${context.run.code}: ${firstErrorLine(context.run.output) ?? ''} (log ${log})` };
  }
  const differing = comparison.differing.flatMap((entry) => entry.differences);
  if (comparison.results === comparison.total && differing.length > 0 && comparison.differing.every((entry) => entry.fields === entry.differences.length) && differing.every((difference) => difference.field.startsWith('responses_create_params.'))) {
    const fields = [...new Map(differing.map((difference) => [difference.field, difference])).values()].slice(0, 4);
    const shown = fields.map((difference) => `${difference.field}: ${difference.recorded === undefined ? 'absent' : JSON.stringify(difference.recorded)} recorded, ${difference.result === undefined ? 'absent' : JSON.stringify(difference.result)} in the run's`).join('; ');
    return { category: 'differs', text: `its recording's requests carry other parameters than its task rows (${shown}), every other field equal: ${comparison.equal} of ${comparison.total} rollouts equal the recording` };
  }
  const complete = comparison.results === comparison.total && differing.length > 0 && comparison.differing.every((entry) => entry.fields === entry.differences.length);
  if (complete && differing.every((difference) => difference.recorded === undefined)) {
    const names = [...new Set(differing.map((difference) => difference.field))];
    return { category: 'differs', text: `its rollouts hold fields its recording does not (${names.slice(0, 8).join(', ')}${names.length > 8 ? ', ...' : ''}: a verifier newer than the recording's writes them), every recorded field equal: ${comparison.equal} of ${comparison.total} rollouts equal the recording` };
  }
  if (context.recordedModelCalls === 0 && context.plan.verifierModels.length > 0) {
    return { category: 'judge', text: `its verifier calls ${context.plan.verifierModels.join(', ')}, whose replies are not in the recording: ${comparison.equal} of ${comparison.total} rollouts equal the recording` };
  }
  if (context.sharedInputs) {
    return { category: 'replay', text: `its tasks share one input text (they differ in other fields), and replay_model answers by input, so recorded replies go to the wrong tasks: ${comparison.equal} of ${comparison.total} rollouts equal the recording` };
  }
  // Rollouts that came back but scored without what verification needed (a container runtime it could not find).
  const runtime = runtimeReason(context.gymOutput, log);
  if (runtime?.category === 'container') return { ...runtime, text: `${comparison.equal} of ${comparison.total} rollouts equal the recording; its verifier ${runtime.text}` };
  const known = investigatedCause(context.plan.name);
  if (known !== undefined) return { ...known, text: `${comparison.equal} of ${comparison.total} rollouts equal the recording: ${known.text}` };
  const fields = [...new Set(comparison.differing.flatMap((entry) => entry.differences.map((difference) => difference.field)))];
  return { category: 'differs', text: `${comparison.equal} of ${comparison.total} rollouts equal the recording; differing: ${fields.join(', ') || 'rollout count'}${comparison.unmatched > 0 ? `; ${comparison.unmatched} rollouts match no example row` : ''}` };
}
