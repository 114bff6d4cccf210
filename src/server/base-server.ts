/**
 * What the three server kinds share: the spec fields every definition has (class name, config keys, setup,
 * extra routes, close), composing the config schema, building the app, and the request context.
 */
import type { Context } from 'hono';
import * as z from 'zod';
import { CookieJar } from '../client/cookies.ts';
import { DEFAULT_REQUEST_TIMEOUT_SECONDS_BY_TYPE, type ServerClient } from '../client/server-client.ts';
import { BaseServerConfig, Domain } from '../config/schemas.ts';
import { AUTH_TOKEN_KEY, authTokenOf } from '../client/auth-token.ts';
import { createServerApp, maxBodyBytesOf, type ServerApp, type ServerEnv, sessionIdOf } from './http-app.ts';
import type { Logger } from '../util/logger.ts';
import { configuredBudgetBytes, MEMORY_BUDGET_KEY } from '../util/memory-budget.ts';
import { markServerDefinition, type ServerDefinition, type ServerSetupContext } from './server-definition.ts';
import type { ServerType } from '../protocol/server-types.ts';
import { TELEMETRY_KEY, telemetrySettings } from '../telemetry/settings.ts';
import { configureTracing, flushTracing, serviceTracer } from '../telemetry/tracing.ts';

export type ConfigShape = z.ZodRawShape;

/** The framework keys plus a server's own; unknown keys are allowed (`verified`, `description`, `datasets`...). */
export function serverConfigSchema<Shape extends ConfigShape>(shape: Shape, options: { requireDomain?: boolean } = {}) {
  const base = options.requireDomain ? BaseServerConfig.extend({ domain: Domain }) : BaseServerConfig;
  return base.extend(shape);
}

type BaseServerConfigType = z.infer<typeof BaseServerConfig>;
export type ServerConfigOf<Shape extends ConfigShape> = BaseServerConfigType & z.infer<z.ZodObject<Shape>>;

/** A server's limit per request in ms (`request_timeout_seconds`, default by kind); null for none. */
export function requestTimeoutMsOf(kind: ServerType, config: BaseServerConfigType): number | null {
  const seconds = config.request_timeout_seconds;
  return seconds === null ? null : (seconds ?? DEFAULT_REQUEST_TIMEOUT_SECONDS_BY_TYPE[kind]) * 1000;
}

async function createAppFor(kind: ServerType, className: string, context: ServerSetupContext): Promise<ServerApp> {
  const config = context.config as BaseServerConfigType;
  const telemetry = telemetrySettings(context.globalConfig.resolvedValue([TELEMETRY_KEY]));
  await configureTracing(telemetry.tracing);
  return createServerApp({
    className,
    instanceName: config.name,
    sessionSecret: typeof config.session_secret === 'string' ? config.session_secret : undefined,
    requestTimeoutMs: requestTimeoutMsOf(kind, config),
    maxBodyBytes: maxBodyBytesOf(config.max_request_body_mb),
    authToken: authTokenOf(context.globalConfig.dict[AUTH_TOKEN_KEY]),
    logger: context.logger,
    metrics: telemetry.metrics,
    tracer: serviceTracer({ name: config.name, type: kind }),
    memoryBudgetBytes: configuredBudgetBytes(config.memory_budget, context.globalConfig.dict[MEMORY_BUDGET_KEY], `${config.name}.${MEMORY_BUDGET_KEY}`),
  });
}

/** What every request handler of a server gets. */
export interface RequestContext<Config, State> {
  /** This server's session id for the caller, from its session cookie (new callers get a fresh one). */
  sessionId: string;
  config: Config;
  state: State;
  client: ServerClient;
  logger: Logger;
  /** Cookies the caller sent. Agents forward them to other servers explicitly. */
  cookies: CookieJar;
  /** Cookies to return to the caller in addition to this server's own session cookie. */
  responseCookies: CookieJar;
  /** The raw Hono context, for anything the helpers do not cover. */
  http: Context<ServerEnv>;
}

function requestContextFactory<Config, State>(setup: ServerSetupContext<Config>, state: State) {
  return (http: Context<ServerEnv>): RequestContext<Config, State> => ({
    get sessionId() {
      return sessionIdOf(http);
    },
    config: setup.config,
    state,
    client: setup.client,
    logger: setup.logger,
    cookies: CookieJar.fromHeader(http.req.header('cookie')),
    responseCookies: new CookieJar(),
    http,
  });
}

/** Adds the cookies a handler collected to the response about to be built (the app adds its own cookie). */
export function applyResponseCookies(http: Context<ServerEnv>, cookies: CookieJar): void {
  for (const [name, value] of cookies.entries()) http.header('set-cookie', `${name}=${value}; Path=/`, { append: true });
}

/**
 * JSON that is already serialized, answered as-is. An agent relays its environment's verify answer this way:
 * parsing and re-serializing a whole trajectory would only cost time.
 */
export class RawJson {
  constructor(readonly text: string) {}
}

/** Answers a value as JSON, or a RawJson's text unchanged. */
export function jsonResponse(http: Context<ServerEnv>, value: unknown): globalThis.Response {
  return value instanceof RawJson ? http.body(value.text, 200, { 'content-type': 'application/json' }) : http.json(value as object);
}

/** The part of a server spec every kind has. */
export interface BaseServerSpec<Shape extends ConfigShape, State> {
  /** Used in the session cookie name `<className>___<instance>`, as upstream's Python class name. */
  className: string;
  /** This server's own config keys (beyond host, port, entrypoint...), validated at start-up. */
  config?: Shape;
  /** Runs once at start-up (load data, create stores); the result is `context.state` in every handler. */
  setup?: (context: ServerSetupContext<ServerConfigOf<Shape>>) => State | Promise<State>;
  /** Adds routes beyond the kind's own. */
  routes?: (app: ServerApp, context: ServerSetupContext<ServerConfigOf<Shape>> & { state: State }) => void;
  close?: (state: State) => void | Promise<void>;
}

export interface KindRouteContext<Shape extends ConfigShape, State> {
  app: ServerApp;
  setup: ServerSetupContext<ServerConfigOf<Shape>> & { state: State };
  requestContext: (http: Context<ServerEnv>) => RequestContext<ServerConfigOf<Shape>, State>;
}

/**
 * A server definition of one kind: the kind registers its own routes in `addRoutes`; setup, the common app,
 * the spec's extra routes and close are handled here, the same way for every kind.
 */
export function defineServerOfKind<Kind extends ServerType, Shape extends ConfigShape, State>(
  kind: Kind,
  spec: BaseServerSpec<Shape, State>,
  addRoutes: (context: KindRouteContext<Shape, State>) => void,
): ServerDefinition & { readonly kind: Kind } {
  return markServerDefinition({
    kind,
    className: spec.className,
    configSchema: serverConfigSchema((spec.config ?? {}) as Shape, { requireDomain: kind === 'resources_servers' }),
    async create(setupContext: ServerSetupContext) {
      const context = setupContext as ServerSetupContext<ServerConfigOf<Shape>>;
      const state = (spec.setup === undefined ? undefined : await spec.setup(context)) as State;
      const app = await createAppFor(kind, spec.className, setupContext);
      const setup = { ...context, state };
      addRoutes({ app, setup, requestContext: requestContextFactory(context, state) });
      spec.routes?.(app, setup);
      return {
        app,
        close: async () => {
          await spec.close?.(state);
          // The last spans of a server that is going away.
          await flushTracing();
        },
      };
    },
  });
}
