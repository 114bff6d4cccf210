/**
 * A Python environment per Python server, made before `ngym run` starts anything (decision 0019).
 *
 * Each server is layered on the interpreter that has nemo-gym installed (its "base": `python_executable`, else the
 * virtual environment the server's folder sits in, else python3). Requirements the base already satisfies install
 * nothing and the server runs on the base, as most of upstream's do. The others get a virtual environment of their
 * own at upstream's place for it (`uv_venv_dir`/<type>/<name>/.venv), made by uv from the shared `uv_cache_dir`
 * (hard links, so a package is on disk once): it holds only what the base lacks, sees the base's packages after its
 * own through a `.pth` file, and resolves against the base's versions first so the two agree; when a server's pins
 * cannot agree with the base, it resolves alone and its own versions shadow the base's. nemo-gym is never installed
 * again. A marker keyed by what the environment installs makes an unchanged server start at once; a build killed
 * half-way leaves no marker and is made again from scratch.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { basename, delimiter, dirname, join, resolve } from 'node:path';
import type { GlobalConfig } from '../config/global-config.ts';
import { configuredPython } from '../config/upstream-roots.ts';
import { NgymError } from '../errors.ts';
import { Semaphore } from '../util/semaphore.ts';
import { normalizedName, readServerRequirements, requirementName, type ServerRequirements } from './python-requirements.ts';

/** Bumped when the layout of what this module builds changes, so older environments are rebuilt. */
const FORMAT = 1;
const MARKER = '.ngym-environment.json';
const LOG_TAIL_LINES = 25;

export interface PythonServer {
  /** Instance names of the servers that run from this folder. */
  names: string[];
  /** The server's folder (`<root>/<type>/<impl>`). */
  directory: string;
}

export interface PythonEnvironmentReport {
  names: string[];
  directory: string;
  /** The interpreter the server runs with. */
  python: string;
  /** `base`: nothing to install; `present`: an existing venv used as is (`skip_venv_if_present`); `reused`: built earlier, unchanged; `built`: made now. */
  state: 'base' | 'present' | 'reused' | 'built';
  /** What had to be installed beyond the base (empty for `base`). */
  installs: string[];
  seconds: number;
  /** Set when the server's pins could not agree with the base's versions and resolved alone. */
  unconstrained?: boolean;
}

export interface PythonEnvironmentOptions {
  /** Progress lines (what is built, how long it took). */
  output: (line: string) => void;
  /** Build nothing that needs the network: uv runs `--offline`, and a build that needs a download fails naming it. */
  offline?: boolean;
}

interface Settings {
  skipIfPresent: boolean;
  /** `uv_venv_dir`; unset, a server folder's own `.venv` (upstream's place in a checkout) or else the cache's. */
  venvRoot: string | undefined;
  cacheVenvRoot: string;
  uvCacheDir: string;
  lockTimeoutSeconds: number;
  concurrency: number;
  verbose: boolean;
  offline: boolean;
}

function settingsOf(globalConfig: GlobalConfig, offline: boolean): Settings {
  const value = (key: string): unknown => globalConfig.resolvedValue([key]);
  const cacheDir = resolve(stringOr(value('cache_dir'), 'cache'));
  const concurrency = Number(value('python_env_build_concurrency') ?? 2);
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new NgymError('NGYM_CONFIG_INVALID', `python_env_build_concurrency must be a whole number >= 1, got ${JSON.stringify(value('python_env_build_concurrency'))}.`);
  }
  return {
    skipIfPresent: value('skip_venv_if_present') === true,
    venvRoot: typeof value('uv_venv_dir') === 'string' && value('uv_venv_dir') !== '' ? resolve(value('uv_venv_dir') as string) : undefined,
    // Upstream's default is the working directory, which would put venvs inside the project's own server folders.
    cacheVenvRoot: join(cacheDir, 'venvs'),
    uvCacheDir: resolve(stringOr(value('uv_cache_dir'), join(cacheDir, 'uv'))),
    lockTimeoutSeconds: Number(value('uv_lock_timeout_seconds') ?? 1800),
    concurrency,
    verbose: value('pip_install_verbose') === true,
    offline: offline || value('offline') === true || truthy(process.env.UV_OFFLINE),
  };
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' && value !== '' ? value : fallback;
}

