/**
 * Installed environment packages, laid out on disk as npm installs them (a project's package.json naming them,
 * their folders under node_modules/): found as search roots, listed with package and version, and each kind of bad
 * package refused by name and version when its environment is looked up or its server located, before any start.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { printCatalog } from '../cli/gym/catalog.ts';
import { assetConfigPath } from '../cli/gym/flags.ts';
import { locateServer } from '../gym/hosting.ts';
import { locateAndValidate } from '../gym/launcher.ts';
import { PACKAGE_ROOT } from '../util/package-root.ts';
import { checkEnvironmentPackage, environmentPackages, installedNgymVersion } from './environment-packages.ts';
import { loadGlobalConfig } from './global-config.ts';
import { defaultSearchRoots, findServerDirectory, type ServerInstance } from './server-instances.ts';

const NGYM = installedNgymVersion();

interface PackageSpec {
  name: string;
  version?: string;
  /** The environment it provides (its resources server is a copy of example_single_tool_call under this name). */
  environment?: string;
  manifest?: Record<string, unknown>;
  /** Leave out data/example.jsonl. */
  withoutData?: boolean;
  /** A server its config names that nobody provides. */
  namesServer?: string;
  /** Installed under this other package's node_modules (a nested copy). */
  under?: string;
}

/** An environment package folder: environments/<env>/config.yaml including resources_servers/<env>'s config. */
function writePackage(root: string, spec: PackageSpec): void {
  const environment = spec.environment ?? 'foo';
  mkdirSync(join(root, 'environments', environment), { recursive: true });
  const server = join(root, 'resources_servers', environment);
  cpSync(join(PACKAGE_ROOT, 'resources_servers', 'example_single_tool_call'), server, { recursive: true, filter: (path) => !path.endsWith('.test.ts') });
  writeFileSync(
    join(server, 'configs', `${environment}.yaml`),
    `${environment}:\n  resources_servers:\n    ${environment}:\n      entrypoint: app.ts\n      domain: other\n      description: test environment ${environment}\n` +
      `${environment}_simple_agent:\n  responses_api_agents:\n    ${spec.namesServer ?? 'simple_agent'}:\n      entrypoint: app.ts\n      resources_server: {type: resources_servers, name: ${environment}}\n      model_server: {type: responses_api_models, name: policy_model}\n` +
      `      datasets:\n      - {name: example, type: example, jsonl_fpath: resources_servers/${environment}/data/example.jsonl}\n`,
  );
  if (spec.withoutData) rmSync(join(server, 'data', 'example.jsonl'));
  writeFileSync(join(root, 'environments', environment, 'config.yaml'), `config_paths:\n- resources_servers/${environment}/configs/${environment}.yaml\n`);
  const manifest = {
    name: spec.name,
    version: spec.version ?? '1.0.0',
    keywords: ['ngym-environment'],
    peerDependencies: { ngym: `^${NGYM}` },
    ngym: { environments: [environment], resources_servers: [environment] },
    ...spec.manifest,
  };
  writeFileSync(join(root, 'package.json'), JSON.stringify(manifest));
}

/** A project with these packages installed (top-level unless `under`), each a dependency of the project or of its parent. */
const projects: string[] = [];
afterAll(() => {
  for (const folder of projects) rmSync(folder, { recursive: true, force: true });
});

function project(...specs: PackageSpec[]): string {
  const folder = mkdtempSync(join(tmpdir(), 'ngym-env-packages-'));
  projects.push(folder);
  const top = specs.filter((spec) => spec.under === undefined);
  writeFileSync(join(folder, 'package.json'), JSON.stringify({ name: 'project', dependencies: Object.fromEntries(top.map((spec) => [spec.name, spec.version ?? '1.0.0'])) }));
  for (const spec of top) writePackage(join(folder, 'node_modules', spec.name), spec);
  // ngym itself, as npm installs the peer dependency beside them (the packages' app.ts import it).
  symlinkSync(PACKAGE_ROOT, join(folder, 'node_modules', 'ngym'));
  for (const spec of specs.filter((candidate) => candidate.under !== undefined)) {
    const parent = join(folder, 'node_modules', spec.under as string);
    writePackage(join(parent, 'node_modules', spec.name), spec);
    const parentManifest = join(parent, 'package.json');
    const manifest = JSON.parse(readFileSync(parentManifest, 'utf8')) as Record<string, unknown>;
    writeFileSync(parentManifest, JSON.stringify({ ...manifest, dependencies: { [spec.name]: spec.version } }));
  }
  return folder;
}

const lookUp = (cwd: string, environment = 'foo') => () => assetConfigPath('environment', environment, cwd);

