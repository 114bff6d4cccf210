import { type ClientRequest, type IncomingMessage, request as httpRequest } from 'node:http';
import { connect as http2Connect, constants as http2Constants } from 'node:http2';
import { Hono, type MiddlewareHandler } from 'hono';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type InProcessGym, startInProcessGym } from '../gym/in-process.ts';
import { MemoryGate } from '../util/memory-gate.ts';
import { admissionMiddleware } from './admission.ts';
import { requestTimeout } from './request-timeout.ts';
import { defineResourcesServer } from './resources-server.ts';
import { modelResponse } from './scripted-model.ts';
import { type BoundServer, bindServer } from './serve.ts';

const MIB = 2 ** 20;
const scorer = defineResourcesServer({ className: 'Scorer', verify: () => ({ reward: 1 }) });

let gym: InProcessGym | undefined;
afterEach(async () => {
  await gym?.close();
  gym = undefined;
});

function startScorer(memoryBudget: string | number): Promise<InProcessGym> {
  return startInProcessGym({
    config: { scorer: { resources_servers: { scorer: { entrypoint: 'app.ts', domain: 'other', memory_budget: memoryBudget } } } },
    definitions: { scorer },
  });
}

async function metric(server: InProcessGym, name: string): Promise<number> {
  const text = await (await fetch(server.url('scorer', '/metrics'))).text();
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
}

describe('admission by memory on a server', () => {
  it('holds a /verify while the process is over memory_budget, answers GET / meanwhile, and runs it once memory is freed', async () => {
    gym = await startScorer(`${Math.round(process.memoryUsage.rss() / MIB) + 64}MiB`);
    const verifyBody = { responses_create_params: { input: [] }, response: modelResponse([]) };
    // Resident, not just reserved: filled pages count in RSS.
    let ballast: Buffer | undefined = Buffer.alloc(160 * MIB, 1);
    let answered = false;
    const verify = fetch(gym.url('scorer', '/verify'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(verifyBody) }).then((response) => {
      answered = true;
      return response;
    });
    const started = Date.now();
    while ((await metric(gym, 'gym_admission_waiting')) !== 1) expect(Date.now() - started).toBeLessThan(10_000);
    expect((await fetch(gym.url('scorer', '/'))).status).toBe(200);
    expect(answered).toBe(false);
    expect(ballast.length).toBe(160 * MIB);
    // Garbage now: the server's own collection frees it, and the request goes on.
    ballast = undefined;
    const response = await verify;
    expect(response.status).toBe(200);
    expect(((await response.json()) as { reward: number }).reward).toBe(1);
    expect(await metric(gym, 'gym_admission_waits_total')).toBe(1);
    expect(await metric(gym, 'gym_admission_waiting')).toBe(0);
  });

  it('refuses at start a budget the server is already over, naming the key', async () => {
    await expect(startScorer('1MiB')).rejects.toThrow(/memory_budget: 1 MiB is below what server 'scorer' holds before any work \(\d+ MiB resident\): it could never admit anything/);
  });

  it('refuses a budget in bad units, naming the key', async () => {
    await expect(startScorer('2 gigs')).rejects.toThrow(/memory_budget.*'gigs' in '2 gigs' is not a unit/s);
    await expect(startScorer(2048)).rejects.toThrow(/memory_budget.*2048 has no unit/s);
  });
});

/** How long to poll for what the server does next (a loaded machine can be slow). */
const WAIT = { timeout: 10_000, interval: 5 };
/** A slot never given back wedges the server: the test fails after this rather than after the suite's minute. */
const TEST_TIMEOUT_MS = 20_000;

/** A body the test produces chunk by chunk, and whether the server cancelled it (its client went away). */
function controlledBody() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    start: (started) => {
      controller = started;
    },
    cancel: () => {
      cancelled = true;
    },
  });
  return {
    stream,
    send: (text: string) => controller.enqueue(new TextEncoder().encode(text)),
    end: () => controller.close(),
    fail: (error: Error) => controller.error(error),
    wasCancelled: () => cancelled,
  };
}

const eventStream = (stream: ReadableStream<Uint8Array>) => new Response(stream, { headers: { 'content-type': 'text/event-stream' } });

