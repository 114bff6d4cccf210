import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isTerminalFailure, PriorFailures, readPriorFailures } from './prior-failures.ts';

describe('isTerminalFailure', () => {
  it("follows the record's stamp, and with retry_terminal_timeouts retries timeouts and environment faults but not a skipped sample", () => {
    const timeout = { _ng_failure_class: 'timeout_exceeded', _ng_failure_terminal: true };
    expect(isTerminalFailure(timeout, false)).toBe(true);
    expect(isTerminalFailure(timeout, true)).toBe(false);
    expect(isTerminalFailure({ _ng_failure_class: 'eval_missing', _ng_failure_terminal: true }, true)).toBe(false);
    expect(isTerminalFailure({ _ng_failure_class: 'skipped' }, true)).toBe(true);
    expect(isTerminalFailure({ _ng_failure_class: 'skipped' }, false)).toBe(false);
    expect(isTerminalFailure({ _ng_failure_class: 'other', _ng_failure_terminal: true }, true)).toBe(true);
    expect(isTerminalFailure({ _ng_failure_class: 'server_error' }, false)).toBe(false);
  });
});

describe('readPriorFailures', () => {
  it('gates the terminal rollouts with their lines and gives each other one its next attempt index', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'ngym-prior-failures-')), 'out_failures.jsonl');
    const terminal = JSON.stringify({ _ng_task_index: 0, _ng_rollout_index: 1, _ng_failure_class: 'timeout_exceeded', _ng_failure_terminal: true });
    const retried = JSON.stringify({ _ng_task_index: 2, _ng_rollout_index: 0, _ng_failure_class: 'server_error', _ng_attempt_index: 2 });
    writeFileSync(path, `${terminal}\n${retried}\n{"torn": \n`);
    const prior = new PriorFailures();
    await readPriorFailures(path, prior, false);
    expect(prior.isTerminal(0, 1)).toBe(true);
    expect(prior.terminalLines).toEqual([terminal]);
    expect(prior.attemptOf(0, 1)).toBeUndefined();
    expect(prior.attemptOf(2, 0)).toBe(3);
    expect(prior.attemptOf(0, 0)).toBeUndefined();

    const asked = new PriorFailures();
    await readPriorFailures(path, asked, true);
    expect(asked.isTerminal(0, 1)).toBe(false);
    expect(asked.attemptOf(0, 1)).toBe(1);
  });
});
