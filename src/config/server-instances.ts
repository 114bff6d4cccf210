/**
 * Finding the server instances in a global config: `<instance>: {<server type>: {<impl>: {entrypoint, ...}}}`.
 * Entries that look like servers but fail validation ("almost-servers", spec gym-core 1.10) are errors by
 * default, so a typo never silently drops a server. References `{type, name}` between servers are checked.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from '../errors.ts';
import { parseReportingInput, validationDetails } from '../protocol/validation.ts';
import { closestName, didYouMean } from '../util/did-you-mean.ts';
import { PACKAGE_ROOT } from '../util/package-root.ts';
import { checkPackagedPath, environmentPackages } from './environment-packages.ts';
import { MISSING, resolveAt } from './interpolation.ts';
import { isServerType, SERVER_TYPES, type ServerType } from '../protocol/server-types.ts';
import { instanceEntrySchema } from './schemas.ts';
import { type ConfigDict, type ConfigSources, type ConfigValue, isDict } from './tree.ts';

export const RESERVED_TOP_LEVEL_KEYS = new Set([
  'config_paths',
  'entrypoint',
  'default_host',
  'head_server',
  'disallowed_ports',
  'head_server_deps',
  'python_version',
  'use_absolute_ip',
  'python_executable',
  'python_server_roots',
  'telemetry',
]);

export interface ServerInstance {
  /** The top-level key: the runtime name used for lookups, cookies and `agent_ref`. */
  name: string;
  serverType: ServerType;
  /** The implementation folder name under `<serverType>/`. */
  impl: string;
  /** The inner config dict (unresolved; a live reference into the global config). */
  config: ConfigDict;
}

export function configPathOf(instance: ServerInstance): string[] {
  return [instance.name, instance.serverType, instance.impl];
}

interface Almost {
  name: string;
  problems: string[];
}

/** A server type, or a misspelling of one (so `resource_servers:` is reported, not silently skipped). */
function looksLikeServerType(key: string): boolean {
  return isServerType(key) || closestName(key, SERVER_TYPES) !== undefined;
}

function hasEntrypointBelow(value: ConfigDict): boolean {
  return Object.entries(value).some(
    ([key, serverTypeValue]) =>
      looksLikeServerType(key) && isDict(serverTypeValue) && Object.values(serverTypeValue).some((inner) => isDict(inner) && 'entrypoint' in inner),
  );
}

/** Resolves only the keys the framework checks, so a missing `policy_api_key` elsewhere is not an error here. */
function resolvedCheckedKeys(root: ConfigDict, sources: ConfigSources, path: string[], inner: ConfigDict): ConfigDict {
  const out: ConfigDict = { ...inner };
  for (const key of ['entrypoint', 'host', 'port', 'domain', 'datasets', 'replicas']) {
    if (key in inner) out[key] = resolveAt({ root, sources }, [...path, key]);
  }
  return out;
}

export function findServerInstances(
  root: ConfigDict,
  sources: ConfigSources,
  options: { errorOnAlmostServers?: boolean; warn?: (message: string) => void } = {},
): ServerInstance[] {
  const instances: ServerInstance[] = [];
  const almost: Almost[] = [];
  for (const [name, value] of Object.entries(root)) {
    // Only entries with an `entrypoint` two levels below a server-type key are (almost-)servers.
    if (RESERVED_TOP_LEVEL_KEYS.has(name) || !isDict(value) || !hasEntrypointBelow(value)) continue;
    const problems = instanceProblems(root, sources, name, value);
    if (problems.length === 0) {
      const serverType = Object.keys(value)[0] as ServerType;
      const [impl, inner] = Object.entries(value[serverType] as ConfigDict)[0] as [string, ConfigDict];
      instances.push({ name, serverType, impl, config: inner });
    } else {
      almost.push({ name, problems });
    }
  }
  if (almost.length > 0) reportAlmostServers(almost, sources, options);
  return instances;
}

