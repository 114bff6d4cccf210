/**
 * Property-based tests of every server kind's HTTP surface: random JSON, valid bodies with a field removed,
 * given the wrong type or joined by extra fields, deep nesting, huge strings, invalid UTF-8 and bodies over
 * the size limit, sent to a resources server (`/seed_session`, `/verify`, a tool), simple_agent (`/run`,
 * `/v1/responses`), vllm_model (`/v1/responses`, `/v1/chat/completions`) and the head server. Every answer
 * must be a success or a 4xx with FastAPI's `detail` naming the field and the problem, never a 5xx or a hang,
 * and each server must keep serving.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { type InProcessGym, startInProcessGym } from '../gym/in-process.ts';
import { simpleAgentConfig } from '../testing/agent-config.ts';
import { startVllmBackend, type VllmBackend } from '../testing/vllm-backend.ts';
import { defineResourcesServer } from './resources-server.ts';

const LIMIT_MB = 1;
const LIMIT_BYTES = LIMIT_MB * 1024 * 1024;
const RUNS = 60;

// Fields of every JSON type, a strict tool, and fields of its own in seed_session and verify bodies.
const notes = defineResourcesServer({
  className: 'FuzzedNotesServer',
  seedSessionRequest: z.looseObject({ first_note: z.string() }),
  tools: {
    add_note: {
      description: 'Add a note.',
      parameters: z.strictObject({ text: z.string(), priority: z.number().int(), tags: z.array(z.string()), urgent: z.boolean() }),
      handler: ({ text, tags }) => ({ note: text, tag_count: tags.length }),
    },
  },
  verifyRequest: z.looseObject({ expected_notes: z.number().int() }),
  verify: (request) => ({ reward: (request.expected_notes as number) > 0 ? 1.0 : 0.0 }),
});

const input = [{ role: 'user', content: 'hi', type: 'message' }];
const response = { id: 'resp_1', created_at: 0, model: 'm', object: 'response', output: [], parallel_tool_calls: true, tool_choice: 'auto', tools: [] };

interface Endpoint {
  server: string;
  path: string;
  /** A body the endpoint accepts. */
  valid: Record<string, unknown>;
  /** Required fields (paths into `valid`) and the JSON type each must have. */
  fields: Array<{ path: (string | number)[]; type: 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'string|array' }>;
  /** Whether unknown top-level fields are refused (extra_forbidden) rather than kept. */
  strict: boolean;
}

const ENDPOINTS: Endpoint[] = [
  { server: 'notes', path: '/seed_session', valid: { first_note: 'a', responses_create_params: { input } }, fields: [{ path: ['first_note'], type: 'string' }], strict: false },
  {
    server: 'notes',
    path: '/verify',
    valid: { responses_create_params: { input }, response, expected_notes: 1 },
    fields: [
      { path: ['responses_create_params'], type: 'object' },
      { path: ['responses_create_params', 'input'], type: 'string|array' },
      { path: ['response'], type: 'object' },
      { path: ['response', 'id'], type: 'string' },
      { path: ['response', 'output'], type: 'array' },
      { path: ['response', 'parallel_tool_calls'], type: 'boolean' },
      { path: ['expected_notes'], type: 'integer' },
    ],
    strict: false,
  },
  {
    server: 'notes',
    path: '/add_note',
    valid: { text: 'b', priority: 2, tags: ['x'], urgent: false },
    fields: [
      { path: ['text'], type: 'string' },
      { path: ['priority'], type: 'integer' },
      { path: ['tags'], type: 'array' },
      { path: ['urgent'], type: 'boolean' },
    ],
    strict: true,
  },
  {
    server: 'notes_agent',
    path: '/run',
    valid: { responses_create_params: { input }, first_note: 'a', expected_notes: 1 },
    fields: [
      { path: ['responses_create_params'], type: 'object' },
      { path: ['responses_create_params', 'input'], type: 'string|array' },
      // Checked by the resources server behind the agent; /run answers with its detail.
      { path: ['first_note'], type: 'string' },
      { path: ['expected_notes'], type: 'integer' },
    ],
    strict: false,
  },
  { server: 'notes_agent', path: '/v1/responses', valid: { input }, fields: [{ path: ['input'], type: 'string|array' }], strict: false },
  { server: 'policy_model', path: '/v1/responses', valid: { input }, fields: [{ path: ['input'], type: 'string|array' }], strict: false },
  {
    server: 'policy_model',
    path: '/v1/chat/completions',
    valid: { messages: [{ role: 'user', content: 'hi' }] },
    fields: [{ path: ['messages'], type: 'array' }],
    strict: false,
  },
];

let gym: InProcessGym;
let backend: VllmBackend;
let sent = 0;

