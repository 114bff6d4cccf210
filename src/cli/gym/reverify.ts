/**
 * `gym eval reverify`: re-score recorded rollouts through a running gym's resources servers, with upstream 0.7.0's
 * options (`RolloutReverificationConfig`, nemo_gym/rollout_reverification.py):
 *
 *   --rollouts R -o O         every rollout of R re-verified into O; O's sidecar `<O stem>_failures.jsonl` gets the
 *                             rollouts that could not be (never a reward of 0). Results are appended as they come (in
 *                             input order), so a run cut short keeps what it wrote and --resume does the rest.
 *   --inputs M                the task of each rollout read from materialized inputs M (joined on
 *                             `(_ng_task_index, _ng_rollout_index)`) instead of from the rollout row itself.
 *   --resume                  continue O: keys already in O, sidecar rows stamped `_ng_failure_terminal` and keys
 *                             that failed NEMO_GYM_MAX_ROLLOUT_ATTEMPTS (default 3) times are skipped.
 *   --judge-failed-only       recovery: the successes of R are copied into O unchanged, and only the judge failures
 *                             of R's sidecar (`_ng_failure_class` judge_failed / judge_invalid) are re-verified.
 *   --append                  with --judge-failed-only: O is an existing file (it may be R itself) that is only
 *                             appended to; keys already in it are skipped, so a re-run adds nothing twice.
 *   --input-format atif       the rollouts are ATIF v1.7 trajectories named by --atif-manifest (src/cli/gym/atif.ts).
 *
 * Unlike upstream, which posts the recorded response to /verify and so refuses stateful verifiers without
 * --force, ngym seeds each rollout's session and replays its tool calls before verifying, so stateful
 * environments re-verify correctly and --force changes nothing.
 */
import { existsSync, rmSync } from 'node:fs';
import * as z from 'zod';
import { CookieJar } from '../../client/cookies.ts';
import { raiseForStatus, type ServerClient } from '../../client/server-client.ts';
import { loadGlobalConfig } from '../../config/global-config.ts';
import { isDict } from '../../config/tree.ts';
import { NgymError, UpstreamError } from '../../errors.ts';
import { failureFromError } from '../../rollouts/failures.ts';
import { readJsonl } from '../../rollouts/jsonl.ts';
import { OrderedWriter } from '../../rollouts/ordered-writer.ts';
import { JsonlAppender, outputPathsFor } from '../../rollouts/output-files.ts';
import { isTerminalFailure } from '../../rollouts/prior-failures.ts';
import { headServerClient, readParameters } from '../command.ts';
import { ATIF_PROVENANCE_KEY, atifVerifyPayloads } from './atif.ts';
import { writeAggregateMetrics } from './evaluation.ts';

type Row = Record<string, unknown>;
const write = (text: string) => process.stdout.write(text);

const ReverifyParameters = z.object({
  input_format: z.enum(['gym', 'atif']).default('gym'),
  materialized_inputs_jsonl_fpath: z.string().min(1).optional(),
  rollouts_jsonl_fpath: z.string().min(1).optional(),
  atif_manifest_jsonl_fpath: z.string().min(1).optional(),
  output_jsonl_fpath: z.string().min(1),
  agent_name: z.string().min(1).optional(),
  num_samples_in_parallel: z.number().int().min(1).default(16),
  limit: z.number().int().min(1).optional(),
  force: z.boolean().default(false),
  overwrite: z.boolean().default(false),
  resume_from_cache: z.boolean().default(false),
  disable_aggregation: z.boolean().default(false),
  judge_failed_only: z.boolean().default(false),
  append: z.boolean().default(false),
  retry_terminal_timeouts: z.boolean().default(false),
  retry_invalid_judge_responses: z.boolean().default(false),
});
type ReverifyConfig = z.infer<typeof ReverifyParameters>;