function instanceProblems(root: ConfigDict, sources: ConfigSources, name: string, value: ConfigDict): string[] {
  const keys = Object.keys(value);
  if (keys.length !== 1 || !isServerType(keys[0])) {
    const misspelled = keys.filter((key) => !isServerType(key)).map((key) => `\`${key}\`${didYouMean(key, SERVER_TYPES)}`);
    return [`${sources.describe([name])}: an instance holds exactly one of ${SERVER_TYPES.join(', ')}; found ${misspelled.length > 0 && keys.length === 1 ? misspelled.join(', ') : keys.join(', ')}`];
  }
  const serverType = keys[0];
  const implementations = value[serverType];
  if (!isDict(implementations) || Object.keys(implementations).length !== 1) {
    return [`${sources.describe([name, serverType])}: must hold exactly one implementation (a folder name under ${serverType}/)`];
  }
  const [impl, inner] = Object.entries(implementations)[0] as [string, ConfigValue];
  const path = [name, serverType, impl];
  if (!isDict(inner) || !('entrypoint' in inner)) return [`${sources.describe(path)}: must be a mapping with an \`entrypoint\``];
  const result = parseReportingInput(instanceEntrySchema(serverType), resolvedCheckedKeys(root, sources, path, inner));
  if (result.success) return [];
  return validationDetails(result.error, []).map((detail) => {
    const key = String(detail.loc[0] ?? '');
    // A required key reported missing is often present under a misspelled name: name that one too.
    const near = key in inner ? undefined : closestName(key, Object.keys(inner));
    return `${sources.describe([...path, ...detail.loc.map(String)])}: ${detail.msg}${near === undefined ? '' : `; found ${sources.describe([...path, near])} instead: a misspelling of \`${key}\`?`}`;
  });
}

function reportAlmostServers(
  almost: Almost[],
  sources: ConfigSources,
  options: { errorOnAlmostServers?: boolean; warn?: (message: string) => void },
): void {
  const lines = ['Configuration warnings: almost-servers detected (entries shaped like servers that fail validation):'];
  for (const entry of almost) {
    lines.push(`  Almost-server '${entry.name}':`);
    for (const problem of entry.problems) lines.push(`    - ${problem}`);
    lines.push('    This server will NOT be started.');
  }
  if (options.errorOnAlmostServers ?? true) {
    lines.push(
      `Found ${almost.length} almost-server(s) with validation errors. Fix the issues above or set error_on_almost_servers=false to bypass this error.`,
    );
    const first = almost[0]?.name ?? '';
    throw new ConfigError('NGYM_CONFIG_INVALID', lines.join('\n'), { key: first, source: sources.sourceOf([first]) });
  }
  options.warn?.(lines.join('\n'));
}

/** Every direct child of a server's config shaped `{type: <server type>, name}` must name an existing server of that type. */
export function checkServerReferences(root: ConfigDict, sources: ConfigSources, instances: ServerInstance[]): void {
  const available = instances.map((instance) => `{type: ${instance.serverType}, name: ${instance.name}}`);
  for (const instance of instances) {
    for (const [key, value] of Object.entries(instance.config)) {
      if (!isDict(value) || !isServerType(value.type) || !('name' in value)) continue;
      const path = [...configPathOf(instance), key];
      const name = resolveAt({ root, sources }, [...path, 'name']);
      if (name === MISSING || typeof name !== 'string') {
        throw new ConfigError('NGYM_CONFIG_INVALID', `Server reference ${sources.describe(path)} needs a string \`name\`.`, {
          key: path.join('.'),
        });
      }
      const found = instances.some((candidate) => candidate.name === name && candidate.serverType === value.type);
      if (!found) {
        const sameName = instances.find((candidate) => candidate.name === name);
        const hint = sameName === undefined ? '' : ` (a server named '${name}' exists, but it is of type ${sameName.serverType})`;
        throw new ConfigError(
          'NGYM_CONFIG_INVALID',
          `Could not find {type: ${value.type}, name: ${name}} referenced by ${sources.describe(path)} in the list of available servers: [${available.join(', ')}]${hint}.`,
          { key: path.join('.'), source: sources.sourceOf(path) },
        );
      }
    }
  }
}

/** Where an implementation's folder is: the first of `<root>/<serverType>/<impl>` over the search roots. */
export function findServerDirectory(instance: Pick<ServerInstance, 'serverType' | 'impl'>, searchRoots: readonly string[]): string | undefined {
  for (const root of searchRoots) {
    const candidate = resolve(root, instance.serverType, instance.impl);
    if (!existsSync(candidate)) continue;
    checkPackagedPath(candidate);
    return candidate;
  }
  return undefined;
}

/** The working directory, then the installed environment packages (environment-packages.ts), then ngym's own folders. */
export function defaultSearchRoots(cwd = process.cwd()): string[] {
  const roots = [resolve(cwd), ...environmentPackages(cwd).packages.map((found) => found.root)];
  if (resolve(PACKAGE_ROOT) !== roots[0]) roots.push(PACKAGE_ROOT);
  return roots;
}
