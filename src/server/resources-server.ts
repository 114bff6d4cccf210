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
import { SeedSessionRequest, VerifyRequest } from '../protocol/server-bodies.ts';
import { pythonJsonDumps } from '../python-compat/python-json.ts';
import { type AggregateMetricsHooks, computeAggregateMetrics } from '../rollouts/reward-profile.ts';
import { type BaseServerSpec, type ConfigShape, defineServerOfKind, type RequestContext, type ServerConfigOf } from './base-server.ts';
import { readJsonBody } from './http-app.ts';
import type { ServerDefinition } from './server-definition.ts';
import { type FunctionToolDefinition, toolParametersSchema } from './tool-schema.ts';

const AggregateMetricsRequest = z.looseObject({ verify_responses: z.array(z.looseObject({})) });

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
> extends BaseServerSpec<Shape, State> {
  tools?: { [Name in keyof Tools]: ToolSpec<Tools[Name], ServerConfigOf<Shape>, State> };
  /** Extra fields `/seed_session` requires (missing ones: 422); `seedSession` sees them typed. */
  seedSessionRequest?: SeedExtra;
  seedSession?: (request: RequestWith<SeedSessionRequest, SeedExtra>, context: ResourcesRequestContext<ServerConfigOf<Shape>, State>) => unknown;
  /** Extra fields `/verify` requires beyond `responses_create_params` and `response` (missing ones: 422); `verify` sees them typed. */
  verifyRequest?: VerifyExtra;
  /** Returns the reward and any extra metrics; the response is the request (all row fields kept) plus these. */
  verify: (request: RequestWith<VerifyRequest, VerifyExtra>, context: ResourcesRequestContext<ServerConfigOf<Shape>, State>) => VerifyResult | Promise<VerifyResult>;
  /**
   * `POST /aggregate_metrics` answers upstream's reward profile of the verify responses it is given
   * (src/rollouts/reward-profile.ts); these add the environment's own run metrics and choose its headlines.
   */
  computeMetrics?: AggregateMetricsHooks['computeMetrics'];
  getKeyMetrics?: AggregateMetricsHooks['getKeyMetrics'];
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
>(spec: ResourcesServerSpec<Shape, State, Tools, VerifyExtra, SeedExtra>): ResourcesServerDefinition<Shape> {
  const tools = Object.entries((spec.tools ?? {}) as Record<string, ToolSpec<z.ZodType, ServerConfigOf<Shape>, State>>);
  for (const [name] of tools) {
    if (RESERVED_ROUTE_NAMES.has(name)) throw new Error(`${spec.className}: a tool cannot be named '${name}' (reserved route).`);
  }
  const verifySchema = spec.verifyRequest === undefined ? VerifyRequest : z.intersection(VerifyRequest, spec.verifyRequest);

  const definition = defineServerOfKind('resources_servers', spec, ({ app, requestContext }) => {
    app.post('/seed_session', async (http) => {
      const body = validateBody<RequestWith<SeedSessionRequest, SeedExtra>>(spec.seedSessionRequest ?? SeedSessionRequest, await readJsonBody(http));
      const result = spec.seedSession === undefined ? {} : await spec.seedSession(body, requestContext(http));
      return http.json((result ?? {}) as object);
    });

    app.post('/verify', async (http) => {
      const raw = await readJsonBody(http);
      // The common part passes its fast check, so zod only checks the environment's own fields.
      const body =
        spec.verifyRequest !== undefined && isValidVerifyRequest(raw)
          ? validateBody<RequestWith<VerifyRequest, VerifyExtra>>(spec.verifyRequest, raw)
          : validateBody<RequestWith<VerifyRequest, VerifyExtra>>(verifySchema, raw);
      const result = await spec.verify(body, requestContext(http));
      return http.json({ ...body, ...result });
    });

    for (const [name, tool] of tools) {
      app.post(`/${name}`, async (http) => {
        const args = await readJsonBody(http);
        const parsed = parseReportingInput(tool.parameters, args);
        if (!parsed.success) throw RequestValidationError.fromZod(parsed.error);
        const result = await tool.handler(parsed.data, requestContext(http));
        return http.body(pythonJsonDumps(result, { ensureAscii: false }), 200, { 'content-type': 'application/json' });
      });
    }

    // Every resources server answers it, as upstream's do.
    app.post('/aggregate_metrics', async (http) => {
      const body = validateBody<{ verify_responses: Record<string, unknown>[] }>(AggregateMetricsRequest, await readJsonBody(http));
      return http.json(computeAggregateMetrics(body.verify_responses, { computeMetrics: spec.computeMetrics, getKeyMetrics: spec.getKeyMetrics }));
    });
  });
  return Object.assign(definition, {
    kind: 'resources_servers' as const,
    configShape: (spec.config ?? {}) as Shape,
    toolDefinitions: () =>
      tools.map(([name, tool]) => ({
        type: 'function' as const,
        name,
        description: tool.description ?? '',
        parameters: toolParametersSchema(tool.parameters),
        strict: tool.strict ?? true,
      })),
  });
}
