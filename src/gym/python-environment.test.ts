/**
 * Per-server Python environments, built for real with uv on top of the venv of `npm run setup:python` (nemo-gym
 * 0.7.0). The packages come from wheels the test makes in a local folder (`--no-index --find-links` in the servers'
 * requirements, as a user with a private index would write them), so nothing is downloaded.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { globalConfigFromDict } from '../config/global-config.ts';
import { upstreamWheel } from '../testing/upstream-wheel.ts';
import { runCli, startGymProcess } from '../testing/cli-process.ts';
import { preparePythonEnvironments, type PythonEnvironmentReport } from './python-environment.ts';
import { readServerRequirements } from './python-requirements.ts';

const wheel = upstreamWheel();
const uvMissing = wheel.skipReason ?? (existsSync(join(wheel.venv, 'bin', 'uv')) ? null : `uv is not installed in ${wheel.venv} (npm run setup:python installs it); skipping`);

/** A wheel of `name==version` whose module says its version, written with Python's zipfile. */
function makeWheel(folder: string, name: string, version: string): void {
  const script = `
import sys, zipfile
folder, name, version = sys.argv[1:]
dist = f"{name}-{version}.dist-info"
with zipfile.ZipFile(f"{folder}/{name}-{version}-py3-none-any.whl", "w") as archive:
    archive.writestr(f"{name}/__init__.py", f"VERSION = {version!r}\\n")
    archive.writestr(f"{dist}/METADATA", f"Metadata-Version: 2.1\\nName: {name}\\nVersion: {version}\\n")
    archive.writestr(f"{dist}/WHEEL", "Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n")
    archive.writestr(f"{dist}/RECORD", "")
`;
  const made = spawnSync(wheel.python, ['-c', script, folder, name, version], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(made.stderr);
}

/** A server folder `<root>/resources_servers/<name>` with these requirement lines (after the nemo-gym line upstream's have). */
function serverFolder(root: string, name: string, lines: string[]): string {
  const directory = join(root, 'resources_servers', name);
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, 'requirements.txt'), ['-e nemo-gym[dev] @ ../../', ...lines].join('\n') + '\n');
  return directory;
}

