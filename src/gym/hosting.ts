/**
 * Hosting one server instance: find its `app.ts`, validate its config, build it and serve it. Used by the
 * child process that `ngym run` launches and by the in-process test harness, so both behave the same.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as z from 'zod';
import { ServerClient } from '../client/server-client.ts';
import type { GlobalConfig } from '../config/global-config.ts';
import { configPathOf, findServerDirectory, type ServerInstance } from '../config/server-instances.ts';
import { ALLOW_EXTRA_KEYS } from '../config/schemas.ts';
import { ConfigError } from '../errors.ts';
import { upstreamRoots } from '../config/upstream-roots.ts';
import { parseReportingInput, validationDetails } from '../protocol/validation.ts';
import { didYouMean } from '../util/did-you-mean.ts';
import { createLogger, type Logger } from '../util/logger.ts';
import { PACKAGE_ROOT } from '../util/package-root.ts';
import { baseInterpreterOf } from './python-environment.ts';
import { type BoundServer, bindServer, DEFAULT_BODY_READ_TIMEOUT_SECONDS, type ListenTarget } from '../server/serve.ts';
import { type BuiltServer, isServerDefinition, type ServerDefinition } from '../server/server-definition.ts';

export interface ServerLocation {
  directory: string;
  entrypoint: string;
  /** A Python entrypoint (`app.py`) runs under Python; everything else is a TypeScript/JavaScript module. */
  language: 'typescript' | 'python';
  /** The interpreter of a Python server: the base it is layered on, until `ngym run` prepares its own environment (python-environment.ts). */
  python?: string;
  /** A Python server's uv, the one ngym builds its environment with: on its PATH, since some servers run uv themselves. */
  uv?: string;
  /** ngym's pinned coding-agent CLIs, when installed: on a Python server's PATH, so upstream's harness agents run them. */
  cliBin?: string;
  /** Set when ngym's TypeScript version stands in for upstream's app.py: upstream's, in case the config suits only it. */
  upstream?: ServerLocation;
}

export function locateServer(globalConfig: GlobalConfig, instance: ServerInstance): ServerLocation {
  const entrypointName = String(instance.config.entrypoint);
  // The first folder of that name holding the entrypoint: ngym's environment (app.ts) and upstream's (app.py) share
  // names. Upstream's installed folders (python_server_roots, or found through the Python) come after ngym's.
  const holding = (roots: readonly string[]) => roots.map((root) => findServerDirectory(instance, [root])).filter((found) => found !== undefined);
  let roots: string[] = [...globalConfig.searchRoots];
  let candidates = holding(roots);
  if (!candidates.some((found) => existsSync(join(found, entrypointName)))) {
    roots = [...roots, ...upstreamRoots({ python_server_roots: globalConfig.resolvedValue(['python_server_roots']), python_executable: globalConfig.resolvedValue(['python_executable']) })];
    candidates = holding(roots);
  }
  const directory = candidates.find((found) => existsSync(join(found, entrypointName))) ?? candidates[0];
  const path = configPathOf(instance);
  if (directory === undefined) {
    throw new ConfigError(
      'NGYM_CONFIG_INVALID',
      `Server '${instance.name}' uses implementation ${instance.serverType}/${instance.impl}, but no such folder exists in ${roots.join(' or ')} (${globalConfig.sources.describe(path)}).`,
      { key: path.join('.'), source: globalConfig.sources.sourceOf(path) },
    );
  }
  const entrypoint = `${directory}/${entrypointName}`;
  if (!existsSync(entrypoint)) {
    throw new ConfigError(
      'NGYM_CONFIG_INVALID',
      `Entrypoint ${entrypoint} of server '${instance.name}' does not exist (${globalConfig.sources.describe([...path, 'entrypoint'])}).`,
      { key: [...path, 'entrypoint'].join('.'), source: globalConfig.sources.sourceOf(path) },
    );
  }
  if (!entrypointName.endsWith('.py')) return { directory, entrypoint, language: 'typescript' };
  const python: ServerLocation = {
    directory,
    entrypoint,
    language: 'python',
    python: baseInterpreterOf(globalConfig, directory),
    ...(existsSync(HARNESS_CLI_BIN) ? { cliBin: HARNESS_CLI_BIN } : {}),
  };
  // Upstream's app.py, but ngym has a TypeScript version of that name: that one runs, unless the user asks for upstream's.
  const own = findServerDirectory(instance, globalConfig.searchRoots);
  if (globalConfig.resolvedValue([PREFER_UPSTREAM_KEY]) === true || own === undefined || !existsSync(join(own, TYPESCRIPT_ENTRYPOINT))) return python;
  return { directory: own, entrypoint: join(own, TYPESCRIPT_ENTRYPOINT), language: 'typescript', upstream: python };
}

