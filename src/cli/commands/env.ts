/**
 * `ngym env <add|search|verify|publish|pack>`: environments as npm packages (docs/environments/packages.md).
 * `add` installs one with npm (which records it in package.json) and checks it; `search` asks the registry npm is
 * configured for; `verify` replays an environment's example rollouts; `publish` checks a package, then runs
 * `npm publish`; `pack` builds a package from one of this repository's environments. npm itself does the
 * installing and publishing, so its configuration (registries, scopes, tokens in .npmrc) applies unchanged.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import { checkPackagedPath, ENVIRONMENT_KEYWORD, environmentPackages, NgymField } from '../../config/environment-packages.ts';
import { loadGlobalConfig } from '../../config/global-config.ts';
import { NgymError } from '../../errors.ts';
import { type CliCommand, readParameters } from '../command.ts';
import { runNpm, splitArguments } from './env-npm.ts';
import { reportVerification, verifyExamples } from './env-verify.ts';

const write = (text: string) => process.stdout.write(text);

/** The package name a spec names (`@team/env-foo@^1`, `env-foo`), or undefined for a path, URL or tarball. */
function specName(spec: string): string | undefined {
  if (/^(\.|\/|[a-z]+:|.*\.tgz$)/i.test(spec)) return undefined;
  const at = spec.indexOf('@', spec.startsWith('@') ? 1 : 0);
  return at < 0 ? spec : spec.slice(0, at);
}

interface Manifest {
  name: string;
  version: string;
  ngym?: unknown;
  keywords?: string[];
  dependencies?: Record<string, string>;
  scripts?: Record<string, string>;
}

const readManifest = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Manifest;

/** `ngym env add <package...>`: checked against the registry's package.json first, then installed and checked whole. */
async function addCommand(args: string[]): Promise<number> {
  const cwd = process.cwd();
  const { words: specs, npmFlags } = splitArguments(args);
  if (specs.length === 0) throw new NgymError('NGYM_USAGE', 'ngym env add needs a package: ngym env add @team/env-foo [more...] [npm flags such as --registry URL].');
  if (!existsSync(join(cwd, 'package.json'))) throw new NgymError('NGYM_USAGE', `No package.json in ${cwd}: run \`npm init -y\` first, so the environment is recorded as a dependency.`);
  for (const spec of specs) {
    if (specName(spec) === undefined) continue;
    // Before touching the project: is it an environment package at all?
    const viewed = runNpm(['view', spec, 'name', 'version', 'keywords', 'ngym', '--json', ...npmFlags], cwd, true);
    if (viewed.code !== 0) throw new NgymError('NGYM_USAGE', `npm could not find ${spec} (npm view exited ${viewed.code}); check the name and the registry npm is configured for (\`npm config get registry\`, or @scope:registry in .npmrc).`);
    const answer = JSON.parse(viewed.stdout || '{}') as Manifest | Manifest[];
    const info = Array.isArray(answer) ? answer.at(-1) : answer;
    if (info?.ngym === undefined) {
      throw new NgymError('NGYM_ENVIRONMENT_PACKAGE', `${info?.name ?? spec}@${info?.version ?? '?'} is not an ngym environment package: its package.json has no \`ngym\` field naming the environments it provides. Nothing was installed.`);
    }
  }
  const before = new Set(Object.keys(readManifest(join(cwd, 'package.json')).dependencies ?? {}));
  const installed = runNpm(['install', ...specs, ...npmFlags], cwd);
  if (installed.code !== 0) throw new NgymError('NGYM_USAGE', `npm install ${specs.join(' ')} failed (exit ${installed.code}); see npm's output above.`);
  const after = readManifest(join(cwd, 'package.json')).dependencies ?? {};
  const names = new Set([...specs.map(specName).filter((name): name is string => name !== undefined), ...Object.keys(after).filter((name) => !before.has(name))]);
  const packages = environmentPackages(cwd).packages.filter((found) => names.has(found.name));
  if (packages.length === 0) throw new NgymError('NGYM_ENVIRONMENT_PACKAGE', `npm installed ${[...names].join(', ')}, but none is an ngym environment package (no \`ngym\` field); \`npm uninstall\` it.`);
  for (const found of packages) {
    for (const provided of found.provides) checkPackagedPath(join(found.root, provided), cwd);
    if (found.problem !== undefined) throw new NgymError('NGYM_ENVIRONMENT_PACKAGE', `${found.problem} (\`npm uninstall ${found.name}\` removes it.)`);
    const prepare = found.field?.prepare;
    if (prepare !== undefined) {
      write(`${found.name}@${found.version}: fetching its data (npm run ${prepare})...\n`);
      const prepared = runNpm(['run', prepare], found.root);
      if (prepared.code !== 0) throw new NgymError('NGYM_ENVIRONMENT_PACKAGE', `${found.name}@${found.version}: its prepare script \`${prepare}\` failed (exit ${prepared.code}).`);
    }
    const environments = found.field?.environments ?? [];
    write(`Added ${found.name}@${found.version}: ${environments.length === 0 ? 'servers only' : `environments ${environments.join(', ')}`}.\n`);
    for (const environment of environments) write(`  gym env start --environment ${environment} --model-type openai_model   |   ngym env verify ${environment}\n`);
  }
  return 0;
}

