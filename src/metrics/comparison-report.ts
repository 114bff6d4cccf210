/**
 * `gym eval compare`'s result (written as `compare_report.json`, upstream 0.7.0's fields plus ngym's paired
 * intervals and `regressions`) and its renderings: `compare_report.md`, and the terminal recap.
 */
import { type AgentComparison, type CandidateMetricValue, comparisonValue, type FlipSummary, MAX_FLIPS_SHOWN, type MetricRow, type MetricValue } from './run-comparison.ts';

export const MARKDOWN_REPORT_NAME = 'compare_report.md';
export const JSON_REPORT_NAME = 'compare_report.json';

/** The metric a significant drop of fails the comparison (rewards are higher-is-better). */
const GATED_METRIC = 'mean/reward';

export interface RunFile {
  role: 'baseline' | 'candidate';
  index: number;
  rollouts_jsonl_fpath: string;
  aggregate_metrics_fpath: string;
  /** The run's directory name (or its file's stem): a short name for tables. */
  label: string;
  agent_names: string[];
  /** ngym: where the metrics came from (an aggregate-metrics file, `ngym collect`'s metrics file, or the rollouts themselves). */
  metrics_source: 'aggregate_metrics' | 'collect_metrics' | 'rollouts';
}

export interface Regression {
  agent: string;
  candidate_index: number;
  metric: string;
  delta: number;
  ci_low: number;
  ci_high: number;
  interval: 'paired_over_tasks' | 'welch_over_repeats';
}

export interface ComparisonResult {
  schema_version: '1';
  generated_at: string;
  /** The tool that wrote the report (upstream writes its own version here). */
  nemo_gym_version: string;
  command: string;
  baseline: RunFile;
  candidates: RunFile[];
  comparisons: AgentComparison[];
  skipped_agents: Record<string, string[]>;
  warnings: string[];
  /** ngym: candidates whose mean reward is significantly below the baseline's; any makes the command exit 1. */
  regressions: Regression[];
}

/** The significant drops of the gated metric, which a CI job fails on. */
export function findRegressions(comparisons: readonly AgentComparison[]): Regression[] {
  return comparisons.flatMap((comparison) =>
    comparison.metrics
      .filter((row) => row.metric === GATED_METRIC)
      .flatMap((row) =>
        row.candidates.flatMap((value, index) => {
          if (value === null || value.significance !== 'lower' || value.delta === null) return [];
          const paired = value.paired_delta_ci_low !== null;
          return [
            {
              agent: comparison.candidate_agents[index] ?? comparison.baseline_agent,
              candidate_index: index,
              metric: row.metric,
              delta: value.delta,
              ci_low: (paired ? value.paired_delta_ci_low : value.delta_ci_low) as number,
              ci_high: (paired ? value.paired_delta_ci_high : value.delta_ci_high) as number,
              interval: paired ? ('paired_over_tasks' as const) : ('welch_over_repeats' as const),
            },
          ];
        }),
      ),
  );
}

const MISSING = '—';

function formatNumber(value: number | null | undefined): string {
  if (value === null || value === undefined) return MISSING;
  return Math.abs(value) < 10 ? value.toFixed(4) : value.toFixed(2);
}

function formatSigned(value: number | null | undefined): string {
  if (value === null || value === undefined) return MISSING;
  return `${value >= 0 ? '+' : ''}${formatNumber(value)}`;
}

const formatPoint = (value: MetricValue | null) => (value === null ? MISSING : formatNumber(comparisonValue(value)));
const formatInterval = (low: number | null | undefined, high: number | null | undefined, format = formatNumber) =>
  low === null || low === undefined || high === null || high === undefined ? MISSING : `[${format(low)}, ${format(high)}]`;
const formatRewards = (rewards: readonly number[] | null) => (rewards === null || rewards.length === 0 ? MISSING : rewards.map(String).join(', '));

function formatDelta(value: CandidateMetricValue | null): string {
  if (value === null || value.delta === null) return MISSING;
  return `${formatSigned(value.delta)} (${value.delta_pct === null ? 'n/a' : `${value.delta_pct >= 0 ? '+' : ''}${value.delta_pct.toFixed(1)}%`})`;
}

const SIGNIFICANCE_LABEL = { higher: 'higher', lower: 'lower', not_significant: 'no significant change', no_interval: MISSING } as const;

function table(header: readonly string[], alignments: readonly string[], rows: readonly (readonly string[])[]): string[] {
  return [`| ${header.join(' | ')} |`, `|${alignments.join('|')}|`, ...rows.map((row) => `| ${row.join(' | ')} |`)];
}

function candidateLabels(result: ComparisonResult): string[] {
  return result.candidates.length === 1 ? ['Candidate'] : result.candidates.map((_, index) => `Candidate ${index + 1}`);
}

