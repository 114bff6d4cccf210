import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { answerServer } from './__fixtures__/answer-server.ts';
import type { ConfigDict } from '../config/tree.ts';
import { simpleAgentConfig } from '../testing/agent-config.ts';
import { runCli } from '../testing/cli-process.ts';
import { type InProcessGym, startInProcessGym } from '../gym/in-process.ts';
import { assistantMessage, scriptedModel, usage } from '../server/scripted-model.ts';
import { PACKAGE_ROOT } from '../util/package-root.ts';

const config: ConfigDict = simpleAgentConfig({
  resources: { name: 'echo_env', implementation: 'echo' },
  agent: 'echo_agent',
  model: { implementation: 'scripted' },
});

/** A model that answers correctly after `latencyMs` (a stand-in for generation time). */
function slowCorrectModel(latencyMs: number) {
  return scriptedModel(async ({ input }) => {
    await delay(latencyMs);
    const question = (input as { content?: unknown }[]).find((item) => typeof item.content === 'string')?.content as string;
    return [assistantMessage(question.replace('q', 'a'))];
  });
}

function dataset(dir: string, tasks: number, extraLines: string[] = []): string {
  const lines = Array.from({ length: tasks }, (_, index) => JSON.stringify({ responses_create_params: { input: `q${index}` }, answer: `a${index}` }));
  return writeFileSync(join(dir, 'in.jsonl'), `${[...lines, ...extraLines].join('\n')}\n`), join(dir, 'in.jsonl');
}

function lineCount(path: string): number {
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter((line) => line.endsWith('}')).length : 0;
}

function spawnCollect(args: string[]): { child: ChildProcess; exited: Promise<{ code: number | null; stdout: string; stderr: string }> } {
  const child = spawn(process.execPath, [join(PACKAGE_ROOT, 'bin', 'ngym.js'), 'collect', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return { child, exited: new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr }))) };
}

