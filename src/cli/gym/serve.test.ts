/**
 * The `gym` leaves around a running gym, through `gym` / `ng` links as npm installs them: `gym env start
 * --environment` (replay_model answers from recorded rollouts), `gym env status`, `gym eval run --no-serve`,
 * `gym eval reverify` (a stateful environment re-scored by replaying its tool calls), `gym eval run` starting
 * its own servers, and `gym env test <environment>`.
 */
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GymProcess, readJsonlRows, runCli, startGymProcess } from '../../testing/index.ts';
import { PACKAGE_ROOT } from '../../util/package-root.ts';

const dir = mkdtempSync(join(tmpdir(), 'ngym-gym-serve-'));
const GYM = join(dir, 'gym');
const NG = join(dir, 'ng');
symlinkSync(join(PACKAGE_ROOT, 'bin', 'ngym.js'), GYM);
symlinkSync(join(PACKAGE_ROOT, 'bin', 'ngym.js'), NG);

const COUNTER = 'resources_servers/example_session_state_mgmt/data';
const replay = (file: string) => [`--model-type`, 'replay_model', `+policy_model.responses_api_models.replay_model.rollouts_jsonl_fpath=${file}`];
const gymCli = (args: string[]) => runCli(args, { bin: GYM });
let gym: GymProcess;

beforeAll(async () => {
  gym = await startGymProcess(['--environment', 'example_session_state_mgmt', ...replay(`${COUNTER}/example_rollouts.jsonl`)], { bin: GYM, command: ['env', 'start'] });
}, 60_000);
afterAll(async () => {
  const stopped = await gym?.stop();
  expect(stopped?.code).toBe(0);
});

describe('gym around a running environment', () => {
  it('ng is the same tree as gym', async () => {
    const result = await runCli(['--help'], { bin: NG });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^ {2}eval\b/m);
  });

  it('env status reports every server healthy (and --json)', async () => {
    const result = await gymCli(['env', 'status', '--json', `+head_server.port=${gym.headPort}`]);
    expect(result.code, result.stderr).toBe(0);
    const status = JSON.parse(result.stdout) as { servers: { name: string; status: string }[] };
    expect(status.servers.map((server) => server.name).sort()).toEqual([
      'example_session_state_mgmt_environment_server',
      'example_session_state_mgmt_resources_server',
      'example_session_state_mgmt_simple_agent',
      'policy_model',
    ]);
    expect(status.servers.every((server) => server.status === 'healthy')).toBe(true);
    const nobody = await gymCli(['env', 'status', '+head_server.port=1']);
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toContain('No gym answers at http://127.0.0.1:1');
  });

  it('eval run --no-serve collects from the running gym with the environment\'s rewards', async () => {
    const output = join(dir, 'counter.jsonl');
    const result = await gymCli(['eval', 'run', '--no-serve', '-a', 'example_session_state_mgmt_simple_agent', '-i', `${COUNTER}/example.jsonl`, '-o', output, '--concurrency', '2', `+head_server.port=${gym.headPort}`]);
    expect(result.code, result.stderr).toBe(0);
    expect(readJsonlRows(output).sort((a, b) => a._ng_task_index - b._ng_task_index).map((row) => row.reward)).toEqual([1, 1, 1, 1, 0]);
  }, 60_000);

  it('eval reverify re-scores recorded rollouts of a stateful environment by replaying their tool calls', async () => {
    const recorded = readJsonlRows(`${COUNTER}/example_rollouts.jsonl`);
    // The first task now expects another count: its re-verified reward must change; the others must not.
    const edited = join(dir, 'edited.jsonl');
    writeFileSync(edited, recorded.map((row, index) => JSON.stringify(index === 0 ? { ...row, expected_count: 999 } : row)).join('\n'));
    const output = join(dir, 'reverified.jsonl');
    const args = ['eval', 'reverify', '--rollouts', edited, '-o', output, `+head_server.port=${gym.headPort}`];
    const result = await gymCli([...args, '--agent', 'example_session_state_mgmt_simple_agent']);
    expect(result.code, result.stderr).toBe(0);
    expect(readJsonlRows(output).map((row) => row.reward)).toEqual([0, 1, 1, 1, 0]);
    expect(result.stdout).toContain('Re-verified 5 / 5 rollouts: mean reward 0.8 recorded, 0.6 now; 1 changed.');
    // Without an agent the rows cannot be routed: they are failures, not rewards of 0.
    const unrouted = await gymCli([...args, '--overwrite']);
    expect(unrouted.code).toBe(1);
    expect(unrouted.stdout).toContain('5 rollouts could not be re-verified');
    expect(readJsonlRows(join(dir, 'reverified_failures.jsonl'))).toHaveLength(5);
    expect(readJsonlRows(output)).toHaveLength(0);
  }, 60_000);
});

describe('gym eval run and gym env test on their own', () => {
  it('eval run starts the environment, collects and stops', async () => {
    const output = join(dir, 'weather.jsonl');
    const result = await gymCli([
      'eval', 'run', '--environment', 'example_single_tool_call', ...replay('resources_servers/example_single_tool_call/data/example_rollouts.jsonl'),
      '--agent', 'example_single_tool_call_simple_agent', '--input', 'resources_servers/example_single_tool_call/data/example.jsonl', '--output', output,
      '++head_server={host: 127.0.0.1, port: 0}',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(readJsonlRows(output).sort((a, b) => a._ng_task_index - b._ng_task_index).map((row) => row.reward)).toEqual([1, 1, 1, 1, 0]);
    // Upstream's aggregate-metrics file beside the rollouts: a list of per-agent entries.
    const aggregate = JSON.parse(readFileSync(join(dir, 'weather_aggregate_metrics.json'), 'utf8'));
    expect(aggregate.map((entry: { agent_ref: unknown }) => entry.agent_ref)).toEqual([{ name: 'example_single_tool_call_simple_agent' }]);
    expect(aggregate[0].agent_metrics['mean/reward']).toBeCloseTo(0.8);
  }, 90_000);

  it('env test <environment> runs the tests of its resources server', async () => {
    const result = await gymCli(['env', 'test', 'example_single_tool_call']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('=== example_single_tool_call: resources_servers/example_single_tool_call ===');
    expect(result.stdout).toContain('The data for resources_servers/example_single_tool_call has been successfully validated!');
  }, 120_000);
});
