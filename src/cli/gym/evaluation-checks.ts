/**
 * `gym eval compare` and `gym eval health-check`. Both answer with an exit code a CI job can gate on:
 *   0  compare: no candidate's mean reward is significantly below the baseline's; health-check: no unhealthy rollout
 *   1  compare: a significant drop (the paired 95% interval of mean/reward lies below 0); health-check: unhealthy rollouts
 *   2  the command could not run: a missing file, runs over different tasks, a bad flag
 * (upstream 0.7.0 exits 0 after either report, 1 on a compare error and 2 on a health-check usage error).
 */
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import * as z from 'zod';
import { loadGlobalConfig } from '../../config/global-config.ts';
import { isSecretKey } from '../../config/redact.ts';
import { NgymError } from '../../errors.ts';
import { keyMetricsText, summaryLines } from '../../metrics/comparison-report.ts';
import { buildComparison, type ComparisonConfig, reportDirectory, writeComparisonReports } from '../../rollouts/run-comparison-files.ts';
import { checkRolloutsHealth, formatHealthReport, QUALITY_SUMMARY_FILENAME, ROLLOUT_VERDICTS_FILENAME, writeHealthReports } from '../../rollouts/rollout-health.ts';
import { readParameters } from '../command.ts';
import { versionInfo } from '../commands/version.ts';

const write = (text: string) => process.stdout.write(text);

/** Runs a command whose failures to run exit 2, so that 1 keeps meaning "the check found something". */
async function gated(run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (error) {
    if (!NgymError.isInstance(error)) throw error;
    process.stderr.write(`Error: ${error.message}\n`);
    return 2;
  }
}

/** A comma-separated string (`--candidates a,b`) or a list (`+candidate_rollouts_jsonl_fpaths=[a,b]`). */
const nameList = z.union([z.string(), z.array(z.string())]).transform((value) => (typeof value === 'string' ? value.split(',') : value).map((item) => item.trim()).filter((item) => item !== ''));

const CompareParameters = z.object({
  baseline_rollouts_jsonl_fpath: z.string().min(1).describe("The baseline run's rollouts JSONL (--baseline)."),
  candidate_rollouts_jsonl_fpaths: nameList.describe("The candidate runs' rollouts JSONL (--candidates a.jsonl[,b.jsonl])."),
  baseline_aggregate_metrics_fpath: z.string().min(1).optional(),
  candidate_aggregate_metrics_fpaths: nameList.optional(),
  agent_name: z.string().min(1).optional(),
  baseline_agent_name: z.string().min(1).optional(),
  candidate_agent_names: nameList.optional(),
  output_dirpath: z.string().min(1).optional(),
  report_format: z.enum(['md', 'json', 'both']).default('both'),
  allow_task_mismatch: z.boolean().default(false).describe('Compare runs over different tasks on their common task indices (upstream) instead of refusing.'),
});