/** Upstream's checks of the combination, with its wording (flag names in parentheses). */
function checkCombination(config: ReverifyConfig): void {
  const refuse = (message: string) => {
    throw new NgymError('NGYM_USAGE', message);
  };
  if (config.append && !config.judge_failed_only) refuse('`append` is only valid together with `judge_failed_only` (pass --judge-failed-only).');
  if (config.append && config.overwrite) refuse('`append` and `overwrite` are mutually exclusive: one appends, the other clears.');
  if (config.input_format === 'gym') {
    if (config.rollouts_jsonl_fpath === undefined) refuse('native Gym reverification requires `rollouts_jsonl_fpath` (pass --rollouts).');
    if (config.atif_manifest_jsonl_fpath !== undefined) refuse('`atif_manifest_jsonl_fpath` is only valid with input_format=atif (pass --input-format atif).');
  } else {
    if (config.atif_manifest_jsonl_fpath === undefined) refuse('ATIF reverification requires `atif_manifest_jsonl_fpath` (pass --atif-manifest).');
    if (config.rollouts_jsonl_fpath !== undefined) refuse('`rollouts_jsonl_fpath` (--rollouts) cannot be combined with input_format=atif.');
    if (config.materialized_inputs_jsonl_fpath === undefined) refuse('ATIF reverification requires `materialized_inputs_jsonl_fpath` (pass --inputs): the tasks the trajectories answered.');
    if (config.judge_failed_only || config.append) refuse('ATIF reverification does not support judge-failure recovery or append mode (--judge-failed-only, --append).');
    if (config.force) refuse('ATIF reverification requires a stateless verifier; --force is not supported.');
    if (config.resume_from_cache) refuse('ATIF reverification does not support --resume until cache keys include source hashes.');
  }
  // Upstream then moves invalid-judge rows out of the rollouts file into its sidecar, rewriting the user's file;
  // ngym does not rewrite an input file.
  if (config.judge_failed_only && config.retry_invalid_judge_responses) {
    refuse('+retry_invalid_judge_responses=true with --judge-failed-only rewrites the rollouts file in upstream (it moves invalid-judge rows into the failures sidecar); ngym does not rewrite inputs. Move those rows yourself, or run --judge-failed-only without it.');
  }
}

type Key = string;
const keyOf = (row: Row): Key | undefined =>
  typeof row._ng_task_index === 'number' && typeof row._ng_rollout_index === 'number' ? `${row._ng_task_index}/${row._ng_rollout_index}` : undefined;

async function* rowsOf(path: string): AsyncGenerator<{ line: number; row: Row }> {
  for await (const { line, value } of readJsonl(path)) {
    if (!isDict(value)) throw new NgymError('NGYM_INPUT_INVALID', `${path}:${line}: a rollout must be a JSON object.`);
    yield { line, row: value };
  }
}

/** The keys of a file's rows (whole lines; a torn last line, left by a run cut short, is skipped). */
async function keysIn(path: string): Promise<Set<Key>> {
  const keys = new Set<Key>();
  if (!existsSync(path)) return keys;
  for await (const entry of readJsonl(path, { skipInvalid: true })) {
    if (entry instanceof NgymError || !isDict(entry.value)) continue;
    const key = keyOf(entry.value);
    if (key !== undefined) keys.add(key);
  }
  return keys;
}

/** One rollout to re-verify: the body /verify gets (the task and the response), and the row it came from. */
interface Payload {
  body: Row;
  source: Row;
  line: number;
}

/** The fields a verify answer or a failure record adds to a task row: recomputed, never sent back nor carried over. */
const VERIFY_OUTPUT_FIELDS = new Set(['reward', '_ng_perf', 'error', 'failure_kind', 'failure_reason', 'mask_sample']);
const taskFieldsOf = (row: Row): Row => Object.fromEntries(Object.entries(row).filter(([key]) => !VERIFY_OUTPUT_FIELDS.has(key) && !key.startsWith('_ng_failure_')));

/** A materialized input joined with its rollout's response, as upstream builds the verify request. */
function joinedPayload(input: Row, rollout: Row): Row {
  if (!('response' in rollout)) {
    throw new NgymError('NGYM_INPUT_INVALID', `rollout (task ${String(rollout._ng_task_index)}, rollout ${String(rollout._ng_rollout_index)}) has no \`response\`, which reverification needs.`);
  }
  let body: Row;
  if (isDict(input.task_input)) {
    // The generic flat task input, or the older single-agent `task_data` container inside it.
    const { task_id: _id, task_input: taskInput, ...rowKeys } = input;
    const { task_data: taskData = {}, ...fields } = taskInput;
    if (!isDict(taskData)) throw new NgymError('NGYM_INPUT_INVALID', 'reverify: task_input.task_data must be an object.');
    for (const key of Object.keys(fields)) {
      if (key in taskData && JSON.stringify(fields[key]) !== JSON.stringify(taskData[key])) throw new NgymError('NGYM_INPUT_INVALID', `reverify: conflicting task field '${key}' inside and outside task_data.`);
    }
    body = { ...rowKeys, ...taskData, ...fields, response: rollout.response };
  } else body = { ...input, response: rollout.response };
  // File-backed verifiers need the rollout's artifacts; adaptive comparison the reference subset it used.
  for (const key of ['deliverables_dir', 'reference_ids']) if (key in rollout) body[key] = rollout[key];
  return body;
}