/** Waits (polling the file) until it holds at least `count` whole lines. */
async function waitForLines(path: string, count: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (lineCount(path) < count) {
    if (Date.now() > deadline) throw new Error(`${path} never reached ${count} lines`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

let gym: InProcessGym | undefined;
afterEach(async () => {
  await gym?.close();
  gym = undefined;
});

describe('ngym collect', () => {
  it('resumes after SIGKILL mid-run with exactly one row per (task, rollout)', async () => {
    gym = await startInProcessGym({ config, definitions: { policy_model: slowCorrectModel(15).definition, echo_env: answerServer } });
    const dir = mkdtempSync(join(tmpdir(), 'ngym-kill-'));
    const output = join(dir, 'out.jsonl');
    const args = [
      `+head_server.port=${new URL(gym.headUrl).port}`,
      '+agent_name=echo_agent',
      `+input_jsonl_fpath=${dataset(dir, 60)}`,
      `+output_jsonl_fpath=${output}`,
      '+num_repeats=2',
      '+num_samples_in_parallel=6',
    ];
    const first = spawnCollect(args);
    await waitForLines(output, 20);
    first.child.kill('SIGKILL');
    expect((await first.exited).code).toBeNull();
    const partial = lineCount(output);
    expect(partial).toBeGreaterThanOrEqual(20);
    expect(partial).toBeLessThan(120);

    const refused = await runCli(['collect', ...args]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('+resume=true');

    const resumed = await runCli(['collect', ...args, '+resume=true']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const rows = readFileSync(output, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    const keys = rows.map((row) => `${row._ng_task_index}/${row._ng_rollout_index}`);
    expect(keys).toHaveLength(120);
    expect(new Set(keys).size).toBe(120);
    expect(rows.every((row) => row.reward === 1)).toBe(true);
    expect(resumed.stdout).toMatch(/120 rollouts over 60 tasks: reward=1 pass@1=1 mean@1=1 pass@2=1 mean@2=1/);
    expect(resumed.stdout).toContain(`${120 - partial} new, ${partial} from an earlier run`);
  });

  it('records failures and exits non-zero when the agent dies mid-run, never writing zeros', async () => {
    gym = await startInProcessGym({ config, definitions: { policy_model: slowCorrectModel(10).definition, echo_env: answerServer } });
    const dir = mkdtempSync(join(tmpdir(), 'ngym-dead-'));
    const output = join(dir, 'out.jsonl');
    const run = spawnCollect([
      `+head_server.port=${new URL(gym.headUrl).port}`,
      '+agent_name=echo_agent',
      `+input_jsonl_fpath=${dataset(dir, 200)}`,
      `+output_jsonl_fpath=${output}`,
      '+num_samples_in_parallel=4',
      '+max_retries=1',
      '+retry_delay_seconds=0.01',
    ]);
    await waitForLines(output, 10);
    await gym.servers.get('echo_agent')?.close(0);
    const result = await run.exited;
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/\d+ rollouts failed after their retries \(\d+ connection\); they are listed in .*out_failures\.jsonl/);
    expect(result.stdout).toMatch(/Stopped early \(agent 'echo_agent' is unreachable/);
    expect(result.stdout).toContain('+resume=true');
    const rows = readFileSync(output, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(rows.length).toBeGreaterThanOrEqual(10);
    expect(rows.every((row) => row.reward === 1)).toBe(true);
    const failures = readFileSync(join(dir, 'out_failures.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(failures.length).toBeGreaterThan(0);
    expect(failures.every((failure) => failure._ng_failure_class === 'connection' && typeof failure.error === 'string')).toBe(true);
  });

  it('reports malformed lines with their numbers, skips them, exits 1, and prints no stack trace', async () => {
    gym = await startInProcessGym({ config, definitions: { policy_model: slowCorrectModel(0).definition, echo_env: answerServer } });
    const dir = mkdtempSync(join(tmpdir(), 'ngym-bad-'));
    const result = await runCli([
      'collect',
      `+head_server.port=${new URL(gym.headUrl).port}`,
      '+agent_name=echo_agent',
      `+input_jsonl_fpath=${dataset(dir, 3, ['{"broken', '"a string"'])}`,
      `+output_jsonl_fpath=${join(dir, 'out.jsonl')}`,
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('2 input lines were skipped');
    expect(result.stdout).toMatch(/line 4: not valid JSON/);
    expect(result.stdout).toMatch(/line 5: a row must be a JSON object/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(lineCount(join(dir, 'out.jsonl'))).toBe(3);
    const missing = await runCli(['collect', `+head_server.port=${new URL(gym.headUrl).port}`, '+output_jsonl_fpath=x.jsonl']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('Error: Missing required parameters: input_jsonl_fpath. Provide each as a +name=<value> override (see --help).\n');
    // A value of the wrong type is named as such, not as a missing parameter.
    const wrongType = await runCli(['collect', `+head_server.port=${new URL(gym.headUrl).port}`, '+input_jsonl_fpath=x.jsonl', '+output_jsonl_fpath=x.jsonl', '+num_repeats=abc']);
    expect(wrongType.code).toBe(1);
    expect(wrongType.stderr).toBe('Error: Invalid parameters:\n  - +num_repeats: Input should be a valid integer, or a dict of integers keyed by agent\n');
  });

  it('prints the rollout health of its output at the end, unless +disable_health_check=true', async () => {
    // Task 1's answer is an empty message of 0 tokens: a hollow turn the health check must name.
    const model = scriptedModel(({ input }) => {
      const question = (input as { content?: unknown }[]).find((item) => typeof item.content === 'string')?.content as string;
      return question === 'q1' ? { output: [assistantMessage('')], usage: usage(10, 0) } : { output: [assistantMessage(question.replace('q', 'a'))], usage: usage(10, 2) };
    });
    gym = await startInProcessGym({ config, definitions: { policy_model: model.definition, echo_env: answerServer } });
    const dir = mkdtempSync(join(tmpdir(), 'ngym-health-'));
    const args = ['collect', `+head_server.port=${new URL(gym.headUrl).port}`, '+agent_name=echo_agent', `+input_jsonl_fpath=${dataset(dir, 3)}`, `+output_jsonl_fpath=${join(dir, 'out.jsonl')}`];
    const result = await runCli(args);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Rollout health: 3 checked, 2 healthy, 1 unhealthy, 0 unobserved');
    expect(result.stdout).toMatch(/task 1 rollout 0: agent_turn_hollow \(turn 1\), model_call_zero_completion_tokens \(call_id resp_\w+\)/);
    expect(result.stdout).toContain(`details: gym eval health-check ${join(dir, 'out.jsonl')}`);
    const unchecked = await runCli([...args, '+overwrite=true', '+disable_health_check=true']);
    expect(unchecked.code).toBe(0);
    expect(unchecked.stdout).not.toContain('Rollout health');
  });

  it("takes upstream 0.7.0's collection fields: refuses those it cannot honour by name, before anything starts, and says EVAL FAILED with +require_complete", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ngym-fields-'));
    const refused = await runCli([
      'collect',
      '+head_server.port=1',
      `+input_jsonl_fpath=${dataset(dir, 1)}`,
      `+output_jsonl_fpath=${join(dir, 'out.jsonl')}`,
      '+environment_routing_mode=agent',
      '+rollout_collection_driver=my.module:collect',
      '+skills.path=skills',
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/cannot honour these fields of upstream's rollout collection config, so nothing was started:\n {2}- \+rollout_collection_driver="my.module:collect": a Python function/);
    expect(refused.stderr).toMatch(/\+skills=\{"path":"skills"\}/);
    expect(refused.stderr).not.toMatch(/environment_routing_mode/);
    expect(existsSync(join(dir, 'out.jsonl'))).toBe(false);

    const model = scriptedModel(({ input }) => {
      const question = (input as { content?: unknown }[]).find((item) => typeof item.content === 'string')?.content as string;
      if (question === 'q1') throw new Error('the model is down for q1');
      return [assistantMessage(question.replace('q', 'a'))];
    });
    gym = await startInProcessGym({ config, definitions: { policy_model: model.definition, echo_env: answerServer } });
    const output = join(dir, 'out.jsonl');
    const result = await runCli([
      'collect',
      `+head_server.port=${new URL(gym.headUrl).port}`,
      '+agent_name=echo_agent',
      `+input_jsonl_fpath=${dataset(dir, 3)}`,
      `+output_jsonl_fpath=${output}`,
      '+max_retries=0',
      '+require_complete=true',
      '+disable_aggregation=true',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`EVAL FAILED: 2/3 samples completed. Partial artifacts retained at ${output}.`);
    expect(result.stdout).toContain('Skipping aggregate-metrics computation because disable_aggregation=True.');
    expect(existsSync(join(dir, 'out_aggregate_metrics.json'))).toBe(false);
    expect(lineCount(join(dir, 'out_failures.jsonl'))).toBe(1);
  });
});
