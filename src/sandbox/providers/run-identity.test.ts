import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ownRunId, runIsAlive } from './run-identity.ts';

describe('runIsAlive', () => {
  const [host, pid, start] = ownRunId().split(':');

  it("counts this process's run alive, with or without a label after its start time", () => {
    expect(runIsAlive(ownRunId())).toBe(true);
    // Tests name several runs of one process this way; reading the label as part of the start time made them look dead.
    expect(runIsAlive(`${ownRunId()}-docker-test`)).toBe(true);
  });

  it('counts a run dead when its pid is gone or belongs to a process started at another time', () => {
    expect(runIsAlive(`${host}:2147483646:1`)).toBe(false);
    expect(runIsAlive(`${host}:${pid}:${Number(start) + 1}`)).toBe(false);
    expect(runIsAlive(`${host}:${pid}:${Number(start) + 1}-docker-test`)).toBe(false);
  });

  it("counts runs of other hosts and ids of another shape alive, so nothing of theirs is reaped", () => {
    expect(runIsAlive(`not-${hostname()}:2147483646:1`)).toBe(true);
    expect(runIsAlive(`${host}:2147483646`)).toBe(true);
    expect(runIsAlive(`${host}:2147483646:label-only`)).toBe(true);
    expect(runIsAlive('anything')).toBe(true);
  });
});
