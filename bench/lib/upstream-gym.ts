/**
 * Upstream NeMo Gym 0.7.0's side of a comparison: its own `ng_run` on its own config files from the installed
 * wheel, and its own `ng_collect_rollouts` (timed by upstream-collect.py). ng_run builds one uv venv per server
 * and installs its requirements at start, which needs the network; with `skip_venv_if_present` and a venv folder
 * whose per-server venvs link to the one `npm run setup:python` made, it starts every server from that venv.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pythonSetup } from '../../parity/gym.ts';
import { PACKAGE_ROOT } from '../../src/util/package-root.ts';
import { killTree } from '../../scripts/lib/process-tree.ts';

const START_TIMEOUT_MS = 300_000;
// Every server folder a collection config of ours starts (legacy_agent: ng_run adds one per agent).
const SERVER_FOLDERS = ['responses_api_agents/simple_agent', 'responses_api_models/openai_model', 'environment_servers/legacy_agent'];

export interface StartedSystem {
  /** The root process; every server (and Ray) is its descendant. */
  pid: number;
  headPort: number;
  stop(): Promise<void>;
}

export interface CollectorRun {
  completed: number;
  failures: number;
  wallSeconds: number;
  firstCompletionSeconds: number;
  cpuSeconds: number;
  p50Ms: number;
  p99Ms: number;
  /** The first error the collector printed, when rollouts failed. */
  error?: string;
}

/** A free loopback port: ng_run's head server cannot take port 0 (it polls the configured port). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

function venvFolder(resourcesServer: string, venv: string): string {
  const folder = mkdtempSync(join(tmpdir(), 'ngym-vs-upstream-venvs-'));
  for (const server of [`resources_servers/${resourcesServer}`, ...SERVER_FOLDERS]) {
    mkdirSync(join(folder, server), { recursive: true });
    symlinkSync(venv, join(folder, server, '.venv'));
  }
  return folder;
}

/** Resolves when `child` printed `ready` on stdout/stderr; rejects with its output if it exits first or takes too long. */
function waitForLine(child: ChildProcess, ready: RegExp, what: string, timeoutMs = START_TIMEOUT_MS): Promise<string> {
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} was not ready after ${timeoutMs / 1000} s:\n${output.slice(-3000)}`)), timeoutMs);
    const onData = (chunk: string) => {
      output += chunk;
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve(output);
      }
    };
    child.stdout?.setEncoding('utf8').on('data', onData);
    child.stderr?.setEncoding('utf8').on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with ${code} before it was ready:\n${output.slice(-3000)}`));
    });
  });
}

/**
 * `ng_run` on the wheel's config of `environment` (its resources server, simple_agent, legacy_agent) and the
 * wheel's openai_model config, pointed at `modelBaseUrl`.
 */
export async function startUpstream(environment: string, configFile: string, modelBaseUrl: string): Promise<StartedSystem> {
  const python = pythonSetup();
  const venv = dirname(dirname(python.executable));
  const headPort = await freePort();
  const configs = [join(python.sitePackages, 'resources_servers', environment, 'configs', configFile), join(python.sitePackages, 'responses_api_models', 'openai_model', 'configs', 'openai_model.yaml')];
  const venvs = venvFolder(environment, venv);
  const cwd = mkdtempSync(join(tmpdir(), 'ngym-vs-upstream-run-'));
  const child = spawn(
    join(venv, 'bin', 'ng_run'),
    [
      `+config_paths=[${configs.join(',')}]`,
      `+policy_base_url=${modelBaseUrl}`,
      '+policy_api_key=bench',
      '+policy_model_name=bench-null',
      '+skip_venv_if_present=true',
      `+uv_venv_dir=${venvs}`,
      '+head_server.host=127.0.0.1',
      `+head_server.port=${headPort}`,
    ],
    { cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true, env: { ...process.env, RAY_USAGE_STATS_ENABLED: '0' } },
  );
  const pid = child.pid as number;
  const stop = async () => {
    await killTree([pid], 15_000);
    for (const folder of [venvs, cwd]) rmSync(folder, { recursive: true, force: true });
  };
  try {
    await waitForLine(child, /All \d+ \/ \d+ servers ready!/, `upstream ng_run (${environment})`);
  } catch (error) {
    await stop();
    throw error;
  }
  // Keep draining its output so a full pipe never blocks it.
  child.stdout?.resume();
  child.stderr?.resume();
  return { pid, headPort, stop };
}

/** Upstream's ng_collect_rollouts over `rowsPath` cycled to `rollouts` rows, `concurrency` in flight. */
export async function collectUpstream(
  system: StartedSystem,
  agentName: string,
  rowsPath: string,
  rollouts: number,
  concurrency: number,
  timeoutMs: number,
): Promise<CollectorRun> {
  const python = pythonSetup();
  const folder = mkdtempSync(join(tmpdir(), 'ngym-vs-upstream-collect-'));
  const rows = readFileSync(rowsPath, 'utf8').trim().split('\n');
  const input = join(folder, 'input.jsonl');
  writeFileSync(input, Array.from({ length: rollouts }, (_, index) => `${JSON.stringify({ ...JSON.parse(rows[index % rows.length] as string), id: index })}\n`).join(''));
  const reportPath = join(folder, 'report.json');
  const output = join(folder, 'output.jsonl');
  const child = spawn(
    python.executable,
    [
      join(PACKAGE_ROOT, 'bench', 'lib', 'upstream-collect.py'),
      reportPath,
      `+agent_name=${agentName}`,
      `+input_jsonl_fpath=${input}`,
      `+output_jsonl_fpath=${output}`,
      '+head_server.host=127.0.0.1',
      `+head_server.port=${system.headPort}`,
      `+num_samples_in_parallel=${concurrency}`,
    ],
    { cwd: folder, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  let log = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (log = (log + chunk).slice(-200_000)));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (log = (log + chunk).slice(-200_000)));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void killTree([child.pid as number]);
  }, timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  clearTimeout(timer);
  const report = existsSync(reportPath) ? (JSON.parse(readFileSync(reportPath, 'utf8')) as Partial<CollectorRun>) : {};
  rmSync(folder, { recursive: true, force: true });
  const completed = report.completed ?? 0;
  const failed = /\[rollout_collection\] \/run failed[^\n]*\n?[^\n]*/.exec(log)?.[0] ?? /(\w*Error[^\n]*)\n?[^\n]*$/m.exec(log)?.[0];
  const error = timedOut ? `timed out after ${timeoutMs / 1000} s` : code !== 0 ? `collector exited with ${code}: ${failed ?? log.slice(-500)}` : failed;
  return {
    completed,
    failures: rollouts - completed,
    wallSeconds: report.wallSeconds ?? Number.NaN,
    firstCompletionSeconds: report.firstCompletionSeconds ?? Number.NaN,
    cpuSeconds: report.cpuSeconds ?? 0,
    p50Ms: report.p50Ms ?? Number.NaN,
    p99Ms: report.p99Ms ?? Number.NaN,
    ...(completed < rollouts && error !== undefined ? { error: error.trim().slice(0, 400) } : {}),
  };
}
