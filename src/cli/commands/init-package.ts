/**
 * `ngym init --package +entrypoint=resources_servers/<name>`: a new environment as an npm package folder
 * (docs/environments/packages.md): the scaffolded resources server (`ngym init`'s, with its tests, data and example
 * rollouts), environments/<name>/config.yaml, a package.json with the keyword, the ngym peer range and the `ngym`
 * field, a README, and CI that runs the tests and `ngym env verify` on every push and `ngym env publish` on a tag.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import * as z from 'zod';
import { ENVIRONMENT_KEYWORD, installedNgymVersion } from '../../config/environment-packages.ts';
import { loadGlobalConfig } from '../../config/global-config.ts';
import { NgymError } from '../../errors.ts';
import { PACKAGE_ROOT } from '../../util/package-root.ts';
import { readParameters } from '../command.ts';

const Parameters = z.object({
  entrypoint: z.string().min(1).describe('resources_servers/<name>: the environment and its resources server.'),
  package_name: z.string().regex(/^(@[a-z0-9][a-z0-9._-]*\/)?[a-z0-9][a-z0-9._-]*$/).optional().describe('npm name (default env-<name>; a scope such as @team/env-<name> for a private registry).'),
  output_dirpath: z.string().min(1).optional().describe('The package folder to create (default ./env-<name>).'),
});

const kebab = (name: string) => name.replaceAll('_', '-');

function manifest(name: string, packageName: string): string {
  const ngym = installedNgymVersion();
  // The scaffold imports zod and tests with vitest: the versions this ngym uses.
  const own = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
  return `${JSON.stringify(
    {
      name: packageName,
      version: '0.1.0',
      description: `The ${name} environment for ngym / NeMo Gym`,
      license: 'Apache-2.0',
      type: 'module',
      keywords: [ENVIRONMENT_KEYWORD, name],
      files: ['environments', 'resources_servers', 'README.md', '!**/*.test.ts'],
      scripts: { test: 'vitest run', verify: `ngym env verify ${name}`, 'publish-checked': 'ngym env publish' },
      ngym: { environments: [name], resources_servers: [name] },
      peerDependencies: { ngym: `^${ngym}` },
      dependencies: { zod: own.dependencies.zod },
      devDependencies: { ngym: `^${ngym}`, vitest: own.devDependencies.vitest },
    },
    null,
    2,
  )}\n`;
}

function readme(name: string, packageName: string): string {
  return `# ${packageName}

The \`${name}\` environment as an npm package for ngym (docs/environments/packages.md in ngym).

## Use it

\`\`\`sh
npm install ngym ${packageName}        # or: npx ngym env add ${packageName}
npx ngym env verify ${name}            # replays the example rollouts: rewards equal the recording
npx gym env start --environment ${name} --model-type openai_model
\`\`\`

## Develop it

\`\`\`sh
npm install
npm test                               # the resources server's tests
npm run verify                         # its example rollouts, replayed
npx ngym env publish                   # every check, then npm publish (+dry_run=true to try)
\`\`\`

The server is resources_servers/${name}/ (see its README); environments/${name}/config.yaml is what
\`--environment ${name}\` loads. Record data/example_rollouts.jsonl again with a real model once the
environment is yours (the scaffold recorded it with a scripted model).
`;
}

const CI = (name: string) => `# Tests and example rollouts on every push; publishing (every check again, then npm publish) on a v* tag.
# Set NPM_TOKEN in the repository's secrets; for a private registry, set registry-url (and scope) below.
name: ci
on:
  push:
    branches: [main]
    tags: ['v*']
  pull_request:
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 22
          registry-url: https://registry.npmjs.org
      - run: npm ci
      - run: npm test
      - run: npx ngym env verify ${name}
      - if: startsWith(github.ref, 'refs/tags/v')
        run: npx ngym env publish
        env:
          NODE_AUTH_TOKEN: \${{ secrets.NPM_TOKEN }}
`;

/** `ngym init`'s scaffold of a resources server in a folder (init.ts passes it: init.ts loads this module). */
type Scaffold = (name: string, cwd: string) => Promise<{ directory: string; files: string[] }>;

/** Writes the package folder; a failure leaves nothing behind. */
export async function initPackage(args: string[], scaffoldResourcesServer: Scaffold): Promise<number> {
  const parameters = readParameters(loadGlobalConfig({ overrides: args, envYamlPath: null }), Parameters);
  const parts = parameters.entrypoint.split(/[\\/]+/).filter((part) => part !== '' && part !== '.');
  const name = (parts[1] ?? '').toLowerCase();
  if (parts.length !== 2 || parts[0] !== 'resources_servers' || !/^[a-z][a-z0-9_]*$/.test(name)) {
    throw new NgymError('NGYM_USAGE', `+entrypoint must be resources_servers/<name> (letters, digits, underscores); got '${parameters.entrypoint}'.`);
  }
  const packageName = parameters.package_name ?? `env-${kebab(name)}`;
  const target = resolve(parameters.output_dirpath ?? `env-${kebab(name)}`);
  if (existsSync(target)) throw new NgymError('NGYM_USAGE', `${target} already exists; ngym init --package writes a new folder (pass +output_dirpath=...).`);
  process.stdout.write(`Creating the package ${packageName} in ${relative(process.cwd(), target) || '.'} and recording its example rollouts with a scripted model (no LLM)...\n`);
  mkdirSync(target, { recursive: true });
  try {
    // package.json first: its `"type": "module"` is what makes the scaffold's app.ts load as ESM.
    writeFileSync(join(target, 'package.json'), manifest(name, packageName));
    const scaffold = await scaffoldResourcesServer(name, target);
    const files: Record<string, string> = {
      'README.md': readme(name, packageName),
      [`environments/${name}/config.yaml`]: `# The ${name} environment: \`gym env start --environment ${name}\` loads this file once the package is installed.\nconfig_paths:\n- resources_servers/${name}/configs/${name}.yaml\n`,
      '.github/workflows/ci.yml': CI(name),
      '.gitignore': 'node_modules/\nresults/\nenv.yaml\n',
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(target, path, '..'), { recursive: true });
      writeFileSync(join(target, path), text);
    }
    const written = ['package.json', ...Object.keys(files), ...scaffold.files.map((file) => `resources_servers/${name}/${file}`)];
    process.stdout.write(`Created ${target}:\n${written.map((file) => `  ${file}`).join('\n')}\n\nNext, in ${target}:\n  npm install\n  npm test\n  npm run verify\n  npx ngym env publish +dry_run=true\n`);
    return 0;
  } catch (error) {
    rmSync(target, { recursive: true, force: true });
    throw error;
  }
}