async function materializedInputs(path: string): Promise<Map<Key, Row>> {
  const inputs = new Map<Key, Row>();
  for await (const { line, row } of rowsOf(path)) {
    const key = keyOf(row);
    if (key === undefined) throw new NgymError('NGYM_INPUT_INVALID', `${path}:${line}: a materialized input needs integer _ng_task_index and _ng_rollout_index.`);
    inputs.set(key, row);
  }
  return inputs;
}

const JUDGE_FAILURE_CLASSES = new Set(['judge_failed', 'judge_invalid']);

/** Copies the successes into the output (skipping keys it already has) and returns every key it then holds. */
async function seedSuccesses(rolloutsPath: string, outputPath: string): Promise<Set<Key>> {
  const present = await keysIn(outputPath);
  const appender = await JsonlAppender.open(outputPath, { truncate: false });
  let seeded = 0;
  try {
    for await (const { row } of rowsOf(rolloutsPath)) {
      const key = keyOf(row);
      if (key !== undefined && present.has(key)) continue;
      if (key !== undefined) present.add(key);
      appender.append(JSON.stringify(row));
      seeded++;
    }
  } finally {
    await appender.close();
  }
  write(`Recovery mode: seeded ${seeded} successful rollout(s) into ${outputPath}\n`);
  return present;
}

function maxAttempts(): number {
  const raw = process.env.NEMO_GYM_MAX_ROLLOUT_ATTEMPTS;
  if (raw === undefined || raw === '') return 3;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new NgymError('NGYM_USAGE', `NEMO_GYM_MAX_ROLLOUT_ATTEMPTS must be an integer >= 1, got '${raw}'.`);
  return value;
}

/** What a resumed run skips: keys done, keys the sidecar marks terminal, keys out of attempts. */
async function resumeGate(paths: { output: string; failures: string }, retryTerminalTimeouts: boolean): Promise<{ done: Set<Key>; terminal: Set<Key>; maxedOut: Set<Key> }> {
  const done = await keysIn(paths.output);
  const attempts = new Map<Key, number>();
  const terminal = new Set<Key>();
  if (existsSync(paths.failures)) {
    for await (const entry of readJsonl(paths.failures, { skipInvalid: true })) {
      if (entry instanceof NgymError || !isDict(entry.value)) continue;
      const key = keyOf(entry.value);
      if (key === undefined) continue;
      attempts.set(key, (attempts.get(key) ?? 0) + 1);
      if (isTerminalFailure(entry.value, retryTerminalTimeouts)) terminal.add(key);
    }
  }
  const cap = maxAttempts();
  return { done, terminal, maxedOut: new Set([...attempts].filter(([, count]) => count >= cap).map(([key]) => key)) };
}

/** Output and sidecar of a fresh run: an existing one is replaced only with --overwrite. */
function prepareOutputs(config: ReverifyConfig): { output: string; failures: string; aggregateMetrics: string } {
  const paths = outputPathsFor(config.output_jsonl_fpath);
  if (config.append || config.resume_from_cache) return paths;
  // --overwrite would delete the very file (or its failures) this run reads.
  const source = config.rollouts_jsonl_fpath === undefined ? undefined : outputPathsFor(config.rollouts_jsonl_fpath);
  if (source !== undefined && [source.output, source.failures].includes(paths.output)) throw new NgymError('NGYM_USAGE', `--output ${config.output_jsonl_fpath} is the rollouts file this run reads; write elsewhere, or add the recovered rows to it with --judge-failed-only --append.`);
  for (const path of [paths.output, paths.failures]) {
    if (!existsSync(path)) continue;
    if (!config.overwrite) throw new NgymError('NGYM_USAGE', `Output file already exists: '${path}'. Pass --overwrite to delete it and start fresh, or --resume to continue from it.`);
    rmSync(path);
    write(`Deleted existing output file: '${path}'\n`);
  }
  return paths;
}

