/**
 * A deadline for this process's exit that nothing in it can postpone. A timer on the main thread cannot fire
 * while the main thread is stuck in synchronous code (an exit hook retrying a write to a pipe whose reader died,
 * a native call that never returns), and a stuck main thread runs no signal handler either. So the deadline runs
 * on a worker thread, which has its own event loop: when it passes, the worker SIGKILLs the process.
 */
import { Worker } from 'node:worker_threads';

const WATCHDOG_SOURCE = `
const { workerData } = require('node:worker_threads');
setTimeout(() => process.kill(workerData.pid, 'SIGKILL'), workerData.delayMs);
`;

let armedUntil: number | undefined;

/**
 * Ends this process by SIGKILL `delayMs` from now unless it has exited by then. Arming again never extends an
 * earlier deadline. The watchdog holds no reference on the event loop: a process that finishes sooner exits as usual.
 */
export function exitWithin(delayMs: number): void {
  const deadline = Date.now() + delayMs;
  if (armedUntil !== undefined && armedUntil <= deadline) return;
  armedUntil = deadline;
  // execArgv []: the watchdog needs none of the parent's loaders (tsx), and starts in a few milliseconds without them.
  const watchdog = new Worker(WATCHDOG_SOURCE, { eval: true, workerData: { pid: process.pid, delayMs }, execArgv: [], stdout: true, stderr: true });
  watchdog.unref();
}