beforeAll(async () => {
  backend = await startVllmBackend({ reply: () => ({ content: 'Hello' }) });
  const limit = { max_request_body_mb: LIMIT_MB };
  gym = await startInProcessGym({
    config: {
      head_server: limit,
      ...simpleAgentConfig({ resources: { name: 'notes', implementation: 'notes', config: limit }, agent: 'notes_agent', agentConfig: limit }),
      policy_model: {
        responses_api_models: {
          vllm_model: { entrypoint: 'app.ts', base_url: backend.baseUrl, api_key: 'EMPTY', model: 'toy-model', return_token_id_information: false, uses_reasoning_parser: false, ...limit },
        },
      },
    },
    definitions: { notes },
  });
});

afterAll(async () => {
  await gym?.close();
  await backend?.close();
  console.log(`HTTP fuzz: ${sent} generated requests over ${ENDPOINTS.length} endpoints and the head server`);
});

interface Answer {
  status: number;
  body: unknown;
  text: string;
}

async function send(url: string, body: string | Uint8Array, method = 'POST'): Promise<Answer> {
  sent++;
  const answer = await fetch(url, { method, headers: { 'content-type': 'application/json' }, body: method === 'GET' ? undefined : body, signal: AbortSignal.timeout(30_000) });
  const text = await answer.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Kept as text: the assertions say what was expected.
  }
  return { status: answer.status, body: parsed, text };
}

const post = (endpoint: Endpoint, body: string | Uint8Array) => send(gym.url(endpoint.server, endpoint.path), body);

interface Detail {
  type: string;
  loc: (string | number)[];
  msg: string;
}

/** The answer is a success or a 4xx whose body has FastAPI's `detail`; a 422's detail lists located problems. */
function expectWellFormed(answer: Answer, context: string): void {
  expect(answer.status, `${context}: ${answer.text.slice(0, 300)}`).toBeLessThan(500);
  if (answer.status < 400) return;
  expect(answer.body, context).toHaveProperty('detail');
  if (answer.status !== 422) return;
  const detail = (answer.body as { detail: Detail[] }).detail;
  expect(Array.isArray(detail) && detail.length > 0, context).toBe(true);
  for (const entry of detail) {
    expect(entry.loc[0], context).toBe('body');
    expect(typeof entry.type === 'string' && typeof entry.msg === 'string', context).toBe(true);
  }
}

function withPath(value: Record<string, unknown>, path: (string | number)[], change: (parent: Record<string | number, unknown>, key: string | number) => void) {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let parent = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  change(parent, path.at(-1)!);
  return copy;
}

const json = fc.jsonValue({ maxDepth: 4 });
/** A JSON value that is not of `type` (for 'integer', fractions count as wrong too). */
function wrongValue(type: Endpoint['fields'][number]['type']) {
  const choices: fc.Arbitrary<unknown>[] = [];
  if (type !== 'string' && type !== 'string|array') choices.push(fc.string());
  if (type !== 'number' && type !== 'integer') choices.push(fc.double({ noNaN: true, noDefaultInfinity: true }));
  if (type === 'integer') choices.push(fc.double({ noNaN: true, noDefaultInfinity: true }).filter((number) => !Number.isInteger(number)));
  if (type !== 'boolean') choices.push(fc.boolean());
  if (type !== 'object') choices.push(fc.dictionary(fc.string(), json, { maxKeys: 3 }));
  if (type !== 'array' && type !== 'string|array') choices.push(fc.array(json, { maxLength: 3 }));
  choices.push(fc.constant(null));
  return fc.oneof(...choices);
}

async function expectStillServing(): Promise<void> {
  for (const server of ['notes', 'notes_agent', 'policy_model']) expect((await send(gym.url(server, '/'), '', 'GET')).status).toBe(200);
  expect((await send(`${gym.headUrl}/global_config_dict_yaml`, '', 'GET')).status).toBe(200);
}