function runTable(result: ComparisonResult, comparison: AgentComparison): string[] {
  const runs = result.candidates;
  const code = (text: string) => `\`${text}\``;
  return table(
    ['', 'Baseline', ...candidateLabels(result)],
    ['---', '---', ...runs.map(() => '---')],
    [
      ['Run', code(result.baseline.label), ...runs.map((run) => code(run.label))],
      ['Rollouts', code(result.baseline.rollouts_jsonl_fpath), ...runs.map((run) => code(run.rollouts_jsonl_fpath))],
      ['Metrics read from', code(result.baseline.aggregate_metrics_fpath), ...runs.map((run) => code(run.aggregate_metrics_fpath))],
      ['Agent', code(comparison.baseline_agent), ...comparison.candidate_agents.map(code)],
      ['Tasks', String(comparison.baseline_task_count), ...comparison.candidate_task_counts.map(String)],
      ['Repeats', String(comparison.baseline_repeat_count ?? 'unknown'), ...comparison.candidate_repeat_counts.map((count) => String(count ?? 'unknown'))],
    ],
  );
}

function metricTable(rows: readonly MetricRow[], labels: readonly string[]): string[] {
  const joined = (row: MetricRow, cell: (value: CandidateMetricValue | null) => string) => row.candidates.map(cell).join(' / ');
  return table(
    ['Metric', 'Δ (candidate − baseline)', '95% CI, paired over tasks', '95% CI, Welch over repeats', 'Change', 'Baseline', 'Baseline 95% CI', ...labels.flatMap((label) => [label, `${label} 95% CI`])],
    ['---', '---:', '---', '---', '---', '---:', '---', ...labels.flatMap(() => ['---:', '---'])],
    rows.map((row) => [
      `\`${row.metric}\``,
      joined(row, formatDelta),
      joined(row, (value) => formatInterval(value?.paired_delta_ci_low, value?.paired_delta_ci_high, formatSigned)),
      joined(row, (value) => formatInterval(value?.delta_ci_low, value?.delta_ci_high, formatSigned)),
      joined(row, (value) => (value === null ? MISSING : SIGNIFICANCE_LABEL[value.significance])),
      formatPoint(row.baseline),
      formatInterval(row.baseline?.ci_low, row.baseline?.ci_high),
      ...row.candidates.flatMap((value) => [formatPoint(value), formatInterval(value?.ci_low, value?.ci_high)]),
    ]),
  );
}

const INTERVALS_NOTE =
  'Values are `mean_across_repeats/<metric>` where the run recorded it, else the metric itself. ' +
  'The paired interval is a t-interval of the per-task differences (the metric in each task of `group_level_metrics`, tasks joined on `_ng_task_index`); ' +
  "Welch's interval treats each run's repeats (`repeat_level_metrics`) as independent samples. " +
  '"Change" reads the paired interval when there is one: higher or lower when it excludes 0. ' +
  `Baseline and candidate intervals are the runs' own \`ci_{low,high}_95_across_repeats/<metric>\`. ${MISSING}: not enough data (2 tasks or 2 repeats per side).`;

function selectShownFlips(summary: FlipSummary) {
  const counts = new Map<string, number>();
  return summary.flips.filter((flip) => {
    const count = counts.get(flip.direction) ?? 0;
    counts.set(flip.direction, count + 1);
    return count < MAX_FLIPS_SHOWN;
  });
}

function flipSection(summary: FlipSummary, label: string): string[] {
  const lines = [`### Per-task flips${label}`, ''];
  if (summary.mode === 'unavailable') return [...lines, `Not available: ${summary.reason}`, ''];
  if (summary.mode === 'binary') {
    lines.push(
      `A task passes when the mean \`${summary.field}\` of its repeats is above 0.5.`,
      '',
      `**${summary.common_task_count} common tasks: ${summary.pass_to_fail_count} pass→fail, ${summary.fail_to_pass_count} fail→pass (net ${formatSignedCount(summary.net as number)}), ${summary.unchanged_count} unchanged, ${summary.tied_count} at exactly 0.5**`,
      '',
    );
  } else {
    lines.push(`Rewards are not all 0 or 1: the tasks whose mean \`${summary.field}\` moved most.`, '', `**${summary.common_task_count} common tasks: ${summary.flips.length} changed, ${summary.unchanged_count} unchanged**`, '');
  }
  const shown = selectShownFlips(summary);
  if (shown.length > 0) {
    lines.push(
      ...table(
        ['Task', 'Direction', 'Baseline', 'Candidate', 'Δ', 'Baseline rewards', 'Candidate rewards'],
        ['---:', '---', '---:', '---:', '---:', '---', '---'],
        shown.map((flip) => [String(flip.task_index), flip.direction.replace('_to_', '→'), formatNumber(flip.baseline_score), formatNumber(flip.candidate_score), formatSigned(flip.delta), formatRewards(flip.baseline_rewards), formatRewards(flip.candidate_rewards)]),
      ),
    );
    if (summary.flips.length > shown.length) lines.push('', `${summary.flips.length - shown.length} more in \`${JSON_REPORT_NAME}\`.`);
    lines.push('');
  }
  return lines;
}

const formatSignedCount = (count: number) => `${count >= 0 ? '+' : ''}${count}`;

