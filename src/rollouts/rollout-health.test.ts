/**
 * Rollout health: every fault planted in a rollouts file is found on its row (and the clean rows stay healthy),
 * ignored checks are left out, the reports have upstream's shape, and upstream's recorded rollouts are checked.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../util/package-root.ts';
import { SHARED_SKIP_MESSAGE, sharedFixture, sharedFixturesAvailable } from '../testing/shared-fixtures.ts';
import { checkRolloutsHealth, formatHealthReport, writeHealthReports } from './rollout-health.ts';
import { checkRecord, HEALTH_CHECKS, normalizeIgnoredChecks } from './rollout-health-checks.ts';

type Row = Record<string, unknown>;

const message = (text: string) => ({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });
const call = (name: string, args = '{}') => ({ type: 'function_call', name, arguments: args, call_id: `call_${name}` });
const callOutput = (name: string) => ({ type: 'function_call_output', call_id: `call_${name}`, output: '{"ok": true}' });
const usage = (input: number | null, output: number | null) => ({ input_tokens: input, output_tokens: output, total_tokens: (input ?? 0) + (output ?? 0) });

/** A healthy rollout; `response` and the row's own fields override. */
function rollout(task: number, repeat: number, response: Row = {}, fields: Row = {}): Row {
  return {
    _ng_task_index: task,
    _ng_rollout_index: repeat,
    responses_create_params: { input: [{ role: 'user', content: `task ${task}` }] },
    response: { id: `resp_${task}_${repeat}`, status: 'completed', output: [call('lookup'), callOutput('lookup'), message('42')], usage: usage(120, 30), ...response },
    reward: 1,
    ...fields,
  };
}

/** Each planted fault: the row that carries it and the check that must find it there. */
const PLANTED: [string, Row][] = [
  ['rollout_missing_agent_turns', rollout(10, 0, { output: [] })],
  ['agent_turn_hollow', rollout(11, 0, { output: [call('lookup'), callOutput('lookup'), message('  ')] })],
  ['model_call_zero_completion_tokens', rollout(12, 0, { usage: usage(50, 0) })],
  ['model_call_missing_token_counts', rollout(13, 0, { usage: null })],
  ['model_call_failed', rollout(14, 0, { status: 'failed', error: { code: 'server_error', message: 'boom' }, output: [call('lookup'), callOutput('lookup')] })],
  ['rollout_ended_on_failed_model_call', rollout(14, 1, { status: 'failed', error: { code: 'server_error', message: 'boom' }, output: [call('lookup'), callOutput('lookup')] })],
  ['model_call_runaway_generation', rollout(15, 0, { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, output: [call('lookup', '{"query": "an unterminated')] })],
  ['model_call_truncated', rollout(16, 0, { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, output: [message('The answer is 4, because first we')] })],
  ['rollout_reward_invalid', rollout(17, 0, {}, { reward: undefined })],
  ['rollout_reward_invalid', rollout(18, 0, {}, { reward: '1' })],
  ['rollout_reward_out_of_range', rollout(19, 0, {}, { reward: 1.5 })],
  ['rollout_reward_out_of_range', rollout(20, 0, {}, { reward: -0.5 })],
];

const dir = () => mkdtempSync(join(tmpdir(), 'ngym-health-'));

function writeRollouts(rows: (Row | string)[]): string {
  const path = join(dir(), 'rollouts.jsonl');
  writeFileSync(path, rows.map((row) => `${typeof row === 'string' ? row : JSON.stringify(row)}\n`).join(''));
  return path;
}

const CLEAN = [0, 1, 2].flatMap((task) => [rollout(task, 0), rollout(task, 1, { output: [message('fine')] }, { reward: 0 })]);

