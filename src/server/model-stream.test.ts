/**
 * streamAnswer: an answer ready within the keep-alive interval is one SSE body; a slower one commits the
 * stream with keep-alive comments; every failure after that (an error, an answer the dialect cannot write,
 * the request's time limit) ends the stream with the dialect's failure event; a request error known before
 * the commit stays an HTTP error.
 */
import { describe, expect, it } from 'vitest';
import { NgymError } from '../errors.ts';
import type { StreamFailure } from '../protocol/sse.ts';
import { silentLogger } from '../util/logger.ts';
import { createServerApp } from './http-app.ts';
import { SSE_KEEPALIVE, type StreamOptions, streamAnswer } from './model-stream.ts';

const dialect = {
  events: (answer: string) => {
    if (answer === 'unwritable') throw new NgymError('NGYM_UPSTREAM_BODY', 'cannot write that answer');
    return [`data: ${answer}\n\n`, 'data: [DONE]\n\n'];
  },
  failure: (failure: StreamFailure) => [`event: error\ndata: ${failure.status} ${failure.message}\n\n`],
};

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

function serve(answer: Promise<string>, options: Partial<StreamOptions> = {}) {
  const app = createServerApp({ className: 'Test', instanceName: 'test', logger: silentLogger });
  app.post('/', (http) => streamAnswer(http, answer, dialect, { logger: silentLogger, timeoutMs: null, ...options }));
  return app.request('/', { method: 'POST' });
}

async function readAll(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value, { stream: true });
  return text;
}

async function firstChunk(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const chunk = await reader.read();
  return new TextDecoder().decode(chunk.value);
}

describe('streamAnswer', () => {
  it('answers a quick answer as one event stream', async () => {
    const response = await serve(Promise.resolve('hello'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(await response.text()).toBe('data: hello\n\ndata: [DONE]\n\n');
  });

  it('keeps a slow answer alive with comments, then sends its events and ends', async () => {
    const answer = deferred<string>();
    const response = await serve(answer.promise, { keepaliveMs: 5 });
    expect(response.status).toBe(200);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(await firstChunk(reader)).toBe(SSE_KEEPALIVE);
    answer.resolve('late');
    const rest = await readAll(reader);
    expect(rest.replaceAll(SSE_KEEPALIVE, '')).toBe('data: late\n\ndata: [DONE]\n\n');
  });

  it('ends a committed stream with the failure event when the answer fails', async () => {
    const answer = deferred<string>();
    const response = await serve(answer.promise, { keepaliveMs: 5 });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(await firstChunk(reader)).toBe(SSE_KEEPALIVE);
    answer.reject(new NgymError('NGYM_UPSTREAM_BODY', 'the engine answered nonsense'));
    expect((await readAll(reader)).replaceAll(SSE_KEEPALIVE, '')).toBe('event: error\ndata: 500 the engine answered nonsense\n\n');
  });

  it("ends a committed stream at the request's time limit", async () => {
    const never = new Promise<string>(() => {});
    const response = await serve(never, { keepaliveMs: 5, timeoutMs: 20 });
    const text = (await response.text()).replaceAll(SSE_KEEPALIVE, '');
    expect(text).toBe('event: error\ndata: 504 Request timed out after 0.02 s\n\n');
  });

  it('a server error before the commit is still a failure event; an answer the dialect cannot write too', async () => {
    const failed = await serve(Promise.reject(new Error('backend down')));
    expect(failed.status).toBe(200);
    expect(await failed.text()).toBe('event: error\ndata: 500 backend down\n\n');
    const unwritable = await serve(Promise.resolve('unwritable'));
    expect(await unwritable.text()).toBe('event: error\ndata: 500 cannot write that answer\n\n');
  });

  it('a request error before the commit is the HTTP error it is', async () => {
    const response = await serve(Promise.reject(new NgymError('NGYM_INVALID_REQUEST', 'top_k: no such parameter', { status: 400 })));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ detail: 'top_k: no such parameter' });
  });

  it('stops when the client goes away, and the late answer goes nowhere', async () => {
    const answer = deferred<string>();
    const response = await serve(answer.promise, { keepaliveMs: 5 });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(await firstChunk(reader)).toBe(SSE_KEEPALIVE);
    await reader.cancel();
    answer.resolve('too late');
    // Let the late answer's handling run: enqueueing into the cancelled stream would throw there.
    await new Promise(setImmediate);
  });
});
