/**
 * `ngym` started with an IPC channel (by a test, or a Node program that supervises it) ends when that parent goes
 * away, even by SIGKILL: the channel closes, and the process stops as on SIGTERM, each command its own clean way
 * (`ngym run` stops its servers, `ngym worker` finishes the jobs in hand), and is killed if that takes too long.
 * A process started without a channel (from a shell) is not affected.
 */
import { exitWithin } from '../util/exit-deadline.ts';

/** Longer than `ngym run` takes to stop its servers (their grace, then SIGKILL). */
const STOP_DEADLINE_MS = 30_000;

export function endWithParent(): void {
  if (process.channel === undefined) return;
  // The channel must not keep a command that has finished its work alive.
  process.channel.unref();
  const orphaned = () => {
    exitWithin(STOP_DEADLINE_MS);
    process.kill(process.pid, 'SIGTERM');
  };
  process.once('disconnect', orphaned);
  if (!process.connected) orphaned();
}
