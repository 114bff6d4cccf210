import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countedClassNames, failuresCountedAsZero, missingCountedAsZero, withTaskFields } from './counted-zeros.ts';

describe('counted zeros', () => {
  it("maps upstream's failure classes to ngym's and keeps other names as they are", () => {
    expect([...countedClassNames(['agent_run_error', 'timeout_exceeded'])].sort()).toEqual(['agent_run_error', 'invalid_result', 'judge_failed', 'rejected', 'server_error', 'timeout_exceeded']);
    expect([...countedClassNames(['agent_request_failed'])].sort()).toEqual(['agent_request_failed', 'connection', 'rate_limited', 'timeout']);
  });

  it("counts each rollout's last failure record of a named class as a 0, without ngym's diagnostics", async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'ngym-counted-')), 'out_failures.jsonl');
    const record = (task: number, failureClass: string, extra: object = {}) =>
      JSON.stringify({ _ng_task_index: task, _ng_rollout_index: 0, agent_ref: { name: 'a' }, _ng_failure_class: failureClass, error: 'boom', status: 500, code: null, attempts: 4, input_line: 3, failed_at: 'now', ...extra });
    writeFileSync(path, [record(0, 'server_error'), record(1, 'connection'), record(2, 'server_error'), record(2, 'stalled'), record(3, 'timeout_exceeded', { _ng_failure_terminal: true, elapsed_seconds: 40 })].join('\n') + '\n');
    const counted = await failuresCountedAsZero(path, countedClassNames(['agent_run_error', 'timeout_exceeded']));
    expect(counted.map((zero) => zero.row)).toEqual([
      { _ng_task_index: 0, _ng_rollout_index: 0, agent_ref: { name: 'a' }, mask_sample: false, reward: 0 },
      { _ng_task_index: 3, _ng_rollout_index: 0, agent_ref: { name: 'a' }, elapsed_seconds: 40, mask_sample: false, reward: 0 },
    ]);
    expect(await failuresCountedAsZero(path, countedClassNames([]))).toEqual([]);
  });

  it("gives a missing rollout its task's dataset fields that scored rows carry", () => {
    const zero = missingCountedAsZero(4, 1, 'a', { expected_answer: 'x', subset: 'hard', responses_create_params: { input: 'q' }, _private: 1 });
    expect(withTaskFields(zero, new Set(['expected_answer', 'responses_create_params', '_private', 'reward']))).toEqual({ _ng_task_index: 4, _ng_rollout_index: 1, agent_ref: { name: 'a' }, reward: 0, expected_answer: 'x' });
  });
});
