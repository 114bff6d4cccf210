/**
 * What answers on a dead server's ports while `ngym run` stops the gym it brought down: every request gets 503
 * with the death's error code (`x-ngym-error-code`) and message. A caller in the middle of a rollout (an agent
 * retrying its call) then fails with why, not with a refused connection, and the collector records the rollout
 * as that death (`server_oom_killed`, `server_heap_exhausted`, `server_died`; src/rollouts/failures.ts).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttp2Server, type Http2ServerRequest, type Http2ServerResponse, type Http2Session } from 'node:http2';
import type { Server as NetServer } from 'node:net';
import { ERROR_CODE_HEADER, type NgymErrorCode } from '../errors.ts';

export interface TombstoneAddress {
  host: string;
  port: number;
  /** The dead server's HTTP/2 port (TypeScript servers). */
  h2cPort?: number;
}

export interface Tombstone {
  close(): Promise<void>;
}

/** Serves the death on each of the dead server's ports that can still be had (nothing else took it). */
export async function serveTombstone(address: TombstoneAddress, code: NgymErrorCode, message: string): Promise<Tombstone> {
  const body = JSON.stringify({ detail: message });
  const answer = (_request: IncomingMessage | Http2ServerRequest, response: ServerResponse | Http2ServerResponse) => {
    response.writeHead(503, { 'content-type': 'application/json', [ERROR_CODE_HEADER]: code });
    response.end(body);
  };
  const http1 = createServer(answer);
  const http2 = createHttp2Server(answer);
  const sessions = new Set<Http2Session>();
  http2.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  const listening = (
    await Promise.all([listen(http1, address.host, address.port), address.h2cPort === undefined ? false : listen(http2, address.host, address.h2cPort)])
  ).some(Boolean);
  return {
    async close() {
      if (!listening) return;
      for (const session of sessions) session.destroy();
      http1.closeAllConnections();
      await Promise.all([close(http1), close(http2)]);
    },
  };
}

function listen(server: NetServer, host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen({ host, port }, () => resolve(true));
  });
}

function close(server: NetServer): Promise<void> {
  return new Promise((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
}