/** Where `npm run setup:harness-cli` puts the pinned CLIs' commands. */
const HARNESS_CLI_BIN = join(PACKAGE_ROOT, 'harness-cli', 'node_modules', '.bin');

/**
 * Upstream's Python harness agents whose CLI harness-cli pins, and the command each runs. Without it on PATH they
 * install one with `npm install -g`, which ngym never lets happen.
 */
const UPSTREAM_HARNESS_COMMANDS: Readonly<Record<string, string>> = { claude_code_agent: 'claude', codex_agent: 'codex', opencode_agent: 'opencode' };

/** Refuses, before anything starts, an upstream harness agent whose pinned CLI is not installed in `cliBin`. */
export function checkHarnessCli(instance: ServerInstance, location: ServerLocation, cliBin = HARNESS_CLI_BIN): void {
  if (location.language !== 'python' || instance.serverType !== 'responses_api_agents') return;
  const command = UPSTREAM_HARNESS_COMMANDS[instance.impl];
  if (command === undefined || existsSync(join(cliBin, command))) return;
  throw new ConfigError(
    'NGYM_SERVER_START',
    `Server '${instance.name}' runs upstream's ${instance.impl}, which needs the \`${command}\` CLI, and ngym's pinned copy is not installed (no ${join(cliBin, command)}). Run \`npm run setup:harness-cli\` first: ngym does not let the agent \`npm install -g\` one.`,
    { key: configPathOf(instance).join('.') },
  );
}

/** `prefer_upstream: true` runs upstream's Python servers (and reads its config files) where ngym has its own of the same name. */
const PREFER_UPSTREAM_KEY = 'prefer_upstream';
const TYPESCRIPT_ENTRYPOINT = 'app.ts';

export async function loadServerDefinition(entrypoint: string): Promise<ServerDefinition> {
  const module = (await import(pathToFileURL(entrypoint).href)) as { default?: unknown };
  if (!isServerDefinition(module.default)) {
    throw new ConfigError(
      'NGYM_SERVER_START',
      `${entrypoint} must \`export default\` a server definition (defineResourcesServer, defineAgent or defineModelServer).`,
    );
  }
  return module.default;
}

/** The instance's resolved config validated by its definition; errors name every bad key and its file. */
export function validatedServerConfig(globalConfig: GlobalConfig, instance: ServerInstance, definition: ServerDefinition): Record<string, unknown> {
  const path = configPathOf(instance);
  if (definition.kind !== instance.serverType) {
    throw new ConfigError(
      'NGYM_CONFIG_INVALID',
      `Server '${instance.name}' is configured under ${instance.serverType}, but ${instance.serverType}/${instance.impl} implements ${definition.kind}.`,
      { key: path.join('.') },
    );
  }
  const resolved = globalConfig.resolvedServerConfig(instance.name);
  const result = parseReportingInput(definition.configSchema, resolved);
  const problems = result.success
    ? []
    : validationDetails(result.error, []).map((detail) => `  - ${globalConfig.sources.describe([...path, ...detail.loc.map(String)])}: ${detail.msg}`);
  const unknown = unknownKeys(resolved, definition.configSchema);
  for (const key of unknown.problems) problems.push(`  - unknown key ${globalConfig.sources.describe([...path, key])}${didYouMean(key, unknown.known)}`);
  if (problems.length > 0) {
    const hint =
      unknown.problems.length === 0
        ? ''
        : `\n  ${instance.serverType}/${instance.impl} reads no key of that name. Fix the spelling, or list keys your own code reads in \`${ALLOW_EXTRA_KEYS}: [key, ...]\` (or \`${ALLOW_EXTRA_KEYS}: true\`).`;
    const first = unknown.problems[0];
    throw new ConfigError('NGYM_CONFIG_INVALID', `Invalid config for server '${instance.name}':\n${problems.join('\n')}${hint}`, {
      key: (first === undefined ? path : [...path, first]).join('.'),
      source: globalConfig.sources.sourceOf(first === undefined ? path : [...path, first]),
    });
  }
  return (result as { data: Record<string, unknown> }).data;
}

