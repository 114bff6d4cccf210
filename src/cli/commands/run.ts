/** `ngym run` (alias `ng_run`): start the head server and every configured server, until Ctrl-C. */
import { type GlobalConfig, loadGlobalConfig } from '../../config/global-config.ts';
import * as z from 'zod';
import { ConfigError } from '../../errors.ts';
import { parseReportingInput, validationDetails } from '../../protocol/validation.ts';
import { ALLOW_UNAUTHENTICATED_KEY, AUTH_TOKEN_KEY, authTokenOf, generateAuthToken, isLoopbackHost } from '../../server/auth.ts';
import { DEFAULT_HEALTH_CHECK, launch } from '../../server/launcher.ts';
import type { CliCommand } from '../command.ts';
import { printInstancesTable } from '../output.ts';

export const runCommand: CliCommand = {
  name: 'run',
  aliases: ['ng_run', 'nemo_gym_run'],
  summary: 'Start the head server and every server in the config, each as its own process, until Ctrl-C.',
  description: `
Composes the config (config files, env.yaml, then command-line overrides), validates every server's
config, and starts each server as a child process (a .py entrypoint runs under python3). Ports left
empty or 0 are allocated without races. Clients find the servers through the head server
(default 127.0.0.1:11000). Ctrl-C or SIGTERM stops every server.

Examples:
  ngym run "+config_paths=[resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml,responses_api_models/openai_model/configs/openai_model.yaml]"
  ng_run "+config_paths=[...]" +head_server.port=12000`,
  parameters: [
    { name: 'config_paths', type: 'list[str]', description: 'YAML config files to compose, in order.' },
    { name: 'head_server', type: '{host, port}', description: 'Where the head server listens.', default: '{host: 127.0.0.1, port: 11000}' },
    { name: 'default_host', type: 'str', description: 'Host for servers without one.', default: '127.0.0.1' },
    { name: 'error_on_almost_servers', type: 'bool', description: 'Fail on entries shaped like servers that fail validation.', default: 'true' },
    { name: 'server_spinup_timeout_seconds', type: 'float', description: 'How long every server has to become ready (0: no limit).', default: '600' },
    {
      name: 'health_check',
      type: '{interval_seconds, timeout_seconds, misses} | null',
      description: 'GET / every server while running; report one that misses this many checks in a row (null: off).',
      default: '{interval_seconds: 10, timeout_seconds: 10, misses: 3}',
    },
  ],
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

const HealthCheck = z
  .strictObject({
    interval_seconds: z.number().positive().default(DEFAULT_HEALTH_CHECK.interval_seconds),
    timeout_seconds: z.number().positive().default(DEFAULT_HEALTH_CHECK.timeout_seconds),
    misses: z.number().int().min(1).default(DEFAULT_HEALTH_CHECK.misses),
  })
  .nullable()
  .default(DEFAULT_HEALTH_CHECK);

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