function truthy(value: string | undefined): boolean {
  return value !== undefined && ['1', 'true', 'yes', 'on'].includes(value.toLowerCase());
}

/**
 * The interpreter a Python server is layered on: `python_executable`, else the virtual environment (or a checkout's
 * `.venv`) its folder sits in, which is where the nemo-gym that ships the server is installed, else python3.
 */
export function baseInterpreterOf(globalConfig: GlobalConfig, directory: string): string {
  const configured = configuredPython({ python_executable: globalConfig.resolvedValue(['python_executable']) });
  if (configured !== undefined) return configured;
  for (let folder = resolve(directory); dirname(folder) !== folder; folder = dirname(folder)) {
    if (existsSync(join(folder, 'pyvenv.cfg')) && existsSync(join(folder, 'bin', 'python'))) return join(folder, 'bin', 'python');
    if (existsSync(join(folder, '.venv', 'bin', 'python'))) return join(folder, '.venv', 'bin', 'python');
  }
  return 'python3';
}

/** Upstream's place for a server's venv, `<uv_venv_dir>/<server type>/<impl>/.venv`; see Settings.venvRoot for the default. */
function venvPathOf(settings: Settings, directory: string): string {
  if (settings.venvRoot === undefined && existsSync(join(directory, '.venv'))) return join(directory, '.venv');
  return join(settings.venvRoot ?? settings.cacheVenvRoot, basename(dirname(directory)), basename(directory), '.venv');
}

/**
 * Which of each server's requirement lines its base does not satisfy, asked of the base itself in one run
 * (installed versions, markers, extras). Option lines (`--extra-index-url ...`) need nothing by themselves.
 */
const UNSATISFIED_SCRIPT = `
import json, sys
from importlib import metadata
from packaging.requirements import InvalidRequirement, Requirement

def satisfied(requirement, extra_of=None):
    if requirement.url:
        return False
    if requirement.marker is not None and not requirement.marker.evaluate({"extra": extra_of or ""}):
        return True
    try:
        version = metadata.version(requirement.name)
    except metadata.PackageNotFoundError:
        return False
    if requirement.specifier and not requirement.specifier.contains(version, prereleases=True):
        return False
    for extra in requirement.extras:
        for line in metadata.requires(requirement.name) or []:
            dependency = Requirement(line)
            if dependency.marker is not None and dependency.marker.evaluate({"extra": extra}) and not dependency.marker.evaluate({"extra": ""}):
                dependency.marker = None
                if not satisfied(dependency):
                    return False
    return True

def needed(line):
    if line.startswith("--"):
        return False
    try:
        return not satisfied(Requirement(line))
    except InvalidRequirement:
        return True

print(json.dumps({key: [line for line in lines if needed(line)] for key, lines in json.load(sys.stdin).items()}))
`;

function unsatisfiedLines(python: string, linesByDirectory: Map<string, string[]>, servers: string): Map<string, string[]> {
  const result = spawnSync(python, ['-c', UNSATISFIED_SCRIPT], { input: JSON.stringify(Object.fromEntries(linesByDirectory)), encoding: 'utf8' });
  if (result.error !== undefined) {
    const missing = (result.error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new NgymError('NGYM_SERVER_START', missing ? `Server ${servers}: the Python interpreter ${python} does not exist (set python_executable to one with nemo-gym installed).` : `Server ${servers}: could not run ${python}: ${result.error.message}`);
  }
  if (result.status !== 0) {
    throw new NgymError('NGYM_SERVER_START', `Could not check what server ${servers} needs with ${python} (it needs the packaging library, which nemo-gym installs):\n${result.stderr.trim()}`);
  }
  return new Map(Object.entries(JSON.parse(result.stdout) as Record<string, string[]>));
}

/** The uv next to the base interpreter (where `pip install uv` puts it), else on PATH. */
export function uvOf(basePython: string): string | undefined {
  const candidates = [...(basePython.includes('/') ? [join(dirname(basePython), 'uv')] : []), ...(process.env.PATH ?? '').split(delimiter).map((folder) => join(folder, 'uv'))];
  return candidates.find((candidate) => candidate !== 'uv' && existsSync(candidate));
}

interface Marker {
  format: number;
  key: string;
  complete: boolean;
  installs?: string[];
  unconstrained?: boolean;
}

function readMarker(venv: string): Marker | undefined {
  try {
    return JSON.parse(readFileSync(join(venv, MARKER), 'utf8')) as Marker;
  } catch {
    return undefined;
  }
}

function keyOf(basePython: string, requirements: ServerRequirements, installs: string[]): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify({ format: FORMAT, base: realPath(basePython), installs, lines: requirements.lines }));
  if (requirements.overridesFile !== undefined) hash.update(readFileSync(requirements.overridesFile));
  return hash.digest('hex');
}

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * Makes (or finds) the Python environment of every Python server, several at a time, before any server starts.
 * Returns the interpreter each folder's servers run with. Every failure names the server, the requirement or file,
 * and the build log; environments already made stay made.
 */
