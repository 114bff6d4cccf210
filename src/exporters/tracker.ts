/** What every experiment tracker does with a run: the steps of an export, in the order they are called. */
import type { ConfigDict } from '../config/tree.ts';

/** A table as MLflow's `log_table` stores it (pandas' "split" JSON) and W&B's `Table` is built: columns, then rows. */
export interface Table {
  columns: string[];
  data: unknown[][];
}

/** Metrics by name; strings are kept too (MLflow records them as tags, W&B as values). */
export type RunMetrics = Record<string, number | string | boolean>;

export interface Tracker {
  /** `mlflow` or `wandb`, as upstream names the backends. */
  readonly name: string;
  /** Opens the run (MLflow: finds or creates the experiment, creates the run; W&B: upserts the run). */
  open(): Promise<void>;
  /** The run's config, secrets already redacted. */
  logConfig(config: ConfigDict): Promise<void>;
  logMetrics(metrics: RunMetrics): Promise<void>;
  /** `name` is the table's key: `Rollouts` (upstream's) or `Tasks`. */
  logTable(name: string, table: Table): Promise<void>;
  /** Marks the run finished; resolves to where it can be seen. */
  close(): Promise<string>;
}
