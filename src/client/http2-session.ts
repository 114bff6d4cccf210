/**
 * Requests over cleartext HTTP/2 connections to one origin, used for what exceeds the HTTP/1.1 pool of an
 * ngym server; at most `HTTP2_LIMITS.streamsPerConnection` in flight on each connection, more connections as
 * needed. Written on node:http2 directly rather than undici's HTTP/2: Node limits each session's memory
 * (in-flight streams and queued request bodies count) to 10 MB unless told otherwise, undici does not let it
 * be raised, and past the limit the peer's streams are refused (ENHANCE_YOUR_CALM). Here the limit is
 * effectively lifted: what bounds memory is the number of requests in flight, which the caller controls.
 */
import { type ClientHttp2Session, connect, constants } from 'node:http2';
import { HTTP2_LIMITS } from '../util/http2-limits.ts';

export interface Http2Response {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface Http2RequestOptions {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | Buffer | undefined;
  /** Limit for the response to start and for each pause in it; 0 for none. */
  timeoutMs: number;
  signal?: AbortSignal;
}


export class Http2TimeoutError extends Error {
  override readonly name = 'Http2TimeoutError';
}

interface Connection {
  session: ClientHttp2Session;
  inFlight: number;
}

export class Http2Origin {
  private readonly connections: Connection[] = [];

  constructor(private readonly origin: string) {}

  /** A live connection with room for another stream, opened when none has. */
  private connection(): Connection {
    const open = this.connections.find(({ session, inFlight }) => inFlight < HTTP2_LIMITS.streamsPerConnection && !session.closed && !session.destroyed);
    if (open !== undefined) return open;
    const session = connect(this.origin, {
      maxSessionMemory: HTTP2_LIMITS.maxSessionMemoryMb,
      peerMaxConcurrentStreams: HTTP2_LIMITS.maxConcurrentStreams,
      settings: { enablePush: false, initialWindowSize: HTTP2_LIMITS.responseWindowBytes },
    });
    session.once('connect', () => session.setLocalWindowSize(4 * HTTP2_LIMITS.responseWindowBytes));
    const connection: Connection = { session, inFlight: 0 };
    // A failed or finished session is dropped; its streams fail on their own, new requests go elsewhere.
    const forget = () => this.forget(connection);
    session.on('error', forget);
    session.once('close', forget);
    session.once('goaway', forget);
    session.unref();
    this.connections.push(connection);
    return connection;
  }

  private forget(connection: Connection): void {
    const index = this.connections.indexOf(connection);
    if (index >= 0) this.connections.splice(index, 1);
  }

  /** A connection whose last stream ended: the first one stays open (unreferenced) for the next request; extra ones opened for a burst close. */
  private idle(connection: Connection): void {
    if (this.connections.indexOf(connection) > 0) {
      this.forget(connection);
      connection.session.close();
    } else connection.session.unref();
  }

  request(options: Http2RequestOptions): Promise<Http2Response> {
    return new Promise((resolve, reject) => {
      let connection: Connection;
      try {
        connection = this.connection();
      } catch (error) {
        reject(error);
        return;
      }
      const { session } = connection;
      // A session keeps the process alive only while it has requests in flight.
      if (connection.inFlight++ === 0) session.ref();
      const stream = session.request(
        { ':method': options.method, ':path': options.path, ...options.headers },
        { endStream: options.body === undefined, signal: options.signal },
      );
      const chunks: Buffer[] = [];
      let status = 0;
      let headers: Http2Response['headers'] = {};
      let settled = false;
      const finish = (error: Error | undefined) => {
        if (settled) return;
        settled = true;
        if (--connection.inFlight === 0) this.idle(connection);
        if (error !== undefined) reject(error);
        else resolve({ status, headers, text: chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8') });
      };
      if (options.timeoutMs > 0) {
        stream.setTimeout(options.timeoutMs, () => {
          stream.close(constants.NGHTTP2_CANCEL);
          finish(new Http2TimeoutError(`no answer for ${options.timeoutMs} ms`));
        });
      }
      stream.on('response', (responseHeaders) => {
        status = Number(responseHeaders[':status']);
        const { ':status': _status, ...rest } = responseHeaders;
        headers = rest as Http2Response['headers'];
      });
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.once('end', () => finish(undefined));
      stream.once('error', (error: Error) => finish(error));
      stream.once('close', () => {
        if (!settled) {
          // Marked as a stream error so the caller's retry policy treats it like a dropped connection.
          const error = Object.assign(new Error(`HTTP/2 stream closed before its response ended (code ${stream.rstCode})`), { code: 'ERR_HTTP2_STREAM_ERROR' });
          finish(error);
        }
      });
      if (options.body !== undefined) stream.end(options.body);
    });
  }

  close(): Promise<void> {
    const sessions = this.connections.splice(0).map((connection) => connection.session);
    return Promise.all(sessions.filter((session) => !session.closed).map((session) => new Promise<void>((resolve) => session.close(() => resolve())))).then(() => {});
  }
}
