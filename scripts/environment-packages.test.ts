/**
 * Environments as npm packages, end to end (issue 44): three of ngym's environments (mcqa, simple; math_with_judge,
 * judged; code_gen, sandboxed) built as packages by `ngym env pack` and published to a real npm registry
 * (Verdaccio, npm-registry/), then, in a fresh empty project that has only the packed ngym tarball and those
 * packages, one command starts the three environments in one gym and collects their example rollouts with replay:
 * the rewards equal each package's recording.
 * Run by `npm run test:package` (it packs ngym); skipped without Verdaccio (`npm run setup:registry`).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRegistry, localRegistryMissing, startLocalRegistry } from '../src/testing/local-registry.ts';
import { PACKAGE_ROOT } from '../src/util/package-root.ts';

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const ENVIRONMENTS = ['mcqa', 'math_with_judge', 'code_gen'];
const packageName = (environment: string) => `@local/env-${environment.replaceAll('_', '-')}`;

let work: string;
let registry: LocalRegistry;
let tarball: string;

/** Runs a command to its end (without blocking the test's event loop); its stdout, or an error with all it printed. */
async function run(command: string, args: string[], cwd: string): Promise<string> {
  const started = Date.now();
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  // How long each step took: the test's time goes to npm and to starting servers, and the machine may be loaded.
  process.stderr.write(`[${((Date.now() - started) / 1000).toFixed(1)} s] ${command} ${args.slice(0, 4).join(' ')}\n`);
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${code} in ${cwd}:\n${stdout}\n${stderr}`);
  return stdout;
}

type Row = { reward: number; responses_create_params: { input: unknown } };
const readRows = (path: string) => readFileSync(path, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Row);
/** Each task's rewards, sorted: the recording and a collection agree when these are equal. */
function rewardsByTask(rows: Row[]): Record<string, number[]> {
  const byTask: Record<string, number[]> = {};
  for (const row of rows) (byTask[JSON.stringify(row.responses_create_params.input)] ??= []).push(row.reward);
  return Object.fromEntries(Object.entries(byTask).map(([task, rewards]) => [task, rewards.sort()]));
}

describe.skipIf(localRegistryMissing !== undefined)(`environment packages from a local registry (${localRegistryMissing ?? 'Verdaccio'})`, () => {
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'ngym-environment-packages-'));
    registry = await startLocalRegistry();
    // Packed once for the suite by scripts/lib/pack-ngym-global-setup.ts (vitest.package.config.ts).
    const packed = process.env.NGYM_TEST_TARBALL;
    if (packed === undefined) throw new Error('NGYM_TEST_TARBALL is not set: run this file with `npm run test:package`');
    tarball = packed;
    await run(process.execPath, [join(PACKAGE_ROOT, 'bin', 'ngym.js'), 'env', 'pack', ...ENVIRONMENTS, '+scope=@local', '+version=1.0.0', `+output_dirpath=${join(work, 'packages')}`], work);
    for (const environment of ENVIRONMENTS) {
      const folder = join(work, 'packages', `env-${environment.replaceAll('_', '-')}`);
      registry.configure(folder);
      await run(NPM, ['publish', '--ignore-scripts'], folder);
    }
  }, 600_000);

  afterAll(async () => {
    await registry?.stop();
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  }, 300_000);

  it('a fresh project with only ngym and the packages runs them from the registry: their example rollouts replay to the recorded rewards', async () => {
    const project = join(work, 'project');
    mkdirSync(project);
    await run(NPM, ['init', '-y'], project);
    registry.configure(project);
    await run(NPM, ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball, packageName('mcqa'), packageName('math_with_judge')], project);
    // The third through ngym: installed, recorded in package.json and checked.
    const added = await run(NPM, ['exec', '--no', '--', 'ngym', 'env', 'add', packageName('code_gen')], project);
    expect(added).toContain(`Added ${packageName('code_gen')}@1.0.0: environments code_gen`);
    const dependencies = (JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies;
    expect(Object.keys(dependencies).sort()).toEqual(['@local/env-code-gen', '@local/env-math-with-judge', '@local/env-mcqa', 'ngym']);

    const listed = await run(NPM, ['exec', '--no', '--', 'gym', 'list', 'environments'], project);
    for (const environment of ENVIRONMENTS) expect(listed).toMatch(new RegExp(`^${environment}\\s+\\S+\\s+${packageName(environment)}@1\\.0\\.0\\s`, 'm'));

    // The one command: the three environments in one gym, each agent's example rows collected with replay.
    const verified = await run(NPM, ['exec', '--no', '--', 'ngym', 'env', 'verify', ...ENVIRONMENTS, '+output_dirpath=results'], project);
    expect(verified).toContain(`${ENVIRONMENTS.map((environment) => `${environment} (${packageName(environment)}@1.0.0)`).join(', ')}: all 15 example rollouts re-verify with their recorded rewards.`);
    for (const environment of ENVIRONMENTS) {
      const recording = join(project, 'node_modules', packageName(environment), 'resources_servers', environment, 'data', 'example_rollouts.jsonl');
      const collected = readRows(join(project, 'results', `${environment}_simple_agent_rollouts.jsonl`));
      expect(collected).toHaveLength(5);
      expect(rewardsByTask(collected)).toEqual(rewardsByTask(readRows(recording)));
    }
  }, 600_000);
});
