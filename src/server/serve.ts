/**
 * Listening sockets and graceful shutdown.
 *
 * Binding is separate from attaching an app: the launcher binds a port (port 0 gives a free one), keeps the
 * socket and hands it to the child process that serves it, so no other process can take the port in
 * between. That makes allocation race-free, unlike upstream's probe-then-close.
 *
 * A server answers HTTP/1.1 on its port, which Python clients and trainers use, and, when asked, cleartext
 * HTTP/2 on a second port (`h2c_port` in its config). ngym clients send requests beyond a pool of HTTP/1.1
 * connections over multiplexed HTTP/2 sessions there (256 requests each), so tens of thousands in flight never
 * need tens of thousands of sockets (see src/client/http-client.ts). Each protocol has its own native
 * listener: sharing one port would mean reading the first bytes to tell them apart, and HTTP/2 would then
 * have to read through a JavaScript stream, a tenth of a server's CPU in a burst.
 */
import { createServer, type Server } from 'node:http';
import { createServer as createHttp2Server, type Http2Session } from 'node:http2';
import type { AddressInfo, Server as NetServer, Socket } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { Hono } from 'hono';
import { formatHost } from '../config/global-config.ts';
import { HTTP2_LIMITS } from '../util/http2-limits.ts';

/** How long a client may take to send a whole request (headers and body); `body_read_timeout_seconds`. */
export const DEFAULT_BODY_READ_TIMEOUT_SECONDS = 300;

/** Where to listen: an address, or a socket bound by another process (the launcher). */
type Listener = { host: string; port: number } | { handle: NetServer; host: string };

interface BindOptions {
  http: Listener;
  /** Also serve cleartext HTTP/2 (for ngym clients' overflow traffic). */
  h2c?: Listener;
}

export type ListenTarget = Listener | BindOptions;

export interface BoundServer {
  readonly server: Server;
  readonly host: string;
  readonly port: number;
  /** The HTTP/2 port, when the server has one. */
  readonly h2cPort: number | undefined;
  readonly url: string;
  attach(app: Pick<Hono, 'fetch'>): void;
  /** Stops accepting, lets in-flight requests finish for up to `graceMs`, then closes every connection. */
  close(graceMs?: number): Promise<void>;
}

function listen(server: NetServer, listener: Listener): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    const onListening = () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    };
    if ('handle' in listener) server.listen(listener.handle, onListening);
    else server.listen({ port: listener.port, host: listener.host, backlog: 65_535 }, onListening);
  });
}

export async function bindServer(target: ListenTarget): Promise<BoundServer> {
  const options: BindOptions = 'http' in target ? target : { http: target };
  // Request time limits are checked once a second (Node's default is every 30 s).
  const http1 = createServer({ connectionsCheckingInterval: 1_000 });
  // Longer than clients' keep-alive, so the client side always closes idle sockets first.
  http1.keepAliveTimeout = 65_000;
  http1.headersTimeout = 66_000;
  // A body that trickles in (or never ends) is cut with 408 after this; hostServer sets the configured limit.
  http1.requestTimeout = DEFAULT_BODY_READ_TIMEOUT_SECONDS * 1000;
  const http2 =
    options.h2c === undefined
      ? undefined
      : createHttp2Server({
          maxSessionMemory: HTTP2_LIMITS.maxSessionMemoryMb,
          // Receive windows stay at HTTP/2's 64 KiB defaults: larger ones let both ends block writing (http2-limits.ts).
          settings: { maxConcurrentStreams: HTTP2_LIMITS.maxConcurrentStreams },
        });
  const sockets = new Set<Socket>();
  const sessions = new Set<Http2Session>();
  let inFlight = 0;
  let closing = false;
  let onIdle: (() => void) | undefined;

  http1.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  http2?.on('session', (session: Http2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  // Counts HTTP/1.1 requests in flight; while closing, answers with `Connection: close` so sockets drain.
  http1.prependListener('request', (_request, response) => {
    inFlight++;
    if (closing) response.setHeader('connection', 'close');
    response.once('close', () => {
      inFlight--;
      if (closing) {
        http1.closeIdleConnections();
        if (inFlight === 0) onIdle?.();
      }
    });
  });

  const host = options.http.host;
  const port = await listen(http1, options.http);
  const h2cPort = http2 === undefined || options.h2c === undefined ? undefined : await listen(http2, options.h2c);
  let attached = false;
  return {
    server: http1,
    host,
    port,
    h2cPort,
    url: `http://${formatHost(host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host)}:${port}`,
    attach(app) {
      if (attached) throw new Error('an app is already attached to this server');
      attached = true;
      const handle = getRequestListener(app.fetch);
      http1.on('request', handle);
      http2?.on('request', handle as never);
    },
    async close(graceMs = 5_000) {
      closing = true;
      const stopped = Promise.all([
        new Promise<void>((resolve) => http1.close(() => resolve())),
        http2 === undefined ? Promise.resolve() : new Promise<void>((resolve) => http2.close(() => resolve())),
      ]);
      for (const session of sessions) session.close();
      http1.closeIdleConnections();
      const drained = Promise.all([
        inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => (onIdle = resolve)),
        ...[...sessions].map((session) => new Promise((resolve) => session.once('close', resolve))),
      ]);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([drained, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
      clearTimeout(timer);
      for (const session of sessions) session.destroy();
      for (const socket of sockets) socket.destroy();
      await stopped;
    },
  };
}
