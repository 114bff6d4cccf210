/**
 * Server logs: pino JSON lines on stderr (stdout stays free for the CLI's human output), one child logger
 * per server instance. `NGYM_LOG_LEVEL` changes the level (default info; tests use silent).
 */
import { pino } from 'pino';

export type Logger = pino.Logger;

export function createLogger(name: string, level = process.env.NGYM_LOG_LEVEL ?? 'info'): Logger {
  return pino({ name, level, base: { server: name } }, pino.destination({ dest: 2, sync: false }));
}

export const silentLogger: Logger = pino({ level: 'silent' });