/**
 * Keys any server entry may hold besides its definition's own: where and how many times it runs and upstream's descriptive keys
 * (`description`, `value`, `verified`, `verified_url`, `num_workers`, `allowed_agents`), which ngym shows or ignores on purpose.
 */
const ENTRY_KEYS = ['name', 'entrypoint', 'host', 'port', 'h2c_port', 'replicas', 'domain', 'datasets', 'description', 'value', 'verified', 'verified_url', 'num_workers', 'allowed_agents'];

/** Keys of the entry that neither the framework nor the server's schema knows (a typo is a silent no-op otherwise). */
function unknownKeys(entry: Record<string, unknown>, schema: z.ZodType): { problems: string[]; known: string[] } {
  if (!(schema instanceof z.ZodObject)) return { problems: [], known: [] };
  const known = [...new Set([...ENTRY_KEYS, ...Object.keys(schema.shape)])];
  const allowed = entry[ALLOW_EXTRA_KEYS];
  if (allowed === true) return { problems: [], known };
  const extra = Array.isArray(allowed) ? allowed.map(String) : [];
  return { problems: Object.keys(entry).filter((key) => !known.includes(key) && !extra.includes(key)), known };
}

export interface HostedServer {
  instance: ServerInstance;
  bound: BoundServer;
  built: BuiltServer;
  logger: Logger;
  close(graceMs?: number): Promise<void>;
}

export interface HostOptions {
  globalConfig: GlobalConfig;
  name: string;
  /** Where to listen; default the instance's configured host and port. */
  listen?: ListenTarget;
  /** A socket bound earlier (in-process harness); `listen` is ignored then. */
  bound?: BoundServer;
  definition?: ServerDefinition;
  logger?: Logger;
  client?: ServerClient;
}

export async function hostServer(options: HostOptions): Promise<HostedServer> {
  const { globalConfig, name } = options;
  const instance = globalConfig.server(name);
  if (instance === undefined) throw new ConfigError('NGYM_SERVER_NOT_FOUND', `No server named '${name}' in the global config.`);
  const definition = options.definition ?? (await loadServerDefinition(locateServer(globalConfig, instance).entrypoint));
  const config = validatedServerConfig(globalConfig, instance, definition);
  const logger = options.logger ?? createLogger(name);
  const client = options.client ?? new ServerClient(globalConfig);
  const built = await definition.create({ config, globalConfig, client, logger });
  const host = String(config.host);
  const bound =
    options.bound ??
    (await bindServer(
      options.listen ?? {
        http: { host, port: Number(config.port) },
        h2c: typeof config.h2c_port === 'number' ? { host, port: config.h2c_port } : undefined,
      },
    ));
  const bodyRead = config.body_read_timeout_seconds;
  bound.server.requestTimeout = bodyRead === null ? 0 : Number(bodyRead ?? DEFAULT_BODY_READ_TIMEOUT_SECONDS) * 1000;
  // Node wants the headers' limit within the whole request's.
  if (bound.server.requestTimeout > 0) bound.server.headersTimeout = Math.min(bound.server.headersTimeout, bound.server.requestTimeout);
  bound.attach(built.app);
  return {
    instance,
    bound,
    built,
    logger,
    async close(graceMs) {
      await bound.close(graceMs);
      await built.close();
    },
  };
}