describe.each(ENDPOINTS)('fuzzed $server $path', (endpoint) => {
  it('answers any JSON with a success or a well-formed 4xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 6 }), async (body) => expectWellFormed(await post(endpoint, JSON.stringify(body)), JSON.stringify(body).slice(0, 200))),
      { numRuns: RUNS },
    );
    expect((await post(endpoint, JSON.stringify(endpoint.valid))).status).toBe(200);
  });

  it('names a missing field as missing and a wrong type as a wrong type, at its location', async () => {
    const field = fc.constantFrom(...endpoint.fields);
    await fc.assert(
      fc.asyncProperty(field, async ({ path }) => {
        const answer = await post(endpoint, JSON.stringify(withPath(endpoint.valid, path, (parent, key) => delete parent[key])));
        expect(answer.status).toBe(422);
        expect((answer.body as { detail: Detail[] }).detail).toContainEqual(expect.objectContaining({ type: 'missing', loc: ['body', ...path], msg: 'Field required' }));
      }),
      { numRuns: endpoint.fields.length * 2 },
    );
    await fc.assert(
      fc.asyncProperty(
        field.chain((chosen) => fc.tuple(fc.constant(chosen), wrongValue(chosen.type))),
        async ([{ path }, value]) => {
          const answer = await post(endpoint, JSON.stringify(withPath(endpoint.valid, path, (parent, key) => (parent[key] = value))));
          expect(answer.status, JSON.stringify(value)).toBe(422);
          const located = (answer.body as { detail: Detail[] }).detail.filter((entry) => JSON.stringify(entry.loc) === JSON.stringify(['body', ...path]));
          expect(located.length, `${JSON.stringify(value)} -> ${answer.text.slice(0, 500)}`).toBeGreaterThan(0);
          for (const entry of located) expect(entry.type, JSON.stringify(entry)).not.toBe('missing');
        },
      ),
      { numRuns: RUNS },
    );
  });

  it(endpoint.strict ? 'refuses extra fields, naming each' : 'keeps serving valid bodies with extra fields', async () => {
    const extras = fc.dictionary(fc.string({ minLength: 1 }).filter((key) => !(key in endpoint.valid) && key !== '__proto__'), json, { minKeys: 1, maxKeys: 3 });
    await fc.assert(
      fc.asyncProperty(extras, async (extra) => {
        const answer = await post(endpoint, JSON.stringify({ ...endpoint.valid, ...extra }));
        if (!endpoint.strict) {
          expectWellFormed(answer, JSON.stringify(extra));
          return;
        }
        expect(answer.status).toBe(422);
        for (const key of Object.keys(extra)) {
          expect((answer.body as { detail: Detail[] }).detail).toContainEqual(expect.objectContaining({ type: 'extra_forbidden', loc: ['body', key] }));
        }
      }),
      { numRuns: RUNS / 2 },
    );
  });

  it('survives deep nesting, huge strings and invalid UTF-8, and keeps serving', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 200_000 }), async (depth) => {
        const nested = `${'['.repeat(depth)}${']'.repeat(depth)}`;
        expectWellFormed(await post(endpoint, `{"deep": ${nested}, ${JSON.stringify(endpoint.valid).slice(1)}`), `depth ${depth}`);
        expectWellFormed(await post(endpoint, nested), `bare depth ${depth}`);
      }),
      { numRuns: 10 },
    );
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 900_000 }), fc.constantFrom(...endpoint.fields), async (length, { path }) => {
        const huge = 'x'.repeat(length);
        expectWellFormed(await post(endpoint, JSON.stringify(withPath(endpoint.valid, path, (parent, key) => (parent[key] = huge)))), `huge ${length}`);
        expectWellFormed(await post(endpoint, JSON.stringify({ ...endpoint.valid, huge })), `huge extra ${length}`);
      }),
      { numRuns: 10 },
    );
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 64 }), async (bytes) => {
        const body = Buffer.concat([Buffer.from('{"first_note": "'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from(bytes), Buffer.from('"}')]);
        expectWellFormed(await post(endpoint, body), `bytes ${Buffer.from(bytes).toString('hex')}`);
        expectWellFormed(await post(endpoint, bytes), `raw bytes ${Buffer.from(bytes).toString('hex')}`);
      }),
      { numRuns: RUNS / 2 },
    );
    await expectStillServing();
  });

  it('answers 413 to a body over max_request_body_mb, and keeps serving', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: LIMIT_BYTES }), async (over) => {
        const answer = await post(endpoint, JSON.stringify({ ...endpoint.valid, padding: 'p'.repeat(LIMIT_BYTES + over) }));
        expect(answer.status).toBe(413);
        expect((answer.body as { detail: string }).detail).toMatch(/larger than this server's limit of 1 MiB \(config key max_request_body_mb\)/);
      }),
      { numRuns: 5 },
    );
    expect((await post(endpoint, JSON.stringify(endpoint.valid))).status).toBe(200);
  });
});

describe('fuzzed head server', () => {
  it('answers any method, path and body with a success or a 404, and keeps serving', async () => {
    const path = fc.webPath().map((value) => (value.startsWith('/') ? value : `/${value}`));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'), path, fc.jsonValue({ maxDepth: 4 }), async (method, route, body) => {
        const answer = await send(`${gym.headUrl}${route}`, JSON.stringify(body), method);
        expect([200, 404], `${method} ${route}`).toContain(answer.status);
      }),
      { numRuns: RUNS * 2 },
    );
    await expectStillServing();
  });

  it('answers 413 to a body over its max_request_body_mb, and keeps serving', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('/', '/global_config_dict_yaml', '/nowhere'), fc.integer({ min: 1, max: LIMIT_BYTES }), async (route, over) => {
        const answer = await send(`${gym.headUrl}${route}`, 'h'.repeat(LIMIT_BYTES + over));
        expect(answer.status).toBe(413);
        expect((answer.body as { detail: string }).detail).toMatch(/limit of 1 MiB \(config key max_request_body_mb\)/);
      }),
      { numRuns: 5 },
    );
    await expectStillServing();
  });
});