export async function preparePythonEnvironments(globalConfig: GlobalConfig, servers: PythonServer[], options: PythonEnvironmentOptions): Promise<PythonEnvironmentReport[]> {
  if (servers.length === 0) return [];
  const settings = settingsOf(globalConfig, options.offline === true);
  const plans = servers.map((server) => ({ server, base: baseInterpreterOf(globalConfig, server.directory), requirements: readRequirementsNamed(server) }));

  const byBase = new Map<string, typeof plans>();
  for (const plan of plans) byBase.set(plan.base, [...(byBase.get(plan.base) ?? []), plan]);
  const needs = new Map<string, string[]>();
  for (const [base, group] of byBase) {
    const names = group.flatMap((plan) => plan.server.names).map((name) => `'${name}'`).join(', ');
    for (const [directory, lines] of unsatisfiedLines(base, new Map(group.map((plan) => [plan.server.directory, plan.requirements.lines])), names)) needs.set(directory, lines);
  }

  const semaphore = new Semaphore(settings.concurrency);
  const reports: PythonEnvironmentReport[] = [];
  const failures: string[] = [];
  const building = new Set<ChildProcess>();
  // A build's uv must not outlive this process, however it ends.
  const killBuilds = () => {
    for (const child of building) child.kill('SIGKILL');
  };
  process.once('exit', killBuilds);
  try {
    await Promise.all(
      plans.map(async ({ server, base, requirements }) => {
        const installs = needs.get(server.directory) ?? [];
        const label = `${server.names.join(', ')} (${basename(dirname(server.directory))}/${basename(server.directory)})`;
        if (installs.length === 0 && requirements.overridesFile === undefined) {
          reports.push({ names: server.names, directory: server.directory, python: base, state: 'base', installs: [], seconds: 0 });
          return;
        }
        const venv = venvPathOf(settings, server.directory);
        const python = join(venv, 'bin', 'python');
        if (settings.skipIfPresent && existsSync(python) && existsSync(join(venv, 'bin', 'activate'))) {
          reports.push({ names: server.names, directory: server.directory, python, state: 'present', installs, seconds: 0 });
          return;
        }
        const key = keyOf(base, requirements, installs);
        await semaphore.run(async () => {
          const started = Date.now();
          try {
            const built = await withLock(`${venv}.lock`, settings.lockTimeoutSeconds, label, async () => {
              const marker = readMarker(venv);
              if (marker?.complete === true && marker.key === key && existsSync(python)) return { reused: true, unconstrained: marker.unconstrained === true };
              options.output(`Python environment of ${label}: building (${installs.join(' ')})${settings.offline ? ', offline' : ''}`);
              return { reused: false, unconstrained: await build({ venv, base, requirements, installs, key, label, settings, building, directory: server.directory, previous: marker }) };
            });
            const seconds = (Date.now() - started) / 1000;
            if (!built.reused) options.output(`Python environment of ${label}: built in ${seconds.toFixed(1)} s${built.unconstrained ? " (its pins disagree with the base's: it uses its own versions)" : ''}`);
            reports.push({ names: server.names, directory: server.directory, python, state: built.reused ? 'reused' : 'built', installs, seconds, ...(built.unconstrained ? { unconstrained: true } : {}) });
          } catch (error) {
            failures.push((error as Error).message);
          }
        });
      }),
    );
  } finally {
    process.off('exit', killBuilds);
  }
  if (failures.length > 0) throw new NgymError('NGYM_SERVER_START', failures.join('\n'));
  return reports;
}

