import { afterEach, beforeEach, vi } from 'vitest';

export interface CapturedOutput {
  /** What the code under test wrote to stdout during the current test. */
  out: string;
  /** What it wrote to stderr. */
  err: string;
}

/** Captures stdout and stderr afresh for every test of the file (or describe block) that calls it. */
export function captureOutput(): CapturedOutput {
  const captured: CapturedOutput = { out: '', err: '' };
  beforeEach(() => {
    captured.out = '';
    captured.err = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((captured.out += String(chunk)), true));
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((captured.err += String(chunk)), true));
  });
  afterEach(() => vi.restoreAllMocks());
  return captured;
}
