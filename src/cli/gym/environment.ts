/**
 * The `gym env` commands ngym builds itself: `status` (ask a running gym's head server and every server),
 * `validate` / `prefetch` (compose and check every server without starting one), `packages` (the npm packages
 * a server's code imports) and `test <environment>` (the tests of the servers an environments/<name> package uses).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import { sharedHttpClient } from '../../client/http-client.ts';
import { formatHost, loadGlobalConfig } from '../../config/global-config.ts';
import { isDict } from '../../config/tree.ts';
import { NgymError } from '../../errors.ts';
import { authorizationHeader, AUTH_TOKEN_KEY, authTokenOf } from '../../client/auth-token.ts';
import type { ServerInstanceInfo } from '../../gym/head-server.ts';
import { locateAndValidate } from '../../gym/launcher.ts';
import { PACKAGE_ROOT } from '../../util/package-root.ts';
import { readParameters } from '../command.ts';
import { testCommand } from '../commands/test.ts';
import { readWithIncludes } from './catalog.ts';
import { assetConfigPath } from './flags.ts';

const write = (text: string) => process.stdout.write(text);

export async function serverStatus(args: string[]): Promise<number> {
  const globalConfig = loadGlobalConfig({ overrides: args });
  const head = `http://${formatHost(globalConfig.headServer.host)}:${globalConfig.headServer.port}`;
  const token = authTokenOf(globalConfig.dict[AUTH_TOKEN_KEY]);
  const headers = token === undefined ? undefined : authorizationHeader(token);
  const http = sharedHttpClient();
  let instances: ServerInstanceInfo[];
  try {
    const answer = await http.request(`${head}/server_instances`, { timeoutMs: 10_000, headers });
    if (!answer.ok) throw new Error(`HTTP ${answer.status}`);
    instances = answer.json<ServerInstanceInfo[]>();
  } catch (error) {
    throw new NgymError('NGYM_HEAD_SERVER_UNREACHABLE', `No gym answers at ${head} (${(error as Error).message}). Is \`gym env start\` running? Pass +head_server.port=... for another port.`);
  }
  const rows = await Promise.all(
    instances.map(async (instance) => {
      const answer = await http.request(`${instance.url}/`, { timeoutMs: 5_000, headers }).catch(() => undefined);
      return { name: instance.name, server_type: instance.server_type, url: instance.url, pid: instance.pid, status: answer?.ok ? 'healthy' : 'unreachable' };
    }),
  );
  if (globalConfig.resolvedValue(['json']) === true) {
    write(`${JSON.stringify({ head_server: head, servers: rows }, null, 2)}\n`);
  } else {
    write(`Head server: ${head}\n`);
    for (const row of rows) write(`  ${row.status.padEnd(11)}  ${row.name}  (${row.server_type}, ${row.url}, pid ${row.pid ?? '-'})\n`);
    write(`${rows.filter((row) => row.status === 'healthy').length} / ${rows.length} servers healthy\n`);
  }
  return rows.every((row) => row.status === 'healthy') ? 0 : 1;
}

/** Composes the config and checks every server (entrypoint found, config valid for its definition). */
export async function validateServers(args: string[], verb = 'valid'): Promise<number> {
  const globalConfig = loadGlobalConfig({ overrides: args });
  if (globalConfig.servers.length === 0) throw new NgymError('NGYM_USAGE', 'The config has no servers; pass --config, --environment or --resources-server.');
  const locations = await locateAndValidate(globalConfig);
  const result = globalConfig.servers.map((instance) => ({ name: instance.name, server_type: instance.serverType, impl: instance.impl, entrypoint: locations.get(instance.name)?.entrypoint }));
  if (globalConfig.resolvedValue(['json']) === true) write(`${JSON.stringify({ valid: true, servers: result }, null, 2)}\n`);
  else write(`${result.map((server) => `  ok  ${server.name} (${server.server_type}/${server.impl})\n`).join('')}All ${result.length} servers ${verb}.\n`);
  return 0;
}

const PackagesParameters = z.object({ entrypoint: z.string().min(1) });

/** The npm packages a server folder's TypeScript (tests aside) imports, sorted. */
export function importedPackages(directory: string): string[] {
  const found = new Set<string>();
  const files = (readdirSync(directory, { recursive: true }) as string[]).filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.includes('node_modules'));
  for (const file of files) {
    for (const match of readFileSync(join(directory, file), 'utf8').matchAll(/from\s+'([^'.][^']*)'/g)) {
      const specifier = match[1] as string;
      if (specifier.startsWith('node:')) continue;
      found.add(specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : (specifier.split('/')[0] as string));
    }
  }
  return [...found].sort();
}

/** The bare module specifiers a folder's TypeScript imports, with the version ngym's package.json pins. */
export async function serverPackages(args: string[]): Promise<number> {
  const globalConfig = loadGlobalConfig({ overrides: args, envYamlPath: null });
  const { entrypoint } = readParameters(globalConfig, PackagesParameters);
  const directory = [process.cwd(), PACKAGE_ROOT].map((root) => join(root, entrypoint)).find(existsSync);
  if (directory === undefined) throw new NgymError('NGYM_USAGE', `No server folder ${entrypoint}.`);
  const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  const packages = importedPackages(directory).map((name) => ({ name, version: name === 'ngym' ? 'this package' : (manifest.dependencies?.[name] ?? 'not a dependency of ngym') }));
  if (globalConfig.resolvedValue(['json']) === true) write(`${JSON.stringify(packages, null, 2)}\n`);
  else write(`${packages.map((entry) => `${entry.name} ${entry.version}\n`).join('') || 'No packages besides Node.js built-ins.\n'}`);
  return 0;
}

/** `gym env test <environment>`: `ngym test` for every resources server an environment package runs. */
export async function testEnvironment(name: string, args: string[]): Promise<number> {
  // The package's servers as written (no model is configured to test them, so references stay unchecked).
  const entries = Object.values(readWithIncludes(assetConfigPath('environment', name))).filter(isDict);
  const impls = new Set(entries.flatMap((entry) => (isDict(entry.resources_servers) ? Object.keys(entry.resources_servers) : [])));
  if (impls.size === 0) throw new NgymError('NGYM_USAGE', `Environment '${name}' has no resources server to test.`);
  let code = 0;
  for (const impl of impls) {
    const entrypoint = `resources_servers/${impl}`;
    write(`=== ${name}: ${entrypoint} ===\n`);
    const result = await testCommand.run([`+entrypoint=${entrypoint}`, ...args]);
    if (result !== 0) code = result;
  }
  return code;
}
