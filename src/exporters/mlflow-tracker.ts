/**
 * MLflow through its REST API (`/api/2.0/mlflow/...`): the experiment `mlflow_experiment_name` (created when
 * missing), a run named `mlflow_run_name` in it, the config as params (flat, cut to MLflow's limits) and as the
 * artifact `global_config.json` (the whole record: params are lossy), numeric metrics as metrics and text ones
 * as tags, and tables as `log_table` artifacts (`rollouts.json`, `tasks.json`) listed in the run's
 * `mlflow.loggedArtifacts` tag so MLflow's UI shows them as tables. Artifacts go through the server's artifact
 * proxy (`/api/2.0/mlflow-artifacts/artifacts/...`), so the server must serve artifacts (the default of
 * `mlflow server`); `mlflow_tracking_token` is sent as a bearer token.
 */
import type { ConfigDict } from '../config/tree.ts';
import type { MlflowSettings } from './tracking-config.ts';
import { flattenConfig, mlflowName } from './mlflow-names.ts';
import type { RunMetrics, Table, Tracker } from './tracker.ts';
import { TrackerError, trackerCall } from './tracker-http.ts';

const MAX_PARAMS_PER_BATCH = 100;
const MAX_METRICS_PER_BATCH = 1000;
const MAX_VALUE_LENGTH = 6000;
const LOGGED_ARTIFACTS_TAG = 'mlflow.loggedArtifacts';

interface RunInfo {
  run_id: string;
  experiment_id: string;
  artifact_uri: string;
}

function batches<Item>(items: Item[], size: number): Item[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, index) => items.slice(index * size, (index + 1) * size));
}

export class MlflowTracker implements Tracker {
  readonly name = 'mlflow';
  private run: RunInfo | undefined;
  private readonly tables: { path: string; type: 'table' }[] = [];

  constructor(
    private readonly settings: MlflowSettings,
    private readonly signal: AbortSignal,
  ) {}

  private call(method: 'GET' | 'POST' | 'PUT', path: string, options: { json?: unknown; body?: string } = {}): Promise<unknown> {
    const headers = this.settings.token === undefined ? undefined : { Authorization: `Bearer ${this.settings.token}` };
    return trackerCall('MLflow', { method, url: `${this.settings.trackingUri}${path}`, headers, signal: this.signal, ...options });
  }

  private get active(): RunInfo {
    if (this.run === undefined) throw new Error('the MLflow run is not open');
    return this.run;
  }

  private async experimentId(): Promise<string> {
    const byName = async () => {
      const answer = (await this.call('GET', `/api/2.0/mlflow/experiments/get-by-name?experiment_name=${encodeURIComponent(this.settings.experimentName)}`)) as { experiment: { experiment_id: string } };
      return answer.experiment.experiment_id;
    };
    try {
      return await byName();
    } catch (error) {
      if (!(error instanceof TrackerError) || error.trackerCode !== 'RESOURCE_DOES_NOT_EXIST') throw error;
    }
    try {
      return ((await this.call('POST', '/api/2.0/mlflow/experiments/create', { json: { name: this.settings.experimentName } })) as { experiment_id: string }).experiment_id;
    } catch (error) {
      // Another collection (a shard) created it first.
      if (error instanceof TrackerError && error.trackerCode === 'RESOURCE_ALREADY_EXISTS') return byName();
      throw error;
    }
  }

  async open(): Promise<void> {
    const experimentId = await this.experimentId();
    const answer = (await this.call('POST', '/api/2.0/mlflow/runs/create', {
      json: { experiment_id: experimentId, run_name: this.settings.runName, start_time: Date.now(), tags: [{ key: 'mlflow.source.name', value: 'ngym' }] },
    })) as { run: { info: RunInfo } };
    this.run = answer.run.info;
  }

  private logBatch(batch: { params?: unknown[]; metrics?: unknown[]; tags?: unknown[] }): Promise<unknown> {
    return this.call('POST', '/api/2.0/mlflow/runs/log-batch', { json: { run_id: this.active.run_id, ...batch } });
  }

  /** PUTs one file into the run's artifacts through the server's artifact proxy. */
  private async putArtifact(file: string, content: string): Promise<void> {
    const { artifact_uri: uri } = this.active;
    const proxied = /^mlflow-artifacts:(?:\/\/[^/]*)?(\/.*)$/.exec(uri);
    if (proxied === null) {
      throw new TrackerError(`MLflow at ${this.settings.trackingUri}: the run's artifacts go to ${uri}, which ngym cannot write to; start the server with --serve-artifacts (the default of \`mlflow server\`) to log artifacts`);
    }
    const path = `${(proxied[1] as string).replace(/\/+$/, '')}/${file}`.split('/').map(encodeURIComponent).join('/');
    await this.call('PUT', `/api/2.0/mlflow-artifacts/artifacts${path}`, { body: content });
  }

  async logConfig(config: ConfigDict): Promise<void> {
    const params = new Map<string, string>();
    for (const [key, value] of flattenConfig(config)) {
      const name = mlflowName(key);
      if (name !== undefined) params.set(name, String(value).slice(0, MAX_VALUE_LENGTH));
    }
    for (const batch of batches([...params].map(([key, value]) => ({ key, value })), MAX_PARAMS_PER_BATCH)) await this.logBatch({ params: batch });
    // Params first: they land even on a server that does not serve artifacts.
    await this.putArtifact('global_config.json', `${JSON.stringify(config, null, 2)}\n`);
  }

  async logMetrics(metrics: RunMetrics): Promise<void> {
    const timestamp = Date.now();
    const numeric: unknown[] = [];
    const tags: unknown[] = [];
    for (const [key, value] of Object.entries(metrics)) {
      const name = mlflowName(key);
      if (name === undefined) continue;
      if (typeof value === 'string') tags.push({ key: name, value: value.slice(0, MAX_VALUE_LENGTH) });
      else if (Number.isFinite(Number(value))) numeric.push({ key: name, value: Number(value), timestamp, step: 0 });
    }
    for (const batch of batches(numeric, MAX_METRICS_PER_BATCH)) await this.logBatch({ metrics: batch });
    for (const batch of batches(tags, MAX_PARAMS_PER_BATCH)) await this.logBatch({ tags: batch });
  }

  async logTable(name: string, table: Table): Promise<void> {
    const path = `${name.toLowerCase()}.json`;
    await this.putArtifact(path, JSON.stringify(table));
    this.tables.push({ path, type: 'table' });
    await this.logBatch({ tags: [{ key: LOGGED_ARTIFACTS_TAG, value: JSON.stringify(this.tables) }] });
  }

  async close(): Promise<string> {
    const { run_id: runId, experiment_id: experimentId } = this.active;
    await this.call('POST', '/api/2.0/mlflow/runs/update', { json: { run_id: runId, status: 'FINISHED', end_time: Date.now() } });
    return `${this.settings.trackingUri}/#/experiments/${experimentId}/runs/${runId}`;
  }
}