const quoted = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`);

/** The compare flags (commander's option key, the flag, the parameter it sets), to record the invocation as typed. */
const COMPARE_FLAGS = [
  ['baseline', '--baseline', 'baseline_rollouts_jsonl_fpath'],
  ['candidates', '--candidates', 'candidate_rollouts_jsonl_fpaths'],
  ['baselineAggMetrics', '--baseline-agg-metrics', 'baseline_aggregate_metrics_fpath'],
  ['candidatesAggMetrics', '--candidates-agg-metrics', 'candidate_aggregate_metrics_fpaths'],
  ['agent', '--agent', 'agent_name'],
  ['baselineAgent', '--baseline-agent', 'baseline_agent_name'],
  ['candidateAgents', '--candidate-agents', 'candidate_agent_names'],
  ['outputDir', '--output-dir', 'output_dirpath'],
  ['reportFormat', '--report-format', 'report_format'],
] as const;

/** The invocation as the report records it; secret-looking overrides are masked. */
function commandLine(overrides: readonly string[], options: Record<string, unknown>): string {
  const words = ['gym', 'eval', 'compare'];
  const fromFlags = new Set<string>();
  for (const [key, flag, parameter] of COMPARE_FLAGS) {
    if (options[key] === undefined) continue;
    words.push(flag, String(options[key]));
    fromFlags.add(`+${parameter}=${String(options[key])}`);
  }
  for (const override of overrides) {
    if (fromFlags.has(override)) continue;
    const key = override.replace(/^\++/, '').split('=', 1)[0] ?? '';
    words.push(isSecretKey(key) ? override.replace(/=.*$/, '=***') : override);
  }
  return words.map(quoted).join(' ');
}

export function compareRuns(overrides: string[], options: Record<string, unknown>): Promise<number> {
  return gated(async () => {
    const globalConfig = loadGlobalConfig({ overrides });
    if (['baseline_rollouts_jsonl_fpath', 'candidate_rollouts_jsonl_fpaths'].some((key) => globalConfig.resolvedValue([key]) === undefined)) {
      throw new NgymError('NGYM_USAGE', 'gym eval compare needs the runs: --baseline <rollouts.jsonl> --candidates <rollouts.jsonl>[,<rollouts.jsonl>...].');
    }
    const config: ComparisonConfig = readParameters(globalConfig, CompareParameters);
    const result = await buildComparison(config, { command: commandLine(overrides, options), generator: `ngym ${versionInfo().ngym}` });
    const written = writeComparisonReports(result, reportDirectory(config), config.report_format);
    write(`${keyMetricsText(result)}\n\n${summaryLines(result, written).join('\n')}\n`);
    return result.regressions.length > 0 ? 1 : 0;
  });
}

const HealthParameters = z.object({
  reward_range: z.tuple([z.number(), z.number()]).optional().describe('Inclusive [low, high] of the rewards (default [0, 1]).'),
});

/** The rollouts file and where the reports go: upstream's `<run_dir>/rollouts.jsonl` (or --rollouts-file under it), or ngym's rollouts file given directly. */
function healthPaths(target: string, rolloutFile: string | undefined) {
  if (!existsSync(target)) throw new NgymError('NGYM_USAGE', `Run directory not found: ${target}`);
  if (statSync(target).isFile()) {
    if (rolloutFile !== undefined) throw new NgymError('NGYM_USAGE', `${target} is a file: give a run directory with --rollouts-file, or the rollouts file alone.`);
    const stem = join(dirname(resolve(target)), basename(target, '.jsonl'));
    return { rollouts: target, summary: `${stem}_${QUALITY_SUMMARY_FILENAME}`, verdicts: `${stem}_${ROLLOUT_VERDICTS_FILENAME}` };
  }
  const rollouts = resolve(target, rolloutFile ?? 'rollouts.jsonl');
  if (!existsSync(rollouts)) throw new NgymError('NGYM_USAGE', `Rollout JSONL not found: ${rollouts}${rolloutFile === undefined ? ' (give the file with --rollouts-file)' : ''}`);
  return { rollouts, summary: join(target, QUALITY_SUMMARY_FILENAME), verdicts: join(target, ROLLOUT_VERDICTS_FILENAME) };
}

export function healthCheck(words: string[], overrides: string[], options: Record<string, unknown>): Promise<number> {
  return gated(async () => {
    const [target, ...extra] = words;
    if (target === undefined || extra.length > 0) throw new NgymError('NGYM_USAGE', 'gym eval health-check takes one run directory (or rollouts file): gym eval health-check <run_dir> [--rollouts-file <path>].');
    if (options.workers !== undefined && !(Number.isInteger(Number(options.workers)) && Number(options.workers) >= 1)) throw new NgymError('NGYM_USAGE', `--workers must be an integer >= 1, got ${String(options.workers)}.`);
    const { reward_range: rewardRange } = readParameters(loadGlobalConfig({ overrides }), HealthParameters);
    const paths = healthPaths(target, options.rolloutsFile as string | undefined);
    const result = await checkRolloutsHealth(paths.rollouts, { ignoredChecks: options.ignore as string | undefined, rewardRange });
    writeHealthReports(result, paths.summary, paths.verdicts);
    if (options.json === true) write(`${JSON.stringify(result.summary)}\n`);
    else write(`${[...formatHealthReport(result), `Quality summary: ${paths.summary}`, `Rollout verdicts: ${paths.verdicts}`].join('\n')}\n`);
    return result.summary.run.verdicts.unhealthy > 0 ? 1 : 0;
  });
}