const RECOVERY_WARNING =
  "WARNING: judge-failed-only recovery merges rewards from TWO sources: the successful rollouts in --rollouts were scored by the ORIGINAL run's verifier/judge, the recovered rows by the CURRENT verification config. If the judge model, its prompt or parameters, or the verifier config changed since the original run, the merged rewards are inconsistent.";

/** Refuses multi-stage rows (`stage_index`) in the sidecar before anything is written, as upstream. */
async function refuseMultiStage(failuresPath: string): Promise<void> {
  if (!existsSync(failuresPath)) return;
  for await (const { row } of rowsOf(failuresPath)) {
    if ('stage_index' in row) throw new NgymError('NGYM_USAGE', '--judge-failed-only does not support multi-stage rows; resume the multi-stage rollout collection so stage identity and adaptive references are preserved.');
  }
}

/** The rollouts to re-verify, read and joined before anything is sent. */
async function gymPayloads(config: ReverifyConfig, paths: { output: string; failures: string }): Promise<Payload[]> {
  const rolloutsPath = config.rollouts_jsonl_fpath as string;
  if (!existsSync(rolloutsPath)) throw new NgymError('NGYM_USAGE', `No such rollouts file: ${rolloutsPath}`);
  const inputs = config.materialized_inputs_jsonl_fpath === undefined ? undefined : await materializedInputs(config.materialized_inputs_jsonl_fpath);
  let source = rolloutsPath;
  let keep: (row: Row) => boolean = () => true;
  if (config.judge_failed_only) {
    source = outputPathsFor(rolloutsPath).failures;
    await refuseMultiStage(source);
    write(`${RECOVERY_WARNING}\n`);
    const present = await seedSuccesses(rolloutsPath, paths.output);
    const seen = new Set<Key>();
    keep = (row) => {
      if (!JUDGE_FAILURE_CLASSES.has(String(row._ng_failure_class))) return false;
      const key = keyOf(row) ?? '';
      if (present.has(key) || seen.has(key)) return false;
      seen.add(key);
      return true;
    };
    if (!existsSync(source)) write(`No failures sidecar ${source}: nothing to recover.\n`);
  }
  const payloads: Payload[] = [];
  if (existsSync(source)) {
    for await (const { line, row } of rowsOf(source)) {
      if (config.limit !== undefined && payloads.length >= config.limit) break;
      if (!keep(row)) continue;
      if ((config.resume_from_cache || config.judge_failed_only) && keyOf(row) === undefined) {
        throw new NgymError('NGYM_INPUT_INVALID', `${source}:${line}: --resume and --judge-failed-only need every rollout's integer _ng_task_index and _ng_rollout_index.`);
      }
      let body: Row;
      if (inputs === undefined) body = taskFieldsOf(row);
      else {
        const input = inputs.get(keyOf(row) ?? '');
        if (input === undefined) throw new NgymError('NGYM_INPUT_INVALID', `${source}:${line}: no materialized input in ${config.materialized_inputs_jsonl_fpath} for (task ${String(row._ng_task_index)}, rollout ${String(row._ng_rollout_index)}).`);
        body = joinedPayload(input, row);
      }
      payloads.push({ body, source: row, line });
    }
  }
  if (!config.resume_from_cache) return payloads;
  const gate = await resumeGate(paths, config.retry_terminal_timeouts);
  const remaining = payloads.filter(({ source: row }) => {
    const key = keyOf(row) as Key;
    return !gate.done.has(key) && !gate.terminal.has(key) && !gate.maxedOut.has(key);
  });
  write(
    `Resumed from cache. Found:\n- ${payloads.length} total rows to be re-verified\n- ${gate.done.size} rows already done (in main jsonl)\n` +
      `- ${gate.terminal.size} sidecar-terminal → not retried\n- ${gate.maxedOut.size} hit max_attempts → not retried\n- ${remaining.length} rows that still need to be run\n`,
  );
  return remaining;
}

const agentOf = (row: Row) => (isDict(row.agent_ref) && typeof row.agent_ref.name === 'string' ? row.agent_ref.name : undefined);

