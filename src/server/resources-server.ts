/**
 * Resources servers: the environments. They own the tasks' tools (`POST /<tool name>`), per-rollout
 * state keyed by the session cookie (`/seed_session`), and the reward (`/verify`).
 *
 * @example
 * export default defineResourcesServer({
 *   className: 'SimpleWeatherResourcesServer',
 *   tools: {
 *     get_weather: {
 *       parameters: z.object({ city: z.string() }),
 *       handler: ({ city }) => ({ city, weather_description: `The weather in ${city} is cold.` }),
 *     },
 *   },
 *   verify: () => ({ reward: 1.0 }),
 * });
 */
import * as z from 'zod';
import { isValidVerifyRequest } from '../protocol/fast-checks.ts';
import { parseReportingInput, RequestValidationError, validateBody } from '../protocol/validation.ts';
import { AggregateMetricsRequest, SeedSessionRequest, VerifyRequest } from '../protocol/server-bodies.ts';
import { pythonJsonDumps } from '../python-compat/python-json.ts';
import { isPythonDict } from '../python-compat/python-values.ts';
import { type AggregateMetricsHooks, computeAggregateMetrics, type ScoredRollout } from '../metrics/reward-profile.ts';
import { type BaseServerSpec, type ConfigShape, defineServerOfKind, type RequestContext, type ServerConfigOf } from './base-server.ts';
import { readJsonBody } from './http-app.ts';
import { traced } from '../telemetry/tracing.ts';
import { handleMcpRequest, MCP_PATH, McpSessionTokens, mcpSessionMetadata, withBareToolNames } from './mcp.ts';
import type { ServerDefinition } from './server-definition.ts';
import { type FunctionToolDefinition, toolParametersSchema } from './tool-schema.ts';


/** Keys every resources server's config accepts besides its own. */
const RESOURCES_CONFIG = {
  /** Serve the tools over MCP at /mcp too (Streamable HTTP; upstream's key). */
  expose_tools_over_mcp: z.boolean().default(false),
};

export const RESERVED_ROUTE_NAMES = new Set(['seed_session', 'verify', 'aggregate_metrics', 'mcp', 'tools']);

export type ResourcesRequestContext<Config, State> = RequestContext<Config, State>;

export interface ToolSpec<Parameters extends z.ZodType, Config, State> {
  description?: string;
  /** Validates the arguments (invalid: 422 with the field) and produces the tool's JSON Schema. */
  parameters: Parameters;
  /** Default true: the JSON Schema is strict (no extra properties), as upstream's tools. */
  strict?: boolean;
  /** The result is sent as JSON with Python's `json.dumps` spacing; a thrown error becomes a 500 the model reads. */
  handler: (args: z.infer<Parameters>, context: ResourcesRequestContext<Config, State>) => unknown;
}

export type VerifyResult = { reward: number } & Record<string, unknown>;

/**
 * What a handler receives: the common request typed with the environment's own fields. The body is checked
 * against the schema but passed on as sent (token ids and numbers byte for byte), so a field has its schema's
 * input type: a `.default()` is not applied.
 */
export type RequestWith<Base, Extra extends z.ZodType> = Base & z.input<Extra>;

export interface ResourcesServerSpec<
  Shape extends ConfigShape,
  State,
  Tools extends Record<string, z.ZodType>,
  VerifyExtra extends z.ZodType = z.ZodObject<Record<never, never>>,
  SeedExtra extends z.ZodType = z.ZodObject<Record<never, never>>,
  Result extends VerifyResult = VerifyResult,
> extends BaseServerSpec<Shape, State> {
  tools?: { [Name in keyof Tools]: ToolSpec<Tools[Name], ServerConfigOf<Shape>, State> };
  /** Extra fields `/seed_session` requires (missing ones: 422); `seedSession` sees them typed. */
  seedSessionRequest?: SeedExtra;
  seedSession?: (request: RequestWith<SeedSessionRequest, SeedExtra>, context: ResourcesRequestContext<ServerConfigOf<Shape>, State>) => unknown;
  /** Extra fields `/verify` requires beyond `responses_create_params` and `response` (missing ones: 422); `verify` sees them typed. */
  verifyRequest?: VerifyExtra;
  /** Returns the reward and any extra metrics; the response is the request (all row fields kept) plus these. */
  verify: (request: RequestWith<VerifyRequest, VerifyExtra>, context: ResourcesRequestContext<ServerConfigOf<Shape>, State>) => Result | Promise<Result>;
  /**
   * `POST /aggregate_metrics` answers upstream's reward profile of the verify responses it is given
   * (src/metrics/reward-profile.ts); these add the environment's own run metrics and choose its headlines.
   * They get the instance's config, as upstream's methods read `self.config` (a judge's labels, say), and the
   * rollouts typed as this server's `verify` returns them.
   */
  computeMetrics?: (tasks: ScoredRollout<Result>[][], config: ServerConfigOf<Shape>) => Record<string, unknown>;
  getKeyMetrics?: (agentMetrics: Record<string, unknown>, config: ServerConfigOf<Shape>) => Record<string, unknown>;
}

export interface ResourcesServerDefinition<Shape extends ConfigShape = ConfigShape> extends ServerDefinition {
  readonly kind: 'resources_servers';
  /** The function-tool definitions to put in a dataset row's `responses_create_params.tools`. */
  toolDefinitions(): FunctionToolDefinition[];
  readonly configShape: Shape;
}

