/**
 * `gym eval reverify` with upstream 0.7.0's options, against a gym running in this process whose resources server
 * keeps a counter per session (so only replaying the rollout's tool calls gives the right reward) and whose
 * "judge" can be taken down or held: failures land in the sidecar (never as rewards), --judge-failed-only and
 * --append recover them, --resume finishes a run killed mid-way without losing or repeating a row, --inputs joins
 * materialized inputs. ATIF input: atif.test.ts.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as z from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessGym, type InProcessGym } from '../../gym/in-process.ts';
import { JudgeError } from '../../judge/llm-judge.ts';
import { defineResourcesServer } from '../../server/resources-server.ts';
import { SessionStore } from '../../server/session-store.ts';
import { assistantMessage, functionCall, modelResponse, scriptedModel } from '../../server/scripted-model.ts';
import { readJsonlRows } from '../../testing/jsonl-rows.ts';
import { PACKAGE_ROOT } from '../../util/package-root.ts';
import { captureOutput } from './__fixtures__/captured-output.ts';
import { mainGym } from './tree.ts';

const printed = captureOutput();
const dir = mkdtempSync(join(tmpdir(), 'ngym-reverify-'));
const GYM = join(dir, 'gym');
symlinkSync(join(PACKAGE_ROOT, 'bin', 'ngym.js'), GYM);

/** What the verifier does: `judgeDown` fails rows marked `judged` as a judge outage; `hold` parks verify of that task. */
const control: { judgeDown: boolean; hold?: number; held?: () => void } = { judgeDown: false };

const counter = defineResourcesServer({
  className: 'CounterResourcesServer',
  // Each session's counter starts at 0 (no seed needed); only the replayed tool calls move it.
  setup: () => ({ counters: new SessionStore<number>() }),
  tools: {
    increment_counter: {
      description: 'Add to the counter.',
      parameters: z.strictObject({ count: z.number().int() }),
      handler: ({ count }, { sessionId, state }) => {
        const next = (state.counters.get(sessionId) ?? 0) + count;
        state.counters.set(sessionId, next);
        return { count: next };
      },
    },
  },
  verifyRequest: z.looseObject({ expected_count: z.number().int(), _ng_task_index: z.number().optional(), judged: z.boolean().optional() }),
  verify: async (request, { sessionId, state }) => {
    if (control.judgeDown && request.judged === true) throw new JudgeError('the judge model answered HTTP 503');
    if (control.hold !== undefined && request._ng_task_index === control.hold) {
      control.held?.();
      await new Promise(() => undefined); // parked until the client is killed
    }
    return { reward: (state.counters.get(sessionId) ?? 0) === request.expected_count ? 1.0 : 0.0 };
  },
});

let gym: InProcessGym;
let head: string;
beforeAll(async () => {
  const model = scriptedModel(() => [assistantMessage('unused')]);
  gym = await startInProcessGym({
    config: {
      counter_resources_server: { resources_servers: { counter: { entrypoint: 'app.ts', domain: 'other' } } },
      counter_agent: {
        responses_api_agents: {
          simple_agent: { entrypoint: 'app.ts', resources_server: { type: 'resources_servers', name: 'counter_resources_server' }, model_server: { type: 'responses_api_models', name: 'policy_model' } },
        },
      },
      policy_model: { responses_api_models: { scripted: { entrypoint: 'app.ts' } } },
    },
    definitions: { counter_resources_server: counter, policy_model: model.definition },
  });
  head = `+head_server.port=${new URL(gym.headUrl).port}`;
}, 30_000);
afterAll(async () => gym?.close());

/** A recorded rollout: the counter starts at 0, the agent added `added`; it is right when `added` is `expected`. */
function rollout(task: number, added: number, expected: number, extra: Record<string, unknown> = {}) {
  return {
    _ng_task_index: task,
    _ng_rollout_index: 0,
    agent_ref: { name: 'counter_agent' },
    responses_create_params: { input: [{ role: 'user', content: `add to ${expected}` }] },
    expected_count: expected,
    response: modelResponse([functionCall('increment_counter', { count: added }), assistantMessage('done')]),
    reward: 1,
    ...extra,
  };
}
const jsonl = (rows: object[]) => rows.map((row) => `${JSON.stringify(row)}\n`).join('');
const keys = (path: string) => readJsonlRows(path).map((row) => `${row._ng_task_index}/${row._ng_rollout_index}`);
const byTask = (rows: Record<string, unknown>[]) => [...rows].sort((a, b) => Number(a._ng_task_index) - Number(b._ng_task_index));
const reverify = (args: string[]) => mainGym(['eval', 'reverify', ...args, head]);

