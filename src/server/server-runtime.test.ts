import { createConnection } from 'node:net';
import { connect } from 'node:http2';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { CookieJar } from '../client/cookies.ts';
import { sharedHttpClient } from '../client/http-client.ts';
import { type InProcessGym, startInProcessGym } from '../gym/in-process.ts';
import { defineResourcesServer } from './resources-server.ts';
import { SessionSigner } from './sessions.ts';

const notes = defineResourcesServer({
  className: 'NotesServer',
  config: { greeting: z.string().default('hi') },
  setup: () => ({ notes: new Map<string, string[]>() }),
  seedSessionRequest: z.looseObject({ first_note: z.string() }),
  seedSession: (request, { sessionId, state }) => {
    state.notes.set(sessionId, [request.first_note as string]);
  },
  tools: {
    add_note: {
      description: 'Add a note.',
      parameters: z.strictObject({ text: z.string().describe('The note'), priority: z.number().int().optional() }),
      handler: ({ text }, { sessionId, state }) => {
        state.notes.get(sessionId)?.push(text);
        return { notes: state.notes.get(sessionId) ?? null, text: 'héllo' };
      },
    },
    fail: { parameters: z.object({}), handler: () => { throw new TypeError("can't do that"); } },
    slow: { parameters: z.object({}), handler: () => new Promise((resolve) => setTimeout(() => resolve({ late: true }), 2_000)) },
    greet: { parameters: z.object({}), handler: (_args, { config }) => config.greeting },
  },
  verifyRequest: z.looseObject({ expected_notes: z.number().int() }),
  verify: (request, { sessionId, state }) => ({ reward: state.notes.get(sessionId)?.length === request.expected_notes ? 1.0 : 0.0, seen: state.notes.get(sessionId)?.length ?? 0 }),
});

const config = {
  notes: { resources_servers: { notes: { entrypoint: 'app.ts', domain: 'other', greeting: 'hello', request_timeout_seconds: 0.5 } } },
};
const http = sharedHttpClient();
let gym: InProcessGym | undefined;
afterEach(async () => {
  await gym?.close();
  gym = undefined;
});

const rcp = { input: [{ role: 'user', content: 'hi' }] };
const response = { id: 'resp_1', created_at: 0, model: 'm', object: 'response', output: [], parallel_tool_calls: true, tool_choice: 'auto', tools: [] };

