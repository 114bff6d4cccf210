import { appendFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { ConfigDict } from '../config/tree.ts';
import { NgymError } from '../errors.ts';
import { assistantText } from '../protocol/response-text.ts';
import { defineResourcesServer } from '../server/resources-server.ts';
import { type InProcessGym, startInProcessGym } from '../gym/in-process.ts';
import { assistantMessage, scriptedModel } from '../server/scripted-model.ts';
import { collectRollouts, type RolloutOutcome } from './collect.ts';
import { computeMetrics, MetricsAccumulator, passAtK } from '../metrics/rollout-metrics.ts';
import { simpleAgentConfig } from '../testing/agent-config.ts';
import { readJsonlRows } from '../testing/jsonl-rows.ts';

/** A quiz: the reward is 1 when the final answer equals the row's `answer`. */
const quiz = defineResourcesServer({
  className: 'QuizResourcesServer',
  verifyRequest: z.looseObject({ answer: z.string() }),
  verify: (request) => {
    const last = request.response.output.at(-1);
    const text = last === undefined ? '' : (assistantText(last) ?? '');
    return { reward: text === request.answer ? 1 : 0, answered: text };
  },
});

function gymConfig(agents: string[]): ConfigDict {
  const config: ConfigDict = { policy_model: { responses_api_models: { scripted: { entrypoint: 'app.ts' } } } };
  for (const agent of agents) Object.assign(config, simpleAgentConfig({ resources: { name: `${agent}_env`, implementation: 'quiz' }, agent }));
  return config;
}

function questionOf(input: string | { role?: string; content?: unknown }[]): string {
  if (typeof input === 'string') return input;
  return String(input.find((item) => item.role === 'user')?.content ?? '');
}

/** Rows `{question qN, answer aN}`. */
function rows(count: number, extra: (index: number) => Record<string, unknown> = () => ({})): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, index) => ({ responses_create_params: { input: `q${index}` }, answer: `a${index}`, ...extra(index) }));
}

function writeJsonl(path: string, lines: unknown[]): string {
  writeFileSync(path, `${lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n')}\n`);
  return path;
}


let gym: InProcessGym | undefined;
afterEach(async () => {
  await gym?.close();
  gym = undefined;
});
const folder = () => mkdtempSync(join(tmpdir(), 'ngym-collect-'));

/** A gym whose verify never answers the questions `frozen` picks until the returned function is called. */
async function startFreezingGym(frozen: (question: string) => boolean): Promise<() => void> {
  let release: () => void = () => {};
  const freeze = new Promise<void>((resolve) => (release = resolve));
  const freezing = defineResourcesServer({
    className: 'Freezing',
    verify: async (request) => {
      if (frozen(questionOf(request.responses_create_params.input as never))) await freeze;
      return { reward: 1 };
    },
  });
  const model = scriptedModel(() => [assistantMessage('ok')]);
  gym = await startInProcessGym({ config: gymConfig(['quiz']), definitions: { policy_model: model.definition, quiz_env: freezing } });
  return release;
}