describe('gym eval reverify: failures, judge-failure recovery, append', () => {
  const rollouts = join(dir, 'run.jsonl');
  beforeAll(() => {
    control.judgeDown = true;
    // Tasks 1 and 3 need the judge; task 2 was recorded with a wrong count (reward 1 recorded, 0 now).
    writeFileSync(join(dir, 'recorded.jsonl'), jsonl([rollout(0, 3, 3), rollout(1, 2, 2, { judged: true }), rollout(2, 1, 5), rollout(3, 4, 4, { judged: true })]));
  });

  it('routes judge failures to the sidecar with their response and no reward, and exits 1', async () => {
    expect(await reverify(['--rollouts', join(dir, 'recorded.jsonl'), '-o', rollouts])).toBe(1);
    expect(byTask(readJsonlRows(rollouts)).map((row) => [row._ng_task_index, row.reward])).toEqual([
      [0, 1],
      [2, 0],
    ]);
    const failures = byTask(readJsonlRows(join(dir, 'run_failures.jsonl')));
    expect(failures.map((row) => [row._ng_task_index, row._ng_failure_class, 'reward' in row, (row.response as { output: unknown[] }).output.length])).toEqual([
      [1, 'judge_failed', false, 2],
      [3, 'judge_failed', false, 2],
    ]);
    expect(printed.out).toContain('2 rollouts could not be re-verified (2 judge_failed;');
    // Aggregate metrics cover the scored rows only.
    const aggregate = JSON.parse(readFileSync(join(dir, 'run_aggregate_metrics.json'), 'utf8'));
    expect(aggregate[0].agent_metrics['mean/reward']).toBeCloseTo(0.5);
  });

  it('refuses to replace an existing output without --overwrite, naming --overwrite and --resume', async () => {
    expect(await reverify(['--rollouts', join(dir, 'recorded.jsonl'), '-o', rollouts])).toBe(1);
    expect(printed.err).toContain(`Output file already exists: '${rollouts}'. Pass --overwrite to delete it and start fresh, or --resume to continue from it.`);
    expect(readJsonlRows(rollouts)).toHaveLength(2);
  });

  it('--judge-failed-only copies the successes and re-verifies only the judge failures, once per key', async () => {
    // Another kind of failure, and a second attempt of task 1: neither is re-verified twice or at all.
    const sidecar = join(dir, 'run_failures.jsonl');
    writeFileSync(sidecar, readFileSync(sidecar, 'utf8') + jsonl([{ ...rollout(4, 1, 1), _ng_failure_class: 'timeout' }, { ...rollout(1, 2, 2, { judged: true }), _ng_failure_class: 'judge_failed' }]));
    control.judgeDown = false;
    const recovered = join(dir, 'recovered.jsonl');
    expect(await reverify(['--rollouts', rollouts, '-o', recovered, '--judge-failed-only']), printed.out + printed.err).toBe(0);
    expect(printed.out).toContain('WARNING: judge-failed-only recovery merges rewards from TWO sources');
    expect(printed.out).toContain('Recovery mode: seeded 2 successful rollout(s)');
    // The seeded successes first, in their order, then the recovered rows.
    expect(keys(recovered).slice(0, 2)).toEqual(keys(rollouts));
    expect(byTask(readJsonlRows(recovered)).map((row) => [row._ng_task_index, row.reward])).toEqual([
      [0, 1],
      [1, 1],
      [2, 0],
      [3, 1],
    ]);
    expect(existsSync(join(dir, 'recovered_failures.jsonl'))).toBe(false);
  });

  it('--append adds the recovered rows onto the run itself, and a second run adds nothing', async () => {
    const before = readFileSync(rollouts, 'utf8');
    expect(await reverify(['--rollouts', rollouts, '-o', rollouts, '--judge-failed-only', '--append']), printed.err).toBe(0);
    const after = readFileSync(rollouts, 'utf8');
    expect(after.startsWith(before)).toBe(true);
    expect(keys(rollouts).sort()).toEqual(['0/0', '1/0', '2/0', '3/0']);
    expect(await reverify(['--rollouts', rollouts, '-o', rollouts, '--judge-failed-only', '--append'])).toBe(0);
    expect(readFileSync(rollouts, 'utf8')).toBe(after);
  });

  it.each([
    [['--append'], '`append` is only valid together with `judge_failed_only` (pass --judge-failed-only).'],
    [['--append', '--judge-failed-only', '--overwrite'], '`append` and `overwrite` are mutually exclusive'],
    [['--atif-manifest', 'm.jsonl'], '`atif_manifest_jsonl_fpath` is only valid with input_format=atif'],
    [['--judge-failed-only', '--overwrite'], 'is the rollouts file this run reads'],
    [['--overwrite'], 'is the rollouts file this run reads'],
  ])('refuses %j before anything is written', async (flags, message) => {
    const before = readFileSync(rollouts, 'utf8');
    expect(await reverify(['--rollouts', rollouts, '-o', rollouts, ...flags])).toBe(1);
    expect(printed.err).toContain(message);
    expect(readFileSync(rollouts, 'utf8')).toBe(before);
  });
});

