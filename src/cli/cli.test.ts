import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../util/package-root.ts';
import { runCli, startGymProcess } from '../testing/cli-process.ts';
import { type ProcessEntry, processesTagged, untilNoneLeft } from '../testing/process-table.ts';
import { upstreamWheel } from '../testing/upstream-wheel.ts';
import { COMMANDS, OVERVIEW_ALIAS, scriptAliases } from './commands/index.ts';
import { spinupTimeoutMs } from '../gym/launcher.ts';

const packageJson = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };

/** Runs `check` over `items` two at a time: each check is mostly a Node process starting, and there are two cores. */
async function twoAtATime<T>(items: readonly T[], check: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await check(items[next++]!);
  };
  await Promise.all([lane(), lane()]);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls a condition until it holds or the deadline passes (processes exit asynchronously). */
async function eventually(condition: () => boolean, timeoutMs = 15_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return condition();
}

function pidsOf(stdout: string): number[] {
  return [...stdout.matchAll(/http:\/\/127\.0\.0\.1:\d+\s+(\d+)\s+(TypeScript|Python)/gm)].map((match) => Number(match[1]));
}

/**
 * An environment variable that marks every process a command starts (its children inherit it), and what still runs
 * with it: a process outlives its parent as an orphan of init, so only its mark finds it.
 */
function processTag(): { env: NodeJS.ProcessEnv; left: () => ProcessEntry[]; running: (commandPart: string) => number } {
  const value = randomUUID();
  const left = () => processesTagged('NGYM_TEST_PROCESS_TAG', value);
  return { env: { NGYM_TEST_PROCESS_TAG: value }, left, running: (commandPart) => left().filter((entry) => entry.commandLine.includes(commandPart)).length };
}

/** A project folder with a resources server whose behaviour the test chooses. */
function projectWith(serverSource: string): string {
  const root = mkdtempSync(join(tmpdir(), 'ngym-cli-'));
  mkdirSync(join(root, 'resources_servers', 'fixture'), { recursive: true });
  writeFileSync(join(root, 'package.json'), '{"type": "module"}\n');
  writeFileSync(
    join(root, 'resources_servers', 'fixture', 'app.ts'),
    `import { defineResourcesServer } from ${JSON.stringify(join(PACKAGE_ROOT, 'src', 'index.ts'))};\n${serverSource}`,
  );
  writeFileSync(
    join(root, 'fixture.yaml'),
    `fixture:\n  resources_servers:\n    fixture:\n      entrypoint: app.ts\n      domain: other\nweather:\n  resources_servers:\n    example_single_tool_call:\n      entrypoint: app.ts\n      domain: agent\n`,
  );
  return root;
}