/** The resources server that verifies a row: its task_source, then its environment server's, then its agent's. */
function resourcesServerFor(client: ServerClient, row: Row, agentName: string | undefined): string {
  const config = client.config;
  const taskSource = row.task_source;
  if (typeof taskSource === 'string' && config.server(taskSource)?.serverType === 'resources_servers') return taskSource;
  const environment = row._ng_environment_server;
  if (typeof environment === 'string' && config.server(environment)?.serverType === 'environment_servers') {
    const reference = config.resolvedServerConfig(environment).resources_server;
    if (isDict(reference) && typeof reference.name === 'string') return reference.name;
  }
  const agent = agentOf(row) ?? agentName;
  if (agent === undefined) throw new NgymError('NGYM_USAGE', 'the rollout has no agent_ref (nor task_source); pass --agent <name> (+agent_name).');
  if (config.server(agent) === undefined) throw new NgymError('NGYM_USAGE', `reverify: agent '${agent}' is not in the running gym; its servers: ${config.servers.map((server) => server.name).join(', ')}.`);
  const resources = config.resolvedServerConfig(agent).resources_server;
  if (!isDict(resources) || typeof resources.name !== 'string') throw new NgymError('NGYM_USAGE', `agent '${agent}' has no resources_server to verify with.`);
  return resources.name;
}

/** Seeds the rollout's session, replays its tool calls (so a stateful environment is where it was), verifies. */
async function verifyOne(client: ServerClient, payload: Payload, agentName: string | undefined): Promise<Row> {
  if (!isDict(payload.body.response)) {
    throw new NgymError('NGYM_INPUT_INVALID', 'the rollout has no `response` to re-verify (a failure recorded by `ngym collect` keeps none: collect it again with `ngym collect +resume=true`).');
  }
  const server = resourcesServerFor(client, payload.source, agentName);
  const { [ATIF_PROVENANCE_KEY]: _provenance, ...body } = payload.body;
  const cookies = new CookieJar();
  cookies.merge(raiseForStatus(await client.post(server, '/seed_session', body, { cookies })).cookies);
  const output = isDict(body.response) && Array.isArray(body.response.output) ? body.response.output : [];
  for (const item of output) {
    if (!isDict(item) || item.type !== 'function_call' || typeof item.name !== 'string') continue;
    let argumentsBody: unknown;
    try {
      argumentsBody = JSON.parse(String(item.arguments));
    } catch {
      continue; // the agent never sent an unparsable call either
    }
    cookies.merge((await client.post(server, `/${item.name}`, argumentsBody, { cookies })).cookies);
  }
  return raiseForStatus(await client.post(server, '/verify', body, { cookies })).json<Row>();
}

/** Upstream's routing of a verifier's invalid judge response to the sidecar (+retry_invalid_judge_responses). */
function normalizeInvalidJudge(result: Row): void {
  if (result.invalid_judge_response !== true || result._ng_failure_class !== undefined) return;
  const retryable = result.invalid_judge_retryable !== false;
  result._ng_failure_class = retryable ? 'judge_invalid' : 'permanent';
  if (!retryable) result._ng_failure_terminal = true;
}

/** The routing keys of the source row carried into the result, as upstream does. */
const CARRIED_KEYS = ['_ng_task_index', '_ng_rollout_index', 'agent_ref', '_ng_environment_server', 'task_source', '_ng_skills_ref', ATIF_PROVENANCE_KEY];

