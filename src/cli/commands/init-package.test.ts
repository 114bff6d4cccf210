/**
 * `ngym init --package` in a project where ngym is installed: a package folder that passes the package checks of
 * `ngym env publish` (ngym field, keyword, peer range, its data and servers), whose tarball holds the data and
 * example rollouts and no tests, with its tests and CI wiring beside it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkEnvironmentPackage, installedNgymVersion } from '../../config/environment-packages.ts';
import { runCli } from '../../testing/cli-process.ts';
import { PACKAGE_ROOT } from '../../util/package-root.ts';

const project = mkdtempSync(join(tmpdir(), 'ngym-init-package-'));
// ngym and zod installed in the project, as `npm install ngym zod` leaves them (the scaffold's app.ts imports both).
mkdirSync(join(project, 'node_modules'));
symlinkSync(PACKAGE_ROOT, join(project, 'node_modules', 'ngym'));
symlinkSync(join(PACKAGE_ROOT, 'node_modules', 'zod'), join(project, 'node_modules', 'zod'));

afterAll(() => rmSync(project, { recursive: true, force: true }));

describe('ngym init --package', () => {
  it('writes an environment package that passes the package checks, with tests, data, example rollouts and CI', async () => {
    const result = await runCli(['init', '--package', '+entrypoint=resources_servers/letter_tally', '+package_name=@team/env-letter-tally'], { cwd: project });
    expect(result.code, result.stderr).toBe(0);
    const target = join(project, 'env-letter-tally');
    const manifest = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8')) as Record<string, any>;
    expect(manifest).toMatchObject({
      name: '@team/env-letter-tally',
      keywords: ['ngym-environment', 'letter_tally'],
      peerDependencies: { ngym: `^${installedNgymVersion()}` },
      ngym: { environments: ['letter_tally'], resources_servers: ['letter_tally'] },
      scripts: { test: 'vitest run', verify: 'ngym env verify letter_tally' },
    });
    expect(readFileSync(join(target, 'environments', 'letter_tally', 'config.yaml'), 'utf8')).toContain('- resources_servers/letter_tally/configs/letter_tally.yaml');
    expect(readFileSync(join(target, '.github', 'workflows', 'ci.yml'), 'utf8')).toMatch(/npm test[\s\S]*npx ngym env verify letter_tally[\s\S]*npx ngym env publish/);
    expect(existsSync(join(target, 'resources_servers', 'letter_tally', 'app.test.ts'))).toBe(true);
    expect(checkEnvironmentPackage(target).problem).toBeUndefined();

    const packed = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: target, encoding: 'utf8' });
    expect(packed.status, packed.stderr).toBe(0);
    const files = (JSON.parse(packed.stdout) as { files: { path: string }[] }[])[0]?.files.map((file) => file.path) ?? [];
    expect(files).toEqual(expect.arrayContaining(['environments/letter_tally/config.yaml', 'resources_servers/letter_tally/app.ts', 'resources_servers/letter_tally/data/example.jsonl', 'resources_servers/letter_tally/data/example_rollouts.jsonl', 'README.md', 'package.json']));
    expect(files.filter((file) => file.endsWith('.test.ts') || file.startsWith('.github'))).toEqual([]);
  }, 120_000);

  it('refuses a folder that exists, leaving it as it was', async () => {
    mkdirSync(join(project, 'env-taken'));
    const result = await runCli(['init', '--package', '+entrypoint=resources_servers/taken'], { cwd: project });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('env-taken already exists');
  });
});
