/**
 * `ngym <command> --help` in-process: the command's help, except after an action that answers help itself.
 */
import { describe, expect, it } from 'vitest';
import { captureOutput } from './gym/__fixtures__/captured-output.ts';
import { main } from './main.ts';

describe('ngym <command> --help', () => {
  const printed = captureOutput();

  it("prints the command's help wherever --help stands among its arguments", async () => {
    expect(await main(['sandbox', '--help'])).toBe(0);
    expect(printed.out).toContain('Usage: ngym sandbox');
    printed.out = '';
    expect(await main(['sandbox', 'list', '--help'])).toBe(0);
    expect(printed.out).toContain('Usage: ngym sandbox');
  });

  it('hands --help to an action that has its own (ngym sandbox image --help, which the sandbox help points to)', async () => {
    expect(await main(['sandbox', 'image', '--help'])).toBe(0);
    expect(printed.out).toContain('build --dockerfile FILE');
    expect(printed.out).not.toContain('Usage: ngym sandbox <list');
  });
});