export async function reverifyRollouts(args: string[]): Promise<number> {
  const globalConfig = loadGlobalConfig({ overrides: args });
  const config = readParameters(globalConfig, ReverifyParameters);
  checkCombination(config);
  if (config.force) write('--force: ngym replays each rollout\'s tool calls before verifying, so stateful verifiers re-verify correctly; outputs keep their names (no unsafe_ prefix).\n');
  const client = await headServerClient(globalConfig);
  const atif = config.input_format === 'atif';
  // Everything is read and checked before an output file is touched.
  const atifPayloads = atif ? await atifVerifyPayloads(config.materialized_inputs_jsonl_fpath as string, config.atif_manifest_jsonl_fpath as string, config.limit) : [];
  const paths = prepareOutputs(config);
  const payloads = atif ? atifPayloads.map((body, index) => ({ body, source: body, line: index + 1 })) : await gymPayloads(config, paths);
  if (payloads.length === 0) write('WARNING: Nothing to be re-verified.\n');
  const output = await JsonlAppender.open(paths.output, { truncate: false });
  const failures = await JsonlAppender.open(paths.failures, { truncate: false, lazy: !existsSync(paths.failures) });
  const failureCounts = new Map<string, number>();
  let recordedSum = 0;
  let verifiedSum = 0;
  let verifiedCount = 0;
  let changed = 0;
  let firstFailure: string | undefined;
  let next = 0;
  let done = 0;
  const progressEvery = Math.max(1, Math.ceil(payloads.length / 10));
  // The output keeps the input's order (a result waits for those before it), so rows without keys still line up.
  const ordered = new OrderedWriter(output, config.num_samples_in_parallel * 4);
  const worker = async () => {
    for (;;) {
      await ordered.waitForRoom(() => false);
      const index = next++;
      if (index >= payloads.length) return;
      ordered.launch(index);
      const payload = payloads[index] as Payload;
      const carried = Object.fromEntries(CARRIED_KEYS.filter((key) => key in payload.source).map((key) => [key, payload.source[key]]));
      let result: Row;
      try {
        result = { ...taskFieldsOf(payload.source), ...(await verifyOne(client, payload, config.agent_name)), ...carried };
        if (config.retry_invalid_judge_responses) normalizeInvalidJudge(result);
      } catch (error) {
        const failure = failureFromError(error);
        const judgeFailed = failure.code === 'NGYM_JUDGE_FAILED';
        const failureClass = failure.code === 'NGYM_INPUT_INVALID' ? 'invalid_input' : judgeFailed ? 'judge_failed' : failure.failureClass;
        const status = error instanceof UpstreamError ? (error.statusCode ?? null) : null;
        // The rollout itself is kept (response and all, without a reward) so that a later --judge-failed-only can re-verify it.
        result = { ...taskFieldsOf(payload.source), ...carried, _ng_failure_class: failureClass, _ng_failure_message: failure.message, _ng_failure_status: status, _ng_failure_line: payload.line };
      }
      const failureClass = result._ng_failure_class;
      if (failureClass !== undefined && failureClass !== null) {
        const { reward: _reward, ...unscored } = result;
        failures.append(JSON.stringify(unscored));
        ordered.resolve(index, undefined);
        failureCounts.set(String(failureClass), (failureCounts.get(String(failureClass)) ?? 0) + 1);
        firstFailure ??= `line ${payload.line}: ${String(result._ng_failure_message ?? result._ng_failure_judge_error ?? result.error ?? failureClass)}`;
      } else {
        ordered.resolve(index, JSON.stringify(result));
        verifiedCount++;
        verifiedSum += Number(result.reward);
        recordedSum += Number(payload.source.reward ?? NaN);
        if (result.reward !== payload.source.reward) changed++;
      }
      if (++done % progressEvery === 0 || done === payloads.length) write(`Re-verified ${done} / ${payloads.length}\n`);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(config.num_samples_in_parallel, payloads.length) }, worker));
  } finally {
    await output.close();
    await failures.close();
  }
  const failed = [...failureCounts.values()].reduce((sum, count) => sum + count, 0);
  const format = (value: number) => (Number.isFinite(value) ? String(Number(value.toFixed(4))) : 'n/a');
  write(`Re-verified ${verifiedCount} / ${payloads.length} rollouts: mean reward ${format(recordedSum / verifiedCount)} recorded, ${format(verifiedSum / verifiedCount)} now; ${changed} changed.\n`);
  const allRows: Row[] = [];
  for await (const { row } of rowsOf(paths.output)) allRows.push(row);
  // Upstream's profile groups by (task, rollout): rows without those keys (hand-made files) cannot be profiled.
  const unkeyed = allRows.filter((row) => keyOf(row) === undefined).length;
  const aggregate = !config.disable_aggregation && unkeyed === 0;
  if (config.disable_aggregation) write('Skipping aggregate-metrics computation (disable_aggregation). Run `gym eval aggregate` after all shards finish.\n');
  else if (unkeyed > 0) write(`No aggregate metrics: ${unkeyed} rows have no _ng_task_index/_ng_rollout_index to group them by.\n`);
  else writeAggregateMetrics(allRows, paths.aggregateMetrics);
  write(`Re-verified rollouts: ${paths.output} (${allRows.length} scored)\n${aggregate ? `Aggregate metrics: ${paths.aggregateMetrics}\n` : ''}`);
  if (failed > 0) {
    const classes = [...failureCounts].sort().map(([name, count]) => `${count} ${name}`).join(', ');
    write(`${failed} rollouts could not be re-verified (${classes}; listed in ${paths.failures}, not scored), e.g. ${firstFailure}\n`);
    return 1;
  }
  return 0;
}
