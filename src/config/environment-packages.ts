/**
 * Environments installed as npm packages (docs/environments/packages.md): a package with the keyword
 * `ngym-environment` and an `ngym` field naming what it provides holds `environments/<name>/config.yaml` and the
 * server folders that config names, laid out as ngym's own. Each installed package's folder becomes a search root
 * (after the working directory, before ngym's own folders), so `--environment <name>`, config paths and server
 * folders are found in it as in this repository.
 *
 * Packages are found through the project's dependencies (package.json in the working directory), each resolved as
 * Node does, then through theirs: an environment package may depend on another. Each is checked here, once per
 * install, and its problem (the ngym it needs is not the installed one, no `ngym` field, missing data, a server
 * nobody provides, two versions installed) is raised, naming the package and version, as soon as anything of it is
 * used: before any server starts. Two packages providing one name are an error naming both.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import semver from 'semver';
import * as z from 'zod';
import { NgymError } from '../errors.ts';
import { PACKAGE_ROOT } from '../util/package-root.ts';
import { SERVER_TYPES } from '../protocol/server-types.ts';
import { type ConfigDict, isDict } from './tree.ts';
import { readYamlConfig } from './yaml-file.ts';

/** The `keywords` entry that marks an environment package (and that `ngym env search` looks for). */
export const ENVIRONMENT_KEYWORD = 'ngym-environment';

/** The `ngym` field of an environment package's package.json. */
export const NgymField = z.strictObject({
  /** Names of its `environments/<name>/config.yaml` (a package may provide servers only). */
  environments: z.array(z.string().min(1)).default([]),
  resources_servers: z.array(z.string().min(1)).optional(),
  responses_api_agents: z.array(z.string().min(1)).optional(),
  responses_api_models: z.array(z.string().min(1)).optional(),
  environment_servers: z.array(z.string().min(1)).optional(),
  /** An npm script of the package that fetches data the tarball does not hold (run by `ngym env add`). */
  prepare: z.string().min(1).optional(),
});
type NgymFieldValue = z.infer<typeof NgymField>;

export interface EnvironmentPackage {
  name: string;
  version: string;
  /** The package's folder (a search root). */
  root: string;
  /** What it provides: `environments/<name>` and `<server type>/<name>`. */
  provides: string[];
  field?: NgymFieldValue;
  /** Why it cannot be used (the message names the package and version); undefined when it can. */
  problem?: string;
}

interface Manifest {
  name?: unknown;
  version?: unknown;
  keywords?: unknown;
  ngym?: unknown;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

function readManifest(file: string): Manifest | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Manifest;
  } catch {
    return undefined;
  }
}

/** Where Node finds `name` from a package folder: its own node_modules, then each parent's. */
function resolvePackage(name: string, from: string): string | undefined {
  for (let folder = from; ; folder = dirname(folder)) {
    const candidate = join(folder, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(folder) === folder) return undefined;
  }
}

const dependencyNames = (manifest: Manifest) => Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies, ...manifest.devDependencies });

export const installedNgymVersion = (): string => String(readManifest(join(PACKAGE_ROOT, 'package.json'))?.version ?? '0.0.0');

/** Whether a manifest declares itself an environment package. */
const isEnvironmentPackage = (manifest: Manifest) => manifest.ngym !== undefined || (Array.isArray(manifest.keywords) && manifest.keywords.includes(ENVIRONMENT_KEYWORD));

/** A package's own problem from its package.json alone, or what it provides. */
function readPackage(root: string, manifest: Manifest): EnvironmentPackage {
  const name = String(manifest.name ?? relative(join(root, '..'), root));
  const version = String(manifest.version ?? '0.0.0');
  const label = `${name}@${version}`;
  const base = { name, version, root, provides: [] };
  if (manifest.ngym === undefined) {
    return { ...base, problem: `${label} has the keyword ${ENVIRONMENT_KEYWORD} but no \`ngym\` field naming the environments and servers it provides (docs/environments/packages.md).` };
  }
  const parsed = NgymField.safeParse(manifest.ngym);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ...base, problem: `${label}: its \`ngym\` field is invalid at ${['ngym', ...(issue?.path ?? [])].join('.')}: ${issue?.message}.` };
  }
  const field = parsed.data;
  const provides = [
    ...field.environments.map((environment) => `environments/${environment}`),
    ...SERVER_TYPES.flatMap((type) => (field[type as keyof NgymFieldValue] as string[] | undefined)?.map((server) => `${type}/${server}`) ?? []),
  ];
  if (provides.length === 0) return { ...base, field, problem: `${label}: its \`ngym\` field names nothing it provides (environments, resources_servers, ...).` };
  const range = manifest.peerDependencies?.ngym;
  const installed = installedNgymVersion();
  let problem: string | undefined;
  if (range === undefined) problem = `${label} declares no ngym peer dependency; add "peerDependencies": {"ngym": "^${installed}"} (the ngym versions it runs under).`;
  else if (semver.validRange(range) === null) problem = `${label}: its ngym peer dependency '${range}' is not a semver range.`;
  else if (!semver.satisfies(installed, range, { includePrerelease: true })) problem = `${label} needs ngym ${range}, but the installed ngym is ${installed}: install a version of ${name} made for ngym ${installed}, or ngym@'${range}'.`;
  problem ??= provides.map((path) => join(root, path, path.startsWith('environments/') ? 'config.yaml' : '')).filter((path) => !existsSync(path)).map((path) => `${label} declares ${relative(root, path)} in its \`ngym\` field, but the package has no such ${path.endsWith('.yaml') ? 'file' : 'folder'}.`)[0];
  return { ...base, provides, field, problem };
}

