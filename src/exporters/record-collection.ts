/**
 * The end of `ngym collect` (and so of `gym eval run`): write upstream's `<stem>_aggregate_metrics.json` beside
 * the rollouts, then log the run to the experiment trackers the config switches on (its config with secrets
 * redacted, the metrics, the per-task table and a sample of the rollouts). Tracking only ever adds lines of
 * output: a tracker that is down costs at most `tracking_timeout_seconds` and one warning.
 */
import type { GlobalConfig } from '../config/global-config.ts';
import { resolveAll } from '../config/interpolation.ts';
import { redactSecrets } from '../config/redact.ts';
import { type ConfigDict, isDict } from '../config/tree.ts';
import type { CollectionSummary } from '../rollouts/collect.ts';
import { collectionRecord, writeAggregateMetricsFile } from './collection-record.ts';
import { exportRun } from './export-run.ts';
import type { TrackingSettings } from './tracking-config.ts';

export interface RecordOutput {
  write(text: string): void;
  warn(line: string): void;
}

/** The config as it ran (interpolations resolved where they resolve), secrets and headers replaced. */
function loggedConfig(globalConfig: GlobalConfig): ConfigDict {
  let resolved: ConfigDict;
  try {
    resolved = resolveAll({ root: globalConfig.dict, sources: globalConfig.sources });
  } catch {
    resolved = globalConfig.dict; // an interpolation only a server's environment can resolve
  }
  const redacted = redactSecrets(resolved, { headers: true });
  return isDict(redacted) ? redacted : {};
}

export async function recordCollection(globalConfig: GlobalConfig, summary: CollectionSummary, tracking: TrackingSettings, output: RecordOutput): Promise<void> {
  const { paths } = summary;
  if (paths === undefined) return;
  const tracked = tracking.mlflow !== undefined || tracking.wandb !== undefined;
  const record = await collectionRecord({ ...summary, paths }, tracked ? tracking.rolloutLimit : 0);
  if (record.entries.length > 0) output.write(`Aggregate metrics: ${writeAggregateMetricsFile(paths.output, record.entries)}\n`);
  if (!tracked) return;
  const report = await exportRun(tracking, { config: loggedConfig(globalConfig), metrics: record.metrics, tables: { Tasks: record.tasks, Rollouts: record.rollouts } });
  for (const line of report.logged) output.write(`${line}\n`);
  for (const line of report.warnings) output.warn(line);
}
