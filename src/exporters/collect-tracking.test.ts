/**
 * Experiment tracking at the end of `ngym collect`: a real MLflow tracking server (`mlflow server` from the
 * project's Python venv, which pins mlflow in python/requirements.txt) is read back through MLflow's REST API;
 * an unreachable or silent tracker leaves the collection's outcome and files as they are, with one warning.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { answerServer } from '../cli/__fixtures__/answer-server.ts';
import { globalConfigFromDict } from '../config/global-config.ts';
import type { ConfigDict } from '../config/tree.ts';
import { type InProcessGym, startInProcessGym } from '../gym/in-process.ts';
import { assistantMessage, scriptedModel } from '../server/scripted-model.ts';
import { simpleAgentConfig } from '../testing/agent-config.ts';
import { runCli } from '../testing/cli-process.ts';
import { upstreamWheel } from '../testing/upstream-wheel.ts';
import { exportRun } from './export-run.ts';
import { trackingSettings } from './tracking-config.ts';

/** Answers task i correctly when i is even: a run with a mean reward of 0.5. */
const halfRightModel = scriptedModel(({ input }) => {
  const question = (input as { content?: unknown }[]).find((item) => typeof item.content === 'string')?.content as string;
  const index = Number(question.slice(1));
  return [assistantMessage(index % 2 === 0 ? `a${index}` : 'wrong')];
});

const gymConfig: ConfigDict = simpleAgentConfig({ resources: { name: 'echo_env', implementation: 'echo' }, agent: 'echo_agent', model: { implementation: 'scripted' } });

let gym: InProcessGym | undefined;
afterEach(async () => {
  await gym?.close();
  gym = undefined;
});

