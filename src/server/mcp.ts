/**
 * A resources server's tools over MCP (upstream 0.7.0's `expose_tools_over_mcp: true`): Streamable HTTP at
 * `/mcp`, stateless with JSON responses, served by the official SDK. A rollout's MCP calls act in its own
 * session: `/seed_session` answers, under `mcp`, where the endpoint is and a signed session token
 * (`X-NeMo-Gym-Session-Token`) the client sends with every MCP request, and `tools/call` runs the tool in the
 * session the token names. The token is an HMAC of the session id with a secret of this server process.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describeError } from '../errors.ts';
import { isPythonDict } from '../python-compat/python-values.ts';
import { pythonJsonDumps } from '../python-compat/python-json.ts';
import type { FunctionToolDefinition } from './tool-schema.ts';

const MCP_SESSION_TOKEN_HEADER = 'X-NeMo-Gym-Session-Token';
export const MCP_PATH = '/mcp';

export interface McpTool {
  definition: FunctionToolDefinition;
  call: (args: unknown, sessionId: string) => Promise<unknown>;
}

/** Signs session ids into tokens and reads them back; a token from another process or edited fails. */
export class McpSessionTokens {
  private readonly secret = randomBytes(32);

  private sign(payload: string): string {
    return createHmac('sha256', this.secret).update(payload).digest('base64url');
  }

  mint(sessionId: string): string {
    const payload = Buffer.from(sessionId).toString('base64url');
    return `${payload}.${this.sign(payload)}`;
  }

  read(token: string | undefined): string | undefined {
    const [payload, signature, extra] = (token ?? '').split('.');
    if (payload === undefined || signature === undefined || extra !== undefined) return undefined;
    const expected = Buffer.from(this.sign(payload));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
    return Buffer.from(payload, 'base64url').toString();
  }
}

/** What `/seed_session` adds under `mcp` (upstream's `MCPServerMetadata`). */
export function mcpSessionMetadata(serverName: string, token: string) {
  return { server_name: serverName, url_path: MCP_PATH, transport: 'http', headers: { [MCP_SESSION_TOKEN_HEADER]: token } };
}

/** The request with the function calls of its response named without this server's MCP prefix (`mcp__<server>__`). */
export function withBareToolNames<Body extends { response: unknown }>(body: Body, serverName: string): Body {
  const prefix = `mcp__${serverName}__`;
  const response = body.response as { output?: unknown };
  if (!Array.isArray(response?.output) || !response.output.some((item) => isPrefixedCall(item, prefix))) return body;
  const output = response.output.map((item) => (isPrefixedCall(item, prefix) ? { ...item, name: item.name.slice(prefix.length) } : item));
  return { ...body, response: { ...response, output } };
}

function isPrefixedCall(item: unknown, prefix: string): item is { type: 'function_call'; name: string } {
  const call = item as { type?: unknown; name?: unknown };
  return call?.type === 'function_call' && typeof call.name === 'string' && call.name.startsWith(prefix);
}

function textResult(text: string, isError = false): CallToolResult {
  return { content: [{ type: 'text', text }], ...(isError ? { isError } : {}) };
}

/** Answers one MCP request (a fresh SDK server per request: the endpoint keeps no MCP state of its own). */
export async function handleMcpRequest(request: Request, options: { serverName: string; tools: McpTool[]; tokens: McpSessionTokens }): Promise<Response> {
  const tools = new Map(options.tools.map((tool) => [tool.definition.name, tool]));
  const server = new Server({ name: options.serverName, version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: options.tools.map(({ definition }) => ({
      name: definition.name,
      description: definition.description,
      inputSchema: definition.parameters as { type: 'object' },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async ({ params }, extra) => {
    const tool = tools.get(params.name);
    // Models invent tool names: the miss is the model's to read, not a protocol error.
    if (tool === undefined) return textResult(`Unknown tool: '${params.name}'. Available tools: ${JSON.stringify([...tools.keys()].sort())}`, true);
    const header = extra.requestInfo?.headers[MCP_SESSION_TOKEN_HEADER.toLowerCase()];
    const sessionId = options.tokens.read(Array.isArray(header) ? header[0] : header);
    if (sessionId === undefined) {
      return textResult(`Missing or invalid ${MCP_SESSION_TOKEN_HEADER} header: send the one /seed_session answered under mcp.headers.`, true);
    }
    let payload: unknown;
    try {
      payload = await tool.call(params.arguments ?? {}, sessionId);
    } catch (error) {
      return textResult(`${params.name} failed: ${describeError(error)}`, true);
    }
    const text = typeof payload === 'string' ? payload : pythonJsonDumps(payload, { ensureAscii: false });
    return isPythonDict(payload) ? { ...textResult(text), structuredContent: payload } : textResult(text);
  });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request);
  } finally {
    await server.close();
  }
}