/** One request as a client sees it: its first chunk, its whole body, and hanging up. */
interface Call {
  firstChunk(): Promise<string>;
  text(): Promise<string>;
  hangUp(): void;
}

type Protocol = 'HTTP/1.1' | 'HTTP/2';

/** Reads a Node readable (a response or an HTTP/2 stream) as text; a connection cut short rejects. */
function readAll(readable: NodeJS.ReadableStream & NodeJS.EventEmitter): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    readable.setEncoding('utf8');
    readable.on('data', (chunk: string) => (text += chunk));
    readable.once('end', () => resolve(text));
    readable.once('aborted', () => reject(new Error('aborted')));
    readable.once('error', reject);
  });
}

function firstChunkOf(readable: NodeJS.EventEmitter & { setEncoding(encoding: 'utf8'): unknown; pause(): unknown }): Promise<string> {
  return new Promise((resolve) => {
    readable.setEncoding('utf8');
    readable.once('data', (chunk: string) => {
      readable.pause();
      resolve(chunk);
    });
  });
}

/** POSTs `path` on its own HTTP/1.1 connection. */
function postHttp1(baseUrl: string, path: string): Call {
  const request: ClientRequest = httpRequest(`${baseUrl}${path}`, { method: 'POST', agent: false });
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    request.once('response', resolve);
    request.once('error', reject);
  });
  response.catch(() => undefined);
  request.end();
  let first: Promise<string> | undefined;
  return {
    firstChunk: () => (first ??= response.then(firstChunkOf)),
    text: async () => {
      const answer = await response;
      const rest = readAll(answer);
      answer.resume();
      return (first === undefined ? '' : await first) + (await rest);
    },
    hangUp: () => request.destroy(),
  };
}

/** Opens one HTTP/2 session on the h2c port; each call is a stream of it. */
function http2Client(server: BoundServer) {
  const session = http2Connect(`http://127.0.0.1:${server.h2cPort}`);
  session.on('error', () => undefined);
  return {
    post(path: string): Call {
      const stream = session.request({ ':method': 'POST', ':path': path });
      stream.on('error', () => undefined);
      stream.end();
      let first: Promise<string> | undefined;
      return {
        firstChunk: () => (first ??= firstChunkOf(stream)),
        text: async () => {
          const rest = readAll(stream);
          stream.resume();
          return (first === undefined ? '' : await first) + (await rest);
        },
        hangUp: () => stream.close(http2Constants.NGHTTP2_CANCEL),
      };
    },
    close: () => session.close(),
  };
}

/** The servers (and their HTTP/2 clients) the test started, closed after it. */
const bound: { close(): Promise<void> }[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(bound.splice(0).map((server) => server.close()));
});

/**
 * Admission in front of routes named by the test, over a gate that lets one request in at a time once work has
 * started: idle at 60 MiB of a budget of 100, then 90 (one request's 30 stays resident), so a second request fits
 * only once the first has given its slot back. Counts each handler started and each slot given back.
 */
async function startGated(routes: Record<string, () => Response | Promise<Response>>, around: { before?: MiddlewareHandler; after?: MiddlewareHandler } = {}) {
  let working = false;
  const gate = new MemoryGate({ budgetBytes: 100 * MIB, residentBytes: () => (working ? 90 : 60) * MIB });
  const release = vi.spyOn(gate, 'release');
  const started: string[] = [];
  const app = new Hono();
  if (around.before !== undefined) app.use(around.before);
  app.use(admissionMiddleware(gate));
  if (around.after !== undefined) app.use(around.after);
  app.onError((error, context) => context.text(`failed: ${error.message}`, 500));
  app.post('/:name', (context) => {
    const name = context.req.param('name');
    working = true;
    started.push(name);
    const route = routes[name.replace(/-\d+$/, '')];
    if (route === undefined) throw new Error(`no route ${name}`);
    return route();
  });
  const server = await bindServer({ http: { host: '127.0.0.1', port: 0 }, h2c: { host: '127.0.0.1', port: 0 } });
  server.attach(app);
  const http2 = http2Client(server);
  bound.push({
    close: async () => {
      http2.close();
      await server.close(1_000);
    },
  });
  return {
    gate,
    started,
    releases: () => release.mock.calls.length,
    post: (protocol: Protocol, path: string) => (protocol === 'HTTP/1.1' ? postHttp1(server.url, path) : http2.post(path)),
    /** Resolves once `name` has either started or is waiting for the gate. */
    arrived: (name: string) =>
      vi.waitFor(() => {
        if (gate.waiting === 0 && !started.includes(name)) throw new Error(`${name} has not reached the gate yet`);
      }, WAIT),
  };
}