describe('ngym CLI', () => {
  it('prints the overview and every command help, exit 0', async () => {
    const overview = await runCli(['--help']);
    expect(overview.code).toBe(0);
    for (const command of COMMANDS) expect(overview.stdout).toContain(command.name);
    await twoAtATime(COMMANDS, async (command) => {
      const help = await runCli([command.name, '--help']);
      expect(help.code, command.name).toBe(0);
      expect(help.stdout).toContain(`Usage: ngym ${command.name}`);
    });
    // One process per command: on a loaded 2-core machine this takes up to a minute.
  }, 180_000);

  it("lists each command under its module's own name (commands load only when used)", async () => {
    for (const entry of COMMANDS) expect((await entry.load()).name).toBe(entry.name);
  });

  it("installs the alias table's ng_* names as package.json scripts, no more and no fewer", () => {
    const scripts = Object.keys(packageJson.bin).filter((name) => name.startsWith('ng_'));
    expect(scripts.sort()).toEqual([...COMMANDS.flatMap(scriptAliases), OVERVIEW_ALIAS].sort());
  });

  it("`ngym run` loads no other command's code (its head process lives as long as the gym)", async () => {
    // A resolve hook lists every module the CLI process loads.
    const dir = mkdtempSync(join(tmpdir(), 'ngym-modules-'));
    const list = join(dir, 'modules.txt');
    writeFileSync(
      join(dir, 'hooks.mjs'),
      "import { appendFileSync } from 'node:fs';\nexport async function resolve(specifier, context, next) {\n  const result = await next(specifier, context);\n  appendFileSync(process.env.NGYM_TEST_MODULES_FILE, `${result.url}\\n`);\n  return result;\n}\n",
    );
    writeFileSync(join(dir, 'register.mjs'), "import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n");
    const result = await runCli(['run', '--help'], { env: { NODE_OPTIONS: `--import ${join(dir, 'register.mjs')}`, NGYM_TEST_MODULES_FILE: list } });
    expect(result.code, result.stderr).toBe(0);
    const loaded = readFileSync(list, 'utf8');
    expect(loaded).toContain('/src/cli/commands/run.ts');
    for (const other of ['/src/cli/commands/collect.ts', '/src/rollouts/collect.ts', '/src/rollouts/queue/', '/src/viewer/', '/resources_servers/reasoning_gym/', '/src/cli/gym/tree.ts']) {
      expect(loaded, other).not.toContain(other);
    }
  });

  it('answers +h=true on every ng_* alias declared in package.json', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'ngym-bin-'));
    const aliases = Object.keys(packageJson.bin).filter((name) => name.startsWith('ng_'));
    expect(aliases).toContain('ng_run');
    await twoAtATime(aliases, async (alias) => {
      const link = join(folder, alias);
      symlinkSync(join(PACKAGE_ROOT, packageJson.bin[alias] as string), link);
      const result = await runCli(['+h=true'], { bin: link });
      expect(result.code, `${alias}: ${result.stderr}`).toBe(0);
      expect(result.stdout).toMatch(alias === 'ng_help' ? /Commands:/ : new RegExp(`Usage: ${alias}`));
    });
  }, 180_000);

  it('rejects unknown commands and bad overrides with a clear message and no stack trace', async () => {
    const unknown = await runCli(['runn']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown command 'runn'. Did you mean 'run'?");
    const bad = await runCli(['dump-config', 'config_paths=[a.yaml]']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe('Error: Invalid override `config_paths=[a.yaml]`: overrides must add a key: write `+config_paths=[a.yaml]` (or `++config_paths=...` to add or replace), as with NeMo Gym\'s ng_* commands.\n');
  });

  it('dump-config prints the composed config with interpolations resolved', async () => {
    const result = await runCli(['dump-config', '+config_paths=[responses_api_models/openai_model/configs/openai_model.yaml]', '+policy_base_url=http://h/v1', '+policy_api_key=k', '+policy_model_name=m']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('openai_base_url: http://h/v1');
    expect(result.stdout).toContain('openai_model: m');
  });
});

describe('ngym run', () => {
  it('fails before starting anything when a server config is invalid, naming key and file', async () => {
    const result = await runCli(['run', '+config_paths=[responses_api_models/openai_model/configs/openai_model.yaml]', '++head_server={host: 127.0.0.1, port: 0}']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Interpolation target `policy_base_url` does not exist; referenced by `policy_model.responses_api_models.openai_model.openai_base_url` (from responses_api_models/openai_model/configs/openai_model.yaml:5)');
    expect(result.stdout).not.toContain('Head server');
  });

  it('reports a server that dies during startup with its output, and exits non-zero', async () => {
    const root = projectWith(`export default defineResourcesServer({ className: 'Broken', setup: () => { console.error('cannot open the database'); process.exit(3); }, verify: () => ({ reward: 1 }) });\n`);
    const result = await runCli(['run', '+config_paths=[fixture.yaml]', '++head_server={host: 127.0.0.1, port: 0}'], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("Server 'fixture' exited before it was ready (exit code 3)");
    expect(result.stderr).toContain('cannot open the database');
  });

  it('reads server_spinup_timeout_seconds as upstream 0.7.0 does', () => {
    expect(spinupTimeoutMs(undefined)).toBe(600_000);
    expect(spinupTimeoutMs(null)).toBe(600_000);
    expect(spinupTimeoutMs(30)).toBe(30_000);
    expect(spinupTimeoutMs('45')).toBe(45_000);
    expect(spinupTimeoutMs(0)).toBe(Number.POSITIVE_INFINITY);
    expect(spinupTimeoutMs(-1)).toBe(Number.POSITIVE_INFINITY);
    for (const bad of ['', 'soon', true, [1]]) expect(() => spinupTimeoutMs(bad)).toThrow('server_spinup_timeout_seconds must be a number of seconds');
  });

  it('gives up on a server that is not ready within server_spinup_timeout_seconds, naming the key', { timeout: 180_000 }, async () => {
    const root = projectWith(`export default defineResourcesServer({ className: 'Stuck', setup: () => new Promise(() => {}), verify: () => ({ reward: 1 }) });\n`);
    const tag = processTag();
    // 6 s: long enough for the fixture's other server to be ready on a busy machine (at 2 s it was not, once, in CI).
    const result = await runCli(['run', '+config_paths=[fixture.yaml]', '++head_server={host: 127.0.0.1, port: 0}', '++server_spinup_timeout_seconds=6'], { cwd: root, env: tag.env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("Server 'fixture' did not become ready within 6 s (raise the limit with ++server_spinup_timeout_seconds=<seconds>, or 0 to wait without one)");
    // ngym run waited for its servers (the stuck one and the ready one) before it exited.
    expect(tag.left()).toEqual([]);
    const invalid = await runCli(['run', '+config_paths=[fixture.yaml]', '++head_server={host: 127.0.0.1, port: 0}', '++server_spinup_timeout_seconds=soon'], { cwd: root });
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('server_spinup_timeout_seconds must be a number of seconds, got "soon"');
    expect(invalid.stdout).not.toContain('Head server');
  });

  it('stops everything and exits 1 when a server dies while running', async () => {
    const root = projectWith(`export default defineResourcesServer({ className: 'Flaky', setup: () => { setTimeout(() => { console.error('out of memory, bye'); process.exit(7); }, 1500); }, verify: () => ({ reward: 1 }) });\n`);
    const gym = await startGymProcess(['+config_paths=[fixture.yaml]'], { cwd: root });
    const pids = pidsOf(gym.stdout());
    expect(pids).toHaveLength(2);
    const exited = await new Promise<number | null>((resolve) => gym.process.on('exit', (code) => resolve(code)));
    expect(exited).toBe(1);
    expect(gym.stderr()).toContain("Server 'fixture' exited unexpectedly (exit code 7)");
    expect(gym.stderr()).toContain('out of memory, bye');
    expect(await eventually(() => pids.every((pid) => !isAlive(pid)))).toBe(true);
  });

  it('stops every child on SIGTERM, and children exit even if the parent is SIGKILLed', async () => {
    const root = projectWith(`export default defineResourcesServer({ className: 'Fine', verify: () => ({ reward: 1 }) });\n`);
    const gym = await startGymProcess(['+config_paths=[fixture.yaml]'], { cwd: root });
    const pids = pidsOf(gym.stdout());
    expect(pids.every(isAlive)).toBe(true);
    const stopped = await gym.stop('SIGTERM');
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toContain('ngym finished.');
    expect(pids.some(isAlive)).toBe(false);

    const killed = await startGymProcess(['+config_paths=[fixture.yaml]'], { cwd: root });
    const orphans = pidsOf(killed.stdout());
    await killed.stop('SIGKILL');
    expect(await eventually(() => orphans.every((pid) => !isAlive(pid)))).toBe(true);
  });

  it('a child still starting when its parent is SIGKILLed exits at once', { timeout: 120_000 }, async () => {
    const root = projectWith(`export default defineResourcesServer({ className: 'Slow', setup: () => new Promise(() => setInterval(() => {}, 1000)), verify: () => ({ reward: 1 }) });\n`);
    const tag = processTag();
    const parent = spawn(process.execPath, [join(PACKAGE_ROOT, 'bin', 'ngym.js'), 'run', '+config_paths=[fixture.yaml]', '++head_server={host: 127.0.0.1, port: 0}'], {
      cwd: root,
      env: { ...process.env, ...tag.env },
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    });
    const starting = () => execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(parent.pid)], { encoding: 'utf8' }).split('\n').filter((line) => line.includes('child-main'));
    const childrenOf = () => {
      try {
        return starting().map((line) => Number(line.trim().split(/\s+/)[0]));
      } catch {
        return [];
      }
    };
    expect(await eventually(() => childrenOf().length === 2, 60_000)).toBe(true);
    const children = childrenOf();
    parent.kill('SIGKILL');
    expect(await eventually(() => children.every((pid) => !isAlive(pid)), 30_000)).toBe(true);
    // Nothing else the run started either (the servers' own helpers, such as tsx's esbuild).
    expect(await untilNoneLeft(tag.left, 30_000)).toEqual([]);
  });

  it('an orphaned child whose close never finishes still exits, 5 s after its shutdown grace', { timeout: 60_000 }, async () => {
    const root = projectWith(`export default defineResourcesServer({ className: 'Hangs', verify: () => ({ reward: 1 }), close: () => new Promise(() => setInterval(() => {}, 1000)) });\n`);
    const killed = await startGymProcess(['+config_paths=[fixture.yaml]'], { cwd: root });
    const orphans = pidsOf(killed.stdout());
    expect(orphans).toHaveLength(2);
    await killed.stop('SIGKILL');
    expect(await eventually(() => orphans.every((pid) => !isAlive(pid)), 30_000)).toBe(true);
  });
});

describe('no process outlives ngym run', () => {
  // Logs while closing: once ngym run is gone, its stderr pipe has no reader (EPIPE). A logger that buffered those
  // lines retried writing them on exit forever, and the server never exited, not even on SIGTERM.
  const chatty = `export default defineResourcesServer({ className: 'Chatty', setup: ({ logger }) => logger, verify: () => ({ reward: 1 }), close: async (logger) => { await new Promise((resolve) => setTimeout(resolve, Number(process.env.CLOSE_DELAY_MS ?? 0))); for (let i = 0; i < 200; i++) logger.warn({ i }, 'closing'.padEnd(2000, '.')); } });\n`;

  it('servers that log while closing exit when ngym run is SIGKILLed while running', { timeout: 120_000 }, async () => {
    const tag = processTag();
    const gym = await startGymProcess(['+config_paths=[fixture.yaml]'], { cwd: projectWith(chatty), env: tag.env });
    expect(tag.running('child-main')).toBe(2);
    await gym.stop('SIGKILL');
    expect(await untilNoneLeft(tag.left, 30_000)).toEqual([]);
  });

  it('servers exit when ngym run is SIGKILLed while it stops them', { timeout: 120_000 }, async () => {
    const tag = processTag();
    const gym = await startGymProcess(['+config_paths=[fixture.yaml]'], { cwd: projectWith(chatty), env: { ...tag.env, CLOSE_DELAY_MS: '1500' } });
    gym.process.kill('SIGTERM');
    expect(await eventually(() => gym.stdout().includes('Stopping servers...'), 30_000)).toBe(true);
    gym.process.kill('SIGKILL');
    expect(await untilNoneLeft(tag.left, 30_000)).toEqual([]);
  });

  it('ngym run and its servers stop when the process that started it dies (a test that times out)', { timeout: 120_000 }, async () => {
    const tag = processTag();
    const root = projectWith(chatty);
    // Plays a test's worker: starts ngym run with an IPC channel, as the test helpers do, and is then SIGKILLed.
    const starter = spawn(
      process.execPath,
      ['-e', `require('node:child_process').spawn(process.execPath, ${JSON.stringify([join(PACKAGE_ROOT, 'bin', 'ngym.js'), 'run', '+config_paths=[fixture.yaml]', '++head_server={host: 127.0.0.1, port: 0}'])}, { stdio: ['ignore', 'ignore', 'ignore', 'ipc'] }); setInterval(() => {}, 1000);`],
      { cwd: root, env: { ...process.env, ...tag.env }, stdio: 'ignore' },
    );
    expect(await eventually(() => tag.running('child-main') === 2, 60_000)).toBe(true);
    starter.kill('SIGKILL');
    expect(await untilNoneLeft(tag.left, 45_000)).toEqual([]);
  });

  const wheel = upstreamWheel();
  it.skipIf(wheel.skipReason !== null)('a Python server and what it started go with ngym run, SIGKILLed or stopped', { timeout: 120_000 }, async () => {
    const root = mkdtempSync(join(tmpdir(), 'ngym-python-child-'));
    mkdirSync(join(root, 'resources_servers', 'pyfixture'), { recursive: true });
    writeFileSync(
      join(root, 'resources_servers', 'pyfixture', 'app.py'),
      [
        'import os, subprocess, yaml',
        'from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer',
        'entry = yaml.safe_load(os.environ["NEMO_GYM_CONFIG_DICT"])[os.environ["NEMO_GYM_CONFIG_PATH"]]["resources_servers"]["pyfixture"]',
        'subprocess.Popen(["sleep", "600"])  # what the server started: it must not outlive it',
        'class Handler(BaseHTTPRequestHandler):',
        '    def do_GET(self):',
        '        self.send_response(200)',
        '        self.end_headers()',
        '        self.wfile.write(b"{}")',
        '    def log_message(self, *args):',
        '        pass',
        'ThreadingHTTPServer((entry["host"], entry["port"]), Handler).serve_forever()',
        '',
      ].join('\n'),
    );
    writeFileSync(join(root, 'resources_servers', 'pyfixture', 'requirements.txt'), 'pyyaml\n');
    writeFileSync(join(root, 'fixture.yaml'), `python_executable: ${wheel.python}\npyfixture:\n  resources_servers:\n    pyfixture:\n      entrypoint: app.py\n      domain: other\n`);
    for (const signal of ['SIGKILL', 'SIGTERM'] as const) {
      const tag = processTag();
      const gym = await startGymProcess(['+config_paths=[fixture.yaml]'], { cwd: root, env: tag.env });
      expect(await eventually(() => tag.running('sleep 600') === 1, 30_000)).toBe(true);
      expect(tag.running('python-child.py')).toBe(1);
      await gym.stop(signal);
      expect(await untilNoneLeft(tag.left, 30_000), signal).toEqual([]);
    }
  });
});
