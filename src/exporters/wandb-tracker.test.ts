/**
 * W&B against a local stand-in of its API (GraphQL `upsertBucket` / `createRunFiles`, the run's file stream and
 * the upload URL): what a run sends, in order, and that a W&B error is one warning naming W&B.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { globalConfigFromDict } from '../config/global-config.ts';
import { type FakeEndpoint, type FakeRequest, startFakeEndpoint } from '../testing/fake-endpoint.ts';
import { exportRun } from './export-run.ts';
import { trackingSettings } from './tracking-config.ts';

let standIn: FakeEndpoint | undefined;
afterEach(async () => {
  await standIn?.close();
  standIn = undefined;
});

/** W&B's API as far as a run needs it; `rejectTables` makes createRunFiles answer with a GraphQL error. */
function wandbApi(options: { rejectTables?: boolean } = {}) {
  return (request: FakeRequest) => {
    if (request.path === '/graphql' && String(request.body.query).includes('upsertBucket')) {
      return { body: { data: { upsertBucket: { bucket: { name: request.body.variables.name, displayName: request.body.variables.displayName, project: { name: request.body.variables.project, entity: { name: 'team' } } } } } } };
    }
    if (request.path === '/graphql' && String(request.body.query).includes('createRunFiles')) {
      if (options.rejectTables) return { body: { errors: [{ message: 'storage quota exceeded' }] } };
      const files = request.body.variables.files.map((name: string) => ({ name, uploadUrl: `${standIn?.url}/upload/${name}` }));
      return { body: { data: { createRunFiles: { runID: 'x', uploadHeaders: ['X-Upload-Kind:table'], files } } } };
    }
    return { body: {} };
  };
}

const settingsFor = (url: string) => trackingSettings(globalConfigFromDict({ wandb_project: 'evals', wandb_name: 'echo half right', wandb_api_key: 'key-123' }), { WANDB_BASE_URL: url });

const run = {
  config: { wandb_api_key: '<redacted>', num_repeats: 2 },
  metrics: { 'echo_agent/mean/reward': 0.5, 'coverage/scored': 8 },
  tables: { Tasks: { columns: ['agent', 'mean/reward'], data: [['echo_agent', 1]] }, Rollouts: { columns: ['Rollout'], data: [['{"reward":1}'], ['{"reward":0}']] } },
};

describe('W&B (a local stand-in of its API)', () => {
  it('creates the run, records its config, streams the metrics, uploads the tables and finishes the run', async () => {
    standIn = await startFakeEndpoint(wandbApi());
    const report = await exportRun(settingsFor(standIn.url), run);
    expect(report.warnings).toEqual([]);
    const { requests } = standIn;
    const runName = requests[0]?.body.variables.name as string;
    expect(runName).toMatch(/^[a-z0-9]{8}$/);
    expect(report.logged).toEqual([`Logged to W&B: ${standIn.url}/team/evals/runs/${runName}`]);
    expect(requests.every((request) => request.path.startsWith('/upload/') || request.headers.authorization === `Basic ${Buffer.from('api:key-123').toString('base64')}`)).toBe(true);

    // The run, then its config as W&B keeps it ({value, desc} per key).
    expect(requests[0]?.body.variables).toMatchObject({ project: 'evals', displayName: 'echo half right' });
    expect(JSON.parse(requests[1]?.body.variables.config)).toEqual({ wandb_api_key: { value: '<redacted>', desc: null }, num_repeats: { value: 2, desc: null } });
    expect(requests[1]?.body.variables.entity).toBe('team');

    const stream = requests.filter((request) => request.path === `/files/team/evals/${runName}/file_stream`);
    const history = stream.flatMap((request) => request.body.files?.['wandb-history.jsonl'] ?? []);
    expect(history.map((file: { offset: number }) => file.offset)).toEqual([0, 1, 2]);
    const rows = history.map((file: { content: string[] }) => JSON.parse(file.content[0] as string));
    expect(rows[0]).toMatchObject({ 'echo_agent/mean/reward': 0.5, 'coverage/scored': 8, _step: 0 });
    expect(rows[2].Rollouts).toMatchObject({ _type: 'table-file', ncols: 1, nrows: 2 });
    expect(stream.at(-1)?.body).toEqual({ complete: true, exitcode: 0 });
    const summary = JSON.parse(stream.at(-2)?.body.files['wandb-summary.json'].content[0]);
    expect(summary['echo_agent/mean/reward']).toBe(0.5);

    const uploads = requests.filter((request) => request.path.startsWith('/upload/'));
    expect(uploads.map((upload) => upload.path)).toEqual([`/upload/${rows[1].Tasks.path}`, `/upload/${rows[2].Rollouts.path}`]);
    expect(uploads[1]?.body).toEqual(run.tables.Rollouts);
    expect(uploads[1]?.headers['x-upload-kind']).toBe('table');
  });

  it('a step W&B refuses is one warning naming W&B and the step; the other steps are still logged', async () => {
    standIn = await startFakeEndpoint(wandbApi({ rejectTables: true }));
    const report = await exportRun(settingsFor(standIn.url), run);
    expect(report.logged).toEqual([]);
    expect(report.warnings).toEqual([
      `Experiment tracking: W&B did not take the Tasks table (W&B at ${standIn.url}: storage quota exceeded); the Rollouts table (W&B at ${standIn.url}: storage quota exceeded)`,
    ]);
    expect(standIn.requests.at(-1)?.body).toEqual({ complete: true, exitcode: 0 });
  });
});
