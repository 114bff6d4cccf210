/**
 * The head server: discovery for every client. `GET /global_config_dict_yaml` answers the global config as
 * a JSON string holding YAML, exactly as upstream (Python clients do `json.loads` then parse YAML), with
 * secret values redacted; `GET /server_instances` lists the launched servers (the first replica of each, in
 * upstream's shape). `GET /server_replicas` lists every replica by name, and `POST /server_replicas` (renewed)
 * / `POST /server_replicas/remove` are how another `ngym run` adds its replicas (src/gym/replica-registry.ts).
 */
import { AUTH_TOKEN_KEY, authTokenOf } from '../client/auth-token.ts';
import { authMiddleware } from '../server/auth.ts';
import { Hono } from 'hono';
import type { GlobalConfig } from '../config/global-config.ts';
import { redactSecrets } from '../config/redact.ts';
import type { ConfigDict } from '../config/tree.ts';
import { ConfigError } from '../errors.ts';
import { dumpYaml } from '../config/yaml-file.ts';
import { bodyLimitMiddleware, maxBodyBytesOf } from '../server/http-app.ts';
import { METRICS_PATH, metricsHandler, observeRequests } from '../server/observe-requests.ts';
import { ServerMetrics } from '../telemetry/server-metrics.ts';
import { TELEMETRY_KEY, telemetrySettings } from '../telemetry/settings.ts';
import { ReplicaRemoval } from '../protocol/replicas.ts';
import type { ReplicaRegistry } from './replica-registry.ts';

export interface ServerInstanceInfo {
  name: string;
  server_type: string;
  impl: string;
  process_name: string;
  dir_path: string;
  entrypoint: string;
  host: string;
  port: number;
  url: string;
  pid: number | null;
  start_time: number;
  config_path: string;
}

export function createHeadServerApp(globalConfig: GlobalConfig, instances: () => ServerInstanceInfo[], replicas?: ReplicaRegistry): Hono {
  const app = new Hono();
  const limit = (globalConfig.dict.head_server as ConfigDict | undefined)?.max_request_body_mb;
  if (limit !== undefined && limit !== null && !(typeof limit === 'number' && limit > 0)) {
    throw new ConfigError('NGYM_CONFIG_INVALID', `head_server.max_request_body_mb must be a positive number of MiB or null, got ${JSON.stringify(limit)}.`, {
      key: 'head_server.max_request_body_mb',
    });
  }
  // Measured first (as every server), so refused requests count too.
  const metrics = telemetrySettings(globalConfig.resolvedValue([TELEMETRY_KEY])).metrics ? new ServerMetrics() : undefined;
  if (metrics !== undefined) app.use(observeRequests({ metrics, serverName: 'head_server' }));
  const token = authTokenOf(globalConfig.dict[AUTH_TOKEN_KEY]);
  if (token !== undefined) app.use(authMiddleware(token));
  const maxBodyBytes = maxBodyBytesOf(limit);
  if (maxBodyBytes !== null) app.use(bodyLimitMiddleware(maxBodyBytes));
  app.get('/', (context) => context.json({ status: 'ok' }));
  if (metrics !== undefined) app.get(METRICS_PATH, metricsHandler(metrics));
  app.get('/global_config_dict_yaml', (context) => context.json(dumpYaml(redactSecrets(globalConfig.dict))));
  app.get('/server_instances', (context) => context.json(instances()));
  if (replicas !== undefined) {
    app.get('/server_replicas', (context) => context.json(replicas.listing()));
    app.post('/server_replicas', async (context) => {
      const result = replicas.register(await context.req.json().catch(() => undefined));
      return result.ok ? context.json({ registered: true }) : context.json({ detail: result.detail }, result.status);
    });
    app.post('/server_replicas/remove', async (context) => {
      const parsed = ReplicaRemoval.safeParse(await context.req.json().catch(() => undefined));
      if (!parsed.success) return context.json({ detail: 'Expected {"urls": [<replica url>, ...]}.' }, 422);
      return context.json({ removed: replicas.remove(parsed.data.urls) });
    });
  }
  app.notFound((context) => context.json({ detail: 'Not Found' }, 404));
  return app;
}
