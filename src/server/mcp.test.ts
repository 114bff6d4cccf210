import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type ConfigDict } from 'ngym';
import { type InProcessGym, startInProcessGym } from 'ngym/testing';
import { afterEach, describe, expect, it } from 'vitest';
import counterServer from '../../resources_servers/example_session_state_mgmt/app.ts';

const config = (expose: boolean): ConfigDict => ({
  counter: { resources_servers: { example_session_state_mgmt: { entrypoint: 'app.ts', domain: 'agent', expose_tools_over_mcp: expose } } },
});

let gym: InProcessGym | undefined;
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await gym?.close();
  gym = undefined;
});

async function start(expose = true) {
  gym = await startInProcessGym({ config: config(expose), definitions: { counter: counterServer } });
  return (path: string) => gym?.url('counter', path) as string;
}

/** POSTs JSON as an agent would, keeping the session cookie it is given. */
async function post(url: string, body: unknown, cookie?: string) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) }, body: JSON.stringify(body) });
  return { status: response.status, json: (await response.json()) as Record<string, any>, cookie: cookie ?? response.headers.get('set-cookie')?.split(';')[0] };
}

async function mcpClient(url: string, headers: Record<string, string>) {
  const client = new Client({ name: 'ngym-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

describe('tools over MCP (expose_tools_over_mcp)', () => {
  it("lists and calls a server's tools with the official SDK client, each rollout in its own session", async () => {
    const url = await start();
    const first = await post(url('/seed_session'), { initial_count: 5 });
    const second = await post(url('/seed_session'), { initial_count: 100 });
    expect(first.json.mcp).toMatchObject({ server_name: 'counter', url_path: '/mcp', transport: 'http', headers: { 'X-NeMo-Gym-Session-Token': expect.any(String) } });

    const client = await mcpClient(url(first.json.mcp.url_path), first.json.mcp.headers);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['get_counter_value', 'increment_counter']);
    expect(tools.find((tool) => tool.name === 'increment_counter')?.inputSchema).toMatchObject({ type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] });

    expect((await client.callTool({ name: 'increment_counter', arguments: { count: 3 } })).structuredContent).toEqual({ success: true });
    expect((await client.callTool({ name: 'get_counter_value', arguments: {} })).structuredContent).toEqual({ count: 8 });
    const other = await mcpClient(url('/mcp'), second.json.mcp.headers);
    expect((await other.callTool({ name: 'get_counter_value', arguments: {} })).content).toEqual([{ type: 'text', text: '{"count": 100}' }]);

    // The MCP calls changed the state /verify reads; tool names in the MCP client's namespace are scored bare.
    const call = { type: 'function_call', call_id: 'c1', name: 'mcp__counter__increment_counter', arguments: '{"count": 3}', id: 'fc1', status: 'completed' };
    const verify = { responses_create_params: { input: [] }, response: { id: 'r', created_at: 0, model: 'm', object: 'response', output: [call], parallel_tool_calls: true, tool_choice: 'auto', tools: [] }, expected_count: 8 };
    const verified = await post(url('/verify'), verify, first.cookie);
    expect(verified.json.reward).toBe(1);
    expect(verified.json.response.output[0].name).toBe('mcp__counter__increment_counter');
  });

  it('answers an unknown tool, bad arguments and a missing or forged token as tool errors the model can read', async () => {
    const url = await start();
    const seeded = await post(url('/seed_session'), { initial_count: 0 });
    const client = await mcpClient(url('/mcp'), seeded.json.mcp.headers);
    const unknown = await client.callTool({ name: 'decrement_counter', arguments: {} });
    expect(unknown.isError).toBe(true);
    expect(unknown.content).toEqual([{ type: 'text', text: `Unknown tool: 'decrement_counter'. Available tools: ["get_counter_value","increment_counter"]` }]);
    const bad = await client.callTool({ name: 'increment_counter', arguments: { count: 'two' } });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toMatch(/increment_counter failed: .*count/);

    const token = seeded.json.mcp.headers['X-NeMo-Gym-Session-Token'] as string;
    for (const headers of [{}, { 'X-NeMo-Gym-Session-Token': `${token.split('.')[0]}.forged` }] as Record<string, string>[]) {
      const stranger = await mcpClient(url('/mcp'), headers);
      expect((await stranger.listTools()).tools).toHaveLength(2);
      const refused = await stranger.callTool({ name: 'get_counter_value', arguments: {} });
      expect(refused).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringContaining('Missing or invalid X-NeMo-Gym-Session-Token') }] });
    }
  });

  it('serves no /mcp and adds nothing to /seed_session unless the config asks for it', async () => {
    const url = await start(false);
    const seeded = await post(url('/seed_session'), { initial_count: 0 });
    expect(seeded.json).toEqual({});
    expect((await fetch(url('/mcp'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(404);
  });
});