export function defineResourcesServer<
  Shape extends ConfigShape = Record<never, never>,
  State = undefined,
  Tools extends Record<string, z.ZodType> = Record<never, never>,
  VerifyExtra extends z.ZodType = z.ZodObject<Record<never, never>>,
  SeedExtra extends z.ZodType = z.ZodObject<Record<never, never>>,
  Result extends VerifyResult = VerifyResult,
>(spec: ResourcesServerSpec<Shape, State, Tools, VerifyExtra, SeedExtra, Result>): ResourcesServerDefinition<Shape> {
  const tools = Object.entries((spec.tools ?? {}) as Record<string, ToolSpec<z.ZodType, ServerConfigOf<Shape>, State>>);
  for (const [name] of tools) {
    if (RESERVED_ROUTE_NAMES.has(name)) throw new Error(`${spec.className}: a tool cannot be named '${name}' (reserved route).`);
  }
  const verifySchema = spec.verifyRequest === undefined ? VerifyRequest : z.intersection(VerifyRequest, spec.verifyRequest);
  const toolDefinitions = (): FunctionToolDefinition[] =>
    tools.map(([name, tool]) => ({
      type: 'function' as const,
      name,
      description: tool.description ?? '',
      parameters: toolParametersSchema(tool.parameters),
      strict: tool.strict ?? true,
    }));

  const definition = defineServerOfKind('resources_servers', { ...spec, config: { ...RESOURCES_CONFIG, ...spec.config } as unknown as Shape }, ({ app, setup, requestContext }) => {
    const config = setup.config as ServerConfigOf<Shape> & z.infer<z.ZodObject<typeof RESOURCES_CONFIG>>;
    const serverName = config.name ?? spec.className;
    const mcpTokens = config.expose_tools_over_mcp ? new McpSessionTokens() : undefined;

    app.post('/seed_session', async (http) => {
      const body = validateBody<RequestWith<SeedSessionRequest, SeedExtra>>(spec.seedSessionRequest ?? SeedSessionRequest, await readJsonBody(http));
      const context = requestContext(http);
      const result = ((spec.seedSession === undefined ? {} : await spec.seedSession(body, context)) ?? {}) as Record<string, unknown>;
      // With MCP on, the answer says how this rollout reaches its tools over MCP (in this same session).
      if (mcpTokens !== undefined && isPythonDict(result) && !('mcp' in result)) return http.json({ ...result, mcp: mcpSessionMetadata(serverName, mcpTokens.mint(context.sessionId)) });
      return http.json(result);
    });

    app.post('/verify', async (http) => {
      const raw = await readJsonBody(http);
      // The common part passes its fast check, so zod only checks the environment's own fields.
      const body =
        spec.verifyRequest !== undefined && isValidVerifyRequest(raw)
          ? validateBody<RequestWith<VerifyRequest, VerifyExtra>>(spec.verifyRequest, raw)
          : validateBody<RequestWith<VerifyRequest, VerifyExtra>>(verifySchema, raw);
      // MCP clients name tools `mcp__<server>__<tool>`: verify scores the bare names; the answer echoes the row as sent.
      const scored = mcpTokens === undefined ? body : withBareToolNames(body, serverName);
      const result = await traced('verify', 'gym.verify', async () => spec.verify(scored, requestContext(http)));
      return http.json({ ...body, ...result });
    });

    const runTool = async (tool: ToolSpec<z.ZodType, ServerConfigOf<Shape>, State>, args: unknown, context: ResourcesRequestContext<ServerConfigOf<Shape>, State>) => {
      const parsed = parseReportingInput(tool.parameters, args);
      if (!parsed.success) throw RequestValidationError.fromZod(parsed.error);
      return tool.handler(parsed.data, context);
    };
    for (const [name, tool] of tools) {
      // A tool without arguments reads no body, as upstream's routes without a body parameter: any body, even none.
      const takesNoArguments = tool.parameters instanceof z.ZodObject && Object.keys(tool.parameters.shape).length === 0;
      app.post(`/${name}`, async (http) => {
        const result = await runTool(tool, takesNoArguments ? {} : await readJsonBody(http), requestContext(http));
        return http.body(pythonJsonDumps(result, { ensureAscii: false }), 200, { 'content-type': 'application/json' });
      });
    }

    if (mcpTokens !== undefined) {
      const definitions = new Map(toolDefinitions().map((definition) => [definition.name, definition]));
      app.all(MCP_PATH, (http) => {
        const context = requestContext(http);
        const mcpTools = tools.map(([name, tool]) => ({
          definition: definitions.get(name) as FunctionToolDefinition,
          // The tool runs as its HTTP route would, in the session the caller's token names.
          call: (args: unknown, sessionId: string) => runTool(tool, args, Object.create(context, { sessionId: { value: sessionId } }) as typeof context),
        }));
        return handleMcpRequest(http.req.raw, { serverName, tools: mcpTools, tokens: mcpTokens });
      });
    }

    const { computeMetrics, getKeyMetrics } = spec;
    const metricsHooks: AggregateMetricsHooks<ScoredRollout<Result>> = {
      computeMetrics: computeMetrics && ((tasks) => computeMetrics(tasks, config)),
      getKeyMetrics: getKeyMetrics && ((metrics) => getKeyMetrics(metrics, config)),
    };
    // Every resources server answers it, as upstream's do.
    app.post('/aggregate_metrics', async (http) => {
      const body = validateBody<{ verify_responses: Record<string, unknown>[] }>(AggregateMetricsRequest, await readJsonBody(http));
      return http.json(computeAggregateMetrics(body.verify_responses, metricsHooks));
    });
  });
  return Object.assign(definition, {
    kind: 'resources_servers' as const,
    configShape: (spec.config ?? {}) as Shape,
    toolDefinitions,
  });
}
