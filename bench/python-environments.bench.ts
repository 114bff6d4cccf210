/**
 * Python environments side by side with upstream NeMo Gym 0.7.0's `ng_run`, for upstream resources servers run
 * from its wheel: the time to build a server's environment cold (its venv removed; uv's download cache kept, as
 * on any machine that ran once) and warm (built already), and the time from start to every server ready.
 *
 * ngym: `ngym prefetch` builds (cold, then warm), then `ngym run` to ready. Upstream: `ng_run` building its own
 * venvs into an empty `uv_venv_dir` (cold), then `ng_run +skip_venv_if_present=true` with each server's venv
 * prebuilt (ngym's venv where ngym built one, else the project's .venv): the nearest upstream has to a warm start.
 * Environment: BENCH_PYTHON_SERVERS (default grl_tetris,blackjack).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { upstreamWheel } from '../src/testing/upstream-wheel.ts';
import { PACKAGE_ROOT } from '../src/util/package-root.ts';
import { REPLAY_CONFIG } from '../catalog/replay-setup.ts';
import { planResourcesServer } from '../catalog/upstream-servers.ts';
import { format } from './lib/measure.ts';
import { killTree } from '../scripts/lib/process-tree.ts';
import { freePort } from './lib/upstream-gym.ts';

const SERVERS = (process.env.BENCH_PYTHON_SERVERS ?? 'grl_tetris,blackjack').split(',').filter((name) => name !== '');
const TIMEOUT_MS = 600_000;
const BIN = join(PACKAGE_ROOT, 'bin', 'ngym.js');
/** The server folders an upstream resources server's own config starts besides itself, by its agent. */
const COMPANIONS: Record<string, string[]> = {
  gymnasium_agent: ['responses_api_agents/gymnasium_agent', 'environment_servers/legacy_agent', 'responses_api_models/openai_model'],
  simple_agent: ['responses_api_agents/simple_agent', 'environment_servers/legacy_agent', 'responses_api_models/openai_model'],
};

/** Every command still running, stopped if the bench is interrupted. */
const running = new Set<number>();
process.once('SIGINT', () => void killTree([...running], 10_000).finally(() => process.exit(130)));

interface Timed {
  seconds: number;
  ok: boolean;
  output: string;
}