describe('resources server runtime', () => {
  it('answers GET / and keeps a session across seed_session, tools and verify', async () => {
    gym = await startInProcessGym({ config, definitions: { notes } });
    expect((await http.request(gym.url('notes', '/'))).json()).toEqual({ status: 'ok' });
    const seeded = await http.request(gym.url('notes', '/seed_session'), { body: { first_note: 'a', responses_create_params: rcp } });
    expect(seeded.status).toBe(200);
    const cookie = seeded.cookies.get('NotesServer___notes');
    expect(cookie).toBeDefined();
    expect(seeded.headers['set-cookie']).toContain('Path=/');

    const cookies = new CookieJar([['NotesServer___notes', cookie as string]]);
    const added = await http.request(gym.url('notes', '/add_note'), { body: { text: 'b' }, cookies });
    expect(added.text).toBe('{"notes": ["a", "b"], "text": "héllo"}');
    // Every response re-sends the same session.
    expect(added.cookies.get('NotesServer___notes')).toBe(cookie);

    const verified = await http.request(gym.url('notes', '/verify'), {
      body: { responses_create_params: rcp, response, expected_notes: 2, _rowidx: 4, extra: { kept: true } },
      cookies,
    });
    expect(verified.json()).toMatchObject({ reward: 1, seen: 2, _rowidx: 4, extra: { kept: true }, responses_create_params: rcp });

    // Another session (no cookie) sees none of that state.
    const other = await http.request(gym.url('notes', '/verify'), { body: { responses_create_params: rcp, response, expected_notes: 2 } });
    expect(other.json()).toMatchObject({ reward: 0, seen: 0 });
  });

  it('answers 413 to a 600 MB body under the default limit before reading it', async () => {
    const defaults = { notes: { resources_servers: { notes: { entrypoint: 'app.ts', domain: 'other', greeting: 'hello' } } } };
    gym = await startInProcessGym({ config: defaults, definitions: { notes } });
    const { port } = new URL(gym.url('notes', '/'));
    const socket = createConnection({ host: '127.0.0.1', port: Number(port) });
    let answer = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
    socket.on('error', () => {});
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    // Announces 600 MB and sends the first bytes only: the answer comes from the announced size alone.
    socket.write(`POST /seed_session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${600 * 1024 * 1024}\r\n\r\n{"a": "`);
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer, answer).toContain("Request body is larger than this server's limit of 256 MiB (config key max_request_body_mb)");
  });

  it('cuts a body that trickles in with 408 after body_read_timeout_seconds, and keeps serving', async () => {
    const limited = { notes: { resources_servers: { notes: { ...config.notes.resources_servers.notes, request_timeout_seconds: 30, body_read_timeout_seconds: 0.5 } } } };
    gym = await startInProcessGym({ config: limited, definitions: { notes } });
    const { port } = new URL(gym.url('notes', '/'));
    const socket = createConnection({ host: '127.0.0.1', port: Number(port) });
    let answer = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    // Promises 100 bytes, sends 9, and never the rest: a slow (or hostile) client holding the server.
    socket.write('POST /add_note HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"text": ');
    await closed;
    expect(answer, answer).toMatch(/^HTTP\/1\.1 408 /);
    expect((await http.request(gym.url('notes', '/add_note'), { body: { text: 'after' } })).status).toBe(200);
  });

  it('answers 413 naming the limit and its config key to a body over max_request_body_mb, and keeps serving', async () => {
    const limited = { notes: { resources_servers: { notes: { ...config.notes.resources_servers.notes, max_request_body_mb: 0.001 } } } };
    gym = await startInProcessGym({ config: limited, definitions: { notes } });
    const small = await http.request(gym.url('notes', '/add_note'), { body: { text: 'x'.repeat(500) } });
    expect(small.status).toBe(200);
    const large = await http.request(gym.url('notes', '/add_note'), { body: { text: 'x'.repeat(2000) } });
    expect(large.status).toBe(413);
    expect(large.json()).toEqual({ detail: "Request body is larger than this server's limit of 1048 bytes (config key max_request_body_mb)" });
    expect(large.headers['x-ngym-error-code']).toBe('NGYM_BODY_TOO_LARGE');
    // Without a content-length (chunked), the limit holds while the body streams in.
    const chunks = async function* () {
      for (let index = 0; index < 4; index++) yield Buffer.from(JSON.stringify({ text: 'y'.repeat(600) }).slice(0, 600));
    };
    const streamed = await fetch(gym.url('notes', '/add_note'), { method: 'POST', body: ReadableStream.from(chunks()), duplex: 'half' } as RequestInit);
    expect(streamed.status).toBe(413);
    expect((await http.request(gym.url('notes', '/add_note'), { body: { text: 'after' } })).status).toBe(200);

    // Over HTTP/2 (h2c) the same 413, without HTTP/1's connection header (which HTTP/2 forbids).
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    const session = connect(`http://127.0.0.1:${gym.servers.get('notes')!.instance.config.h2c_port}`);
    try {
      const answer = await new Promise<{ status: unknown; connection: unknown; body: string }>((resolve, reject) => {
        const stream = session.request({ ':method': 'POST', ':path': '/add_note', 'content-type': 'application/json' });
        let status: unknown;
        let connection: unknown;
        let body = '';
        stream.on('response', (headers) => ((status = headers[':status']), (connection = headers.connection)));
        stream.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        stream.on('end', () => resolve({ status, connection, body }));
        stream.on('error', reject);
        stream.end(JSON.stringify({ text: 'z'.repeat(2000) }));
      });
      expect(answer).toMatchObject({ status: 413, connection: undefined });
      expect(answer.body).toContain('max_request_body_mb');
    } finally {
      session.close();
      process.off('warning', onWarning);
    }
    expect(warnings).toEqual([]);
  });

  it('rejects forged session cookies', () => {
    const signer = new SessionSigner('secret');
    const value = signer.encode('abc');
    expect(signer.decode(value)).toBe('abc');
    expect(signer.decode(`${value.slice(0, -2)}xx`)).toBeUndefined();
    expect(new SessionSigner('other').decode(value)).toBeUndefined();
    expect(signer.decode('garbage')).toBeUndefined();
  });

  it('answers FastAPI-shaped 422s naming the field, and a readable 500 for tool exceptions', async () => {
    gym = await startInProcessGym({ config, definitions: { notes } });
    const missing = await http.request(gym.url('notes', '/add_note'), { body: {} });
    expect(missing.status).toBe(422);
    expect(missing.json()).toEqual({ detail: [{ type: 'missing', loc: ['body', 'text'], msg: 'Field required' }] });

    // A value of the wrong type is reported as that, never as a missing field.
    const wrongType = await http.request(gym.url('notes', '/add_note'), { body: { text: 7, priority: 'high' } });
    expect(wrongType.status).toBe(422);
    expect(wrongType.json()).toEqual({
      detail: [
        { type: 'string_type', loc: ['body', 'text'], msg: 'Input should be a valid string', input: 7 },
        { type: 'float_type', loc: ['body', 'priority'], msg: 'Input should be a valid number', input: 'high' },
      ],
    });
    const wrongResponse = await http.request(gym.url('notes', '/verify'), { body: { responses_create_params: rcp, response: 1, expected_notes: 2 } });
    expect(wrongResponse.json()).toEqual({ detail: [{ type: 'dict_type', loc: ['body', 'response'], msg: 'Input should be a valid dictionary', input: 1 }] });

    const extra = await http.request(gym.url('notes', '/add_note'), { body: { text: 'x', colour: 'red' } });
    expect(extra.json()).toMatchObject({ detail: [{ type: 'extra_forbidden', loc: ['body', 'colour'] }] });

    const malformed = await http.request(gym.url('notes', '/add_note'), { body: '{"text": ' });
    expect(malformed.status).toBe(422);
    expect(malformed.text).toContain('JSON decode error');

    const failed = await http.request(gym.url('notes', '/fail'), { body: {} });
    expect(failed.status).toBe(500);
    expect(failed.json()).toBe('TypeError("can\'t do that")');
    // No session is started for a caller that has none and whose request never needed one...
    expect(failed.cookies.get('NotesServer___notes')).toBeUndefined();
    // ...but an existing session is sent back on error answers too, so a client that replaces cookies keeps it.
    const seeded = await http.request(gym.url('notes', '/seed_session'), { body: { first_note: 'a' } });
    const sessionCookie = seeded.cookies.get('NotesServer___notes') as string;
    const failedInSession = await http.request(gym.url('notes', '/fail'), { body: {}, cookies: seeded.cookies });
    expect(failedInSession.status).toBe(500);
    expect(failedInSession.cookies.get('NotesServer___notes')).toBe(sessionCookie);

    const seedMissing = await http.request(gym.url('notes', '/seed_session'), { body: {} });
    expect(seedMissing.json()).toMatchObject({ detail: [{ loc: ['body', 'first_note'] }] });

    const verifyBad = await http.request(gym.url('notes', '/verify'), { body: { responses_create_params: { input: 'x', seed: 1 }, response, expected_notes: 1 } });
    expect(verifyBad.status).toBe(422);
    expect(verifyBad.json()).toMatchObject({ detail: [{ type: 'extra_forbidden', loc: ['body', 'responses_create_params', 'seed'] }] });

    const unknown = await http.request(gym.url('notes', '/no_such_tool'), { body: {} });
    expect(unknown.status).toBe(404);
    expect(unknown.json()).toEqual({ detail: 'Not Found' });
  });

  it('applies the configured per-request timeout and the server config', async () => {
    gym = await startInProcessGym({ config, definitions: { notes } });
    const slow = await http.request(gym.url('notes', '/slow'), { body: {} });
    expect(slow.status).toBe(504);
    expect(slow.json()).toEqual({ detail: 'Request timed out after 0.5 s' });
    expect((await http.request(gym.url('notes', '/greet'), { body: {} })).text).toBe('"hello"');
  });

  it('produces the tools JSON Schema from the argument schemas', () => {
    const [tool] = notes.toolDefinitions();
    expect(tool).toEqual({
      type: 'function',
      name: 'add_note',
      description: 'Add a note.',
      parameters: {
        type: 'object',
        properties: { text: { type: 'string', description: 'The note' }, priority: { type: 'integer' } },
        required: ['text'],
        additionalProperties: false,
      },
      strict: true,
    });
  });

  it('fails to start with a config error naming the key', async () => {
    await expect(
      startInProcessGym({ config: { notes: { resources_servers: { notes: { entrypoint: 'app.ts', domain: 'other', greeting: 5 } } } }, definitions: { notes } }),
    ).rejects.toThrow(/notes\.resources_servers\.notes\.greeting/);
  });
});