export function renderMarkdown(result: ComparisonResult): string {
  const labels = candidateLabels(result);
  const lines = ['# gym eval compare', ''];
  if (result.regressions.length > 0) {
    lines.push(`**Regression:** ${result.regressions.map((regression) => `\`${regression.agent}\` ${GATED_METRIC} ${formatSigned(regression.delta)} (95% CI ${formatInterval(regression.ci_low, regression.ci_high, formatSigned)})`).join('; ')}`, '');
  }
  for (const comparison of result.comparisons) {
    if (result.comparisons.length > 1) lines.push(`## Agent \`${comparison.baseline_agent}\``, '');
    lines.push(...runTable(result, comparison), '', `Generated ${result.generated_at} by ${result.nemo_gym_version}: \`${result.command}\``, '');
    const keyRows = comparison.metrics.filter((row) => row.is_key_metric);
    const otherRows = comparison.metrics.filter((row) => !row.is_key_metric);
    lines.push('### Key metrics', '', ...(keyRows.length > 0 ? metricTable(keyRows, labels) : ['The runs recorded no key metrics for this agent.']), '', INTERVALS_NOTE, '');
    if (otherRows.length > 0) lines.push('<details>', `<summary>Other metrics (${otherRows.length})</summary>`, '', ...metricTable(otherRows, labels), '', '</details>', '');
    comparison.flips.forEach((summary, index) => lines.push(...flipSection(summary, comparison.flips.length > 1 ? ` (${labels[index]})` : '')));
    const oneSided = comparison.metrics.filter((row) => row.present_in.length < 1 + result.candidates.length);
    if (oneSided.length > 0) {
      lines.push('### Metrics not in every run', '', ...oneSided.map((row) => `- \`${row.metric}\`: ${row.present_in.join(', ') || 'no number on any side'}`), '');
    }
    if (comparison.notes.length > 0) lines.push('### Notes', '', ...comparison.notes.map((note) => `- ${note}`), '');
  }
  if (result.warnings.length > 0) lines.push('## Warnings', '', ...result.warnings.map((warning) => `- ${warning}`), '');
  lines.push('---', `Machine-readable: \`${JSON_REPORT_NAME}\` (schema_version ${result.schema_version}).`, '');
  return lines.join('\n');
}

/** The key metrics of each comparison as a plain-text table, for the terminal. */
export function keyMetricsText(result: ComparisonResult): string {
  const blocks = result.comparisons.map((comparison) => {
    const header = ['metric', 'Δ', '95% CI (paired)', 'change', 'baseline', ...candidateLabels(result).map((label) => label.toLowerCase())];
    const rows = comparison.metrics
      .filter((row) => row.is_key_metric)
      .map((row) => [
        row.metric,
        row.candidates.map(formatDelta).join(' / '),
        row.candidates.map((value) => formatInterval(value?.paired_delta_ci_low ?? value?.delta_ci_low, value?.paired_delta_ci_high ?? value?.delta_ci_high, formatSigned)).join(' / '),
        row.candidates.map((value) => (value === null ? MISSING : SIGNIFICANCE_LABEL[value.significance])).join(' / '),
        formatPoint(row.baseline),
        ...row.candidates.map(formatPoint),
      ]);
    const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => (row[column] ?? '').length)));
    const render = (row: readonly string[]) => row.map((cell, column) => cell.padEnd(widths[column] as number)).join('  ').trimEnd();
    return [`Key metrics: ${comparison.baseline_agent}`, render(header), ...rows.map(render)].join('\n');
  });
  return blocks.join('\n\n');
}

/** What the command prints after the tables: the files read, the flips, the files written, the verdict. */
export function summaryLines(result: ComparisonResult, written: readonly string[]): string[] {
  const lines = [`Baseline:  ${result.baseline.aggregate_metrics_fpath}`, ...result.candidates.map((run) => `Candidate: ${run.aggregate_metrics_fpath}`)];
  lines.push(`Agents compared: ${[...new Set(result.comparisons.map((comparison) => comparison.baseline_agent))].sort().join(', ')}`);
  for (const comparison of result.comparisons) {
    for (const summary of comparison.flips) {
      if (summary.mode === 'binary') lines.push(`Flips: ${summary.fail_to_pass_count} fail→pass, ${summary.pass_to_fail_count} pass→fail over ${summary.common_task_count} common tasks`);
      else if (summary.mode === 'continuous') lines.push(`Per-task changes: ${summary.flips.length} of ${summary.common_task_count} common tasks moved`);
      else lines.push(`Flips not available: ${summary.reason}`);
    }
  }
  for (const warning of result.warnings) lines.push(`Warning: ${warning}`);
  lines.push(...written.map((path) => `Wrote: ${path}`));
  lines.push(
    result.regressions.length === 0
      ? `No significant drop of ${GATED_METRIC}.`
      : `Regression: ${result.regressions.map((regression) => `${regression.agent} ${GATED_METRIC} ${formatSigned(regression.delta)} (95% CI ${formatInterval(regression.ci_low, regression.ci_high, formatSigned)})`).join('; ')}`,
  );
  return lines;
}