describe.each<Protocol>(['HTTP/1.1', 'HTTP/2'])('a streamed response and admission by memory (%s)', (protocol) => {
  it('holds its slot while its body is being sent: a second request waits, and starts once the stream ends', { timeout: TEST_TIMEOUT_MS }, async () => {
    const first = controlledBody();
    const server = await startGated({ first: () => eventStream(first.stream), second: () => new Response('done') });
    const streaming = server.post(protocol, '/first');
    first.send('data: 1\n\n');
    expect(await streaming.firstChunk()).toBe('data: 1\n\n');
    const second = server.post(protocol, '/second');
    await server.arrived('second');
    // The handler of the first has returned long ago; its body has not ended.
    expect(server.started).toEqual(['first']);
    expect(server.gate.waiting).toBe(1);
    expect(server.releases()).toBe(0);
    first.send('data: 2\n\n');
    first.end();
    expect(await streaming.text()).toBe('data: 1\n\ndata: 2\n\n');
    expect(await second.text()).toBe('done');
    expect(server.started).toEqual(['first', 'second']);
    await vi.waitFor(() => expect(server.releases()).toBe(2), WAIT);
    expect(server.gate.waiting).toBe(0);
  });

  it('frees the slot when the client disconnects mid-stream', { timeout: TEST_TIMEOUT_MS }, async () => {
    const first = controlledBody();
    const server = await startGated({ first: () => eventStream(first.stream), second: () => new Response('done') });
    const streaming = server.post(protocol, '/first');
    first.send('data: 1\n\n');
    await streaming.firstChunk();
    const second = server.post(protocol, '/second');
    await server.arrived('second');
    expect(server.started).toEqual(['first']);
    streaming.hangUp();
    expect(await second.text()).toBe('done');
    // The server stopped producing the body nobody reads.
    expect(first.wasCancelled()).toBe(true);
    await vi.waitFor(() => expect(server.releases()).toBe(2), WAIT);
  });

  it('gives the slot back when the caller hung up before admission was reached (its close already past)', { timeout: TEST_TIMEOUT_MS }, async () => {
    // A middleware ahead of admission that lets the first request on only once its caller has gone.
    let arrived!: () => void;
    const firstArrived = new Promise<void>((resolve) => (arrived = resolve));
    let hungUp!: () => void;
    const callerGone = new Promise<void>((resolve) => (hungUp = resolve));
    const server = await startGated(
      { first: () => new Response('unread'), second: () => new Response('done') },
      {
        before: async (context, next) => {
          if (context.req.path === '/first') {
            (context.env as { outgoing: NodeJS.EventEmitter }).outgoing.once('close', () => hungUp());
            arrived();
            await callerGone;
          }
          await next();
        },
      },
    );
    const first = server.post(protocol, '/first');
    await firstArrived;
    first.hangUp();
    await vi.waitFor(() => expect(server.started).toEqual(['first']), WAIT);
    await vi.waitFor(() => expect(server.releases()).toBe(1), WAIT);
    expect(await server.post(protocol, '/second').text()).toBe('done');
  });
});

describe('admission by memory and the time limit', () => {
  it('keeps the place of a request answered 504 until its handler, still running, ends', { timeout: TEST_TIMEOUT_MS }, async () => {
    let finish!: () => void;
    const handlerEnds = new Promise<void>((resolve) => (finish = resolve));
    const server = await startGated(
      {
        slow: async () => {
          await handlerEnds;
          return new Response('too late');
        },
        second: () => new Response('done'),
      },
      { after: requestTimeout(50) },
    );
    expect(await server.post('HTTP/1.1', '/slow').text()).toBe('failed: Request timed out after 0.05 s');
    const second = server.post('HTTP/1.1', '/second');
    await server.arrived('second');
    // The caller has its answer; the handler still holds what it allocated, so the second waits.
    expect(server.started).toEqual(['slow']);
    expect(server.gate.waiting).toBe(1);
    expect(server.releases()).toBe(0);
    finish();
    expect(await second.text()).toBe('done');
    await vi.waitFor(() => expect(server.releases()).toBe(2), WAIT);
  });
});