/** A gym and the arguments of a 4-task, 2-repeat collection from it into a fresh folder. */
async function collection(): Promise<{ dir: string; output: string; args: string[] }> {
  gym = await startInProcessGym({ config: gymConfig, definitions: { policy_model: halfRightModel.definition, echo_env: answerServer } });
  const dir = mkdtempSync(join(tmpdir(), 'ngym-tracking-'));
  const input = join(dir, 'in.jsonl');
  writeFileSync(input, Array.from({ length: 4 }, (_, index) => `${JSON.stringify({ responses_create_params: { input: `q${index}` }, answer: `a${index}` })}\n`).join(''));
  const output = join(dir, 'rollouts.jsonl');
  return { dir, output, args: [`+head_server.port=${new URL(gym.headUrl).port}`, '+agent_name=echo_agent', `+input_jsonl_fpath=${input}`, `+output_jsonl_fpath=${output}`, '+num_repeats=2'] };
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('ngym collect: the aggregate-metrics file and a tracker outage', () => {
  it("writes upstream's <stem>_aggregate_metrics.json: a list of agent entries from the agent's /aggregate_metrics", async () => {
    const { output, args } = await collection();
    const result = await runCli(['collect', ...args]);
    expect(result.code, result.stderr).toBe(0);
    const path = output.replace(/\.jsonl$/, '_aggregate_metrics.json');
    expect(result.stdout).toContain(`Aggregate metrics: ${path}`);
    const entries = JSON.parse(readFileSync(path, 'utf8'));
    expect(entries).toHaveLength(1);
    expect(Object.keys(entries[0])).toEqual(expect.arrayContaining(['agent_ref', 'agent_metrics', 'key_metrics', 'group_level_metrics', 'repeat_level_metrics']));
    expect(entries[0].agent_ref).toEqual({ name: 'echo_agent' });
    expect(entries[0].agent_metrics['mean/reward']).toBe(0.5);
    expect(entries[0].group_level_metrics).toHaveLength(4);
    // No tracker configured: nothing about tracking is said.
    expect(result.stdout + result.stderr).not.toMatch(/MLflow|W&B|Experiment tracking/);
  });

  it('a refused tracker: the collection succeeds, its files are written, and one warning names MLflow and its address', async () => {
    const { output, args } = await collection();
    const port = await closedPort();
    const result = await runCli(['collect', ...args, `+mlflow_tracking_uri=http://127.0.0.1:${port}`, '+mlflow_experiment_name=e', '+mlflow_run_name=r']);
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(output, 'utf8').trim().split('\n')).toHaveLength(8);
    expect(existsSync(output.replace(/\.jsonl$/, '_aggregate_metrics.json'))).toBe(true);
    const warnings = result.stderr.split('\n').filter((line) => line.startsWith('Warning: '));
    expect(warnings).toEqual([`Warning: Experiment tracking: nothing was logged to MLflow: MLflow at http://127.0.0.1:${port}: GET /api/2.0/mlflow/experiments/get-by-name failed: connection refused (is the server running?)`]);
  });

  it('a tracker that never answers costs at most tracking_timeout_seconds, then one warning', async () => {
    const { args } = await collection();
    const silent: Server = createServer(() => {}); // takes requests, never answers
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as { port: number };
      const started = Date.now();
      const result = await runCli(['collect', ...args, `+mlflow_tracking_uri=http://127.0.0.1:${port}`, '+mlflow_experiment_name=e', '+mlflow_run_name=r', '+tracking_timeout_seconds=1']);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain(`Warning: Experiment tracking: nothing was logged to MLflow: MLflow at http://127.0.0.1:${port}: GET /api/2.0/mlflow/experiments/get-by-name failed: no answer within tracking_timeout_seconds`);
      expect(Date.now() - started).toBeLessThan(20_000);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('a malformed tracking key stops the command before any rollout, naming the key', async () => {
    const { output, args } = await collection();
    const result = await runCli(['collect', ...args, '+mlflow_tracking_uri=localhost:5000', '+mlflow_experiment_name=e', '+mlflow_run_name=r']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('+mlflow_tracking_uri: must be the http(s) URL of a tracking server');
    expect(existsSync(output)).toBe(false);
  });

  it('a tracker is on only when every key it needs is set, and a masked key keeps it off (as upstream)', () => {
    const settings = (dict: ConfigDict) => trackingSettings(globalConfigFromDict(dict), {});
    expect(settings({ mlflow_tracking_uri: 'http://h:5000', mlflow_experiment_name: 'e' }).mlflow).toBeUndefined();
    expect(settings({ mlflow_tracking_uri: 'http://h:5000/', mlflow_experiment_name: 'e', mlflow_run_name: 'r' }).mlflow).toEqual({ trackingUri: 'http://h:5000', token: undefined, experimentName: 'e', runName: 'r' });
    expect(settings({ wandb_project: 'p', wandb_name: 'n', wandb_api_key: '****' }).wandb).toBeUndefined();
    expect(settings({ wandb_project: 'p', wandb_name: 'n', wandb_api_key: 'k' }).wandb?.baseUrl).toBe('https://api.wandb.ai');
    expect(settings({ upload_rollouts_to_wandb: false }).rolloutLimit).toBe(0);
    expect(settings({ upload_rollouts_to_wandb: false, upload_rollouts: true, upload_rollouts_limit: 5 }).rolloutLimit).toBe(5);
  });
});

const wheel = upstreamWheel();
const mlflowExecutable = join(wheel.venv, 'bin', 'mlflow');
const mlflowMissing = existsSync(mlflowExecutable) ? null : `mlflow is not installed in ${wheel.venv} (run \`npm run setup:python\`; python/requirements.txt pins it); skipping the MLflow round trips`;
if (mlflowMissing !== null) console.warn(mlflowMissing);

describe.skipIf(mlflowMissing !== null)('MLflow: a real tracking server, read back through its REST API', () => {
  let server: ChildProcess | undefined;
  let base = '';

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ngym-mlflow-'));
    // mlflow server takes no port 0: a port the kernel just handed out and released.
    const port = await closedPort();
    base = `http://127.0.0.1:${port}`;
    server = spawn(mlflowExecutable, ['server', '--host', '127.0.0.1', '--port', String(port), '--workers', '1', '--backend-store-uri', `sqlite:///${join(dir, 'mlflow.db')}`, '--artifacts-destination', join(dir, 'artifacts')], {
      detached: true, // its own process group, so its workers go with it
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let log = '';
    await new Promise<void>((resolve, reject) => {
      server?.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
        log += chunk;
        if (log.includes('Uvicorn running on')) resolve(); // printed once the socket listens
      });
      server?.on('exit', (code) => reject(new Error(`mlflow server exited (${code}):\n${log.slice(-2000)}`)));
    });
  }, 180_000);

  afterAll(async () => {
    if (server?.pid === undefined || server.exitCode !== null) return;
    const exited = new Promise((resolve) => server?.on('exit', resolve));
    process.kill(-server.pid, 'SIGKILL');
    await exited;
  });

  const get = async (path: string) => {
    const answer = await fetch(`${base}${path}`);
    expect(answer.ok, `${path}: ${answer.status}`).toBe(true);
    return answer.json() as Promise<Record<string, any>>;
  };

  it('logs params (secrets redacted), metrics, text metrics as tags and table artifacts; all read back', async () => {
    const globalConfig = globalConfigFromDict({ mlflow_tracking_uri: base, mlflow_experiment_name: 'round-trip', mlflow_run_name: 'first' });
    const report = await exportRun(trackingSettings(globalConfig), {
      config: { policy_api_key: '<redacted>', policy_model: { temperature: 0.7, stop: ['a', 'b'] } },
      metrics: { 'echo_agent/pass@1': 0.5, 'key_metrics/echo_agent/mean/reward': 0.25, 'echo_agent/finish_reason': 'stop' },
      tables: { Tasks: { columns: ['agent', 'mean/reward'], data: [['echo_agent', 1], ['echo_agent', 0]] }, Rollouts: { columns: ['Rollout'], data: [['{"reward":1}']] } },
    });
    expect(report.warnings).toEqual([]);
    const [logged] = report.logged;
    const match = /^Logged to MLflow: (.+)\/#\/experiments\/(\d+)\/runs\/(\w+)$/.exec(logged ?? '');
    expect(match?.[1], logged).toBe(base);
    const runId = match?.[3] as string;

    const { run } = await get(`/api/2.0/mlflow/runs/get?run_id=${runId}`);
    expect(run.info.run_name).toBe('first');
    expect(run.info.status).toBe('FINISHED');
    const params = Object.fromEntries(run.data.params.map((param: { key: string; value: string }) => [param.key, param.value]));
    // Brackets are outside MLflow's name characters: `_`, as upstream's exporter names them.
    expect(params).toEqual({ policy_api_key: '<redacted>', 'policy_model.temperature': '0.7', 'policy_model.stop_0_': 'a', 'policy_model.stop_1_': 'b' });
    const metrics = Object.fromEntries(run.data.metrics.map((metric: { key: string; value: number }) => [metric.key, metric.value]));
    expect(metrics).toEqual({ 'echo_agent/pass_at_1': 0.5, 'key_metrics/echo_agent/mean/reward': 0.25 });
    const tags = Object.fromEntries(run.data.tags.map((tag: { key: string; value: string }) => [tag.key, tag.value]));
    expect(tags['echo_agent/finish_reason']).toBe('stop');
    expect(JSON.parse(tags['mlflow.loggedArtifacts'])).toEqual([
      { path: 'tasks.json', type: 'table' },
      { path: 'rollouts.json', type: 'table' },
    ]);

    const listing = await get(`/api/2.0/mlflow/artifacts/list?run_id=${runId}`);
    expect(listing.files.map((file: { path: string }) => file.path).sort()).toEqual(['global_config.json', 'rollouts.json', 'tasks.json']);
    const artifact = (name: string) => get(`/api/2.0/mlflow-artifacts/artifacts/${run.info.experiment_id}/${runId}/artifacts/${name}`);
    expect(await artifact('tasks.json')).toEqual({ columns: ['agent', 'mean/reward'], data: [['echo_agent', 1], ['echo_agent', 0]] });
    expect((await artifact('global_config.json')).policy_model.stop).toEqual(['a', 'b']);

    // And through MLflow's own Python client: the run, and the table as `mlflow.load_table` reads it.
    const script = [
      'import json, sys, mlflow',
      'from mlflow import MlflowClient',
      'mlflow.set_tracking_uri(sys.argv[1])  # load_table searches through the default client',
      'client = MlflowClient()',
      'run = client.get_run(sys.argv[2])',
      'table = client.load_table(run.info.experiment_id, "tasks.json", run_ids=[sys.argv[2]])',
      'print(json.dumps({"metrics": run.data.metrics, "params": run.data.params, "tasks": table[["agent", "mean/reward"]].values.tolist()}))',
    ].join('\n');
    const read = spawnSync(wheel.python, ['-c', script, base, runId], { encoding: 'utf8', timeout: 120_000, cwd: tmpdir() });
    expect(read.status, read.stderr).toBe(0);
    expect(JSON.parse(read.stdout.trim().split('\n').at(-1) as string)).toEqual({
      metrics: { 'echo_agent/pass_at_1': 0.5, 'key_metrics/echo_agent/mean/reward': 0.25 },
      params,
      tasks: [['echo_agent', 1], ['echo_agent', 0]],
    });
  });

  it('ngym collect logs the run: redacted config, upstream-named metrics, per-task table and the rollouts', async () => {
    const { output, args } = await collection();
    const result = await runCli([
      'collect',
      ...args,
      `+mlflow_tracking_uri=${base}`,
      '+mlflow_experiment_name=collections',
      '+mlflow_run_name=echo-half-right',
      '+mlflow_tracking_token=tok-not-for-logs',
      '+policy_api_key=sk-not-for-logs',
      '++extra_headers={Authorization: Bearer not-for-logs}',
      '+upload_rollouts_limit=3',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('Warning');
    const runId = /Logged to MLflow: .*\/runs\/(\w+)/.exec(result.stdout)?.[1] as string;
    expect(runId, result.stdout).toBeDefined();

    const { run } = await get(`/api/2.0/mlflow/runs/get?run_id=${runId}`);
    const params = Object.fromEntries(run.data.params.map((param: { key: string; value: string }) => [param.key, param.value]));
    expect(params.output_jsonl_fpath).toBe(output);
    expect(params.num_repeats).toBe('2');
    expect(params.policy_api_key).toBe('<redacted>');
    expect(params.mlflow_tracking_token).toBe('<redacted>');
    expect(params.extra_headers).toBe('<redacted>');
    const metrics = Object.fromEntries(run.data.metrics.map((metric: { key: string; value: number }) => [metric.key, metric.value]));
    expect(metrics['echo_agent/mean/reward']).toBe(0.5);
    expect(metrics['coverage/expected']).toBe(8);
    expect(metrics['coverage/scored']).toBe(8);
    expect(metrics['coverage/missing']).toBe(0);
    expect(Object.keys(metrics).some((key) => key.startsWith('key_metrics/echo_agent/'))).toBe(true);

    const artifact = async (name: string) => {
      const answer = await fetch(`${base}/api/2.0/mlflow-artifacts/artifacts/${run.info.experiment_id}/${runId}/artifacts/${name}`);
      return answer.text();
    };
    const config = await artifact('global_config.json');
    expect(config).not.toContain('not-for-logs');
    expect(JSON.parse(config).num_repeats).toBe(2);
    const tasks = JSON.parse(await artifact('tasks.json'));
    expect(tasks.columns[0]).toBe('agent');
    expect(tasks.data).toHaveLength(4);
    const rewardColumn = tasks.columns.indexOf('mean/reward');
    expect(tasks.data.map((row: unknown[]) => row[rewardColumn])).toEqual([1, 0, 1, 0]);
    const rollouts = JSON.parse(await artifact('rollouts.json'));
    expect(rollouts.columns).toEqual(['Rollout']);
    expect(rollouts.data).toHaveLength(3);
    expect(JSON.parse(rollouts.data[0][0])).toMatchObject({ _ng_task_index: expect.any(Number), agent_ref: { name: 'echo_agent' } });
  });
});