describe('gym eval reverify --inputs', () => {
  it('takes each task from the materialized inputs, joined on (task, rollout)', async () => {
    // The rollouts carry no task fields; the inputs do (and expect 2 for task 1, which the rollout did not reach).
    const bare = [rollout(0, 3, 3), rollout(1, 1, 1)].map(({ _ng_task_index, _ng_rollout_index, agent_ref, response }) => ({ _ng_task_index, _ng_rollout_index, agent_ref, response }));
    writeFileSync(join(dir, 'bare.jsonl'), jsonl(bare));
    const inputs = [rollout(0, 0, 3), rollout(1, 0, 2)].map(({ response: _response, reward: _reward, ...input }) => input);
    writeFileSync(join(dir, 'bare_materialized_inputs.jsonl'), jsonl(inputs));
    const output = join(dir, 'bare_reverified.jsonl');
    expect(await reverify(['--rollouts', join(dir, 'bare.jsonl'), '--inputs', join(dir, 'bare_materialized_inputs.jsonl'), '-o', output]), printed.err).toBe(0);
    expect(byTask(readJsonlRows(output)).map((row) => [row._ng_task_index, row.reward])).toEqual([
      [0, 1],
      [1, 0],
    ]);
    // A rollout with no input is refused before the output is touched.
    writeFileSync(join(dir, 'bare_materialized_inputs.jsonl'), jsonl(inputs.slice(0, 1)));
    expect(await reverify(['--rollouts', join(dir, 'bare.jsonl'), '--inputs', join(dir, 'bare_materialized_inputs.jsonl'), '-o', join(dir, 'other.jsonl')])).toBe(1);
    expect(printed.err).toContain('no materialized input');
    expect(existsSync(join(dir, 'other.jsonl'))).toBe(false);
  });
});