function runIn(python: string, code: string): string {
  const result = spawnSync(python, ['-c', code], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(result.stderr);
  return result.stdout.trim();
}

describe.skipIf(uvMissing !== null)('per-server Python environments (uv, layered on the nemo-gym venv)', () => {
  let root: string;
  let wheels: string;
  const local = () => [`--no-index`, `--find-links ${wheels}`];
  const configFor = (cache: string, extra: Record<string, unknown> = {}) => globalConfigFromDict({ python_executable: wheel.python, cache_dir: cache, ...extra });
  const lines: string[] = [];
  const output = (line: string) => lines.push(line);

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'ngym-python-env-'));
    wheels = join(root, 'wheels');
    mkdirSync(wheels);
    makeWheel(wheels, 'ngym_probe', '1.0');
    makeWheel(wheels, 'ngym_probe', '2.0');
  });

  it('gives two servers whose pins conflict an environment each; both see the installed nemo-gym; a second start builds nothing', async () => {
    const cache = join(root, 'cache-conflict');
    const one = serverFolder(root, 'pins_one', [...local(), 'ngym_probe==1.0']);
    const two = serverFolder(root, 'pins_two', [...local(), 'ngym_probe==2.0']);
    const servers = [
      { names: ['one'], directory: one },
      { names: ['two'], directory: two },
    ];
    const first = await preparePythonEnvironments(configFor(cache), servers, { output });
    const byName = (reports: PythonEnvironmentReport[], name: string) => reports.find((report) => report.names.includes(name)) as PythonEnvironmentReport;
    expect(byName(first, 'one').state).toBe('built');
    expect(byName(first, 'two').state).toBe('built');
    expect(byName(first, 'one').python).toBe(join(cache, 'venvs', 'resources_servers', 'pins_one', '.venv', 'bin', 'python'));
    expect(runIn(byName(first, 'one').python, 'import ngym_probe; print(ngym_probe.VERSION)')).toBe('1.0');
    expect(runIn(byName(first, 'two').python, 'import ngym_probe; print(ngym_probe.VERSION)')).toBe('2.0');
    // nemo-gym is the base's, not a second copy.
    expect(runIn(byName(first, 'two').python, 'import nemo_gym; print(nemo_gym.__file__)')).toBe(join(wheel.sitePackages, 'nemo_gym', '__init__.py'));
    expect(existsSync(join(cache, 'venvs', 'resources_servers', 'pins_one', '.venv', 'lib', 'python3.11', 'site-packages', 'nemo_gym'))).toBe(false);

    const log = join(cache, 'venvs', 'resources_servers', 'pins_one', 'build.log');
    const logBefore = readFileSync(log, 'utf8');
    const second = await preparePythonEnvironments(configFor(cache), servers, { output });
    expect(second.map((report) => report.state)).toEqual(['reused', 'reused']);
    expect(readFileSync(log, 'utf8')).toBe(logBefore);
  });

  it('runs a server on the base when the base satisfies its requirements, and builds nothing', async () => {
    const cache = join(root, 'cache-base');
    const directory = serverFolder(root, 'satisfied', ['pyyaml', 'numpy>=1.0']);
    const [report] = await preparePythonEnvironments(configFor(cache), [{ names: ['satisfied'], directory }], { output });
    expect(report).toMatchObject({ state: 'base', python: wheel.python, installs: [] });
    expect(existsSync(join(cache, 'venvs'))).toBe(false);
  });

  it('rebuilds an environment left half-made by a killed build instead of using it', async () => {
    const cache = join(root, 'cache-killed');
    const directory = serverFolder(root, 'killed', [...local(), 'ngym_probe==1.0']);
    const [built] = await preparePythonEnvironments(configFor(cache), [{ names: ['killed'], directory }], { output });
    const venv = join(cache, 'venvs', 'resources_servers', 'killed', '.venv');
    // What a build killed after `uv venv` leaves: an environment without the package, marked incomplete.
    rmSync(join(venv, 'lib', 'python3.11', 'site-packages', 'ngym_probe'), { recursive: true });
    const marker = JSON.parse(readFileSync(join(venv, '.ngym-environment.json'), 'utf8'));
    writeFileSync(join(venv, '.ngym-environment.json'), JSON.stringify({ ...marker, complete: false }));
    const [again] = await preparePythonEnvironments(configFor(cache), [{ names: ['killed'], directory }], { output });
    expect(again?.state).toBe('built');
    expect(runIn(built?.python as string, 'import ngym_probe; print(ngym_probe.VERSION)')).toBe('1.0');
  });

  it('names the server, the requirements file and the log when a requirement cannot be resolved; the other server is still built', async () => {
    const cache = join(root, 'cache-unresolvable');
    const broken = serverFolder(root, 'unresolvable', [...local(), 'ngym_probe==9.9']);
    const fine = serverFolder(root, 'resolvable', [...local(), 'ngym_probe==2.0']);
    const attempt = preparePythonEnvironments(
      configFor(cache),
      [
        { names: ['broken_server'], directory: broken },
        { names: ['fine_server'], directory: fine },
      ],
      { output },
    );
    await expect(attempt).rejects.toThrow(/broken_server \(resources_servers\/unresolvable\)[\s\S]*requirements from .*unresolvable\/requirements\.txt[\s\S]*ngym-probe==9\.9[\s\S]*Full log: .*unresolvable\/build\.log/);
    expect(runIn(join(cache, 'venvs', 'resources_servers', 'resolvable', '.venv', 'bin', 'python'), 'import ngym_probe; print(ngym_probe.VERSION)')).toBe('2.0');
  });

  it('offline: a build that needs a download fails before anything starts, naming the package and the uv cache', async () => {
    const cache = join(root, 'cache-offline');
    const directory = serverFolder(root, 'needs_download', ['ngym-no-such-package-anywhere==1.0']);
    await expect(preparePythonEnvironments(configFor(cache, { offline: true }), [{ names: ['needs_download'], directory }], { output })).rejects.toThrow(
      /needs_download[\s\S]*Offline \(uv --offline\)[\s\S]*uv cache .*cache-offline\/uv[\s\S]*ngym-no-such-package-anywhere/,
    );
  });

  it('names a missing interpreter', async () => {
    const directory = serverFolder(root, 'no_python', ['numpy']);
    await expect(
      preparePythonEnvironments(globalConfigFromDict({ python_executable: join(root, 'no-such-python') }), [{ names: ['no_python'], directory }], { output }),
    ).rejects.toThrow(/Server .no_python.: the Python interpreter .*no-such-python does not exist/);
  });

  it('ngym run builds the environment before starting the server (with ngym\'s uv on its PATH), and a second run builds nothing', async () => {
    const gymRoot = join(root, 'gym');
    const directory = serverFolder(gymRoot, 'probe_server', [...local(), 'ngym_probe==2.0']);
    // The smallest Python server ngym run can start: it answers GET / on the port its config names. Like
    // bigcodebench's, it needs uv on PATH, which its own environment's bin does not hold.
    writeFileSync(
      join(directory, 'app.py'),
      `import os, shutil, yaml, http.server, ngym_probe
if shutil.which("uv") is None:
    raise SystemExit("uv is not on PATH: " + os.environ["PATH"])
config = yaml.safe_load(os.environ["NEMO_GYM_CONFIG_DICT"])[os.environ["NEMO_GYM_CONFIG_PATH"]]["resources_servers"]["probe_server"]
class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = ngym_probe.VERSION.encode()
        self.send_response(200); self.send_header("content-length", str(len(body))); self.end_headers(); self.wfile.write(body)
http.server.HTTPServer((config["host"], config["port"]), Handler).serve_forever()
`,
    );
    const config = join(gymRoot, 'probe.yaml');
    writeFileSync(config, `probe:\n  resources_servers:\n    probe_server:\n      entrypoint: app.py\n      domain: other\n`);
    const args = [`+config_paths=[${config}]`, `+python_server_roots=[${gymRoot}]`, `+python_executable=${wheel.python}`, `+cache_dir=${join(gymRoot, 'cache')}`];
    // ngym finds its uv beside the base interpreter; the PATH it inherits holds none.
    const withoutUv = { PATH: (process.env.PATH ?? '').split(':').filter((folder) => !existsSync(join(folder, 'uv'))).join(':') };
    const first = await startGymProcess(args, { env: withoutUv });
    try {
      expect(first.stderr()).toMatch(/Python environment of probe \(resources_servers\/probe_server\): built in/);
      expect(first.stdout()).toMatch(/probe\s+resources_servers\s+probe_server\s+\S+\s+\d+\s+Python /);
    } finally {
      await first.stop();
    }
    const second = await startGymProcess(args, { env: withoutUv });
    try {
      expect(second.stderr()).not.toMatch(/Python environment of probe/);
    } finally {
      await second.stop();
    }
    const prefetch = await runCli(['prefetch', ...args]);
    expect(prefetch.code, prefetch.stderr).toBe(0);
    expect(prefetch.stdout).toMatch(/probe\s+resources_servers\/probe_server\s+Python .*up to date/);
  });
});