/** Runs a command to its end (or a line matching `until`, then stops its process tree); seconds to that point. */
function timed(command: string, args: string[], options: { cwd: string; until?: RegExp; env?: NodeJS.ProcessEnv }): Promise<Timed> {
  const started = performance.now();
  const child: ChildProcess = spawn(command, args, { cwd: options.cwd, env: { ...process.env, NGYM_LOG_LEVEL: 'warn', RAY_USAGE_STATS_ENABLED: '0', ...options.env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  running.add(child.pid as number);
  return new Promise((resolve) => {
    let done = false;
    const finish = async (ok: boolean) => {
      if (done) return;
      done = true;
      const seconds = (performance.now() - started) / 1000;
      clearTimeout(timer);
      if (child.exitCode === null) await killTree([child.pid as number], 20_000);
      running.delete(child.pid as number);
      resolve({ seconds, ok, output });
    };
    const onData = (chunk: string) => {
      output += chunk;
      if (options.until?.test(output)) void finish(true);
    };
    child.stdout?.setEncoding('utf8').on('data', onData);
    child.stderr?.setEncoding('utf8').on('data', onData);
    const timer = setTimeout(() => void finish(false), TIMEOUT_MS);
    child.once('close', (code) => void finish(options.until === undefined && code === 0));
  });
}

const ngymVenv = (folder: string) => join(PACKAGE_ROOT, 'cache', 'venvs', folder, '.venv');

async function ngymSide(args: string[], folders: string[]): Promise<{ cold: Timed; warm: Timed; ready: Timed }> {
  for (const folder of folders) rmSync(join(PACKAGE_ROOT, 'cache', 'venvs', folder), { recursive: true, force: true });
  const prefetch = () => timed(process.execPath, [BIN, 'prefetch', ...args], { cwd: PACKAGE_ROOT });
  const cold = await prefetch();
  const warm = await prefetch();
  const ready = await timed(process.execPath, [BIN, 'run', ...args, '++head_server={host: 127.0.0.1, port: 0}'], { cwd: PACKAGE_ROOT, until: /All \d+ \/ \d+ servers ready/ });
  return { cold, warm, ready };
}

async function upstreamSide(configPaths: string, folders: string[], sitePackages: string, baseVenv: string): Promise<{ cold: Timed; ready: Timed }> {
  const upstreamArgs = async (venvRoot: string, extra: string[]) => [
    configPaths,
    '+policy_base_url=http://127.0.0.1:1/v1',
    '+policy_api_key=bench',
    '+policy_model_name=bench',
    `+uv_venv_dir=${venvRoot}`,
    '+head_server.host=127.0.0.1',
    `+head_server.port=${await freePort()}`,
    ...extra,
  ];
  const ngRun = join(baseVenv, 'bin', 'ng_run');
  const env = { PATH: `${join(baseVenv, 'bin')}:${process.env.PATH ?? ''}` };
  const coldRoot = mkdtempSync(join(tmpdir(), 'ngym-bench-upstream-venvs-'));
  const cold = await timed(ngRun, await upstreamArgs(coldRoot, []), { cwd: sitePackages, until: /All \d+ \/ \d+ servers ready|finished unexpectedly/, env });
  cold.ok = /All \d+ \/ \d+ servers ready/.test(cold.output);
  rmSync(coldRoot, { recursive: true, force: true });
  const warmRoot = mkdtempSync(join(tmpdir(), 'ngym-bench-upstream-venvs-'));
  for (const folder of folders) {
    mkdirSync(join(warmRoot, folder), { recursive: true });
    symlinkSync(existsSync(ngymVenv(folder)) ? ngymVenv(folder) : baseVenv, join(warmRoot, folder, '.venv'));
  }
  const ready = await timed(ngRun, await upstreamArgs(warmRoot, ['+skip_venv_if_present=true']), { cwd: sitePackages, until: /All \d+ \/ \d+ servers ready|finished unexpectedly/, env });
  ready.ok = /All \d+ \/ \d+ servers ready/.test(ready.output);
  rmSync(warmRoot, { recursive: true, force: true });
  return { cold, ready };
}

function why(result: Timed): string {
  const line = result.output.split('\n').find((candidate) => /depends on Python|No solution found|Error|error:/.test(candidate));
  return line === undefined ? 'failed' : line.replace(/^\([^)]*\)\s*/, '').trim().slice(0, 160);
}

export default async function pythonEnvironments(): Promise<void> {
  const wheel = upstreamWheel();
  if (wheel.skipReason !== null) {
    process.stdout.write(`skipped: ${wheel.skipReason}\n`);
    return;
  }
  process.stdout.write('Seconds; cold = the server\'s venv removed (uv\'s download cache kept), warm = built already.\n');
  process.stdout.write(`${'server'.padEnd(14)} ${'step'.padEnd(26)} ${'ngym'.padStart(8)} ${'upstream'.padStart(9)}  ratio\n`);
  for (const server of SERVERS) {
    const config = join(wheel.sitePackages, 'resources_servers', server, 'configs', `${server}.yaml`);
    const plan = planResourcesServer(wheel.sitePackages, server);
    const folders = [`resources_servers/${server}`, ...(COMPANIONS[plan.agentImpl ?? 'simple_agent'] ?? [])];
    const ngymConfig = `+config_paths=[${config},${REPLAY_CONFIG}]`;
    const replay = `+policy_model.responses_api_models.replay_model.rollouts_jsonl_fpath=${plan.recordingPath}`;
    const ours = await ngymSide([ngymConfig, replay], folders);
    const upstream = await upstreamSide(`+config_paths=[${config},${join(wheel.sitePackages, 'responses_api_models', 'openai_model', 'configs', 'openai_model.yaml')}]`, folders, wheel.sitePackages, wheel.venv);
    const row = (step: string, mine: Timed, theirs: Timed | undefined) => {
      const theirsText = theirs === undefined ? '-' : theirs.ok ? format(theirs.seconds) : 'fails';
      const ratio = theirs?.ok === true && mine.ok ? `${format(theirs.seconds / mine.seconds)}x` : '';
      process.stdout.write(`${server.padEnd(14)} ${step.padEnd(26)} ${(mine.ok ? format(mine.seconds) : 'fails').padStart(8)} ${theirsText.padStart(9)}  ${ratio}\n`);
    };
    row('build cold', ours.cold, upstream.cold);
    const built = [...ours.cold.output.matchAll(/\(([a-z_]+\/[^)]+)\): built in ([\d.]+) s/g)].map((match) => `${match[1]} ${match[2]} s`);
    process.stdout.write(`  ngym's cold prefetch built: ${built.length === 0 ? 'nothing (every Python server runs on the base)' : built.join(', ')}; the rest is the CLI's start and checks\n`);
    row('build warm (prefetch)', ours.warm, undefined);
    row('start to ready (warm)', ours.ready, upstream.ready);
    if (!upstream.cold.ok) process.stdout.write(`  upstream cold build: ${why(upstream.cold)}\n`);
    if (!upstream.ready.ok) process.stdout.write(`  upstream warm start: ${why(upstream.ready)}\n`);
  }
}