describe('collectRollouts', () => {
  it('stamps identity, writes every rollout, and computes pass@k and mean@k over repeats', async () => {
    // Each question is answered correctly on exactly one of its four calls.
    const calls = new Map<string, number>();
    const model = scriptedModel(({ input }) => {
      const question = questionOf(input as never);
      const count = calls.get(question) ?? 0;
      calls.set(question, count + 1);
      return [assistantMessage(count === 2 ? question.replace('q', 'a') : 'wrong')];
    });
    gym = await startInProcessGym({ config: gymConfig(['quiz']), definitions: { policy_model: model.definition, quiz_env: quiz } });
    const dir = folder();
    const summary = await collectRollouts({
      client: gym.client,
      input: writeJsonl(join(dir, 'in.jsonl'), rows(5)),
      outputPath: join(dir, 'out.jsonl'),
      agentName: 'quiz',
      numRepeats: 4,
      concurrency: 3,
    }).done();
    const output = readJsonlRows(join(dir, 'out.jsonl'));
    expect(output).toHaveLength(20);
    const keys = output.map((row) => `${row._ng_task_index}/${row._ng_rollout_index}`).sort();
    expect(new Set(keys).size).toBe(20);
    expect(output.every((row) => row.agent_ref?.name === 'quiz' && row.answer === `a${row._ng_task_index}`)).toBe(true);
    expect(summary.metrics.metrics).toMatchObject({ reward: 0.25, 'pass@1': 0.25, 'pass@2': 0.5, 'pass@4': 1, 'mean@4': 0.25 });
    expect(summary.metrics.metrics.answer).toBeUndefined();
    const file = JSON.parse(readFileSync(join(dir, 'out_metrics.json'), 'utf8'));
    expect(file).toMatchObject({ rollouts: 20, tasks: 5, failures: 0, metrics: { 'pass@4': 1 }, agents: { quiz: { rollouts: 20 } } });
    expect(existsSync(join(dir, 'out_failures.jsonl'))).toBe(false);
  });

  it('routes each row by its agent_ref, with metrics per agent', async () => {
    const model = scriptedModel(({ input }) => [assistantMessage(questionOf(input as never).replace('q', 'a'))]);
    gym = await startInProcessGym({ config: gymConfig(['left', 'right']), definitions: { policy_model: model.definition, left_env: quiz, right_env: quiz } });
    const dir = folder();
    const input = rows(6, (index) => ({ agent_ref: { type: 'responses_api_agents', name: index % 2 === 0 ? 'left' : 'right' } }));
    const summary = await collectRollouts({ client: gym.client, input: writeJsonl(join(dir, 'in.jsonl'), input), outputPath: join(dir, 'out.jsonl') }).done();
    const output = readJsonlRows(join(dir, 'out.jsonl'));
    expect(output.map((row) => [row._ng_task_index % 2 === 0 ? 'left' : 'right', row.agent_ref.name]).every(([expected, got]) => expected === got)).toBe(true);
    expect(summary.metrics.agents).toMatchObject({ left: { rollouts: 3, metrics: { reward: 1 } }, right: { rollouts: 3, metrics: { reward: 1 } } });
  });

  it('routes as upstream 0.7.0: agent_map, fan_out with per-agent repeats, seeds per rollout, repeats interleaved', async () => {
    const model = scriptedModel(({ input }) => [assistantMessage(questionOf(input as never).replace('q', 'a'))]);
    gym = await startInProcessGym({ config: gymConfig(['left', 'right']), definitions: { policy_model: model.definition, left_env: quiz, right_env: quiz } });
    const dir = folder();
    const input = writeJsonl(join(dir, 'in.jsonl'), [
      { ...rows(1)[0], agent_ref: { name: 'both' } },
      { ...rows(2)[1], agent_ref: { name: 'old' } },
    ]);
    const warnings: string[] = [];
    const summary = await collectRollouts({
      client: gym.client,
      input,
      outputPath: join(dir, 'out.jsonl'),
      agentMap: { old: 'right' },
      fanOut: { both: ['left', 'right'] },
      numRepeats: { left: 1, right: 2 },
      numRepeatsAddSeed: true,
      interleaveRepeats: true,
      concurrency: 1,
      warn: (message) => warnings.push(message),
    }).done();
    expect(summary.invalidInputs).toEqual([]);
    const output = readJsonlRows(join(dir, 'out.jsonl'));
    const key = (row: Record<string, unknown>) => `${(row.agent_ref as { name: string }).name}:${row._ng_task_index}/${row._ng_rollout_index}`;
    expect(output.map(key).sort()).toEqual(['left:0/0', 'right:0/1', 'right:0/2', 'right:1/0', 'right:1/1']);
    expect(output.every((row) => row.reward === 1)).toBe(true);
    // By rollout index, each in input order (upstream's stable sort by _ng_rollout_index); the seed is that index.
    expect(model.calls.map((call) => `${questionOf(call.input as never)}:${JSON.parse(String(call.params.metadata?.extra_body)).seed}`)).toEqual(['q0:0', 'q1:0', 'q0:1', 'q1:1', 'q0:2']);
    expect(warnings).toEqual([expect.stringContaining("[('old', 'right')]")]);
  });

  it('refuses, before anything is written, an agent_map or fan_out naming an agent the gym lacks, in upstream words', async () => {
    const model = scriptedModel(() => [assistantMessage('a0')]);
    gym = await startInProcessGym({ config: gymConfig(['quiz']), definitions: { policy_model: model.definition, quiz_env: quiz } });
    const dir = folder();
    const input = writeJsonl(join(dir, 'in.jsonl'), rows(1, () => ({ agent_ref: { name: 'quiz' } })));
    await expect(collectRollouts({ client: gym.client, input, outputPath: join(dir, 'out.jsonl'), fanOut: { quiz: ['quiz', 'qiuz'] } }).done()).rejects.toThrow(
      "Rows reference agents not present in the running config: 'qiuz' (did you mean 'quiz'?) [fan_out.quiz]. Include the agent's config in the run, or re-route with +agent_map/+agent_name.",
    );
    await expect(collectRollouts({ client: gym.client, input, outputPath: join(dir, 'out.jsonl'), agentName: 'quiz_env' }).done()).rejects.toThrow(
      "'quiz_env' (exists but is not an agent instance)",
    );
    expect(existsSync(join(dir, 'out.jsonl'))).toBe(false);
    expect(model.calls).toHaveLength(0);
  });

  it('with routeFailuresToSidecar=false, the first failure is recorded and stops the run (upstream default ends it)', async () => {
    const model = scriptedModel(({ input }) => {
      if (questionOf(input as never) === 'q1') throw new Error('down for q1');
      return [assistantMessage('a')];
    });
    gym = await startInProcessGym({ config: gymConfig(['quiz']), definitions: { policy_model: model.definition, quiz_env: quiz } });
    const dir = folder();
    const summary = await collectRollouts({
      client: gym.client,
      input: writeJsonl(join(dir, 'in.jsonl'), rows(4)),
      outputPath: join(dir, 'out.jsonl'),
      agentName: 'quiz',
      concurrency: 1,
      maxRetries: 0,
      routeFailuresToSidecar: false,
    }).done();
    expect([summary.completed, summary.failed, summary.notStarted]).toEqual([1, 1, 2]);
    expect(summary.stoppedBecause).toMatch(/route_failures_to_sidecar is false/);
    expect(readJsonlRows(join(dir, 'out_failures.jsonl'))).toHaveLength(1);
  });

  it('dispatch_budget_s: no rollout starts once the budget (less the drain margin) is spent; those write nothing and resume runs them', async () => {
    const model = scriptedModel(({ input }) => [assistantMessage(questionOf(input as never).replace('q', 'a'))]);
    gym = await startInProcessGym({ config: gymConfig(['quiz']), definitions: { policy_model: model.definition, quiz_env: quiz } });
    const dir = folder();
    const options = { client: gym.client, input: writeJsonl(join(dir, 'in.jsonl'), rows(3)), outputPath: join(dir, 'out.jsonl'), agentName: 'quiz', concurrency: 2 };
    await expect(collectRollouts({ ...options, concurrency: null, dispatchBudgetSeconds: 60 }).done()).rejects.toThrow(
      'dispatch_budget_s requires a finite positive num_samples_in_parallel',
    );
    const warnings: string[] = [];
    const drained = await collectRollouts({ ...options, dispatchBudgetSeconds: 3600, drainMarginSeconds: 7200, warn: (message) => warnings.push(message) }).done();
    expect([drained.completed, drained.notStarted]).toEqual([0, 3]);
    expect(drained.stoppedBecause).toMatch(/s left in dispatch budget, below the 7200s drain margin/);
    expect(warnings[0]).toBe('Dispatch budget: 60 min. New rollouts stop being dispatched with under 120 min left.');
    expect(readJsonlRows(join(dir, 'out.jsonl'))).toEqual([]);
    expect(existsSync(join(dir, 'out_failures.jsonl'))).toBe(false);
    const resumed = await collectRollouts({ ...options, resume: true, dispatchBudgetSeconds: 3600 }).done();
    expect([resumed.completed, resumed.notStarted]).toEqual([3, 0]);
  });

  it('writes in (task, rollout) order with ordered, even when early tasks finish last', async () => {
    const model = scriptedModel(async ({ input }) => {
      const question = questionOf(input as never);
      // Task 0 answers only after every other task has been answered.
      if (question === 'q0') while (model.calls.length < 8) await new Promise((resolve) => setImmediate(resolve));
      return [assistantMessage('x')];
    });
    gym = await startInProcessGym({ config: gymConfig(['quiz']), definitions: { policy_model: model.definition, quiz_env: quiz } });
    const dir = folder();
    const input = writeJsonl(join(dir, 'in.jsonl'), rows(4));
    await collectRollouts({ client: gym.client, input, outputPath: join(dir, 'ordered.jsonl'), agentName: 'quiz', numRepeats: 2, concurrency: 8, ordered: true }).done();
    const keys = readJsonlRows(join(dir, 'ordered.jsonl')).map((row) => [row._ng_task_index, row._ng_rollout_index]);
    expect(keys).toEqual([[0, 0], [0, 1], [1, 0], [1, 1], [2, 0], [2, 1], [3, 0], [3, 1]]);

    model.calls.length = 0;
    await collectRollouts({ client: gym.client, input, outputPath: join(dir, 'completion.jsonl'), agentName: 'quiz', numRepeats: 2, concurrency: 8 }).done();
    const completion = readJsonlRows(join(dir, 'completion.jsonl')).map((row) => row._ng_task_index);
    expect(completion.slice(-2)).toEqual([0, 0]);
  });

  it('retries failures, then records them apart from the output; a refused row is not retried', async () => {
    let judgeCalls = 0;
    const flaky = defineResourcesServer({
      className: 'Flaky',
      verify: (request) => {
        const question = questionOf(request.responses_create_params.input as never);
        if (question === 'q1') {
          judgeCalls++;
          throw new NgymError('NGYM_JUDGE_FAILED', 'judge model unavailable', { status: 502, retryable: true });
        }
        return { reward: 1 };
      },
    });
    const model = scriptedModel(() => [assistantMessage('ok')]);
    gym = await startInProcessGym({ config: gymConfig(['quiz']), definitions: { policy_model: model.definition, quiz_env: flaky } });
    const dir = folder();
    const input = [...rows(3), { responses_create_params: { input: 'q3', seed: 7 }, answer: 'a3' }];
    const summary = await collectRollouts({
      client: gym.client,
      input: writeJsonl(join(dir, 'in.jsonl'), input),
      outputPath: join(dir, 'out.jsonl'),
      agentName: 'quiz',
      maxRetries: 2,
      retryDelayMs: 1,
    }).done();
    expect(judgeCalls).toBe(3);
    expect(summary).toMatchObject({ completed: 2, failed: 2, failuresByClass: { judge_failed: 1, rejected: 1 } });
    expect(readJsonlRows(join(dir, 'out.jsonl')).map((row) => row._ng_task_index).sort()).toEqual([0, 2]);
    const failures = readJsonlRows(join(dir, 'out_failures.jsonl'));
    expect(failures).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ _ng_task_index: 1, _ng_failure_class: 'judge_failed', attempts: 3, code: 'NGYM_JUDGE_FAILED', input_line: 2 }),
        expect.objectContaining({ _ng_task_index: 3, _ng_failure_class: 'rejected', attempts: 1, status: 422 }),
      ]),
    );
  });

  it('reports malformed and unroutable lines by number, skips them, and keeps going', async () => {
    const model = scriptedModel(() => [assistantMessage('a0')]);
    gym = await startInProcessGym({ config: gymConfig(['quiz']), definitions: { policy_model: model.definition, quiz_env: quiz } });
    const dir = folder();
    // No +agent_name: it would re-route line 5 to its agent (as upstream's does).
    const routed = { ...rows(1)[0], agent_ref: { name: 'quiz' } };
    const input = writeJsonl(join(dir, 'in.jsonl'), [
      routed,
      '{"responses_create_params": ',
      '[1, 2]',
      { answer: 'no params' },
      { responses_create_params: { input: 'x' }, agent_ref: { name: 'nobody' } },
      routed,
    ]);
    const summary = await collectRollouts({ client: gym.client, input, outputPath: join(dir, 'out.jsonl') }).done();
    expect(summary.invalidInputs.map((invalid) => invalid.line)).toEqual([2, 3, 4, 5]);
    expect(summary.invalidInputs[0]?.reason).toMatch(/not valid JSON/);
    expect(summary.invalidInputs[3]?.reason).toMatch(/No server named 'nobody'/);
    // Lines 1 and 6 are identical but not consecutive: two tasks.
    expect(summary.completed).toBe(2);
  });

  it('treats consecutive identical lines as one task with more rollouts', async () => {
    const model = scriptedModel(() => [assistantMessage('a0')]);
    gym = await startInProcessGym({ config: gymConfig(['quiz']), definitions: { policy_model: model.definition, quiz_env: quiz } });
    const dir = folder();
    const [row] = rows(1);
    const input = writeJsonl(join(dir, 'in.jsonl'), [row, row, row, rows(2)[1]]);
    await collectRollouts({ client: gym.client, input, outputPath: join(dir, 'out.jsonl'), agentName: 'quiz', numRepeats: 2 }).done();
    const keys = readJsonlRows(join(dir, 'out.jsonl')).map((entry) => `${entry._ng_task_index}/${entry._ng_rollout_index}`).sort();
    expect(keys).toEqual(['0/0', '0/1', '0/2', '0/3', '0/4', '0/5', '1/0', '1/1']);
  });

  it('refuses to append to an existing output, and to resume with a different input', async () => {
    const model = scriptedModel(() => [assistantMessage('a0')]);
    gym = await startInProcessGym({ config: gymConfig(['quiz']), definitions: { policy_model: model.definition, quiz_env: quiz } });
    const dir = folder();
    const input = writeJsonl(join(dir, 'in.jsonl'), rows(2));
    const options = { client: gym.client, input, outputPath: join(dir, 'out.jsonl'), agentName: 'quiz' };
    await collectRollouts(options).done();
    await expect(collectRollouts(options).done()).rejects.toThrow(/already exists\. Pass \+resume=true .* or \+overwrite=true/);
    await expect(collectRollouts({ ...options, resume: true, numRepeats: 2 }).done()).rejects.toThrow(/Cannot resume: num_repeats was 1, now 2/);
    appendFileSync(input, `${JSON.stringify(rows(3)[2])}\n`);
    await expect(collectRollouts({ ...options, resume: true }).done()).rejects.toThrow(/changed since the run started/);
    const staleAggregate = writeJsonl(join(dir, 'out_aggregate_metrics.json'), []);
    const again = await collectRollouts({ ...options, overwrite: true }).done();
    expect(again.completed).toBe(3);
    expect(existsSync(staleAggregate), 'a run started over removes the last run\'s aggregate metrics').toBe(false);
  });

  it('resumes: skips what is done, cuts a torn last line, and retries earlier failures', async () => {
    const model = scriptedModel(({ input }) => [assistantMessage(questionOf(input as never).replace('q', 'a'))]);
    gym = await startInProcessGym({ config: gymConfig(['quiz']), definitions: { policy_model: model.definition, quiz_env: quiz } });
    const dir = folder();
    const input = writeJsonl(join(dir, 'in.jsonl'), rows(4));
    const options = { client: gym.client, input, outputPath: join(dir, 'out.jsonl'), agentName: 'quiz', numRepeats: 2 };
    await collectRollouts(options).done();
    // Pretend the run died: keep three whole rows and a torn fourth.
    const lines = readFileSync(join(dir, 'out.jsonl'), 'utf8').split('\n');
    writeFileSync(join(dir, 'out.jsonl'), `${lines.slice(0, 3).join('\n')}\n${(lines[3] ?? '').slice(0, 40)}`);
    writeJsonl(join(dir, 'out_failures.jsonl'), [{ _ng_task_index: 9, _ng_rollout_index: 0, _ng_failure_class: 'timeout' }]);
    model.calls.length = 0;
    const summary = await collectRollouts({ ...options, resume: true }).done();
    expect(summary).toMatchObject({ skipped: 3, completed: 5, failed: 0 });
    expect(model.calls).toHaveLength(5);
    const keys = readJsonlRows(join(dir, 'out.jsonl')).map((row) => `${row._ng_task_index}/${row._ng_rollout_index}`);
    expect(new Set(keys).size).toBe(8);
    expect(keys).toHaveLength(8);
    expect(summary.metrics.rollouts).toBe(8);
    expect(existsSync(join(dir, 'out_failures.jsonl'))).toBe(false);
  });

  it('on resume keeps a failure stamped _ng_failure_terminal failed, retries the others with _ng_attempt_index, and retryTerminalTimeouts retries a terminal timeout', async () => {
    const model = scriptedModel(({ input }) => [assistantMessage(questionOf(input as never).replace('q', 'a'))]);
    gym = await startInProcessGym({ config: gymConfig(['quiz']), definitions: { policy_model: model.definition, quiz_env: quiz } });
    const dir = folder();
    const options = { client: gym.client, input: writeJsonl(join(dir, 'in.jsonl'), rows(3)), outputPath: join(dir, 'out.jsonl'), agentName: 'quiz' };
    await collectRollouts(options).done();
    // An earlier run's agent reported task 1 as its own terminal timeout, and task 2 failed retryably on its second attempt.
    const kept = readJsonlRows(join(dir, 'out.jsonl')).filter((row) => row._ng_task_index === 0);
    writeJsonl(join(dir, 'out.jsonl'), kept);
    const terminal = { _ng_task_index: 1, _ng_rollout_index: 0, agent_ref: { name: 'quiz' }, _ng_failure_class: 'timeout_exceeded', _ng_failure_terminal: true, elapsed_seconds: 40 };
    writeJsonl(join(dir, 'out_failures.jsonl'), [terminal, { _ng_task_index: 2, _ng_rollout_index: 0, _ng_failure_class: 'server_error', _ng_attempt_index: 1 }]);
    model.calls.length = 0;
    const warnings: string[] = [];
    const gated = await collectRollouts({ ...options, resume: true, warn: (message) => warnings.push(message) }).done();
    expect(gated).toMatchObject({ skipped: 1, completed: 1, terminal: 1, failed: 0 });
    expect(model.calls.map((call) => questionOf(call.input as never))).toEqual(['q2']);
    expect(readJsonlRows(join(dir, 'out.jsonl')).find((row) => row._ng_task_index === 2)?._ng_attempt_index).toBe(2);
    expect(readJsonlRows(join(dir, 'out_failures.jsonl'))).toEqual([terminal]);
    expect(warnings.join('\n')).toMatch(/1 rollouts failed terminally in an earlier run/);

    const retried = await collectRollouts({ ...options, resume: true, retryTerminalTimeouts: true, warn: () => {} }).done();
    expect(retried).toMatchObject({ skipped: 2, completed: 1, terminal: 0 });
    expect(readJsonlRows(join(dir, 'out.jsonl')).find((row) => row._ng_task_index === 1)?._ng_attempt_index).toBe(1);
    expect(existsSync(join(dir, 'out_failures.jsonl'))).toBe(false);
  });

  it('with retryInvalidJudgeResponses, a resume takes rows flagged invalid_judge_response out of the output and runs them again', async () => {
    const model = scriptedModel(({ input }) => [assistantMessage(questionOf(input as never).replace('q', 'a'))]);
    gym = await startInProcessGym({ config: gymConfig(['quiz']), definitions: { policy_model: model.definition, quiz_env: quiz } });
    const dir = folder();
    const output = join(dir, 'out.jsonl');
    const options = { client: gym.client, input: writeJsonl(join(dir, 'in.jsonl'), rows(3)), outputPath: output, agentName: 'quiz' };
    await collectRollouts(options).done();
    // An older verifier wrote task 1's unparseable judge reply as a success scored 0; the last line is torn.
    const flagged = readJsonlRows(output).map((row) => (row._ng_task_index === 1 ? { ...row, reward: 0, invalid_judge_response: true } : row));
    writeFileSync(output, `${flagged.map((row) => JSON.stringify(row)).join('\n')}\n{"_ng_task_in`);
    model.calls.length = 0;
    const warnings: string[] = [];
    const untouched = await collectRollouts({ ...options, resume: true, warn: (message) => warnings.push(message) }).done();
    expect(untouched).toMatchObject({ skipped: 3, completed: 0 });
    const summary = await collectRollouts({ ...options, resume: true, retryInvalidJudgeResponses: true, warn: (message) => warnings.push(message) }).done();
    expect(summary).toMatchObject({ skipped: 2, completed: 1 });
    expect(model.calls.map((call) => questionOf(call.input as never))).toEqual(['q1']);
    const rowsAfter = readJsonlRows(output);
    expect(rowsAfter.map((row) => [row._ng_task_index, row.reward, row.invalid_judge_response ?? false]).sort()).toEqual([
      [0, 1, false],
      [1, 1, false],
      [2, 1, false],
    ]);
    expect(warnings).toContain(`retry_invalid_judge_responses: 1 rows flagged invalid_judge_response left ${output} and run again.`);
  });

  it("asks each agent for /aggregate_metrics: upstream's profile, with an environment's own figures", async () => {
    const received: Record<string, unknown>[][][] = [];
    const aggregating = defineResourcesServer({
      className: 'Aggregating',
      verify: () => ({ reward: 1, tokens_used: 3 }),
      computeMetrics: (tasks) => {
        received.push(tasks);
        return { rollouts_seen: tasks.flat().length };
      },
      getKeyMetrics: (agentMetrics) => ({ rollouts_seen: agentMetrics.rollouts_seen }),
    });
    const model = scriptedModel(() => [assistantMessage('a')]);
    gym = await startInProcessGym({ config: gymConfig(['agg', 'plain']), definitions: { policy_model: model.definition, agg_env: aggregating, plain_env: quiz } });
    const dir = folder();
    const input = rows(4, (index) => ({ agent_ref: { name: index < 2 ? 'agg' : 'plain' } }));
    const summary = await collectRollouts({ client: gym.client, input: writeJsonl(join(dir, 'in.jsonl'), input), outputPath: join(dir, 'out.jsonl'), numRepeats: 2 }).done();
    expect(summary.aggregateMetrics).toMatchObject({
      agg: { key_metrics: { rollouts_seen: 4 }, agent_metrics: { 'mean/reward': 1, 'mean/tokens_used': 3, num_repeats: 2 } },
      plain: { key_metrics: { 'mean/reward': expect.any(Number) }, agent_metrics: { num_repeats: 2 } },
    });
    const sent = received.at(-1) ?? [];
    expect(sent).toHaveLength(2);
    expect(sent[0]?.[0]).toMatchObject({ reward: 1, tokens_used: 3, _ng_task_index: expect.any(Number), response: { usage: null } });
    expect(sent[0]?.[0]).not.toHaveProperty('responses_create_params');
    expect(JSON.parse(readFileSync(join(dir, 'out_metrics.json'), 'utf8')).aggregate_metrics.agg.agent_metrics.rollouts_seen).toBe(4);
  });

  it('yields outcomes to a consumer as they complete, without any file', async () => {
    const model = scriptedModel(({ input }) => [assistantMessage(questionOf(input as never).replace('q', 'a'))]);
    gym = await startInProcessGym({ config: gymConfig(['quiz']), definitions: { policy_model: model.definition, quiz_env: quiz } });
    const collection = collectRollouts({ client: gym.client, input: rows(3), agentName: 'quiz', numRepeats: 2, concurrency: 2 });
    const outcomes: RolloutOutcome[] = [];
    for await (const outcome of collection) outcomes.push(outcome);
    expect(outcomes).toHaveLength(6);
    expect(outcomes.every((outcome) => outcome.status === 'completed' && outcome.result.reward === 1)).toBe(true);
    expect((await collection.done()).metrics.metrics['pass@2']).toBe(1);
  });

  it('stops starting rollouts when the agent becomes unreachable, recording the failure', async () => {
    const model = scriptedModel(async ({ index, input }) => {
      if (index === 3) await gym?.servers.get('quiz')?.close(0);
      return [assistantMessage(questionOf(input as never).replace('q', 'a'))];
    });
    gym = await startInProcessGym({ config: gymConfig(['quiz']), definitions: { policy_model: model.definition, quiz_env: quiz } });
    const dir = folder();
    const summary = await collectRollouts({
      client: gym.client,
      input: writeJsonl(join(dir, 'in.jsonl'), rows(50)),
      outputPath: join(dir, 'out.jsonl'),
      agentName: 'quiz',
      concurrency: 1,
      maxRetries: 1,
      retryDelayMs: 1,
    }).done();
    expect(summary.completed).toBe(3);
    expect(summary.failuresByClass.connection).toBeGreaterThanOrEqual(1);
    expect(summary.notStarted).toBeGreaterThan(40);
    expect(summary.stoppedBecause).toMatch(/agent 'quiz' is unreachable/);
    expect(readJsonlRows(join(dir, 'out.jsonl')).every((row) => row.reward === 1)).toBe(true);
  });

  it('reports an agent whose rollouts stop finishing, then records those in flight as stalled failures and stops (on_stall=stop)', async () => {
    // From the fourth question on, verify never answers: what a SIGSTOPped resources server looks like from outside.
    const release = await startFreezingGym((question) => Number(question.slice(1)) >= 3);
    const dir = folder();
    const warnings: string[] = [];
    const started = performance.now();
    try {
      const summary = await collectRollouts({
        client: gym!.client,
        input: writeJsonl(join(dir, 'in.jsonl'), rows(20)),
        outputPath: join(dir, 'out.jsonl'),
        agentName: 'quiz',
        concurrency: 1,
        stallTimeoutMs: 300,
        warn: (message) => warnings.push(message),
      }).done();
      expect(performance.now() - started).toBeLessThan(5000);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/^Stalled: no rollout of agent 'quiz' finished for \d+ s; 1 in flight/);
      expect(warnings[0]).toContain('on_stall=stop');
      expect(summary).toMatchObject({ completed: 3, failed: 1, failuresByClass: { stalled: 1 }, notStarted: 16 });
      expect(summary.stoppedBecause).toBe("agent 'quiz' stalled");
      expect(readJsonlRows(join(dir, 'out.jsonl')).map((row) => row.reward)).toEqual([1, 1, 1]);
      expect(readJsonlRows(join(dir, 'out_failures.jsonl'))).toEqual([
        expect.objectContaining({ _ng_task_index: 3, _ng_failure_class: 'stalled', attempts: 1, error: expect.stringMatching(/no rollout of agent 'quiz' finished for/) }),
      ]);
    } finally {
      release();
    }
  });

  it('with on_stall=report only reports, and the run finishes once the server answers again', async () => {
    const release = await startFreezingGym((question) => question === 'q1');
    const dir = folder();
    const collection = collectRollouts({
      client: gym!.client,
      input: writeJsonl(join(dir, 'in.jsonl'), rows(3)),
      outputPath: join(dir, 'out.jsonl'),
      agentName: 'quiz',
      concurrency: 1,
      stallTimeoutMs: 200,
      onStall: 'report',
      warn: (message) => {
        expect(message).toContain('on_stall=report');
        release();
      },
    });
    expect(await collection.done()).toMatchObject({ completed: 3, failed: 0 });
  });
});

