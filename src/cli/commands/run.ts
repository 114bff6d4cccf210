/** `ngym run` (alias `ng_run`): start the head server and every configured server, until Ctrl-C. */
import { DEFAULT_HEAD_SERVER_PORT, type GlobalConfig, loadGlobalConfig } from '../../config/global-config.ts';
import * as z from 'zod';
import { ConfigError } from '../../errors.ts';
import { parseReportingInput, validationDetails } from '../../protocol/validation.ts';
import { ALLOW_UNAUTHENTICATED_KEY, AUTH_TOKEN_KEY, authTokenOf, generateAuthToken, isLoopbackHost } from '../../client/auth-token.ts';
import { DEFAULT_HEALTH_CHECK, launch } from '../../gym/launcher.ts';
import type { CliCommand } from '../command.ts';
import { ConfigPaths, PythonEnvironmentParameters, readElsewhere } from '../parameters.ts';
import { printInstancesTable } from '../output.ts';
import { TELEMETRY_KEY, telemetrySettings } from '../../telemetry/settings.ts';

const HealthCheck = z
  .strictObject({
    interval_seconds: z.number().positive().default(DEFAULT_HEALTH_CHECK.interval_seconds),
    timeout_seconds: z.number().positive().default(DEFAULT_HEALTH_CHECK.timeout_seconds),
    misses: z.number().int().min(1).default(DEFAULT_HEALTH_CHECK.misses),
  })
  .nullable()
  .default(DEFAULT_HEALTH_CHECK);

/** Where servers listen unless told otherwise, as the config loader has it. */
const DEFAULT_HOST = '127.0.0.1';

/** The config loader and the launcher read these keys; run's own code reads only health_check (healthCheckOptions). */
const Parameters = z.object({
  config_paths: ConfigPaths,
  head_server: readElsewhere(z.object({ host: z.string(), port: z.number().int() }).default({ host: DEFAULT_HOST, port: DEFAULT_HEAD_SERVER_PORT }), 'Where the head server listens.'),
  default_host: readElsewhere(z.string().default(DEFAULT_HOST), 'Host for servers without one.'),
  error_on_almost_servers: readElsewhere(z.boolean().default(true), 'Fail on entries shaped like servers that fail validation.'),
  server_spinup_timeout_seconds: readElsewhere(z.number().default(600), 'How long every server has to become ready (0: no limit).'),
  health_check: readElsewhere(HealthCheck, 'GET / every server while running; report one that misses this many checks in a row (null: off).'),
  ...PythonEnvironmentParameters,
});

export const runCommand: CliCommand = {
  name: 'run',
  summary: 'Start the head server and every server in the config, each as its own process, until Ctrl-C.',
  description: `
Composes the config (config files, env.yaml, then command-line overrides), validates every server's
config, builds each Python server's environment (see ngym prefetch), and starts each server as a
child process. Ports left
empty or 0 are allocated without races. Clients find the servers through the head server
(default 127.0.0.1:11000). Ctrl-C or SIGTERM stops every server.

Examples:
  ngym run "+config_paths=[resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml,responses_api_models/openai_model/configs/openai_model.yaml]"
  ng_run "+config_paths=[...]" +head_server.port=12000`,
  parameters: Parameters,
  async run(args) {
    const globalConfig = loadGlobalConfig({ overrides: args });
    const health = healthCheckOptions(globalConfig.dict.health_check);
    requireAuthBeyondLoopback(globalConfig);
    if (globalConfig.servers.length === 0) {
      process.stderr.write('Warning: the config has no servers; only the head server will run. Pass +config_paths=[...].\n');
    }
    // Signals are handled from the start, so Ctrl-C during start-up also stops every server cleanly.
    let signalled: (() => void) | undefined;
    const signal = new Promise<void>((resolve) => (signalled = resolve));
    const onSignal = () => signalled?.();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      const starting = launch({ globalConfig });
      const first = await Promise.race([starting.then(() => 'ready' as const), signal.then(() => 'signal' as const)]);
      const gym = await starting.catch((error: unknown) => {
        if (first === 'signal') return undefined;
        throw error;
      });
      if (gym === undefined) return 130;
      if (first === 'signal') {
        await gym.stop();
        return 0;
      }
      if (health !== null) gym.startHealthChecks({ ...health, report: (message) => process.stderr.write(`${message}\n`) });
      printInstancesTable(gym.headUrl, gym.instances);
      process.stdout.write(`All ${gym.instances.length} / ${gym.instances.length} servers ready. Press Ctrl-C to stop.\n`);
      process.stdout.write(`${observabilityLine(globalConfig, gym.headUrl)}\n`);
      const failure = new Promise<number>((resolve) =>
        gym.onServerFailure((error) => {
          process.stderr.write(`${error.message}\n`);
          resolve(1);
        }),
      );
      const code = await Promise.race([signal.then(() => 0), failure]);
      process.stdout.write('Stopping servers...\n');
      await gym.stop();
      process.stdout.write('ngym finished.\n');
      return code;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  },
};

