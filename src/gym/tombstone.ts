/**
 * What answers on a dead server's ports while `ngym run` stops the gym it brought down: every request gets 503
 * with the death's error code (`x-ngym-error-code`) and message. A caller in the middle of a rollout (an agent
 * retrying its call) then fails with why, not with a refused connection, and the collector records the rollout
 * as that death (`server_oom_killed`, `server_heap_exhausted`, `server_died`; src/rollouts/failures.ts).
 * The ports are taken as soon as the death is seen, before its cause is known (the launcher waits for the dead
 * server's last output first): a caller's connection retries last about a second, and one that gives up on a
 * refused port fails its rollout as `connection` trouble instead of the death. Requests wait for the cause.
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
  /** False when none of the dead server's ports could be had (another process took them). */
  listening: boolean;
  close(): Promise<void>;
}

export interface Death {
  code: NgymErrorCode;
  message: string;
}

/** Serves the death on each of the dead server's ports that can still be had (nothing else took it); answers once `death` settles. */
export async function serveTombstone(address: TombstoneAddress, death: Promise<Death>): Promise<Tombstone> {
  const answered = death.then(({ code, message }) => ({ code, body: JSON.stringify({ detail: message }) }));
  const answer = (_request: IncomingMessage | Http2ServerRequest, response: ServerResponse | Http2ServerResponse) => {
    void answered.then(({ code, body }) => {
      // The caller may have hung up while the cause was being read.
      if ('stream' in response ? response.stream.destroyed : response.destroyed) return;
      response.writeHead(503, { 'content-type': 'application/json', [ERROR_CODE_HEADER]: code });
      response.end(body);
    });
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
    listening,
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