interface SearchHit {
  name: string;
  version: string;
  description?: string;
  keywords?: string[];
}

/** `ngym env search <words>`: npm's search API, keeping the packages that carry the keyword. */
async function searchCommand(args: string[]): Promise<number> {
  const { words, npmFlags, overrides } = splitArguments(args);
  const json = overrides.includes('+json=true');
  const found = runNpm(['search', '--json', '--searchlimit=100', ...npmFlags, `keywords:${ENVIRONMENT_KEYWORD}`, ...words], process.cwd(), true);
  if (found.code !== 0) throw new NgymError('NGYM_USAGE', `npm search failed (exit ${found.code}); check the registry npm is configured for (\`npm config get registry\`, or pass --registry URL).`);
  let hits = JSON.parse(found.stdout || '[]') as SearchHit[];
  if (hits.length === 0 && words.length > 0) {
    // A registry without npm's `keywords:` qualifier (Verdaccio) matches the words alone; the filter below keeps environments.
    hits = JSON.parse(runNpm(['search', '--json', '--searchlimit=100', ...npmFlags, ...words], process.cwd(), true).stdout || '[]') as SearchHit[];
  }
  const environments = hits.filter((hit) => hit.keywords?.includes(ENVIRONMENT_KEYWORD));
  if (json) write(`${JSON.stringify(environments, null, 2)}\n`);
  else if (environments.length === 0) write(`No environment packages (keyword ${ENVIRONMENT_KEYWORD}) match '${words.join(' ')}'.\n`);
  else {
    const width = Math.max(...environments.map((hit) => `${hit.name}@${hit.version}`.length));
    for (const hit of environments) write(`${`${hit.name}@${hit.version}`.padEnd(width)}  ${hit.description ?? ''}\n`);
    write(`Install one with: ngym env add <name>\n`);
  }
  return 0;
}

const VerifyParameters = z.object({ output_dirpath: z.string().min(1).default('results/verify').describe('Where the replayed rollouts are written.') });

async function verifyCommand(args: string[]): Promise<number> {
  const { words, overrides } = splitArguments(args);
  if (words.length === 0) throw new NgymError('NGYM_USAGE', 'ngym env verify needs an environment name: ngym env verify <environment> (gym list environments).');
  const { output_dirpath: outputDir } = readParameters(loadGlobalConfig({ overrides, envYamlPath: null }), VerifyParameters);
  reportVerification(await verifyExamples(words, { outputDir }));
  return 0;
}

/** The `ngym` field's shape, printed by `ngym env --help`. */
const FIELD_KEYS = Object.keys(NgymField.shape).join(', ');

export const envCommand: CliCommand = {
  name: 'env',
  summary: 'Environments as npm packages: add, search, verify, publish, pack.',
  usage: '<add|search|verify|publish|pack> [args] [+key=value ...]',
  description: `
An environment package is an npm package with the keyword ${ENVIRONMENT_KEYWORD}, ngym as a peer dependency,
and an \`ngym\` field (${FIELD_KEYS}) naming what it holds: environments/<name>/config.yaml and the server
folders it names. Once installed, \`gym env start --environment <name>\` and \`gym list environments\` find it
(docs/environments/packages.md). npm's configuration (registry, @scope:registry, tokens) applies throughout.

  ngym env add <package...> [--registry URL]   npm install it (recorded in package.json), check it, fetch its data
  ngym env search <words...> [--registry URL]  search the registry for environment packages
  ngym env verify <environment...>             start them in one gym, replay their example rollouts; rewards
                                               must equal the recording
                                               [+output_dirpath=results/verify]
  ngym env publish [npm publish flags]         check the package in the working directory (or +package_dirpath),
                                               then npm publish [+max_package_mb=50] [+dry_run=true]
  ngym env pack <environment...>               build a package of one of ngym's own environments
                                               [+scope=@local] [+version=<ngym's>] [+output_dirpath=packages]

New package: ngym init --package +entrypoint=resources_servers/<name> [+package_name=@team/env-<name>]`,
  async run(args) {
    const [verb, ...rest] = args;
    switch (verb) {
      case 'add':
        return addCommand(rest);
      case 'search':
        return searchCommand(rest);
      case 'verify':
        return verifyCommand(rest);
      case 'publish':
        return (await import('./env-publish.ts')).publishCommand(splitArguments(rest));
      case 'pack':
        return (await import('./env-pack.ts')).packCommand(splitArguments(rest));
      default:
        throw new NgymError('NGYM_USAGE', `${verb === undefined ? 'ngym env needs a subcommand' : `Unknown subcommand 'ngym env ${verb}'`}: add, search, verify, publish or pack (ngym env --help).`);
    }
  },
};