/** Each server `{type, impl}` of a config file and those it includes, and its datasets. */
function configContents(file: string, roots: readonly string[], seen = new Set<string>()): { servers: string[]; datasets: ConfigDict[] } {
  if (seen.has(file)) return { servers: [], datasets: [] };
  seen.add(file);
  const config = readYamlConfig(file);
  const servers: string[] = [];
  const datasets: ConfigDict[] = [];
  for (const [key, entry] of Object.entries(config)) {
    if (key === 'config_paths' || !isDict(entry)) continue;
    for (const [type, impls] of Object.entries(entry)) {
      if (!(SERVER_TYPES as readonly string[]).includes(type) || !isDict(impls)) continue;
      for (const [impl, inner] of Object.entries(impls)) {
        servers.push(`${type}/${impl}`);
        if (isDict(inner) && Array.isArray(inner.datasets)) datasets.push(...inner.datasets.filter(isDict));
      }
    }
  }
  for (const path of Array.isArray(config.config_paths) ? config.config_paths : []) {
    const included = roots.map((root) => resolve(root, String(path))).find(existsSync);
    if (included === undefined) continue;
    const inner = configContents(included, roots, seen);
    servers.push(...inner.servers);
    datasets.push(...inner.datasets);
  }
  return { servers, datasets };
}

/** The problem of a package's environments' contents: a server no installed package provides, data the tarball lacks. */
function contentProblem(found: EnvironmentPackage, otherRoots: readonly string[]): string | undefined {
  const label = `${found.name}@${found.version}`;
  const roots = [found.root, ...otherRoots];
  for (const environment of found.field?.environments ?? []) {
    const configFile = join(found.root, 'environments', environment, 'config.yaml');
    let contents: ReturnType<typeof configContents>;
    try {
      contents = configContents(configFile, roots);
    } catch (error) {
      return `${label}: environments/${environment}/config.yaml does not load: ${(error as Error).message}`;
    }
    const missingServer = contents.servers.find((server) => !roots.some((root) => existsSync(join(root, server))));
    if (missingServer !== undefined) {
      return `${label}: its environment '${environment}' names the server ${missingServer}, which neither ${found.name} nor any installed package provides (nor ngym itself). Install the package that provides it.`;
    }
    for (const dataset of contents.datasets) {
      const path = String(dataset.jsonl_fpath ?? '');
      if (path === '' || existsSync(isAbsolute(path) ? path : join(found.root, path))) continue;
      const fetched = isDict(dataset.huggingface_identifier) || found.field?.prepare !== undefined;
      if (dataset.type === 'example' || !fetched) {
        return `${label}: its tarball is missing the data ${path} (dataset '${String(dataset.name)}' of environment '${environment}')${dataset.type === 'example' ? '; example data must be in the package' : ', and neither a huggingface_identifier nor an `ngym.prepare` script fetches it'}. Publish the package with its data (package.json \`files\`).`;
      }
    }
  }
  return undefined;
}

/**
 * A package folder checked as `discover` checks an installed one (`ngym env publish` before publishing): the
 * servers its configs name may come from itself, the packages installed in it, or ngym.
 */
export function checkEnvironmentPackage(root: string): EnvironmentPackage {
  const manifest = readManifest(join(root, 'package.json'));
  if (manifest === undefined) throw new NgymError('NGYM_USAGE', `${root} has no readable package.json.`);
  const found = readPackage(root, manifest);
  if (found.problem === undefined && !(Array.isArray(manifest.keywords) && manifest.keywords.includes(ENVIRONMENT_KEYWORD))) {
    found.problem = `${found.name}@${found.version} lacks the keyword ${ENVIRONMENT_KEYWORD} in package.json \`keywords\`: \`ngym env search\` finds environment packages by it.`;
  }
  found.problem ??= contentProblem(found, [...environmentPackages(root).packages.map((other) => other.root), PACKAGE_ROOT]);
  return found;
}