function readRequirementsNamed(server: PythonServer): ServerRequirements {
  try {
    return readServerRequirements(server.directory);
  } catch (error) {
    throw new NgymError('NGYM_SERVER_START', `Server '${server.names.join("', '")}': ${(error as Error).message}`);
  }
}

interface BuildJob {
  venv: string;
  base: string;
  requirements: ServerRequirements;
  installs: string[];
  key: string;
  label: string;
  directory: string;
  settings: Settings;
  building: Set<ChildProcess>;
  previous: Marker | undefined;
}

/** Builds one environment; true when its pins had to resolve without the base's versions. */
async function build(job: BuildJob): Promise<boolean> {
  const { venv, base, settings } = job;
  const uv = uvOf(base);
  if (uv === undefined) {
    throw new NgymError('NGYM_SERVER_START', `Server ${job.label} needs ${job.installs.join(', ')} beyond what ${base} has, and building its environment needs uv (as upstream NeMo Gym's does): \`${base} -m pip install uv\`, or uv on PATH.`);
  }
  // One of ours that was left half-made, or made for other requirements, is made again from nothing; a venv
  // someone else made (upstream's `gym env start`, by hand) is installed into, as upstream would.
  if (job.previous !== undefined) rmSync(venv, { recursive: true, force: true });
  mkdirSync(dirname(venv), { recursive: true });
  const logPath = join(dirname(venv), 'build.log');
  const log = createWriteStream(logPath, { flags: 'w' });
  const environment = { ...process.env, UV_CACHE_DIR: settings.uvCacheDir, UV_LOCK_TIMEOUT: String(settings.lockTimeoutSeconds), VIRTUAL_ENV: venv };
  const run = async (args: string[], what: string): Promise<{ ok: boolean; tail: string[] }> => {
    log.write(`$ ${[uv, ...args].join(' ')}\n`);
    const result = await runLogged(uv, args, { cwd: job.directory, env: environment, log, building: job.building });
    if (!result.ok) log.write(`(${what} failed)\n`);
    return result;
  };
  const fail = (what: string, tail: string[]): NgymError => {
    const offline = settings.offline ? ` Offline (uv --offline): what it needs is not in the uv cache ${settings.uvCacheDir}; run \`ngym prefetch\` (gym env prefetch) with network first.` : '';
    return new NgymError('NGYM_SERVER_START', `Building the Python environment of server ${job.label} failed at ${what} (requirements from ${job.requirements.source}).${offline}\n${tail.join('\n')}\nFull log: ${logPath}`);
  };
  try {
    const offline = settings.offline ? ['--offline'] : [];
    const verbose = settings.verbose ? ['-v'] : [];
    // No seed packages: pip comes from the base through the .pth file, and seeding would need a download offline.
    const made = await run(['venv', '--allow-existing', ...offline, '--python', base, venv], 'uv venv');
    if (!made.ok) throw fail('`uv venv`', made.tail);
    writeMarker(venv, { format: FORMAT, key: job.key, complete: false });
    const python = join(venv, 'bin', 'python');
    // Its own packages first, then the base's (and the .pth files there, such as editable installs).
    const sitePackages = (name: string): string => spawnSync(name, ['-c', 'import sysconfig; print(sysconfig.get_paths()["purelib"])'], { encoding: 'utf8' }).stdout.trim();
    writeFileSync(join(sitePackages(python), '_ngym_base.pth'), `import site; site.addsitedir(${JSON.stringify(sitePackages(base))})\n`);
    const requirementsFile = join(venv, '.ngym-requirements.txt');
    const passThrough = job.requirements.lines.filter((line) => line.startsWith('--'));
    writeFileSync(requirementsFile, [...passThrough, ...job.installs].join('\n') + '\n');
    const overrides = job.requirements.overridesFile === undefined ? [] : ['--override', job.requirements.overridesFile];
    const install = ['pip', 'install', ...verbose, ...offline, '--python', python, '-r', requirementsFile, ...overrides];
    const constraintsFile = join(venv, '.ngym-constraints.txt');
    writeFileSync(constraintsFile, baseConstraints(uv, base, job, environment).join('\n') + '\n');
    let unconstrained = false;
    const constrained = await run([...install, '--constraint', constraintsFile], 'install against the base');
    if (!constrained.ok) {
      if (settings.offline) throw fail('`uv pip install`', constrained.tail);
      unconstrained = true;
      const alone = await run(install, 'install alone');
      if (!alone.ok) throw fail('`uv pip install`', alone.tail);
    }
    writeMarker(venv, { format: FORMAT, key: job.key, complete: true, installs: job.installs, ...(unconstrained ? { unconstrained } : {}) });
    return unconstrained;
  } finally {
    log.end();
  }
}

