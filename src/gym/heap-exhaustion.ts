/**
 * A Node process that runs out of JavaScript heap does not get SIGKILLed: V8 prints its last words on stderr
 * (`FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory`, or `Ineffective
 * mark-compacts near heap limit ...`) and aborts (SIGABRT). Without reading that stderr the death looks like any
 * crash. The watch reads a child's stderr as it streams by, keeping only a few characters between chunks, never
 * the stream; the heap limit a death report gives is the `--max-old-space-size` the child was started with.
 */

/** V8's messages on running out of heap; each fits in CARRY_CHARS. */
const HEAP_EXHAUSTED = /JavaScript heap out of memory|Reached heap limit|Ineffective mark-compacts near heap limit/;
/** Characters of one chunk kept for the next: longer than any message above, so one split across chunks is seen. */
const CARRY_CHARS = 64;
const MAX_OLD_SPACE = /^--max[-_]old[-_]space[-_]size=(\d+)$/;

/** Reads a process's stderr for V8's report of heap exhaustion. */
export class HeapExhaustionWatch {
  private carry = '';
  exhausted = false;

  write(chunk: string): void {
    if (this.exhausted) return;
    const text = this.carry + chunk;
    if (HEAP_EXHAUSTED.test(text)) {
      this.exhausted = true;
      this.carry = '';
      return;
    }
    this.carry = text.slice(-CARRY_CHARS);
  }
}

/** The Node flags a process started with: NODE_OPTIONS first, then its command line's (which win). */
export function nodeFlagsOf(execArgv: readonly string[], env: NodeJS.ProcessEnv = process.env): string[] {
  return [...(env.NODE_OPTIONS ?? '').split(/\s+/), ...execArgv].filter(Boolean);
}

/** `96 MiB (--max-old-space-size=96)` as the last such flag sets it, or `V8's default` when none does. */
export function heapLimitOf(nodeFlags: readonly string[]): string {
  const mebibytes = nodeFlags
    .map((flag) => MAX_OLD_SPACE.exec(flag)?.[1])
    .filter((value) => value !== undefined)
    .at(-1);
  return mebibytes === undefined ? "V8's default (no --max-old-space-size)" : `${mebibytes} MiB (--max-old-space-size=${mebibytes})`;
}
