export { type AgentDefinition, type AgentRequestContext, type AgentSpec, defineAgent } from './agent-server.ts';
export { defineEnvironmentServer, type EnvironmentServerDefinition } from './environment-server.ts';
export { type ConfigShape, RawJson, type RequestContext, type ServerConfigOf, serverConfigSchema } from './base-server.ts';
export { createServerApp, readJsonBody, type ServerApp, type ServerEnv, sessionIdOf } from './http-app.ts';
export { defineModelServer, type ModelRequestContext, type ModelServerDefinition, type ModelServerSpec } from './model-server.ts';
export {
  defineResourcesServer,
  RESERVED_ROUTE_NAMES,
  type RequestWith,
  type ResourcesRequestContext,
  type ResourcesServerDefinition,
  type ResourcesServerSpec,
  type ToolSpec,
  type VerifyResult,
} from './resources-server.ts';
export { type BuiltServer, isServerDefinition, type ServerDefinition, type ServerSetupContext } from './server-definition.ts';
export { SessionStore, type SessionStoreOptions } from './session-store.ts';
export { SESSION_ID_KEY, sessionCookieName } from './sessions.ts';
export { type FunctionToolDefinition, toolParametersSchema } from './tool-schema.ts';