/** The base's installed versions, except the projects the server names itself (its pins decide those). */
function baseConstraints(uv: string, base: string, job: BuildJob, environment: NodeJS.ProcessEnv): string[] {
  const named = new Set(job.installs.map(requirementName).filter((name) => name !== undefined));
  if (job.requirements.overridesFile !== undefined) {
    for (const line of readFileSync(job.requirements.overridesFile, 'utf8').split('\n')) {
      const name = requirementName(line.trim());
      if (name !== undefined) named.add(name);
    }
  }
  const freeze = spawnSync(uv, ['pip', 'freeze', '--exclude-editable', '--python', base], { encoding: 'utf8', env: environment });
  return freeze.stdout
    .split('\n')
    .filter((line) => /^[A-Za-z0-9][^ ]*==/.test(line))
    .filter((line) => !named.has(normalizedName(line.split('==')[0] as string)));
}

function writeMarker(venv: string, marker: Marker): void {
  writeFileSync(join(venv, MARKER), JSON.stringify(marker) + '\n');
}

/** Runs one build step, its output to the log; the last lines come back for the error message. */
function runLogged(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; log: NodeJS.WritableStream; building: Set<ChildProcess> }): Promise<{ ok: boolean; tail: string[] }> {
  return new Promise((resolvePromise) => {
    const tail: string[] = [];
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    options.building.add(child);
    // uv writes a line in pieces; the tail keeps whole lines of both streams.
    const collector = () => {
      let pending = '';
      return (chunk: Buffer) => {
        options.log.write(chunk);
        const lines = (pending + chunk.toString('utf8')).split('\n');
        pending = lines.pop() ?? '';
        tail.push(...lines.filter((line) => line.trim() !== ''));
        tail.splice(0, Math.max(0, tail.length - LOG_TAIL_LINES));
      };
    };
    child.stdout.on('data', collector());
    child.stderr.on('data', collector());
    child.on('error', (error) => {
      options.building.delete(child);
      resolvePromise({ ok: false, tail: [...tail, error.message] });
    });
    child.on('close', (code) => {
      options.building.delete(child);
      resolvePromise({ ok: code === 0, tail });
    });
  });
}

/**
 * One builder per venv across processes: a lock folder made atomically, holding its owner's pid. A lock whose owner
 * is gone (killed mid-build) is taken over; the marker then says the venv is half-made.
 */
async function withLock<T>(lockPath: string, timeoutSeconds: number, label: string, task: () => Promise<T>): Promise<T> {
  mkdirSync(dirname(lockPath), { recursive: true });
  const deadline = Date.now() + timeoutSeconds * 1000;
  for (;;) {
    try {
      mkdirSync(lockPath);
      writeFileSync(join(lockPath, 'pid'), String(process.pid));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (!ownerAlive(lockPath)) {
        rmSync(lockPath, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) throw new NgymError('NGYM_SERVER_START', `Another process (pid ${readOwner(lockPath)}) has been building the Python environment of ${label} for over ${timeoutSeconds} s (uv_lock_timeout_seconds); lock ${lockPath}.`);
      await new Promise((resolveWait) => setTimeout(resolveWait, 500));
    }
  }
  try {
    return await task();
  } finally {
    rmSync(lockPath, { recursive: true, force: true });
  }
}

function readOwner(lockPath: string): number | undefined {
  try {
    return Number(readFileSync(join(lockPath, 'pid'), 'utf8'));
  } catch {
    return undefined;
  }
}

function ownerAlive(lockPath: string): boolean {
  const owner = readOwner(lockPath);
  // A lock folder without its pid yet is being made this instant: alive.
  if (owner === undefined || Number.isNaN(owner)) return true;
  try {
    process.kill(owner, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
