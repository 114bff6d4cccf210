/**
 * Runs a whole gym (head server and every configured server) inside the current process, each on its own
 * port 0 socket, for tests, benchmarks and `ngym init` (which records a new environment's example rollouts).
 * Same hosting code as the child processes of `ngym run`.
 */
import { ServerClient } from '../client/server-client.ts';
import { type GlobalConfig, globalConfigFromDict, loadGlobalConfig } from '../config/global-config.ts';
import type { ConfigDict } from '../config/tree.ts';
import { createHeadServerApp } from './head-server.ts';
import { type HostedServer, hostServer } from './hosting.ts';
import { type Logger, silentLogger } from '../util/logger.ts';
import { type BoundServer, bindServer } from '../server/serve.ts';
import type { ServerDefinition } from '../server/server-definition.ts';
import { PACKAGE_ROOT } from '../util/package-root.ts';

export interface InProcessGymOptions {
  /** A composed config dict, or Hydra overrides (`+config_paths=[...]`) resolved against the ngym package. */
  config?: ConfigDict;
  overrides?: string[];
  /** Definitions to use instead of loading `app.ts` files, by instance name (scripted models...). */
  definitions?: Record<string, ServerDefinition>;
  /** Instances served elsewhere (a Python server, a fake): not hosted here, reached at this address. */
  external?: Record<string, { host: string; port: number }>;
  /** Log output of the servers; silent by default. */
  verbose?: boolean;
  /** The servers' logger instead (a test that reads what they log). */
  logger?: Logger;
}

export interface InProcessGym {
  globalConfig: GlobalConfig;
  client: ServerClient;
  headUrl: string;
  servers: Map<string, HostedServer>;
  url(name: string, path?: string): string;
  close(): Promise<void>;
}

export async function startInProcessGym(options: InProcessGymOptions): Promise<InProcessGym> {
  const globalConfig =
    options.config !== undefined
      ? globalConfigFromDict({ ...options.config, head_server: { ...(options.config.head_server as ConfigDict | undefined), host: '127.0.0.1', port: 0 } })
      : loadGlobalConfig({
          overrides: [...(options.overrides ?? []), '++head_server={host: 127.0.0.1, port: 0}'],
          cwd: PACKAGE_ROOT,
          envYamlPath: null,
        });
  const bound = new Map<string, BoundServer>();
  const hosted = globalConfig.servers.filter((instance) => options.external?.[instance.name] === undefined);
  for (const [name, address] of Object.entries(options.external ?? {})) {
    const instance = globalConfig.server(name);
    if (instance === undefined) throw new Error(`external server '${name}' is not in the config`);
    Object.assign(instance.config, address);
  }
  for (const instance of hosted) {
    const host = String(instance.config.host);
    const socket = await bindServer({ http: { host, port: 0 }, h2c: { host, port: 0 } });
    instance.config.port = socket.port;
    instance.config.h2c_port = socket.h2cPort ?? null;
    bound.set(instance.name, socket);
  }
  const head = await bindServer({ host: '127.0.0.1', port: 0 });
  (globalConfig.dict.head_server as ConfigDict).port = head.port;
  head.attach(createHeadServerApp(globalConfig, () => []));

  const client = new ServerClient(globalConfig);
  const servers = new Map<string, HostedServer>();
  try {
    for (const instance of hosted) {
      servers.set(
        instance.name,
        await hostServer({
          globalConfig,
          name: instance.name,
          bound: bound.get(instance.name),
          definition: options.definitions?.[instance.name],
          logger: options.logger ?? (options.verbose ? undefined : silentLogger),
          client,
        }),
      );
    }
  } catch (error) {
    await Promise.all([...bound.values()].map((socket) => socket.close(0)));
    await head.close(0);
    throw error;
  }
  return {
    globalConfig,
    client,
    headUrl: head.url,
    servers,
    url: (name, path = '') => `${client.url(name)}${path}`,
    async close() {
      await Promise.all([...servers.values()].map((server) => server.close(1_000)));
      await head.close(0);
    },
  };
}