describe('installed environment packages', () => {
  it('are search roots between the project and ngym: --environment, server folders and gym list find them with package and version', () => {
    const cwd = project({ name: '@team/env-foo', version: '1.2.3' });
    const root = join(cwd, 'node_modules', '@team', 'env-foo');
    expect(defaultSearchRoots(cwd)).toEqual([cwd, root, PACKAGE_ROOT]);
    expect(assetConfigPath('environment', 'foo', cwd)).toBe(join(root, 'environments', 'foo', 'config.yaml'));
    expect(findServerDirectory({ serverType: 'resources_servers', impl: 'foo' }, defaultSearchRoots(cwd))).toBe(join(root, 'resources_servers', 'foo'));
    let listing = '';
    printCatalog({ type: 'environments', json: false }, (text) => (listing += text), cwd);
    expect(listing).toMatch(/^foo\s+other\s+@team\/env-foo@1\.2\.3\s+test environment foo$/m);
    expect(listing).toMatch(/^mcqa\s+knowledge\s+ngym\s+/m);
  });

  it('starts with its servers validated from the package (the last step before any server starts)', async () => {
    const cwd = project({ name: '@team/env-foo' });
    const globalConfig = loadGlobalConfig({
      overrides: [`+config_paths=[${assetConfigPath('environment', 'foo', cwd)},responses_api_models/replay_model/configs/replay_model.yaml]`, '+policy_model.responses_api_models.replay_model.rollouts_jsonl_fpath=[x.jsonl]'],
      cwd,
      envYamlPath: null,
    });
    const locations = await locateAndValidate(globalConfig);
    expect(locations.get('foo')?.directory).toBe(join(cwd, 'node_modules', '@team', 'env-foo', 'resources_servers', 'foo'));
  });

  it('mix: two packages with different environments are both found', () => {
    const cwd = project({ name: '@team/env-foo' }, { name: '@other/env-bar', environment: 'bar' });
    expect(lookUp(cwd, 'foo')()).toContain('@team/env-foo');
    expect(lookUp(cwd, 'bar')()).toContain('@other/env-bar');
  });

  it('refuses a package whose ngym peer range excludes the installed ngym, naming package and version', () => {
    const cwd = project({ name: '@team/env-foo', version: '2.0.0', manifest: { peerDependencies: { ngym: '>=99.0.0' } } });
    expect(lookUp(cwd)).toThrow(`@team/env-foo@2.0.0 needs ngym >=99.0.0, but the installed ngym is ${NGYM}`);
  });

  it('refuses a package with the keyword but no ngym field', () => {
    const cwd = project({ name: '@team/env-foo', manifest: { ngym: undefined } });
    expect(lookUp(cwd)).toThrow('@team/env-foo@1.0.0 has the keyword ngym-environment but no `ngym` field');
  });

  it('refuses a package whose config names a server no installed package provides', () => {
    const cwd = project({ name: '@team/env-foo', namesServer: 'missing_agent' });
    expect(lookUp(cwd)).toThrow("@team/env-foo@1.0.0: its environment 'foo' names the server responses_api_agents/missing_agent, which neither @team/env-foo nor any installed package provides");
    // The server lookup refuses it too, so `ngym run --config <its config>` stops before starting anything.
    expect(() => findServerDirectory({ serverType: 'resources_servers', impl: 'foo' }, defaultSearchRoots(cwd))).toThrow('responses_api_agents/missing_agent');
  });

  it('refuses a tarball missing its example data', () => {
    const cwd = project({ name: '@team/env-foo', version: '1.0.1', withoutData: true });
    expect(lookUp(cwd)).toThrow('@team/env-foo@1.0.1: its tarball is missing the data resources_servers/foo/data/example.jsonl');
  });

  it('refuses two versions of one environment package', () => {
    const cwd = project({ name: '@team/env-foo', version: '1.0.0' }, { name: '@team/env-bundle', environment: 'bundle' }, { name: '@team/env-foo', version: '2.0.0', under: '@team/env-bundle' });
    expect(lookUp(cwd)).toThrow(/Two versions of @team\/env-foo are installed: 1\.0\.0 \(node_modules\/@team\/env-foo\) and 2\.0\.0 \(node_modules\/@team\/env-bundle\/node_modules\/@team\/env-foo\)/);
  });

  it('refuses two packages providing the same environment, naming both', () => {
    const cwd = project({ name: '@team/env-foo', version: '1.0.0' }, { name: '@fork/env-foo', version: '3.1.0' });
    expect(lookUp(cwd)).toThrow('Two installed packages provide environments/foo: @team/env-foo@1.0.0 and @fork/env-foo@3.1.0');
    let listing = '';
    printCatalog({ type: 'environments', json: false }, (text) => (listing += text), cwd);
    expect(listing).toMatch(/^foo\s+@team\/env-foo@1\.0\.0\s+UNUSABLE: Two installed packages provide environments\/foo/m);
  });

  it('runs a Python-hosted server of a package (app.py with requirements.txt) as upstream\'s Python servers run', () => {
    const cwd = project({ name: '@team/env-foo' });
    const server = join(cwd, 'node_modules', '@team', 'env-foo', 'resources_servers', 'py_foo');
    mkdirSync(server);
    writeFileSync(join(server, 'app.py'), '# an upstream-style server\n');
    writeFileSync(join(server, 'requirements.txt'), 'nemo-gym\n');
    const globalConfig = loadGlobalConfig({ overrides: ['+py_foo={resources_servers: {py_foo: {entrypoint: app.py, domain: other}}}'], cwd, envYamlPath: null });
    const location = locateServer(globalConfig, globalConfig.servers[0] as ServerInstance);
    expect(location).toMatchObject({ directory: server, language: 'python' });
  });

  it('ignores plain libraries and a project without package.json', () => {
    expect(environmentPackages(PACKAGE_ROOT).packages).toEqual([]);
    const empty = mkdtempSync(join(tmpdir(), 'ngym-no-project-'));
    projects.push(empty);
    expect(environmentPackages(empty).packages).toEqual([]);
  });

  it('checks a package folder before publishing: the keyword is required there', () => {
    const cwd = project({ name: '@team/env-foo', manifest: { keywords: [] } });
    const checked = checkEnvironmentPackage(join(cwd, 'node_modules', '@team', 'env-foo'));
    expect(checked.problem).toContain('lacks the keyword ngym-environment');
  });
});