describe('pass@k', () => {
  it('matches the unbiased estimator on known values', () => {
    expect(passAtK(4, 1, 1)).toBeCloseTo(0.25);
    expect(passAtK(4, 1, 2)).toBeCloseTo(0.5);
    expect(passAtK(4, 0, 4)).toBe(0);
    expect(passAtK(10, 3, 5)).toBeCloseTo(1 - 21 / 252);
    expect(passAtK(100, 1, 50)).toBeCloseTo(0.5);
    expect(() => passAtK(2, 1, 4)).toThrow(RangeError);
  });

  it('averages over tasks and agents from rollout rows', () => {
    const row = (task: number, rollout: number, reward: number, agent = 'a') => ({ _ng_task_index: task, _ng_rollout_index: rollout, agent_ref: { name: agent }, reward, ok: reward > 0 });
    const metrics = computeMetrics(
      [row(0, 0, 1), row(0, 1, 0), row(0, 2, 0), row(0, 3, 0), row(1, 0, 0), row(1, 1, 0), row(1, 2, 1), row(1, 3, 1), row(2, 0, 0.5, 'b'), row(2, 1, 1, 'b')],
      { numRepeats: 4 },
    );
    // Task 0: c=1 of 4; task 1: c=2 of 4; task 2 (two rollouts) counts for k<=2 only.
    expect(metrics.metrics['pass@1']).toBeCloseTo((0.25 + 0.5 + 0.5) / 3);
    expect(metrics.metrics['pass@4']).toBeCloseTo(1);
    expect(metrics.metrics['mean@1']).toBeCloseTo((1 + 0 + 0.5) / 3);
    expect(metrics.metrics.ok).toBeCloseTo(0.5);
    expect(metrics.agents.b?.metrics).toMatchObject({ reward: 0.75, 'pass@1': 0.5, 'pass@2': 1, 'mean@2': 0.75 });
  });

  it('keeps only open tasks in memory, and a mid-run result changes nothing', () => {
    const accumulator = new MetricsAccumulator({ numRepeats: 2 });
    const rows = Array.from({ length: 10_000 }, (_, task) => [0, 1].map((rollout) => ({ _ng_task_index: task, _ng_rollout_index: rollout, agent_ref: { name: 'a' }, reward: (task + rollout) % 3 === 0 ? 1 : 0 }))).flat();
    for (const [index, row] of rows.entries()) {
      accumulator.add(row);
      if (row._ng_rollout_index === 1) accumulator.closeTask(row._ng_task_index);
      if (index === 5_001) {
        expect(accumulator.openTasks).toBe(0);
        expect(accumulator.result().tasks).toBe(2_501);
      }
    }
    accumulator.add({ _ng_task_index: 10_000, _ng_rollout_index: 0, agent_ref: { name: 'a' }, reward: 1 });
    expect(accumulator.openTasks).toBe(1);
    const streamed = accumulator.result();
    expect(streamed).toEqual(accumulator.result());
    expect(streamed).toEqual(computeMetrics([...rows, { _ng_task_index: 10_000, _ng_rollout_index: 0, agent_ref: { name: 'a' }, reward: 1 }], { numRepeats: 2 }));
    expect(streamed.tasks).toBe(10_001);
    expect(streamed.metrics['pass@2']).toBeCloseTo(rows.filter((row) => row._ng_rollout_index === 0).reduce((sum, row) => sum + (row.reward || rows[2 * row._ng_task_index + 1]?.reward ? 1 : 0), 0) / 10_000);
  });
});
