/**
 * The Google backend against a local stand-in that answers as the Custom Search JSON API does (and serves
 * pages for browse): results reach the model as upstream's `json.dumps`; quota errors, server errors,
 * timeouts and refused connections are told to the model with the key redacted, and fail the rollout
 * instead of scoring it.
 */
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ResponseItem, sharedHttpClient } from 'ngym';
import { collectRollouts } from 'ngym/runtime';
import {
  assistantMessage,
  functionCall,
  type InProcessGym,
  readJsonlRows,
  scriptedModel,
  simpleAgentConfig,
  startInProcessGym,
} from 'ngym/testing';

const http = sharedHttpClient();
const API_KEY = 'AIza-test/key+1';
const CX = 'cx-test-engine';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** A stand-in for googleapis.com and the web: each test sets how it answers. */
let handler: Handler = (_request, response) => response.writeHead(500).end();
const held: ServerResponse[] = [];
let standIn: Server;
let standInUrl: string;

beforeAll(async () => {
  standIn = createServer((request, response) => handler(request, response));
  await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', resolve));
  standInUrl = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}`;
});
afterEach(() => {
  // Answers the requests a timeout test left waiting.
  for (const response of held.splice(0)) response.end();
});
afterAll(async () => {
  standIn.closeAllConnections();
  await new Promise((resolve) => standIn.close(resolve));
});

const json = (status: number, body: string): Handler => (_request, response) => response.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' }).end(body);

const QUOTA_ERROR = JSON.stringify({
  error: {
    code: 429,
    message: "Quota exceeded for quota metric 'Queries' and limit 'Queries per day' of service 'customsearch.googleapis.com' for consumer 'project_number:1'.",
    errors: [{ message: 'Quota exceeded', domain: 'global', reason: 'rateLimitExceeded' }],
    status: 'RESOURCE_EXHAUSTED',
  },
});

function googleConfig(extra: Record<string, unknown> = {}) {
  return {
    search_backend: 'google',
    google_api_key: API_KEY,
    google_cx: CX,
    google_search_url: `${standInUrl}/customsearch/v1`,
    search_timeout_seconds: 0.3,
    browse_timeout_seconds: 2,
    ...extra,
  };
}

function googleGym(extra: Record<string, unknown> = {}): Promise<InProcessGym> {
  return startInProcessGym({ config: { google_search: { resources_servers: { google_search: { entrypoint: 'app.ts', domain: 'agent', ...googleConfig(extra) } } } } });
}

async function tool(gym: InProcessGym, name: string, body: unknown): Promise<string> {
  const reply = await http.request(gym.url('google_search', `/${name}`), { body });
  expect(reply.status, reply.text).toBe(200);
  const result = reply.json<Record<string, string>>();
  return (result.search_results ?? result.page_content) as string;
}

describe('google_search on Google Custom Search (stand-in)', () => {
  let gym: InProcessGym;
  beforeAll(async () => {
    gym = await googleGym({ browse_max_page_bytes: 2000 });
  });
  afterAll(async () => gym.close());

  it("sends key, cx and q, and gives the model json.dumps of Google's answer (floats and non-ASCII as Python)", async () => {
    const requests: URL[] = [];
    const body = '{"kind":"customsearch#search","searchInformation":{"searchTime":1.0,"totalResults":"1"},"items":[{"title":"Caf\u00e9 Teskin","link":"https://a.example/","snippet":"x"}]}';
    handler = (request, response) => {
      requests.push(new URL(request.url ?? '/', standInUrl));
      json(200, body)(request, response);
    };
    const results = await tool(gym, 'search', { query: 'café & tea' });
    expect(results).toBe(
      '{"kind": "customsearch#search", "searchInformation": {"searchTime": 1.0, "totalResults": "1"}, "items": [{"title": "Caf\\u00e9 Teskin", "link": "https://a.example/", "snippet": "x"}]}',
    );
    expect(requests).toHaveLength(1);
    const sent = requests[0] as URL;
    expect(sent.pathname).toBe('/customsearch/v1');
    expect(Object.fromEntries(sent.searchParams)).toEqual({ key: API_KEY, cx: CX, q: 'café & tea' });
  });

  it('retries a 429 or 5xx search_retries times before it counts', async () => {
    let count = 0;
    handler = (request, response) => (++count <= 2 ? json(503, '{}') : json(200, '{"kind": "customsearch#search"}'))(request, response);
    expect(await tool(gym, 'search', { query: 'x' })).toBe('{"kind": "customsearch#search"}');
    expect(count).toBe(3);
    count = 0;
    handler = (request, response) => void (++count, json(500, '{}')(request, response));
    expect(await tool(gym, 'search', { query: 'x' })).toBe('Error: Unexpected error - Google search answered HTTP 500: {}');
    expect(count).toBe(3);
  });

  it('tells the model about quota, server and body errors, without the API key', async () => {
    handler = json(429, QUOTA_ERROR);
    const quota = await tool(gym, 'search', { query: 'x' });
    expect(quota).toBe(`Error: Unexpected error - Google search answered HTTP 429: ${JSON.parse(QUOTA_ERROR).error.message}`);

    handler = json(403, JSON.stringify({ error: { code: 403, message: `API key not valid: ${API_KEY}`, status: 'PERMISSION_DENIED' } }));
    const forbidden = await tool(gym, 'search', { query: 'x' });
    expect(forbidden).toBe('Error: Unexpected error - Google search answered HTTP 403: API key not valid: <google_api_key>');

    handler = (_request, response) => response.writeHead(500, { 'content-type': 'text/html' }).end('<html>Internal error</html>');
    expect(await tool(gym, 'search', { query: 'x' })).toBe('Error: Unexpected error - Google search answered HTTP 500: <html>Internal error</html>');

    handler = json(200, '{"kind": "customsearch#search", ');
    expect(await tool(gym, 'search', { query: 'x' })).toMatch(/^Error: Unexpected error - Google search answered HTTP 200 with a body that is not JSON: /);
  });

  it('gives up after search_timeout_seconds and says so', async () => {
    handler = (_request, response) => void held.push(response);
    const started = Date.now();
    const timedOut = await tool(gym, 'search', { query: 'x' });
    expect(timedOut).toMatch(/^Error: Unexpected error - Google search: Request to http:\/\/127\.0\.0\.1:\d+\/customsearch\/v1\?key=<google_api_key>&cx=cx-test-engine&q=x timed out after 0\.3 s\.$/);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('browses live pages as text; a failed, missing or too large page is "No HTML found"', async () => {
    handler = (request, response) => {
      if (request.url === '/moved') return void response.writeHead(301, { location: '/page' }).end();
      if (request.url === '/page') return void response.writeHead(200, { 'content-type': 'text/html' }).end('<html><body><nav>Menu</nav><p>Lake Siln is a lake.</p></body></html>');
      if (request.url === '/large') return void response.writeHead(200, { 'content-type': 'text/html' }).end(`<p>${'x'.repeat(5000)}</p>`);
      response.writeHead(404).end('not found');
    };
    expect(await tool(gym, 'browse', { url: `${standInUrl}/page` })).toBe('Lake Siln is a lake.');
    expect(await tool(gym, 'browse', { url: `${standInUrl}/moved` })).toBe('Lake Siln is a lake.');
    expect(await tool(gym, 'browse', { url: `${standInUrl}/gone` })).toBe('No HTML found');
    expect(await tool(gym, 'browse', { url: `${standInUrl}/large` })).toBe('No HTML found');
    expect(await tool(gym, 'browse', { url: 'file:///etc/passwd' })).toBe('No HTML found');
  });
});

describe('google_search config', () => {
  it('refuses to start the google backend without google_api_key or google_cx', async () => {
    await expect(googleGym({ google_api_key: null })).rejects.toThrow(/search_backend 'google' needs google_api_key \(put it in env\.yaml\)/);
    await expect(googleGym({ google_cx: '' })).rejects.toThrow(/needs google_cx/);
  });
});

describe('google_search: search backend down during a rollout', () => {
  const row = {
    responses_create_params: { input: 'Which option?\nA: x\nB: y\nC: z', tools: [], parallel_tool_calls: false },
    expected_answer: 'C',
  };
  /** Searches once, then answers C whatever the search said. */
  const model = () => scriptedModel(({ input }) => (input.some((item) => item.type === 'function_call_output') ? [assistantMessage('\\boxed{C}')] : [functionCall('search', { query: 'options' })]));
  const toolOutputs = (input: ResponseItem[]) => input.flatMap((item) => (item.type === 'function_call_output' ? [item.output] : []));

  async function collect(extra: Record<string, unknown>) {
    const scripted = model();
    const config = simpleAgentConfig({ resources: { name: 'google_search', implementation: 'google_search', config: { domain: 'agent', ...googleConfig(extra) } }, agent: 'google_search_simple_agent' });
    const gym = await startInProcessGym({ config: { ...config, policy_model: { responses_api_models: { scripted: { entrypoint: 'app.ts' } } } }, definitions: { policy_model: scripted.definition } });
    try {
      const dir = mkdtempSync(join(tmpdir(), 'ngym-google-down-'));
      const summary = await collectRollouts({ client: gym.client, input: [row], outputPath: join(dir, 'out.jsonl'), agentName: 'google_search_simple_agent', maxRetries: 0 }).done();
      return { summary, dir, calls: scripted.calls };
    } finally {
      await gym.close();
    }
  }

  it('records the rollout as a failure naming the backend error, never as a reward', async () => {
    handler = json(503, JSON.stringify({ error: { code: 503, message: 'The service is currently unavailable.' } }));
    const { summary, dir, calls } = await collect({});
    // The model was told, as upstream tells it...
    expect(toolOutputs(calls.at(-1)?.input ?? [])).toEqual(['{"search_results": "Error: Unexpected error - Google search answered HTTP 503: The service is currently unavailable."}']);
    // ...and the rollout, whose answer happens to be right, is not scored.
    expect(summary.failed).toBe(1);
    expect(readJsonlRows(join(dir, 'out.jsonl'))).toEqual([]);
    const [failure] = readJsonlRows(join(dir, 'out_failures.jsonl'));
    expect(failure?.error).toContain('The search backend failed during this rollout, so it is not scored: Google search answered HTTP 503');
    expect(failure?.error).not.toContain(API_KEY);
  });

  it('records a refused connection the same way', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const { summary, dir } = await collect({ google_search_url: `http://127.0.0.1:${port}/customsearch/v1` });
    expect(summary.failed).toBe(1);
    expect(readJsonlRows(join(dir, 'out_failures.jsonl'))[0]?.error).toMatch(/not scored: Google search: Could not reach http:\/\/127\.0\.0\.1:\d+\/customsearch\/v1\?key=<google_api_key>/);
  });

  it('scores a rollout whose query Google refused (HTTP 400): the model sent it', async () => {
    handler = json(400, JSON.stringify({ error: { code: 400, message: 'Request contains an invalid argument.', status: 'INVALID_ARGUMENT' } }));
    const { summary, dir, calls } = await collect({});
    expect(toolOutputs(calls.at(-1)?.input ?? [])).toEqual(['{"search_results": "Error: Unexpected error - Google search answered HTTP 400: Request contains an invalid argument."}']);
    expect(summary.failed).toBe(0);
    expect(readJsonlRows(join(dir, 'out.jsonl'))).toMatchObject([{ reward: 1, parsed_option: 'C' }]);
  });

  it("scores it as upstream with on_backend_error: tell_model, and scores a rollout whose searches worked", async () => {
    handler = json(503, '{}');
    const told = await collect({ on_backend_error: 'tell_model' });
    expect(told.summary.failed).toBe(0);
    expect(readJsonlRows(join(told.dir, 'out.jsonl'))).toMatchObject([{ reward: 1, parsed_option: 'C' }]);

    handler = json(200, '{"kind": "customsearch#search", "items": [{"title": "z", "link": "https://a.example/"}]}');
    const worked = await collect({});
    expect(worked.summary.failed).toBe(0);
    expect(readJsonlRows(join(worked.dir, 'out.jsonl'))).toMatchObject([{ reward: 1, parsed_option: 'C' }]);
  });
});
