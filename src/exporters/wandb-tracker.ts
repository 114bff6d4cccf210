/**
 * Weights & Biases through the HTTP API its SDK speaks (there is no W&B client for Node): the GraphQL mutation
 * `upsertBucket` creates the run (named `wandb_name` in project `wandb_project`, under the API key's default
 * entity) and records its config; the run's file stream (`/files/<entity>/<project>/<run>/file_stream`) takes
 * the metrics as a history row and the summary; a table is a `*.table.json` file uploaded to the URL the
 * mutation `createRunFiles` hands out, then referenced from a history row, as `wandb.Table` is logged.
 * The API key goes as HTTP basic auth (`api:<key>`); WANDB_BASE_URL names another server than W&B's cloud.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { ConfigDict } from '../config/tree.ts';
import { NgymError } from '../errors.ts';
import type { WandbSettings } from './tracking-config.ts';
import type { RunMetrics, Table, Tracker } from './tracker.ts';
import { trackerCall } from './tracker-http.ts';

const UPSERT_RUN = `mutation UpsertBucket($name: String, $project: String, $entity: String, $displayName: String, $config: JSONString) {
  upsertBucket(input: {name: $name, modelName: $project, entityName: $entity, displayName: $displayName, config: $config}) {
    bucket { name displayName project { name entity { name } } }
  }
}`;

const CREATE_RUN_FILES = `mutation CreateRunFiles($entity: String!, $project: String!, $run: String!, $files: [String!]!) {
  createRunFiles(input: {entityName: $entity, projectName: $project, runName: $run, files: $files}) {
    runID uploadHeaders files { name uploadUrl }
  }
}`;

interface UpsertAnswer {
  upsertBucket: { bucket: { name: string; project: { name: string; entity: { name: string } } } };
}

interface CreateRunFilesAnswer {
  createRunFiles: { uploadHeaders?: string[] | null; files: { name: string; uploadUrl: string }[] };
}

/** W&B run ids: 8 characters of [a-z0-9], as its SDK makes them. */
function runId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(8)].map((byte) => alphabet[byte % alphabet.length]).join('');
}

export class WandbTracker implements Tracker {
  readonly name = 'wandb';
  private readonly run = runId();
  private entity: string | undefined;
  private step = 0;
  private historyLines = 0;
  private readonly started = Date.now();
  private readonly summary: Record<string, unknown> = {};

  constructor(
    private readonly settings: WandbSettings,
    private readonly signal: AbortSignal,
  ) {}

  private get authorization(): string {
    return `Basic ${Buffer.from(`api:${this.settings.apiKey}`).toString('base64')}`;
  }

  private async graphql<Answer>(query: string, variables: Record<string, unknown>): Promise<Answer> {
    const answer = (await trackerCall('W&B', { method: 'POST', url: `${this.settings.baseUrl}/graphql`, headers: { Authorization: this.authorization }, json: { query, variables }, signal: this.signal })) as {
      data?: Answer;
      errors?: { message: string }[];
    };
    if (answer?.errors?.length || answer?.data === undefined) {
      throw new NgymError('NGYM_UPSTREAM_REJECTED', `W&B at ${this.settings.baseUrl}: ${answer?.errors?.map((error) => error.message).join('; ') || 'a GraphQL answer without data'}`);
    }
    return answer.data;
  }

  private upsert(config?: ConfigDict): Promise<UpsertAnswer> {
    return this.graphql<UpsertAnswer>(UPSERT_RUN, {
      name: this.run,
      project: this.settings.project,
      entity: this.entity,
      displayName: this.settings.name,
      // W&B keeps each config key as {value, desc}.
      ...(config === undefined ? {} : { config: JSON.stringify(Object.fromEntries(Object.entries(config).map(([key, value]) => [key, { value, desc: null }]))) }),
    });
  }

  private get runPath(): string {
    if (this.entity === undefined) throw new Error('the W&B run is not open');
    return `${encodeURIComponent(this.entity)}/${encodeURIComponent(this.settings.project)}/${this.run}`;
  }

  private fileStream(body: unknown): Promise<unknown> {
    return trackerCall('W&B', { method: 'POST', url: `${this.settings.baseUrl}/files/${this.runPath}/file_stream`, headers: { Authorization: this.authorization }, json: body, signal: this.signal });
  }

  /** One history row (and the summary that follows from it) through the file stream. */
  private async logRow(values: Record<string, unknown>): Promise<void> {
    const now = Date.now();
    const row = { ...values, _step: this.step++, _runtime: (now - this.started) / 1000, _timestamp: now / 1000 };
    Object.assign(this.summary, values);
    await this.fileStream({
      files: {
        'wandb-history.jsonl': { offset: this.historyLines, content: [JSON.stringify(row)] },
        'wandb-summary.json': { offset: 0, content: [JSON.stringify(this.summary)] },
      },
    });
    this.historyLines += 1;
  }

  async open(): Promise<void> {
    this.entity = (await this.upsert()).upsertBucket.bucket.project.entity.name;
  }

  async logConfig(config: ConfigDict): Promise<void> {
    await this.upsert(config);
  }

  logMetrics(metrics: RunMetrics): Promise<void> {
    return this.logRow(metrics);
  }

  async logTable(name: string, table: Table): Promise<void> {
    const content = JSON.stringify(table);
    const sha256 = createHash('sha256').update(content).digest('hex');
    const path = `media/table/${name}_${this.step}_${sha256.slice(0, 20)}.table.json`;
    const answer = await this.graphql<CreateRunFilesAnswer>(CREATE_RUN_FILES, { entity: this.entity, project: this.settings.project, run: this.run, files: [path] });
    const target = answer.createRunFiles.files.find((file) => file.name === path);
    if (target === undefined) throw new NgymError('NGYM_UPSTREAM_REJECTED', `W&B at ${this.settings.baseUrl}: createRunFiles gave no upload URL for ${path}`);
    // Headers come as "Name:value" strings, for the storage the URL points at.
    const headers = Object.fromEntries((answer.createRunFiles.uploadHeaders ?? []).map((header) => [header.slice(0, header.indexOf(':')), header.slice(header.indexOf(':') + 1)]));
    await trackerCall('W&B', { method: 'PUT', url: target.uploadUrl, headers, body: content, signal: this.signal });
    await this.logRow({ [name]: { _type: 'table-file', path, sha256, size: Buffer.byteLength(content), ncols: table.columns.length, nrows: table.data.length } });
  }

  async close(): Promise<string> {
    await this.fileStream({ complete: true, exitcode: 0 });
    // The app's address is the API's without `api.` (https://api.wandb.ai -> https://wandb.ai).
    return `${this.settings.baseUrl.replace('://api.', '://')}/${encodeURIComponent(this.entity as string)}/${encodeURIComponent(this.settings.project)}/runs/${this.run}`;
  }
}
