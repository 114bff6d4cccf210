/**
 * Server logs: pino JSON lines on stderr (stdout stays free for the CLI's human output), one child logger
 * per server instance. `NGYM_LOG_LEVEL` changes the level (default info; tests use silent).
 *
 * Writes are synchronous, as Node's own stderr writes to a pipe are: nothing is ever buffered, so pino registers
 * no flush-on-exit hook. That hook (sonic-boom's flushSync) retries a failed write forever, and a server whose
 * `ngym run` was killed writes to a pipe nobody reads (EPIPE): its `process.exit` never returned. A broken pipe
 * now turns the logger off instead.
 */
import { pino } from 'pino';

export type Logger = pino.Logger;

export function createLogger(name: string, level = process.env.NGYM_LOG_LEVEL ?? 'info'): Logger {
  return pino({ name, level, base: { server: name } }, pino.destination({ dest: 2, sync: true }));
}

export const silentLogger: Logger = pino({ level: 'silent' });