describe('gym eval reverify --resume', () => {
  it('finishes a run killed mid-way: what it wrote is kept, nothing is verified twice', async () => {
    const rows = Array.from({ length: 12 }, (_, task) => rollout(task, task % 3, task % 3));
    writeFileSync(join(dir, 'long.jsonl'), jsonl(rows));
    const output = join(dir, 'long_reverified.jsonl');
    const args = ['eval', 'reverify', '--rollouts', join(dir, 'long.jsonl'), '-o', output, '--concurrency', '1', head];
    // The first run is killed (SIGKILL: no chance to tidy up) while the verify of task 6 is held.
    control.hold = 6;
    const child: ChildProcess = spawn(process.execPath, [GYM, ...args], { cwd: PACKAGE_ROOT, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    const exited = new Promise((resolve) => child.on('close', resolve));
    await new Promise<void>((resolve) => (control.held = resolve));
    child.kill('SIGKILL');
    await exited;
    control.hold = undefined;
    const written = readFileSync(output, 'utf8');
    const whole = written.slice(0, written.lastIndexOf('\n') + 1);
    expect(whole.split('\n').length - 1).toBeGreaterThan(0);
    expect(whole.split('\n').length - 1).toBeLessThan(12);

    expect(await reverify(['--rollouts', join(dir, 'long.jsonl'), '-o', output, '--resume']), printed.err).toBe(0);
    expect(printed.out).toMatch(/Resumed from cache\. Found:\n- 12 total rows to be re-verified\n- \d+ rows already done/);
    expect(readFileSync(output, 'utf8').startsWith(whole)).toBe(true);
    expect(keys(output).sort()).toEqual(rows.map((row) => `${row._ng_task_index}/0`).sort());
    expect(readJsonlRows(output).every((row) => row.reward === 1)).toBe(true);
  }, 60_000);

  it('does not retry a failure stamped terminal, nor one that used up its attempts', async () => {
    const output = join(dir, 'gated.jsonl');
    writeFileSync(join(dir, 'gated_failures.jsonl'), jsonl([{ ...rollout(0, 0, 0), _ng_failure_class: 'skipped', _ng_failure_terminal: true }, ...[1, 2, 3].map(() => ({ ...rollout(1, 1, 1), _ng_failure_class: 'timeout' }))]));
    writeFileSync(join(dir, 'gated_input.jsonl'), jsonl([rollout(0, 0, 0), rollout(1, 1, 1), rollout(2, 2, 2)]));
    expect(await reverify(['--rollouts', join(dir, 'gated_input.jsonl'), '-o', output, '--resume']), printed.err).toBe(0);
    expect(printed.out).toContain('- 1 sidecar-terminal → not retried\n- 1 hit max_attempts → not retried\n- 1 rows that still need to be run');
    expect(keys(output)).toEqual(['2/0']);
  });
});

describe('gym eval reverify --input-format atif', () => {
  it('scores ATIF trajectories joined to their tasks by the manifest, with their provenance', async () => {
    const trajectory = (added: number) => ({
      schema_version: 'ATIF-v1.7',
      trajectory_id: `traj-${added}`,
      agent: { name: 'relay', version: '1.0' },
      steps: [
        { step_id: 1, source: 'user', message: 'Add to the counter.' },
        { step_id: 2, source: 'agent', message: '', tool_calls: [{ tool_call_id: 'c1', function_name: 'increment_counter', arguments: { count: added } }], observation: { results: [{ source_call_id: 'c1', content: '{"success": true}' }] } },
        { step_id: 3, source: 'agent', message: 'Done.' },
      ],
    });
    const atif = mkdtempSync(join(dir, 'atif-'));
    writeFileSync(join(atif, 'a.json'), JSON.stringify(trajectory(2)));
    writeFileSync(join(atif, 'b.json'), JSON.stringify(trajectory(1)));
    const inputs = [rollout(0, 0, 2), rollout(1, 0, 2)].map(({ response: _response, reward: _reward, ...input }) => input);
    writeFileSync(join(atif, 'inputs.jsonl'), jsonl(inputs));
    const sha = createHash('sha256').update(readFileSync(join(atif, 'a.json'))).digest('hex');
    writeFileSync(join(atif, 'manifest.jsonl'), jsonl([{ trajectory_path: 'a.json', _ng_task_index: 0, _ng_rollout_index: 0, expected_sha256: sha }, { trajectory_path: 'b.json', _ng_task_index: 1, _ng_rollout_index: 0 }]));
    const output = join(atif, 'scored.jsonl');
    const args = ['--input-format', 'atif', '--atif-manifest', join(atif, 'manifest.jsonl'), '--inputs', join(atif, 'inputs.jsonl'), '-o', output];
    expect(await reverify(args), printed.err).toBe(0);
    const scored = byTask(readJsonlRows(output));
    expect(scored.map((row) => row.reward)).toEqual([1, 0]);
    expect(scored[0]?._ng_atif_provenance).toEqual({ trajectory_id: 'traj-2', session_id: null, source_sha256: sha, schema_version: 'ATIF-v1.7', projection_status: 'complete' });
    expect(printed.err).toContain('1 of 2 entries without expected_sha256');

    // A file that changed since the manifest pinned it, or --resume: refused before the output is touched.
    writeFileSync(join(atif, 'a.json'), JSON.stringify(trajectory(3)));
    expect(await reverify([...args, '--overwrite'])).toBe(1);
    expect(printed.err).toContain(`ATIF source hash mismatch for ${join(atif, 'a.json')}: expected ${sha}`);
    expect(await reverify([...args, '--resume'])).toBe(1);
    expect(printed.err).toContain('ATIF reverification does not support --resume');
    expect(readJsonlRows(output)).toHaveLength(2);
  });
});

describe('gym eval reverify: a failure without a response', () => {
  it('is listed as a failure saying why (as ngym collect records a judge failure), not scored', async () => {
    const run = join(dir, 'collected.jsonl');
    writeFileSync(run, jsonl([rollout(0, 3, 3)]));
    writeFileSync(join(dir, 'collected_failures.jsonl'), jsonl([{ _ng_task_index: 1, _ng_rollout_index: 0, agent_ref: { name: 'counter_agent' }, _ng_failure_class: 'judge_failed', error: 'judge down' }]));
    const output = join(dir, 'collected_recovered.jsonl');
    expect(await reverify(['--rollouts', run, '-o', output, '--judge-failed-only'])).toBe(1);
    expect(keys(output)).toEqual(['0/0']);
    const [failure] = readJsonlRows(join(dir, 'collected_recovered_failures.jsonl'));
    expect(failure).toMatchObject({ _ng_task_index: 1, _ng_failure_class: 'invalid_input' });
    expect(String(failure?._ng_failure_message)).toContain('collect it again with `ngym collect +resume=true`');
  });
});
