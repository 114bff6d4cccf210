/**
 * Logs a finished run to every tracker its config switches on, all at once, within `tracking_timeout_seconds`
 * (every call shares one deadline). A tracker is telemetry: whatever it does (refuses, times out, rejects a
 * step), the run's outcome and files stand, and the trouble is one warning line naming the tracker.
 */
import type { ConfigDict } from '../config/tree.ts';
import { describeError } from '../errors.ts';
import { MlflowTracker } from './mlflow-tracker.ts';
import type { TrackingSettings } from './tracking-config.ts';
import type { RunMetrics, Table, Tracker } from './tracker.ts';
import { WandbTracker } from './wandb-tracker.ts';

export interface RunToExport {
  /** The run's config, secrets already redacted. */
  config: ConfigDict;
  metrics: RunMetrics;
  /** Tables by key (`Tasks`, `Rollouts`); an empty one is not logged. */
  tables: Record<string, Table>;
}

export interface ExportReport {
  /** `Logged to MLflow: <url>` per tracker that took every step. */
  logged: string[];
  /** One line per tracker that failed a step. */
  warnings: string[];
}

const LABELS: Record<string, string> = { mlflow: 'MLflow', wandb: 'W&B' };

function configuredTrackers(settings: TrackingSettings, signal: AbortSignal): Tracker[] {
  const trackers: Tracker[] = [];
  if (settings.mlflow !== undefined) trackers.push(new MlflowTracker(settings.mlflow, signal));
  if (settings.wandb !== undefined) trackers.push(new WandbTracker(settings.wandb, signal));
  return trackers;
}

async function exportTo(tracker: Tracker, run: RunToExport, report: ExportReport): Promise<void> {
  const label = LABELS[tracker.name] ?? tracker.name;
  try {
    await tracker.open();
  } catch (error) {
    report.warnings.push(`Experiment tracking: nothing was logged to ${label}: ${describeError(error)}`);
    return;
  }
  const failed: string[] = [];
  const step = async (what: string, action: () => Promise<void>) => {
    try {
      await action();
    } catch (error) {
      failed.push(`${what} (${describeError(error)})`);
    }
  };
  // As upstream: one failed step does not keep the others from being logged.
  await step('config', () => tracker.logConfig(run.config));
  await step('metrics', () => tracker.logMetrics(run.metrics));
  for (const [name, table] of Object.entries(run.tables)) if (table.data.length > 0) await step(`the ${name} table`, () => tracker.logTable(name, table));
  let where = '';
  await step('the end of the run', async () => {
    where = await tracker.close();
  });
  if (failed.length > 0) report.warnings.push(`Experiment tracking: ${label} did not take ${failed.join('; ')}`);
  else report.logged.push(`Logged to ${label}: ${where}`);
}

/** Logs `run` to the trackers `settings` switches on; never throws. */
export async function exportRun(settings: TrackingSettings, run: RunToExport): Promise<ExportReport> {
  const report: ExportReport = { logged: [], warnings: [] };
  const signal = AbortSignal.timeout(settings.timeoutMs);
  await Promise.all(configuredTrackers(settings, signal).map((tracker) => exportTo(tracker, run, report)));
  return report;
}