describe('rollout health checks', () => {
  it('finds nothing in a clean file', async () => {
    const result = await checkRolloutsHealth(writeRollouts(CLEAN));
    expect(result.summary.run.verdicts).toEqual({ healthy: 6, unhealthy: 0, unobserved: 0 });
    expect(Object.values(result.summary.run.issues).every((count) => count === 0)).toBe(true);
    expect(formatHealthReport(result)).toEqual(['Rollout health: 6 checked, 6 healthy, 0 unhealthy, 0 unobserved']);
  });

  it.each(PLANTED.map(([check, row]) => [check, row._ng_task_index, row._ng_rollout_index] as const))('finds %s planted in task %s rollout %s', async (check, task, repeat) => {
    const result = await checkRolloutsHealth(writeRollouts([...CLEAN, ...PLANTED.map(([, row]) => row)]));
    const digest = result.rollouts.find((candidate) => candidate.task_index === task && candidate.rollout_index === repeat);
    expect(digest?.verdict).toBe('unhealthy');
    expect(digest?.findings.map((finding) => finding.check)).toContain(check);
    // Only planted rows are unhealthy, and each is flagged for its own fault.
    expect(result.rollouts.filter((candidate) => candidate.verdict !== 'healthy').map((candidate) => candidate.task_index)).toEqual(PLANTED.map(([, row]) => row._ng_task_index));
  });

  it('names the turn, the call and the reward in its findings', async () => {
    const result = await checkRolloutsHealth(writeRollouts(PLANTED.map(([, row]) => row)));
    const findingsOf = (task: number) => result.rollouts.find((digest) => digest.task_index === task)?.findings;
    expect(findingsOf(11)).toEqual([{ check: 'agent_turn_hollow', subject: { _ng_task_index: 11, _ng_rollout_index: 0 }, locator: { turn: 2 }, detail: { reason: 'model turn without text or tool calls' } }]);
    expect(findingsOf(12)?.[0]).toMatchObject({ check: 'model_call_zero_completion_tokens', locator: { call_id: 'resp_12_0' } });
    expect(findingsOf(13)?.[0]).toMatchObject({ detail: { missing: ['prompt_tokens', 'completion_tokens'] } });
    expect(findingsOf(14)?.map((finding) => finding.check).sort()).toEqual(['model_call_failed', 'rollout_ended_on_failed_model_call']);
    expect(findingsOf(14)?.[0]?.detail).toMatchObject({ status: 'failed', error_category: 'server_error' });
    expect(findingsOf(15)?.map((finding) => finding.check)).toEqual(['model_call_runaway_generation']);
    expect(findingsOf(16)?.map((finding) => finding.check)).toEqual(['model_call_truncated']);
    expect(findingsOf(17)?.[0]?.detail).toEqual({ reason: 'no reward' });
    expect(findingsOf(18)?.[0]?.detail).toEqual({ reason: 'not a finite number', reward: '1' });
    expect(findingsOf(19)?.[0]?.detail).toEqual({ reward: 1.5, range: [0, 1] });
  });

  it('finds unreadable lines, duplicated rollouts and the task-level faults', async () => {
    const failed = (task: number, repeat: number) => rollout(task, repeat, { status: 'failed', error: { code: 'rate_limit' }, output: [] });
    const result = await checkRolloutsHealth(writeRollouts([...CLEAN, '{"_ng_task_index": 7, "reward"', '[1, 2]', rollout(0, 0), failed(30, 0), failed(30, 1), rollout(31, 0, { usage: usage(5, 0) }), rollout(31, 1, { usage: usage(5, 0) })]));
    const checksOf = (task: number | string) => result.rollouts.filter((digest) => digest.task_index === task).flatMap((digest) => digest.findings.map((finding) => finding.check));
    expect(result.rollouts.filter((digest) => String(digest.task_index).startsWith('__unreadable_record__')).map((digest) => [digest.task_index, digest.findings[0]?.locator])).toEqual([
      ['__unreadable_record__:input-0:line-7', { source_file: expect.stringMatching(/rollouts\.jsonl$/), line: 7 }],
      ['__unreadable_record__:input-0:line-8', { source_file: expect.stringMatching(/rollouts\.jsonl$/), line: 8 }],
    ]);
    expect(checksOf(0)).toEqual(['rollout_duplicate_identity', 'rollout_duplicate_identity']);
    expect(result.summary.tasks['30']).toMatchObject({ repeats: 2, unhealthy: 2, flags: ['task_consistently_unhealthy', 'task_no_successful_model_calls'] });
    expect(result.summary.tasks['31']).toMatchObject({ repeats: 2, unhealthy: 2, flags: ['task_consistently_unhealthy'] });
    expect(result.summary.run.issues).toMatchObject({ record_unreadable: 2, rollout_duplicate_identity: 2, task_consistently_unhealthy: 2, task_no_successful_model_calls: 1 });
    expect(result.summary.run.stats).toMatchObject({ model_call_errors: { total: 2, by_status: { failed: 2 }, rollouts_affected: 2, ended_on_error: 2 } });
  });

  it('records a check that throws as check_execution_error and goes on', () => {
    const error = Object.defineProperty({}, 'code', {
      get() {
        throw new TypeError('broken');
      },
    });
    const { findings, unobserved } = checkRecord({ reward: 0, response: { status: 'failed', error, output: [], usage: usage(1, 1) } }, { _ng_task_index: 0, _ng_rollout_index: 0 }, { ignored: new Set(), rewardRange: [0, 1] });
    expect(findings.filter((finding) => finding.check === 'check_execution_error').map((finding) => finding.detail.failed_check)).toEqual(['rollout_ended_on_failed_model_call', 'model_call_failed']);
    expect(unobserved).toEqual(['rollout_ended_on_failed_model_call', 'model_call_failed']);
  });

  it('leaves ignored checks out, and takes another reward range', async () => {
    const path = writeRollouts(PLANTED.map(([, row]) => row));
    const result = await checkRolloutsHealth(path, { ignoredChecks: 'model_call_missing_token_counts, rollout_reward_out_of_range', rewardRange: [-1, 1] });
    expect(result.summary.run.ignored_checks).toEqual(['model_call_missing_token_counts', 'rollout_reward_out_of_range']);
    expect(result.rollouts.find((digest) => digest.task_index === 13)?.verdict).toBe('healthy');
    expect(result.summary.run.artifacts).toMatchObject({ records: PLANTED.length, coverage: { model_call_missing_token_counts: { evaluated: 0, unobserved: 0, ignored: PLANTED.length } } });
    expect(result.rollouts.find((digest) => digest.task_index === 19)?.verdict).toBe('healthy');
    const widened = await checkRolloutsHealth(path, { rewardRange: [-1, 1] });
    expect(widened.rollouts.filter((digest) => digest.findings.some((finding) => finding.check === 'rollout_reward_out_of_range')).map((digest) => digest.task_index)).toEqual([19]);
    expect(() => normalizeIgnoredChecks('agent_turn_holow')).toThrow('Unknown rollout health check(s): agent_turn_holow');
    // Upstream's trajectory-capture checks are accepted, though ngym has no capture records to run them on.
    expect(normalizeIgnoredChecks(['trajectory_capture_mismatch'])).toEqual(['trajectory_capture_mismatch']);
    await expect(checkRolloutsHealth(path, { rewardRange: [1, 0] })).rejects.toThrow('reward_range must be [low, high]');
  });

  it('marks a rollout without a response unobserved for the response checks', async () => {
    const result = await checkRolloutsHealth(writeRollouts([{ _ng_task_index: 0, _ng_rollout_index: 0, reward: 1 }]));
    expect(result.rollouts[0]).toMatchObject({ verdict: 'unobserved', unobserved: HEALTH_CHECKS.filter((check) => check.readsResponse).map((check) => check.id) });
    expect(result.summary.run.artifacts).toMatchObject({ captures: 0 });
  });

  it("writes upstream's reports: quality_summary.json and rollout_verdicts.jsonl in task order", async () => {
    const result = await checkRolloutsHealth(writeRollouts([PLANTED[1]?.[1] as Row, ...CLEAN]));
    const out = dir();
    writeHealthReports(result, join(out, 'quality_summary.json'), join(out, 'rollout_verdicts.jsonl'));
    expect(readdirSync(out).sort()).toEqual(['quality_summary.json', 'rollout_verdicts.jsonl']);
    const summary = JSON.parse(readFileSync(join(out, 'quality_summary.json'), 'utf8'));
    expect(Object.keys(summary.run)).toEqual(['ignored_checks', 'artifacts', 'verdicts', 'issues', 'stats']);
    expect(Object.keys(summary.run.issues)).toEqual(HEALTH_CHECKS.map((check) => check.id));
    const verdicts = readFileSync(join(out, 'rollout_verdicts.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(verdicts.map((row) => row._ng_task_index)).toEqual([0, 0, 1, 1, 2, 2, 11]);
    expect(verdicts.at(-1)).toEqual({ _ng_task_index: 11, _ng_rollout_index: 0, rollout_id: '11-0', verdict: 'unhealthy', findings: [{ check: 'agent_turn_hollow', locator: { turn: 2 }, detail: { reason: 'model turn without text or tool calls' } }], unobserved: [] });
  });
});

it('docs/evaluation.md lists every check', () => {
  const docs = readFileSync(join(PACKAGE_ROOT, 'docs', 'evaluation.md'), 'utf8');
  expect(HEALTH_CHECKS.map((check) => check.id).filter((id) => !docs.includes(`\`${id}\``))).toEqual([]);
});

describe.skipIf(!sharedFixturesAvailable())("upstream's recorded rollouts", () => {
  // Three recordings come from model servers that reported no usage: their calls carry no token counts.
  const WITHOUT_USAGE = new Set(['calendar', 'code_gen', 'reasoning_gym']);
  const environments = sharedFixturesAvailable() ? readdirSync(sharedFixture()).filter((name) => existsSync(sharedFixture(name, 'example_rollouts.jsonl'))) : [];

  it.each(environments)('%s: healthy, or without token counts only', async (environment) => {
    const result = await checkRolloutsHealth(sharedFixture(environment, 'example_rollouts.jsonl'));
    const found = Object.entries(result.summary.run.issues).filter(([, count]) => count > 0);
    if (WITHOUT_USAGE.has(environment)) expect(found).toEqual([['model_call_missing_token_counts', result.rollouts.length]]);
    else expect(found).toEqual([]);
    expect(result.summary.run.verdicts.unobserved).toBe(0);
  });
});

if (!sharedFixturesAvailable()) console.warn(SHARED_SKIP_MESSAGE);
