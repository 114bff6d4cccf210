/**
 * `ngym env pack <environment>`: one of ngym's own environments as an environment package folder, ready for
 * `ngym env publish`: its environments/<name>/config.yaml, the resources servers that config names (code, configs,
 * data with the example rollouts, README; no tests, as ngym's own tarball has none), a README and a package.json
 * with the keyword, the ngym peer range and the `ngym` field. Agents, model servers and environment servers the
 * config names come from ngym itself (the peer dependency), so they are not copied.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import * as z from 'zod';
import { ENVIRONMENT_KEYWORD, installedNgymVersion } from '../../config/environment-packages.ts';
import { loadGlobalConfig } from '../../config/global-config.ts';
import { type ConfigDict, isDict } from '../../config/tree.ts';
import { NgymError } from '../../errors.ts';
import { PACKAGE_ROOT } from '../../util/package-root.ts';
import { readParameters } from '../command.ts';
import { readWithIncludes } from '../gym/catalog.ts';
import { importedPackages } from '../gym/environment.ts';
import type { EnvArguments } from './env-npm.ts';

const Parameters = z.object({
  scope: z.string().regex(/^@[a-z0-9][a-z0-9._-]*$/).default('@local').describe('npm scope of the packages (@team).'),
  version: z.string().min(1).optional().describe("Package version (default: ngym's)."),
  output_dirpath: z.string().min(1).default('packages').describe('Where the package folders go (<output>/env-<name>).'),
});

/** Files of a server folder that stay out of the package, as ngym's own `files` leaves them out of its tarball. */
const LEFT_OUT = /(\.test\.ts|__fixtures__|test-helpers\.ts|test-config\.ts|example-data\.ts|node_modules|\.ngym-init)$/;

function resourcesServersOf(tree: ConfigDict): string[] {
  const found = new Set<string>();
  for (const entry of Object.values(tree).filter(isDict)) if (isDict(entry.resources_servers)) for (const impl of Object.keys(entry.resources_servers)) found.add(impl);
  return [...found];
}

/** The package folder of one environment; returns its path. */
function packEnvironment(environment: string, parameters: z.infer<typeof Parameters>): string {
  const configFile = join(PACKAGE_ROOT, 'environments', environment, 'config.yaml');
  if (!existsSync(configFile)) throw new NgymError('NGYM_USAGE', `ngym has no environment '${environment}' (no ${configFile}); \`gym list environments\` lists them.`);
  const tree = readWithIncludes(configFile, PACKAGE_ROOT);
  const servers = resourcesServersOf(tree);
  const ngymVersion = installedNgymVersion();
  const name = `${parameters.scope}/env-${environment.replaceAll('_', '-')}`;
  const target = resolve(parameters.output_dirpath, `env-${environment.replaceAll('_', '-')}`);
  rmSync(target, { recursive: true, force: true });
  mkdirSync(join(target, 'environments'), { recursive: true });
  cpSync(join(PACKAGE_ROOT, 'environments', environment), join(target, 'environments', environment), { recursive: true });
  for (const server of servers) {
    cpSync(join(PACKAGE_ROOT, 'resources_servers', server), join(target, 'resources_servers', server), { recursive: true, filter: (source) => !LEFT_OUT.test(source) });
  }
  const main = tree[servers[0] ?? ''];
  const inner = isDict(main) && isDict(main.resources_servers) ? Object.values(main.resources_servers).find(isDict) : undefined;
  const description = typeof inner?.description === 'string' ? inner.description : `The ${environment} environment`;
  const domain = typeof inner?.domain === 'string' ? [inner.domain] : [];
  // The packages the servers import besides ngym, at the versions ngym itself depends on.
  const ngymManifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  const imported = [...new Set(servers.flatMap((server) => importedPackages(join(target, 'resources_servers', server))))].filter((name) => name !== 'ngym');
  const unknown = imported.filter((name) => ngymManifest.dependencies[name] === undefined);
  if (unknown.length > 0) throw new NgymError('NGYM_USAGE', `${environment}'s servers import ${unknown.join(', ')}, which ngym does not depend on; cannot tell which version to declare.`);
  const manifest = {
    name,
    version: parameters.version ?? ngymVersion,
    description: `${description} (ngym environment ${environment})`,
    license: 'Apache-2.0',
    type: 'module',
    keywords: [ENVIRONMENT_KEYWORD, environment, ...domain],
    peerDependencies: { ngym: `^${ngymVersion}` },
    dependencies: Object.fromEntries(imported.map((name) => [name, ngymManifest.dependencies[name] as string])),
    ngym: { environments: [environment], resources_servers: servers },
    files: ['environments', 'resources_servers', 'README.md'],
  };
  writeFileSync(join(target, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const serverReadme = join(PACKAGE_ROOT, 'resources_servers', servers[0] ?? '', 'README.md');
  writeFileSync(
    join(target, 'README.md'),
    `# ${name}\n\nngym's \`${environment}\` environment as an npm package: ${description}.\n\n` +
      '```sh\n' +
      `npm install ngym ${name}\n` +
      `npx ngym env verify ${environment}            # replays its example rollouts: rewards equal the recording\n` +
      `npx gym env start --environment ${environment} --model-type openai_model\n` +
      '```\n\n' +
      `Servers: ${servers.map((server) => `resources_servers/${server}`).join(', ')}; agents and model servers come from ngym.\n` +
      (existsSync(serverReadme) ? `\n${readFileSync(serverReadme, 'utf8')}` : ''),
  );
  // The servers import 'ngym' and its dependencies: the folder sees this ngym's (as a developer's package sees what
  // `npm install` put there), so `ngym env publish` can test and verify it here. npm never packs node_modules/.
  mkdirSync(join(target, 'node_modules'), { recursive: true });
  symlinkSync(PACKAGE_ROOT, join(target, 'node_modules', 'ngym'), 'dir');
  for (const name of imported) {
    mkdirSync(dirname(join(target, 'node_modules', name)), { recursive: true });
    symlinkSync(join(PACKAGE_ROOT, 'node_modules', name), join(target, 'node_modules', name), 'dir');
  }
  return target;
}

export async function packCommand({ words, overrides }: EnvArguments): Promise<number> {
  if (words.length === 0) throw new NgymError('NGYM_USAGE', 'ngym env pack needs an environment of ngym: ngym env pack mcqa [more...] [+scope=@local] [+output_dirpath=packages].');
  const parameters = readParameters(loadGlobalConfig({ overrides, envYamlPath: null }), Parameters);
  for (const environment of words) {
    const target = packEnvironment(environment, parameters);
    process.stdout.write(`Packed ${environment} into ${target} (${basename(target)}); publish it with: ngym env publish +package_dirpath=${target}\n`);
  }
  return 0;
}
