/**
 * `ngym env publish` on a package `ngym env pack` builds from one of ngym's environments: refused, with nothing
 * published, when its example rollouts no longer re-verify; published to a real npm registry (Verdaccio, from
 * npm-registry/) when they do, then found by `ngym env search`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../testing/cli-process.ts';
import { type LocalRegistry, localRegistryMissing, startLocalRegistry } from '../../testing/local-registry.ts';

const ENVIRONMENT = 'example_single_tool_call';
const NAME = '@local/env-example-single-tool-call';

let work: string;
let registry: LocalRegistry | undefined;
let packageFolder: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'ngym-env-publish-'));
  if (localRegistryMissing === undefined) registry = await startLocalRegistry();
  const packed = await runCli(['env', 'pack', ENVIRONMENT, '+scope=@local', '+version=1.0.0', `+output_dirpath=${work}`]);
  expect(packed.code, packed.stderr).toBe(0);
  packageFolder = join(work, 'env-example-single-tool-call');
  if (registry !== undefined) registry.configure(packageFolder);
}, 300_000);

afterAll(async () => {
  await registry?.stop();
  rmSync(work, { recursive: true, force: true });
}, 120_000);

const npmView = (name: string) => spawnSync('npm', ['view', name, 'version', '--registry', registry?.url ?? ''], { cwd: packageFolder, encoding: 'utf8' });

describe('ngym env publish', () => {
  it('refuses a package whose example rollouts no longer re-verify, before npm publish', async () => {
    const recording = join(packageFolder, 'resources_servers', ENVIRONMENT, 'data', 'example_rollouts.jsonl');
    const original = readFileSync(recording, 'utf8');
    const rows = original.trim().split('\n').map((line) => JSON.parse(line) as { reward: number });
    // The recording says the first task earned another reward than the environment gives it.
    (rows[0] as { reward: number }).reward = rows[0]?.reward === 1 ? 0 : 1;
    writeFileSync(recording, `${rows.map((row) => JSON.stringify(row)).join('\n')}\n`);
    try {
      const result = await runCli(['env', 'publish', `+package_dirpath=${packageFolder}`]);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(new RegExp(`${ENVIRONMENT} \\(project\\): 1 of 5 example rollouts no longer earn their recorded reward`));
      expect(result.stderr).toMatch(/example_single_tool_call_simple_agent example 1: reward \d, recorded \d/);
      expect(result.stdout).not.toContain('Publishing');
      if (registry !== undefined) expect(npmView(NAME).status).not.toBe(0);
    } finally {
      writeFileSync(recording, original);
    }
  }, 120_000);

  it.skipIf(localRegistryMissing !== undefined)(`publishes a package that passes its checks to the registry, where ngym env search finds it (${localRegistryMissing ?? 'Verdaccio'})`, async () => {
    const result = await runCli(['env', 'publish', `+package_dirpath=${packageFolder}`]);
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toContain('all 5 example rollouts re-verify with their recorded rewards');
    expect(result.stdout).toContain(`Published ${NAME}@1.0.0`);
    expect(npmView(NAME).stdout.trim()).toBe('1.0.0');

    const found = await runCli(['env', 'search', 'example', '--registry', registry?.url ?? '', '+json=true'], { cwd: packageFolder });
    expect(found.code, found.stderr).toBe(0);
    expect((JSON.parse(found.stdout) as { name: string }[]).map((hit) => hit.name)).toContain(NAME);
  }, 120_000);
});