/** Where the run's metrics and traces are (docs/observability.md). */
function observabilityLine(globalConfig: GlobalConfig, headUrl: string): string {
  const { metrics, tracing } = telemetrySettings(globalConfig.resolvedValue([TELEMETRY_KEY]));
  const scraped = metrics ? `Metrics: Prometheus GET /metrics on every server above (Python ones too) and ${headUrl}/metrics` : 'Metrics: off (telemetry.metrics_enabled: false)';
  return `${scraped}; traces: ${tracing === undefined ? 'off (telemetry.enabled: true sends them over OTLP)' : `OTLP to ${tracing.endpoint}`}.`;
}

function healthCheckOptions(value: unknown): { intervalMs: number; timeoutMs: number; misses: number } | null {
  const parsed = parseReportingInput(HealthCheck, value);
  if (!parsed.success) {
    const problems = validationDetails(parsed.error, []).map((detail) => `  - health_check.${detail.loc.join('.')}: ${detail.msg}`);
    throw new ConfigError('NGYM_CONFIG_INVALID', `Invalid health_check:\n${problems.join('\n')}`, { key: 'health_check' });
  }
  if (parsed.data === null) return null;
  return { intervalMs: parsed.data.interval_seconds * 1000, timeoutMs: parsed.data.timeout_seconds * 1000, misses: parsed.data.misses };
}

/**
 * Servers reachable from other hosts need the shared token: the configured `auth_token`, or one made now and
 * printed once (it reaches every server through the config they are started with).
 */
function requireAuthBeyondLoopback(globalConfig: GlobalConfig): void {
  const hosts = [
    ...globalConfig.servers.map((instance) => globalConfig.resolvedServerConfig(instance.name).host),
    (globalConfig.dict.head_server as { host?: unknown } | undefined)?.host,
    globalConfig.dict.default_host,
  ].filter((host): host is string => typeof host === 'string' && host !== '');
  const exposed = [...new Set(hosts.filter((host) => !isLoopbackHost(host)))];
  if (exposed.length === 0 || authTokenOf(globalConfig.dict[AUTH_TOKEN_KEY]) !== undefined) return;
  if (globalConfig.dict[ALLOW_UNAUTHENTICATED_KEY] === true) {
    process.stderr.write(
      `Warning: servers listen beyond loopback (${exposed.join(', ')}) without authentication (${ALLOW_UNAUTHENTICATED_KEY}: true): anyone who can reach them can call them. Keep that network private.\n`,
    );
    return;
  }
  const token = generateAuthToken();
  globalConfig.dict[AUTH_TOKEN_KEY] = token;
  process.stdout.write(
    `Servers listen beyond loopback (${exposed.join(', ')}), so every call needs the shared token. Generated ${AUTH_TOKEN_KEY} (shown once):\n  ${token}\n` +
      `Give it to clients as +${AUTH_TOKEN_KEY}=... or put ${AUTH_TOKEN_KEY}: ... in env.yaml (then it is used instead of a new one).\n`,
  );
}
