/**
 * The stack the faults are injected into: `ngym run` (example_single_tool_call, simple_agent, openai_model) in
 * child processes, the model endpoint behind openai_model served here so a test decides how each call fails,
 * and `ngym collect` as a child process. All on loopback, ports chosen by the OS.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type GymProcess, startGymProcess } from '../src/testing/cli-process.ts';
import { assistantMessage, functionCall, modelResponse } from '../src/server/scripted-model.ts';
import { PACKAGE_ROOT } from '../src/util/package-root.ts';

/** What the model endpoint does with one call. */
export type ModelFault = 'answer' | 'reset' | 'truncate' | 'malformed' | 'hang' | 'error';

export interface FaultyModel {
  url: string;
  calls: number;
  close(): Promise<void>;
}

/** An OpenAI-compatible `/v1/responses` whose every call is answered (after `latencyMs`) as `plan` says. */
export async function startFaultyModel(plan: (call: number) => ModelFault, latencyMs = 10): Promise<FaultyModel> {
  const hanging = new Set<() => void>();
  const state = { calls: 0 };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const fault = plan(state.calls++);
      const answer = () => {
        // get_weather first, then text after its output: every answered rollout earns reward 1.
        const input = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { input?: unknown }).input;
        const called = Array.isArray(input) && input.some((item) => (item as { type?: string }).type === 'function_call_output');
        const body = JSON.stringify(modelResponse([called ? assistantMessage('It is sunny.') : functionCall('get_weather', { city: 'Paris' })]));
        if (fault === 'reset') return request.socket.destroy();
        if (fault === 'hang') return void hanging.add(() => response.destroy());
        if (fault === 'error') return response.writeHead(500, { 'content-type': 'application/json' }).end('{"error": {"message": "engine crashed"}}');
        if (fault === 'malformed') return response.writeHead(200, { 'content-type': 'application/json' }).end('{"id": "resp_1", "output": [{"type": "mess');
        if (fault === 'truncate') {
          // Promises the whole body, sends half, and closes: a connection lost mid-response.
          response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) });
          response.write(body.slice(0, body.length / 2));
          return void setImmediate(() => request.socket.destroy());
        }
        response.writeHead(200, { 'content-type': 'application/json' }).end(body);
      };
      setTimeout(answer, latencyMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    get calls() {
      return state.calls;
    },
    async close() {
      for (const release of hanging) release();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const AGENT = 'example_single_tool_call_simple_agent';

/** `ngym run` of the stack against the model at `modelUrl`. */
export function startStack(modelUrl: string, extra: string[] = []): Promise<GymProcess> {
  return startGymProcess([
    '+config_paths=[resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml,responses_api_models/openai_model/configs/openai_model.yaml]',
    `+policy_base_url=${modelUrl}`,
    '+policy_api_key=test-key',
    '+policy_model_name=test-model',
    ...extra,
  ]);
}

/** Bytes the hungry resources server keeps from every `/verify`: its memory grows with the rollouts it scores. */
export const HUNGRY_BYTES_PER_VERIFY = 4 * 2 ** 20;

/** JavaScript objects the hungry server keeps from every `/verify` with `jsObjects` (about 4 MiB of V8's heap). */
export const HUNGRY_OBJECTS_PER_VERIFY = 50_000;

/**
 * `ngym run` of a stack like startStack's whose resources server, `hungry`, holds on to HUNGRY_BYTES_PER_VERIFY more
 * memory with every verify (reward 1, no tools); its agent is `hungry_simple_agent`. `env` is ngym run's environment.
 * With `holdMs`, each verify holds its bytes only while it works, that long: memory grows with the verifies in
 * flight instead. With `jsObjects`, each verify keeps HUNGRY_OBJECTS_PER_VERIFY JavaScript objects instead (a
 * Buffer's bytes are outside V8's heap): the heap grows until its limit. `args` go to ngym run.
 */
export function startHungryStack(modelUrl: string, env: NodeJS.ProcessEnv = {}, options: { holdMs?: number; jsObjects?: boolean; args?: string[] } = {}): Promise<GymProcess> {
  const root = mkdtempSync(join(tmpdir(), 'ngym-hungry-'));
  mkdirSync(join(root, 'resources_servers', 'hungry'), { recursive: true });
  writeFileSync(join(root, 'package.json'), '{"type": "module"}\n');
  writeFileSync(
    join(root, 'resources_servers', 'hungry', 'app.ts'),
    `import { defineResourcesServer } from ${JSON.stringify(join(PACKAGE_ROOT, 'src', 'index.ts'))};\n` +
      `const held: unknown[] = [];\n` +
      (options.jsObjects === true
        ? `export default defineResourcesServer({ className: 'Hungry', verify: () => { for (let index = 0; index < ${HUNGRY_OBJECTS_PER_VERIFY}; index++) held.push({ index, label: 'kept ' + index }); return { reward: 1 }; } });\n`
        : options.holdMs === undefined
        ? `export default defineResourcesServer({ className: 'Hungry', verify: () => { held.push(Buffer.alloc(${HUNGRY_BYTES_PER_VERIFY}, 1)); return { reward: 1 }; } });\n`
        : `export default defineResourcesServer({ className: 'Hungry', verify: async () => { const work = Buffer.alloc(${HUNGRY_BYTES_PER_VERIFY}, 1); await new Promise((resolve) => setTimeout(resolve, ${options.holdMs})); return { reward: work[0] }; } });\n`),
  );
  writeFileSync(
    join(root, 'hungry.yaml'),
    [
      'hungry:',
      '  resources_servers:',
      '    hungry:',
      '      entrypoint: app.ts',
      '      domain: other',
      'hungry_simple_agent:',
      '  responses_api_agents:',
      '    simple_agent:',
      '      entrypoint: app.ts',
      '      resources_server: {type: resources_servers, name: hungry}',
      '      model_server: {type: responses_api_models, name: policy_model}',
      '',
    ].join('\n'),
  );
  return startGymProcess(
    [
      `+config_paths=[hungry.yaml,${join(PACKAGE_ROOT, 'responses_api_models/openai_model/configs/openai_model.yaml')}]`,
      `+policy_base_url=${modelUrl}`,
      '+policy_api_key=test-key',
      '+policy_model_name=test-model',
      ...(options.args ?? []),
    ],
    { cwd: root, env },
  );
}

/** The process id `ngym run` printed for a server. */
export function pidOf(gym: GymProcess, server: string): number {
  // The pid follows the URL (the table may go on with more columns).
  const match = new RegExp(`^\\s*${server}\\s.*?http://127\\.0\\.0\\.1:\\d+\\s+(\\d+)(?:\\s|$)`, 'm').exec(gym.stdout());
  if (match === null) throw new Error(`no pid for ${server} in:\n${gym.stdout()}`);
  return Number(match[1]);
}

/** A work folder with `tasks` distinct rows of the example's shape, for `agent`. */
export function workFolder(tasks: number, agent = AGENT): { dir: string; input: string; output: string; failures: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ngym-fault-'));
  const example = readFileSync(join(PACKAGE_ROOT, 'resources_servers/example_single_tool_call/data/example.jsonl'), 'utf8').split('\n')[0] as string;
  const row = JSON.parse(example) as { responses_create_params: { input: { role: string; content: string }[] } };
  const lines = Array.from({ length: tasks }, (_, index) => {
    const copy = structuredClone(row);
    copy.responses_create_params.input.at(-1)!.content += ` (task ${index})`;
    return JSON.stringify({ ...copy, agent_ref: { type: 'responses_api_agents', name: agent } });
  });
  writeFileSync(join(dir, 'in.jsonl'), `${lines.join('\n')}\n`);
  return { dir, input: join(dir, 'in.jsonl'), output: join(dir, 'out.jsonl'), failures: join(dir, 'out_failures.jsonl') };
}

export interface Collector {
  child: ChildProcess;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

/** `ngym collect` against the stack's head server. */
export function startCollect(gym: GymProcess, work: { input: string; output: string }, extra: string[] = []): Collector {
  const child = spawn(
    process.execPath,
    [
      join(PACKAGE_ROOT, 'bin', 'ngym.js'),
      'collect',
      `+head_server={host: 127.0.0.1, port: ${gym.headPort}}`,
      `+input_jsonl_fpath=${work.input}`,
      `+output_jsonl_fpath=${work.output}`,
      '+retry_delay_seconds=0.05',
      ...extra,
    ],
    // The IPC channel ends the collector with this process, should a test time out (src/cli/end-with-parent.ts).
    { cwd: PACKAGE_ROOT, env: { ...process.env, NGYM_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return {
    child,
    output: () => stdout + stderr,
    exited: new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }))),
  };
}

/** Polls until `condition` holds (a file grows, a message appears); fails after `timeoutMs`, with `detail()` if given. */
export async function until(what: string, condition: () => boolean, timeoutMs = 30_000, detail?: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${detail === undefined ? '' : `\n${detail()}`}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The whole rows of a JSONL file; a last line still being written (no newline yet) is not a row yet. */
export function jsonlRows(path: string): Record<string, unknown>[] {
  if (!existsSync(path)) return [];
  const text = readFileSync(path, 'utf8');
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Every (task, rollout) exactly once in the output, and every row a real verified result. */
export function exactlyOnce(path: string, tasks: number, repeats = 1): { rows: number; duplicates: number; missing: number; zeros: number } {
  const rows = jsonlRows(path);
  const keys = rows.map((row) => `${row._ng_task_index}/${row._ng_rollout_index}`);
  const unique = new Set(keys);
  return { rows: rows.length, duplicates: keys.length - unique.size, missing: tasks * repeats - unique.size, zeros: rows.filter((row) => row.reward !== 1).length };
}
