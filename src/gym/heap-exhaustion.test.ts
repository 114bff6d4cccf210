import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { HeapExhaustionWatch, heapLimitOf, nodeFlagsOf } from './heap-exhaustion.ts';
import { describeEnd, OomKillWatch } from './server-memory.ts';

/** What Node 22 prints on stderr as it runs out of heap, before it aborts (trimmed). */
const V8_LAST_WORDS = [
  '',
  '<--- Last few GCs --->',
  '',
  '[2607:0x3e0fb000]      230 ms: Mark-Compact 60.6 (79.2) -> 51.3 (89.2) MB, pooled: 0 MB, 55.19 / 0.00 ms  (average mu = 0.528, current mu = 0.169) allocation failure; scavenge might not succeed',
  '',
  '<--- JS stacktrace --->',
  '',
  'FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory',
  '----- Native stack trace -----',
  '',
  ' 1: 0xe46bbe node::OOMErrorHandler(char const*, v8::OOMDetails const&) [node]',
  '',
].join('\n');

function watched(chunks: string[]): boolean {
  const watch = new HeapExhaustionWatch();
  for (const chunk of chunks) watch.write(chunk);
  return watch.exhausted;
}

describe('HeapExhaustionWatch', () => {
  it("recognises V8's report of heap exhaustion, in one chunk or split anywhere across two or many", () => {
    expect(watched([V8_LAST_WORDS])).toBe(true);
    for (let split = 1; split < V8_LAST_WORDS.length; split++) {
      expect(watched([V8_LAST_WORDS.slice(0, split), V8_LAST_WORDS.slice(split)]), `split at ${split}`).toBe(true);
    }
    expect(watched([...V8_LAST_WORDS])).toBe(true);
    expect(watched(['FATAL ERROR: Ineffective mark-compacts near heap l', 'imit Allocation failed'])).toBe(true);
  });

  it('ignores other output, however long, and keeps only a few characters of it', () => {
    const watch = new HeapExhaustionWatch();
    const line = 'FATAL ERROR: something else entirely; heap out of luck; JavaScript heap fine\n';
    for (let index = 0; index < 10_000; index++) watch.write(line);
    expect(watch.exhausted).toBe(false);
    expect((watch as unknown as { carry: string }).carry.length).toBeLessThanOrEqual(64);
    // Not words scattered across chunks that only meet in a bigger buffer.
    expect(watched(['JavaScript heap ', 'x'.repeat(100), 'out of memory'])).toBe(false);
  });

  it('sees a real Node child run out of heap: V8 says so on its stderr, then it aborts', async () => {
    const child = spawn(process.execPath, ['--max-old-space-size=24', '-e', "const held = []; for (;;) held.push({ index: held.length, label: 'x' + held.length });"], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const watch = new HeapExhaustionWatch();
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => watch.write(chunk));
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('close', (...end) => resolve(end)));
    expect({ code, signal }).toEqual({ code: null, signal: 'SIGABRT' });
    expect(watch.exhausted).toBe(true);
    const limit = heapLimitOf(nodeFlagsOf(child.spawnargs.slice(1), {}));
    expect(limit).toBe('24 MiB (--max-old-space-size=24)');
    const end = new OomKillWatch().end(code, signal, undefined, { limit, remedy: 'give it more heap' });
    expect(describeEnd(end, 'unexpectedly')).toBe('ran out of JavaScript heap (signal SIGABRT); its heap limit was 24 MiB (--max-old-space-size=24); give it more heap');
    expect(end.oomKilled).toBe(false);
  });
});

describe('heapLimitOf', () => {
  it('takes the last --max-old-space-size of NODE_OPTIONS then the command line, in either spelling', () => {
    expect(heapLimitOf(nodeFlagsOf(['--conditions=x'], { NODE_OPTIONS: '--max-old-space-size=512  --enable-source-maps' }))).toBe('512 MiB (--max-old-space-size=512)');
    expect(heapLimitOf(nodeFlagsOf(['--max_old_space_size=96'], { NODE_OPTIONS: '--max-old-space-size=512' }))).toBe('96 MiB (--max-old-space-size=96)');
    expect(heapLimitOf(nodeFlagsOf([], {}))).toBe("V8's default (no --max-old-space-size)");
    expect(heapLimitOf(['--max-old-space-size-x=3', '--max-semi-space-size=4'])).toBe("V8's default (no --max-old-space-size)");
  });
});
