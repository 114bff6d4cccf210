/**
 * The first step of a run with an output file: refuse to clobber an earlier run, record (or check, on resume)
 * what the run was started with, open the output and failures files, and fold the rollouts already in the
 * output into the metrics so that resume skips them.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { NgymError } from '../errors.ts';
import type { MetricsAccumulator } from '../metrics/rollout-metrics.ts';
import type { CollectOptions, RoutingPlan } from './collect-options.ts';
import {
  checkResumable,
  CompletedRollouts,
  fingerprint,
  JsonlAppender,
  type OutputPaths,
  readCompletedRollouts,
  removeRows,
  type RunManifest,
} from './output-files.ts';
import { PriorFailures, readPriorFailures } from './prior-failures.ts';

export interface OutputFiles {
  output: JsonlAppender;
  failures: JsonlAppender;
  /** The rollouts an earlier run completed (none unless resumed). */
  done: CompletedRollouts;
  resumed: boolean;
  /** What the earlier run's failures say: the terminal ones (not run again) and each retry's attempt index. */
  prior: PriorFailures;
  /** The output file and the start of the run it holds: what a distributed run names its jobs by. */
  runId: string;
}

export async function openOutputFiles(
  paths: OutputPaths,
  options: Pick<CollectOptions, 'input' | 'resume' | 'overwrite' | 'limit' | 'agentName' | 'responsesCreateParams' | 'numRepeatsAddSeed' | 'retryInvalidJudgeResponses' | 'retryTerminalTimeouts'>,
  routing: RoutingPlan,
  metrics: MetricsAccumulator,
  warn: (message: string) => void,
): Promise<OutputFiles> {
  const exists = existsSync(paths.output) && statSync(paths.output).size > 0;
  if (exists && !options.resume && !options.overwrite) {
    throw new NgymError(
      'NGYM_USAGE',
      `Output file ${paths.output} already exists. Pass +resume=true to continue that run, or +overwrite=true to start over.`,
    );
  }
  const manifest: RunManifest = {
    input: typeof options.input === 'string' ? options.input : '(rows passed in code)',
    input_size: 0,
    input_fingerprint: '',
    num_repeats: routing.numRepeats,
    limit: options.limit ?? null,
    agent_name: options.agentName ?? null,
    agent_map: routing.agentMap ?? null,
    fan_out: routing.fanOut ?? null,
    num_repeats_add_seed: options.numRepeatsAddSeed === true,
    responses_create_params: options.responsesCreateParams ?? {},
    started_at: new Date().toISOString(),
  };
  if (typeof options.input === 'string') {
    if (!existsSync(options.input)) throw new NgymError('NGYM_INPUT_INVALID', `Input file not found: ${options.input}`);
    const print = await fingerprint(options.input);
    manifest.input_size = print.size;
    manifest.input_fingerprint = print.hash;
  }
  const resumed = options.resume === true && exists;
  mkdirSync(dirname(paths.output), { recursive: true });
  let startedAt = manifest.started_at;
  if (resumed && existsSync(paths.manifest)) {
    const previous = JSON.parse(readFileSync(paths.manifest, 'utf8')) as RunManifest;
    checkResumable(previous, manifest, paths.manifest);
    startedAt = previous.started_at;
  } else {
    writeFileSync(paths.manifest, `${JSON.stringify(manifest, null, 2)}\n`);
  }
  // A run started over must not leave the last run's aggregate file for `gym eval compare` to read.
  if (!resumed) rmSync(paths.aggregateMetrics, { force: true });
  const prior = new PriorFailures();
  const retryTerminalTimeouts = options.retryTerminalTimeouts === true;
  if (resumed) await readPriorFailures(paths.failures, prior, retryTerminalTimeouts);
  if (resumed && options.retryInvalidJudgeResponses) {
    // Before the appender opens the output: the rewrite replaces the file it would append to. A row taken out is a
    // failed attempt (upstream moves it to its sidecar as judge_invalid), so its retry carries the next attempt index.
    const moved = await removeRows(paths.output, (row) => {
      if (!row.invalid_judge_response) return false;
      prior.add({ ...row, _ng_failure_class: 'judge_invalid', _ng_failure_terminal: false }, '', retryTerminalTimeouts);
      return true;
    });
    if (moved > 0) warn(`retry_invalid_judge_responses: ${moved} rows flagged invalid_judge_response left ${paths.output} and run again.`);
  }
  const output = await JsonlAppender.open(paths.output, { truncate: !resumed });
  const done = resumed ? await readCompletedRollouts(paths.output, (row) => metrics.add(row)) : new CompletedRollouts();
  // Failures of an earlier attempt are retried now, so the failures file lists only what still fails: the
  // terminal ones, which are not run again, and what fails in this run.
  const failures = await JsonlAppender.open(paths.failures, { truncate: true, lazy: true });
  for (const line of prior.terminalLines) failures.append(line);
  if (prior.terminalCount > 0) {
    warn(`${prior.terminalCount} rollouts failed terminally in an earlier run (_ng_failure_terminal in ${paths.failures}) and are not run again${retryTerminalTimeouts ? '' : '; +retry_terminal_timeouts=true retries the timeouts among them'}.`);
  }
  const runId = createHash('sha256').update(`${resolve(paths.output)}\n${startedAt}`).digest('hex').slice(0, 16);
  return { output, failures, done, resumed, prior, runId };
}