describe('admission by memory and responses that fail', () => {
  it('frees the slot when a streamed body fails mid-way, and when a handler throws', { timeout: TEST_TIMEOUT_MS }, async () => {
    const failures = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const first = controlledBody();
    const server = await startGated({
      first: () => eventStream(first.stream),
      throws: () => {
        throw new Error('the handler failed');
      },
      last: () => new Response('done'),
    });
    const streaming = server.post('HTTP/1.1', '/first');
    first.send('data: 1\n\n');
    await streaming.firstChunk();
    const throwing = server.post('HTTP/1.1', '/throws');
    await server.arrived('throws');
    expect(server.started).toEqual(['first']);
    first.fail(new Error('the model went away'));
    await expect(streaming.text()).rejects.toThrow();
    // The stream's failure cuts the connection (and is logged); the exception is answered with 500.
    expect(failures).toHaveBeenCalledWith(expect.objectContaining({ message: 'the model went away' }));
    await expect(throwing.text()).resolves.toBe('failed: the handler failed');
    expect(await server.post('HTTP/1.1', '/last').text()).toBe('done');
    expect(server.started).toEqual(['first', 'throws', 'last']);
    await vi.waitFor(() => expect(server.releases()).toBe(3), WAIT);
  });

  it('gives every slot back exactly once over a mix of answers, streams, hang-ups, failures and exceptions', { timeout: TEST_TIMEOUT_MS }, async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    // Requests whose work is under way (a handler running or a body being produced): never more than one.
    let active = 0;
    let overlaps = 0;
    const begin = () => {
      if (active > 0) overlaps++;
      active++;
    };
    const finish = () => {
      active--;
    };
    const produced = (chunks: number, ending: 'end' | 'fail' | 'hang') => {
      let sent = 0;
      return eventStream(
        new ReadableStream<Uint8Array>({
          pull: async (controller) => {
            await new Promise((resolve) => setImmediate(resolve));
            if (sent < chunks) {
              controller.enqueue(new TextEncoder().encode(`data: ${sent++}\n\n`));
              return;
            }
            if (ending === 'hang') return;
            finish();
            if (ending === 'end') controller.close();
            else controller.error(new Error('the model went away'));
          },
          cancel: finish,
        }),
      );
    };
    const server = await startGated({
      json: () => {
        begin();
        finish();
        return Response.json({ ok: true });
      },
      stream: () => (begin(), produced(3, 'end')),
      fails: () => (begin(), produced(1, 'fail')),
      hangs: () => (begin(), produced(1, 'hang')),
      throws: () => {
        begin();
        finish();
        throw new Error('the handler failed');
      },
    });
    const kinds = ['json', 'stream', 'fails', 'hangs', 'throws'];
    const calls = Array.from({ length: 20 }, (_, index) => {
      const kind = kinds[index % kinds.length] as string;
      const call = server.post(index % 2 === 0 ? 'HTTP/1.1' : 'HTTP/2', `/${kind}-${index}`);
      if (kind === 'hangs') return call.firstChunk().then(() => call.hangUp());
      return call.text().catch(() => 'failed');
    });
    await Promise.all(calls);
    await vi.waitFor(() => expect(server.releases()).toBe(20), WAIT);
    expect(server.started).toHaveLength(20);
    expect(overlaps).toBe(0);
    expect(active).toBe(0);
    // Not wedged, and nothing given back twice: the next request goes in at once and holds the only slot.
    expect(await server.post('HTTP/1.1', '/json-20').text()).toBe('{"ok":true}');
    await vi.waitFor(() => expect(server.releases()).toBe(21), WAIT);
    expect(server.gate.waiting).toBe(0);
  });
});