describe.skipIf(uvMissing === null)('per-server Python environments (uv, layered on the nemo-gym venv)', () => {
  it.skip(`skipped: ${uvMissing ?? ''}`, () => {});
});

describe('a Python server says what it needs', () => {
  const folder = () => mkdtempSync(join(tmpdir(), 'ngym-requirements-'));

  it('reads requirements.txt without the nemo-gym line and with overrides.txt beside it', () => {
    const directory = folder();
    writeFileSync(join(directory, 'requirements.txt'), '-e nemo-gym[dev,sandbox] @ ../..\n# a comment\ngymnasium==1.1.1  # pinned\n\nnumpy\n');
    writeFileSync(join(directory, 'overrides.txt'), 'numpy==2.2.6\n');
    expect(readServerRequirements(directory)).toEqual({ source: join(directory, 'requirements.txt'), lines: ['gymnasium==1.1.1', 'numpy'], overridesFile: join(directory, 'overrides.txt') });
  });

  it("reads pyproject.toml's dependencies without nemo-gym", () => {
    const directory = folder();
    writeFileSync(join(directory, 'pyproject.toml'), '[project]\nname = "x"\ndependencies = ["json-repair==0.53.0", "nemo-gym[dev]"]\n');
    expect(readServerRequirements(directory).lines).toEqual(['json-repair==0.53.0']);
  });

  it('refuses a folder with both files, or neither', () => {
    const both = folder();
    writeFileSync(join(both, 'requirements.txt'), 'numpy\n');
    writeFileSync(join(both, 'pyproject.toml'), '[project]\nname = "x"\n');
    expect(() => readServerRequirements(both)).toThrow(/has both requirements\.txt and pyproject\.toml/);
    expect(() => readServerRequirements(folder())).toThrow(/has neither requirements\.txt nor pyproject\.toml/);
  });
});
