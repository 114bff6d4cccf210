/**
 * The published package as a user gets it: `npm pack`, `npm install` of the tarball into an empty project,
 * then plain Node imports `ngym` and `ngym/testing` and serves a resources server, a TypeScript consumer
 * type-checks against the installed declarations, and the installed CLI runs `ngym demo`.
 * Run by `npm run test:package` (CI suite `package`), not by `npm test`: it packs and installs (~1 min).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../src/util/package-root.ts';

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const PACKAGE_JSON = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { allowScripts: Record<string, boolean>; engines: { node: string } };
// engines is ">=major.minor"; on an older Node npm rightly warns EBADENGINE, so "no warning" only holds above it.
const [floorMajor = 0, floorMinor = 0] = PACKAGE_JSON.engines.node.replace('>=', '').split('.').map(Number);
const [nodeMajor = 0, nodeMinor = 0] = process.versions.node.split('.').map(Number);
const supportedNode = nodeMajor > floorMajor || (nodeMajor === floorMajor && nodeMinor >= floorMinor);
const installedVersion = (name: string) => (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

// This machine's npm config carries a key newer npm versions no longer know; that warning is not ours.
const npmWarnings = (output: string) => output.split('\n').filter((line) => /^npm warn/i.test(line) && !/Unknown (user|env) config "nodedir"/.test(line));

let work: string;
let consumer: string;
let packedFiles: string[];
let installOutput: string;

function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }) {
  const result = spawnSync(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, encoding: 'utf8', timeout: 240_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, output: `${result.stdout}\n${result.stderr}` };
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'ngym-package-'));
  // Packed once for the suite by scripts/lib/pack-ngym-global-setup.ts (vitest.package.config.ts).
  const tarball = process.env.NGYM_TEST_TARBALL;
  if (tarball === undefined) throw new Error('NGYM_TEST_TARBALL is not set: run this file with `npm run test:package`');
  packedFiles = process.env.NGYM_TEST_PACKED_FILES
    ? (JSON.parse(readFileSync(process.env.NGYM_TEST_PACKED_FILES, 'utf8')) as string[])
    : execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).trim().split('\n').map((path) => path.replace(/^package\//, ''));

  consumer = join(work, 'consumer');
  mkdirSync(consumer);
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module', allowScripts: PACKAGE_JSON.allowScripts }));
  const install = run(
    NPM,
    ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball, `typescript@${installedVersion('typescript')}`, `@types/node@${installedVersion('@types/node')}`],
    { cwd: consumer },
  );
  installOutput = install.output;
  if (install.code !== 0) throw new Error(`npm install of the tarball failed:\n${install.output}`);
}, 300_000);

afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe('the packed ngym tarball', () => {
  it('holds the compiled library and no tests, fixtures, sources of the library or benchmarks', () => {
    expect(packedFiles).toContain('dist/src/index.js');
    expect(packedFiles).toContain('dist/src/index.d.ts');
    expect(packedFiles).toContain('dist/src/testing/index.js');
    for (const entry of ['runtime', 'metrics/index', 'data/index', 'python-compat/index']) expect(packedFiles).toContain(`dist/src/${entry}.js`);
    // Python files src/ runs beside its modules: the sandbox's launcher, and python-child.py with the metrics it loads.
    for (const script of ['sandbox/launcher.py', 'gym/python-child.py', 'gym/python-server-metrics.py']) expect(packedFiles).toContain(`dist/src/${script}`);
    expect(packedFiles).toContain('resources_servers/mcqa/app.ts');
    const unwanted = packedFiles.filter((path) => /\.test\.ts$|__fixtures__|^bench\/|^src\/|^python\/|^\.ci\/|^docs\/decisions\//.test(path));
    expect(unwanted).toEqual([]);
  });

  it.skipIf(!supportedNode)(`installs into an empty project without a warning (needs Node ${PACKAGE_JSON.engines.node}: \`npm run setup:node\`)`, () => {
    expect(npmWarnings(installOutput)).toEqual([]);
  });

  it('is importable from plain Node: ngym and ngym/testing serve a resources server in-process', () => {
    writeFileSync(
      join(consumer, 'plain.mjs'),
      `import { defineResourcesServer, NgymError } from 'ngym';
import { callServer, startInProcessGym } from 'ngym/testing';

const definition = defineResourcesServer({
  className: 'PlainNodeResourcesServer',
  verify: (request) => ({ reward: request.response.output.length === 0 ? 0.25 : 1 }),
});
const gym = await startInProcessGym({
  config: { plain: { resources_servers: { plain: { entrypoint: 'app.js', domain: 'other' } } } },
  definitions: { plain: definition },
});
try {
  const verified = await callServer(gym, 'plain', '/verify', {
    responses_create_params: { input: 'hi' },
    response: { id: 'r', object: 'response', created_at: 0, model: 'm', output: [], parallel_tool_calls: false, tool_choice: 'auto', tools: [] },
  });
  const wrongType = await gym.client.post('plain', '/verify', { responses_create_params: { input: 'hi' }, response: 1 });
  console.log(JSON.stringify({ reward: verified.reward, wrongTypeStatus: wrongType.status, errorClass: typeof NgymError }));
} finally {
  await gym.close();
}
`,
    );
    const result = run(process.execPath, ['plain.mjs'], { cwd: consumer });
    expect(result.code, result.output).toBe(0);
    expect(JSON.parse(result.stdout.trim().split('\n').at(-1)!)).toEqual({ reward: 0.25, wrongTypeStatus: 422, errorClass: 'function' });
  });

  it('serves every subpath to plain Node, and a name that moved still imports from ngym', () => {
    writeFileSync(
      join(consumer, 'subpaths.mjs'),
      `import * as main from 'ngym';
import { launch, loadGlobalConfig } from 'ngym/runtime';
import { computeAggregateMetrics, passAtK } from 'ngym/metrics';
import { prepareData } from 'ngym/data';
import { pythonStrip } from 'ngym/python-compat';

console.log(JSON.stringify({
  runtime: [typeof launch, typeof loadGlobalConfig],
  passAt1: passAtK(4, 2, 1),
  profile: Object.keys(computeAggregateMetrics([{ _ng_task_index: 0, _ng_rollout_index: 0, reward: 1 }])).sort(),
  data: typeof prepareData,
  strip: pythonStrip('  x\\u3000'),
  moved: main.pythonStrip === pythonStrip && main.launch === launch,
  internal: 'RunningGym' in main,
}));
`,
    );
    const result = run(process.execPath, ['subpaths.mjs'], { cwd: consumer });
    expect(result.code, result.output).toBe(0);
    expect(JSON.parse(result.stdout.trim().split('\n').at(-1)!)).toEqual({
      runtime: ['function', 'function'],
      passAt1: 0.5,
      profile: ['agent_metrics', 'group_level_metrics', 'key_metrics', 'perf_summary', 'repeat_level_metrics'],
      data: 'function',
      strip: 'x',
      moved: true,
      internal: false,
    });
  });

  it("runs a command an environment ships (reasoning_gym's, loaded by path) from the installed package", () => {
    const result = run(NPM, ['exec', '--no', '--', 'ngym', 'reasoning-gym', 'create-dataset', '--task', 'mini_sudoku', '--size', '3', '--output', 'sudoku.jsonl'], { cwd: consumer });
    expect(result.code, result.output).toBe(0);
    const rows = readFileSync(join(consumer, 'sudoku.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { agent_ref: unknown });
    expect(rows).toHaveLength(3);
    expect(rows[0]?.agent_ref).toEqual({ type: 'responses_api_agents', name: 'reasoning_gym_simple_agent' });
  });

  it('type-checks a TypeScript consumer against the installed declarations, and rejects a wrong one', () => {
    writeFileSync(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, types: ['node'] } }),
    );
    writeFileSync(
      join(consumer, 'consumer.ts'),
      `import { defineResourcesServer, type Response } from 'ngym';
import { type InProcessGym, startInProcessGym } from 'ngym/testing';

export const server = defineResourcesServer({
  className: 'TypedResourcesServer',
  verify: ({ response }: { response: Response }) => ({ reward: response.output.length > 0 ? 1 : 0 }),
});
export const start: (definitions: Parameters<typeof startInProcessGym>[0]) => Promise<InProcessGym> = startInProcessGym;
`,
    );
    const tsc = join(consumer, 'node_modules', 'typescript', 'bin', 'tsc');
    const good = run(process.execPath, [tsc, '-p', '.'], { cwd: consumer });
    expect(good.code, good.output).toBe(0);

    writeFileSync(join(consumer, 'wrong.ts'), `import { defineResourcesServer } from 'ngym';\nexport const server = defineResourcesServer({ className: 'Wrong', verify: () => ({ reward: 'high' }) });\n`);
    const wrong = run(process.execPath, [tsc, '-p', '.'], { cwd: consumer });
    rmSync(join(consumer, 'wrong.ts'));
    expect(wrong.code).not.toBe(0);
    expect(wrong.stdout).toMatch(/wrong\.ts\(2,\d+\): error TS2322: Type 'string' is not assignable to type 'number'/);
  });

  it("serves the consumer's own TypeScript environment (from `ngym init`) under the installed `ngym run`", () => {
    const init = run(NPM, ['exec', '--no', '--', 'ngym', 'init', '+entrypoint=resources_servers/my_env'], { cwd: consumer });
    expect(init.code, init.output).toBe(0);
    writeFileSync(
      join(consumer, 'own-environment.mjs'),
      `import { startGymProcess } from 'ngym/testing';

const gym = await startGymProcess(
  [
    '+config_paths=[resources_servers/my_env/configs/my_env.yaml,responses_api_models/openai_model/configs/openai_model.yaml]',
    '+policy_base_url=http://127.0.0.1:9/v1', '+policy_api_key=none', '+policy_model_name=none',
  ],
  { cwd: process.cwd() },
);
try {
  const instances = await (await fetch('http://127.0.0.1:' + gym.headPort + '/server_instances')).json();
  const environment = instances.find((instance) => instance.name === 'my_env_resources_server');
  const verified = await fetch(environment.url + '/verify', { method: 'POST', body: JSON.stringify({ responses_create_params: { input: 'hi' }, response: 1 }) });
  console.log(JSON.stringify({ servers: instances.map((instance) => instance.name).sort(), wrongType: (await verified.json()).detail[0].type }));
} finally {
  await gym.stop();
}
`,
    );
    const result = run(process.execPath, ['own-environment.mjs'], { cwd: consumer });
    expect(result.code, result.output).toBe(0);
    expect(JSON.parse(result.stdout.trim().split('\n').at(-1)!)).toEqual({ servers: ['my_env_environment_server', 'my_env_resources_server', 'my_env_simple_agent', 'policy_model'], wrongType: 'dict_type' });
  });

  it('runs `npx ngym demo` from the installed package', () => {
    const result = run(NPM, ['exec', '--no', '--', 'ngym', 'demo'], { cwd: consumer, env: { NGYM_LOG_LEVEL: 'warn' } });
    expect(result.code, result.output).toBe(0);
    expect(result.stdout).toMatch(/example_single_tool_call: 5 rollouts, reward=0\.8/);
    expect(result.stdout).toContain(join(consumer, 'results', 'demo'));
  });
});
