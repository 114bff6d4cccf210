/**
 * The contract between a server implementation (`app.ts` of an environment, agent or model) and the
 * runtime that hosts it. An `app.ts` default-exports a `ServerDefinition`; the runtime validates the
 * instance config against `configSchema`, calls `create`, and serves the returned app.
 */
import type * as z from 'zod';
import type { ServerClient } from '../client/server-client.ts';
import type { GlobalConfig } from '../config/global-config.ts';
import type { ServerType } from '../protocol/server-types.ts';
import type { ServerApp } from './http-app.ts';
import type { Logger } from '../util/logger.ts';

const marker = Symbol.for('ngym.server-definition');

export interface ServerSetupContext<Config = Record<string, unknown>> {
  /** The instance's resolved and validated config (with `name`, `host`, `port`). */
  config: Config;
  globalConfig: GlobalConfig;
  client: ServerClient;
  logger: Logger;
}

export interface BuiltServer {
  app: ServerApp;
  close(): Promise<void>;
}

export interface ServerDefinition {
  readonly [marker]: true;
  readonly kind: ServerType;
  /** Used in the session cookie name `<className>___<instance>`, as upstream's Python class name. */
  readonly className: string;
  readonly configSchema: z.ZodType;
  create(context: ServerSetupContext): Promise<BuiltServer>;
}

export function markServerDefinition<T extends Omit<ServerDefinition, typeof marker>>(definition: T): T & ServerDefinition {
  return Object.assign(definition, { [marker]: true as const });
}

export function isServerDefinition(value: unknown): value is ServerDefinition {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
}