export interface EnvironmentPackageIndex {
  /** Every environment package found, first the project's own dependencies, in their order. */
  packages: EnvironmentPackage[];
}

/** Every environment package reachable from the project's dependencies, each checked. */
function discover(cwd: string): EnvironmentPackageIndex {
  const project = readManifest(join(cwd, 'package.json'));
  if (project === undefined) return { packages: [] };
  const byRoot = new Map<string, EnvironmentPackage>();
  const queue = dependencyNames(project).map((name) => ({ name, from: cwd }));
  const visited = new Set<string>();
  while (queue.length > 0) {
    const { name, from } = queue.shift() as { name: string; from: string };
    const root = resolvePackage(name, from);
    if (root === undefined || visited.has(root)) continue;
    visited.add(root);
    const manifest = readManifest(join(root, 'package.json'));
    if (manifest === undefined || !isEnvironmentPackage(manifest)) continue;
    const found = readPackage(root, manifest);
    // env.yaml holds the user's endpoints and keys, and is read from every search root: a package must not bring one.
    if (existsSync(join(root, 'env.yaml'))) found.problem ??= `${found.name}@${found.version} ships an env.yaml; an environment package must not (it would set the user's model endpoints and keys).`;
    byRoot.set(root, found);
    // An environment package's own dependencies may be environment packages too (plain libraries are not followed).
    queue.push(...Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies }).map((dependency) => ({ name: dependency, from: root })));
  }
  const packages = [...byRoot.values()];
  for (const found of packages) {
    if (found.problem !== undefined) continue;
    const others = packages.filter((other) => other.name === found.name && other.version !== found.version);
    if (others.length > 0) {
      found.problem = `Two versions of ${found.name} are installed: ${[found, ...others].map((one) => `${one.version} (${relative(cwd, one.root)})`).join(' and ')}. Keep one (\`npm ls ${found.name}\` shows who needs which; align their ngym-environment dependency ranges).`;
      continue;
    }
    const otherRoots = [resolve(cwd), ...packages.filter((other) => other !== found).map((other) => other.root), PACKAGE_ROOT];
    found.problem = contentProblem(found, otherRoots);
  }
  return { packages };
}

/** Cached per working directory until its package.json or lockfile changes (an install rewrites both). */
const cache = new Map<string, { stamp: string; index: EnvironmentPackageIndex }>();

export function environmentPackages(cwd = process.cwd()): EnvironmentPackageIndex {
  const key = resolve(cwd);
  const stamp = ['package.json', 'package-lock.json', join('node_modules', '.package-lock.json')]
    .map((file) => {
      try {
        return String(statSync(join(key, file)).mtimeMs);
      } catch {
        return '-';
      }
    })
    .join('|');
  const cached = cache.get(key);
  if (cached?.stamp === stamp) return cached.index;
  const index = discover(key);
  cache.set(key, { stamp, index });
  return index;
}

/** The packages (of different names) that provide `environments/<name>` or `<server type>/<name>`. */
function providersOf(index: EnvironmentPackageIndex, provided: string): EnvironmentPackage[] {
  const providers = index.packages.filter((found) => found.provides.includes(provided));
  return providers.filter((found, position) => providers.findIndex((other) => other.name === found.name) === position);
}

/** The project a path under `<project>/node_modules/` belongs to (so a lookup needs no working directory). */
function projectOf(path: string): string | undefined {
  const at = resolve(path).indexOf(`${sep}node_modules${sep}`);
  return at < 0 ? undefined : resolve(path).slice(0, at);
}

/** The installed package a path lies in, if any. */
export function packageOfPath(path: string, cwd = projectOf(path) ?? process.cwd()): EnvironmentPackage | undefined {
  const absolute = resolve(path);
  return environmentPackages(cwd).packages.find((found) => absolute === found.root || absolute.startsWith(`${found.root}${sep}`));
}

/**
 * Refuses a path found in an installed environment package that cannot be used: the package's own problem, or
 * another package providing the same environment or server. Called wherever a search root answers a lookup.
 */
export function checkPackagedPath(path: string, cwd = projectOf(path) ?? process.cwd()): void {
  const found = packageOfPath(path, cwd);
  if (found === undefined) return;
  const [first = '', second = ''] = relative(found.root, resolve(path)).split(sep);
  const provided = `${first}/${second}`;
  const providers = providersOf(environmentPackages(cwd), provided);
  if (providers.length > 1) {
    throw new NgymError(
      'NGYM_ENVIRONMENT_PACKAGE',
      `Two installed packages provide ${provided}: ${providers.map((one) => `${one.name}@${one.version}`).join(' and ')}. Uninstall one, or run one of them from a project of its own.`,
    );
  }
  if (found.problem !== undefined) throw new NgymError('NGYM_ENVIRONMENT_PACKAGE', found.problem);
}
