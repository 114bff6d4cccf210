/**
 * Server replicas end to end, all real processes: `ngym run` with the stateful counter environment at
 * `replicas: 2` (agent and model server single), and a second `ngym run` holding one more replica that joins the
 * first's head server (`+head_server.url`). Where the machine allows (root, `ip netns`), the second run is
 * another host: a network namespace with a veth pair on private addresses, made here and removed in afterAll;
 * otherwise (or with NGYM_REPLICA_TEST_LOOPBACK=1) it is a process on loopback. Every test name and a console line
 * say which.
 *
 * The counter's state lives in the replica that seeded the session, and verify reads it: a call of a session
 * sent to another replica makes its reward 0, so "every row has reward 1" is the affinity check of a collection.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar } from '../src/client/cookies.ts';
import { ServerClient } from '../src/client/server-client.ts';
import type { ReplicaInfo } from '../src/protocol/replicas.ts';
import { assistantMessage, functionCall, modelResponse } from '../src/server/scripted-model.ts';
import { PACKAGE_ROOT } from '../src/util/package-root.ts';
import { jsonlRows, startCollect, until } from './fault-stack.ts';

const TOKEN = 'replica-test-token';
const SERVER = 'stateful_counter';
const AGENT = 'stateful_counter_simple_agent';
const TIMEOUT_MS = 240_000;
/** Rollouts of the fault test's collection: enough that the kill lands mid-run. */
const TASKS = 120;

/** A second host as a network namespace, when this machine lets the test make one. */
interface Namespace {
  name: string;
  hostAddress: string;
  peerAddress: string;
}

function makeNamespace(): Namespace | undefined {
  // NGYM_REPLICA_TEST_LOOPBACK=1 runs the loopback fallback on a machine that could make namespaces.
  if (process.getuid?.() !== 0 || process.env.NGYM_REPLICA_TEST_LOOPBACK === '1') return undefined;
  const suffix = process.pid % 10_000;
  const octet = 16 + (process.pid % 200);
  const ns: Namespace = { name: `ngymrep${suffix}`, hostAddress: `10.231.${octet}.1`, peerAddress: `10.231.${octet}.2` };
  const hostLink = `ngrh${suffix}`;
  const peerLink = `ngrp${suffix}`;
  try {
    execFileSync('ip', ['netns', 'add', ns.name], { stdio: 'pipe' });
  } catch {
    return undefined;
  }
  try {
    const ip = (...args: string[]) => execFileSync('ip', args, { stdio: 'pipe' });
    ip('link', 'add', hostLink, 'type', 'veth', 'peer', 'name', peerLink);
    ip('link', 'set', peerLink, 'netns', ns.name);
    ip('addr', 'add', `${ns.hostAddress}/30`, 'dev', hostLink);
    ip('link', 'set', hostLink, 'up');
    ip('netns', 'exec', ns.name, 'ip', 'addr', 'add', `${ns.peerAddress}/30`, 'dev', peerLink);
    ip('netns', 'exec', ns.name, 'ip', 'link', 'set', peerLink, 'up');
    ip('netns', 'exec', ns.name, 'ip', 'link', 'set', 'lo', 'up');
    return ns;
  } catch (error) {
    removeNamespace(ns);
    console.log(`network namespace setup failed (${(error as Error).message}); using loopback processes`);
    return undefined;
  }
}

function removeNamespace(ns: Namespace): void {
  // Deleting the namespace deletes its end of the veth pair, and with it the host's end.
  execFileSync('ip', ['netns', 'del', ns.name], { stdio: 'pipe' });
}

const namespace = makeNamespace();
const MODE = namespace === undefined ? 'processes on loopback' : `a network namespace (${namespace?.name}) for the second host`;
console.log(`server replica tests: the second ngym run host is ${MODE}`);

interface CounterModel {
  url: string;
  /** From now on, a rollout's first model call (made once its session is seeded on a replica) waits for `release`. */
  hold(): void;
  /** First calls waiting. */
  parked(): number;
  release(): void;
  close(): Promise<void>;
}

/** The model endpoint: add the task's two numbers, read the counter, then answer; every call after `latencyMs`. */
async function startCounterModel(latencyMs: number): Promise<CounterModel> {
  let holding = false;
  const parked: (() => void)[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const input = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { input: { type?: string; content?: unknown }[] }).input;
      const user = input.find((item) => typeof item.content === 'string' && /add \d+ then add \d+/.test(item.content))?.content as string;
      const [first, second] = [...user.matchAll(/add (\d+)/g)].map((match) => Number(match[1]));
      const step = input.filter((item) => item.type === 'function_call_output').length;
      const output = [functionCall('increment_counter', { count: first }), functionCall('increment_counter', { count: second }), functionCall('get_counter_value', {})];
      const body = JSON.stringify(modelResponse([output[step] ?? assistantMessage('Done.')]));
      const answer = () => setTimeout(() => response.writeHead(200, { 'content-type': 'application/json' }).end(body), latencyMs);
      if (holding && step === 0) parked.push(answer);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    hold: () => {
      holding = true;
    },
    parked: () => parked.length,
    release: () => {
      holding = false;
      for (const answer of parked.splice(0)) answer();
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

interface Run {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

/** `ngym run <args>` (inside the namespace when `ns` is given); resolves once it printed `servers ready`. */
async function startRun(args: string[], ns?: Namespace): Promise<Run> {
  const command = [join(PACKAGE_ROOT, 'bin', 'ngym.js'), 'run', ...args, `+auth_token=${TOKEN}`];
  const child =
    ns === undefined
      ? spawn(process.execPath, command, { cwd: PACKAGE_ROOT, env: { ...process.env, NGYM_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn('ip', ['netns', 'exec', ns.name, process.execPath, ...command], { cwd: PACKAGE_ROOT, env: { ...process.env, NGYM_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] });
  runs.push(child);
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  await until('ngym run is ready', () => output.includes('servers ready') || child.exitCode !== null || child.signalCode !== null, 150_000);
  expect(output, output).toContain('servers ready');
  return { child, output: () => output, exited };
}

const runs: ChildProcess[] = [];
let model: CounterModel | undefined;

afterEach(async () => {
  for (const child of runs.splice(0).reverse()) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const closed = new Promise((resolve) => child.once('close', resolve));
    child.kill('SIGTERM');
    await closed;
  }
  await model?.close();
  model = undefined;
});

afterAll(() => {
  if (namespace !== undefined) removeNamespace(namespace);
});

beforeAll(() => {
  expect(MODE).toBeTruthy();
});

interface Stack {
  headUrl: string;
  headPort: number;
  head: Run;
  second: Run;
}

/** The head run (two local replicas, the agent, the model server) and the second run (one more replica). */
async function startReplicatedStack(latencyMs: number): Promise<Stack> {
  model = await startCounterModel(latencyMs);
  const headHost = namespace?.hostAddress ?? '127.0.0.1';
  const head = await startRun([
    '+config_paths=[resources_servers/example_stateful_counter/configs/stateful_counter.yaml,responses_api_models/openai_model/configs/openai_model.yaml]',
    `+policy_base_url=${model.url}`,
    '+policy_api_key=test-key',
    '+policy_model_name=test-model',
    `+${SERVER}.resources_servers.example_session_state_mgmt.replicas=2`,
    `++head_server={host: ${headHost}, port: 0}`,
  ]);
  const headPort = Number(/Head server: http:\/\/[^\s]+:(\d+)/.exec(head.output())?.[1]);
  const headUrl = `http://${headHost}:${headPort}`;
  // The second host runs only the counter environment, under the same instance name.
  const dir = mkdtempSync(join(tmpdir(), 'ngym-replicas-'));
  const config = join(dir, 'counter-only.yaml');
  writeFileSync(config, `${SERVER}:\n  resources_servers:\n    example_session_state_mgmt:\n      entrypoint: app.ts\n      domain: agent\n`);
  const second = await startRun([`+config_paths=[${config}]`, `+head_server.url=${headUrl}`, `+default_host=${namespace?.peerAddress ?? '127.0.0.1'}`], namespace);
  return { headUrl, headPort, head, second };
}

async function replicasOf(headUrl: string): Promise<ReplicaInfo[]> {
  const response = await fetch(`${headUrl}/server_replicas`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(response.status).toBe(200);
  return ((await response.json()) as Record<string, ReplicaInfo[]>)[SERVER] ?? [];
}

function counterTasks(count: number): { dir: string; input: string; output: string; failures: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ngym-replicas-'));
  const tools = [
    { type: 'function', name: 'increment_counter', parameters: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] } },
    { type: 'function', name: 'get_counter_value', parameters: { type: 'object', properties: {} } },
  ];
  const lines = Array.from({ length: count }, (_, index) =>
    JSON.stringify({
      responses_create_params: { input: [{ role: 'user', content: `add ${index % 7} then add ${index} then get the count` }], tools },
      initial_count: index,
      expected_count: index + (index % 7) + index,
      agent_ref: { type: 'responses_api_agents', name: AGENT },
    }),
  );
  writeFileSync(join(dir, 'in.jsonl'), `${lines.join('\n')}\n`);
  return { dir, input: join(dir, 'in.jsonl'), output: join(dir, 'out.jsonl'), failures: join(dir, 'out_failures.jsonl') };
}

function collectArgs(stack: Stack, extra: string[]): string[] {
  // startCollect names a loopback head; the namespace run's head listens on the veth address.
  return [`++head_server={host: ${new URL(stack.headUrl).hostname}, port: ${stack.headPort}}`, `+auth_token=${TOKEN}`, ...extra];
}

describe(`server replicas (second host: ${MODE})`, () => {
  it(`the head lists every replica; new sessions spread over them, each call of a session goes to the replica that seeded it [${MODE}]`, async () => {
    const stack = await startReplicatedStack(5);
    const listed = await replicasOf(stack.headUrl);
    expect(listed.map((replica) => [replica.origin, replica.up])).toEqual([
      ['local', true],
      ['local', true],
      ['registered', true],
    ]);
    if (namespace !== undefined) expect(new URL((listed[2] as ReplicaInfo).url).hostname).toBe(namespace.peerAddress);
    // /server_instances keeps upstream's shape: one entry per name, the first replica's address.
    const instances = (await (await fetch(`${stack.headUrl}/server_instances`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { name: string; url: string }[];
    expect(instances.filter((instance) => instance.name === SERVER).map((instance) => instance.url)).toEqual([(listed[0] as ReplicaInfo).url]);

    const client = await ServerClient.fromHeadServer({ host: new URL(stack.headUrl).hostname, port: stack.headPort }, undefined, TOKEN);
    const sessions = await Promise.all(
      Array.from({ length: 30 }, async (_, index) => {
        const cookies = new CookieJar();
        const origins: string[] = [];
        const call = async (path: string, body: unknown) => {
          const response = await client.post(SERVER, path, body, { cookies });
          expect(response.status, response.text).toBe(200);
          cookies.merge(response.cookies);
          origins.push(new URL(response.url).origin);
          return response.json<Record<string, unknown>>();
        };
        await call('/seed_session', { initial_count: index });
        await call('/increment_counter', { count: 3 });
        const read = await call('/get_counter_value', {});
        const verified = await call('/verify', { responses_create_params: { input: [] }, response: modelResponse([]), expected_count: index + 3 });
        return { origins, count: read.count, reward: verified.reward, expected: index + 3 };
      }),
    );
    for (const session of sessions) {
      expect(new Set(session.origins).size, session.origins.join(' ')).toBe(1);
      expect(session.count).toBe(session.expected);
      expect(session.reward).toBe(1);
    }
    const perReplica = new Map(listed.map((replica) => [new URL(replica.url).origin, 0]));
    for (const session of sessions) perReplica.set(session.origins[0] as string, (perReplica.get(session.origins[0] as string) ?? 0) + 1);
    expect([...perReplica.keys()]).toHaveLength(3);
    for (const [origin, count] of perReplica) expect(count, `sessions on ${origin}`).toBeGreaterThanOrEqual(5);

    // Through the agent: a whole collection, every row verified on the replica its session lives on.
    const work = counterTasks(30);
    const result = await startCollect({ headPort: stack.headPort } as never, work, collectArgs(stack, ['+num_samples_in_parallel=12'])).exited;
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const rows = jsonlRows(work.output);
    expect(rows).toHaveLength(30);
    expect(rows.filter((row) => row.reward !== 1)).toEqual([]);
  }, TIMEOUT_MS);

  it(`a replica SIGKILLed mid-collection: its in-flight rollouts are failures, never rows; the rest completes on the others [${MODE}]`, async () => {
    const stack = await startReplicatedStack(100);
    const listed = await replicasOf(stack.headUrl);
    expect(listed).toHaveLength(3);
    const victim = listed[1] as ReplicaInfo;
    const work = counterTasks(TASKS);
    const collect = startCollect({ headPort: stack.headPort } as never, work, collectArgs(stack, ['+num_samples_in_parallel=12', '+max_retries=0']));
    await until('rows in hand', () => jsonlRows(work.output).length >= 6, 120_000);
    // Every rollout in flight parks at its first model call, its session already seeded: with all 12 parked, new
    // sessions having gone to the replicas in turn, the victim holds some of them when it dies (not by chance).
    const counterModel = model as CounterModel;
    counterModel.hold();
    await until('the 12 rollouts in flight parked at their first model call', () => counterModel.parked() === 12, 120_000, () => `${counterModel.parked()} parked`);
    const before = jsonlRows(work.output).map((row) => `${row._ng_task_index}/${row._ng_rollout_index}`);
    process.kill(victim.pid as number, 'SIGKILL');
    counterModel.release();
    // Killed while the collection runs (so rollouts were in flight on it), not after.
    expect(collect.child.exitCode).toBeNull();
    expect(before.length).toBeLessThan(TASKS / 2);
    const result = await collect.exited;
    const rows = jsonlRows(work.output);
    const failures = jsonlRows(work.failures);
    // The head's run goes on without the replica, and lists it as down.
    expect(stack.head.child.exitCode).toBeNull();
    expect(stack.head.output()).toMatch(/Replica 2 of 'stateful_counter' \(pid \d+, [^)]+\) exited unexpectedly \(signal SIGKILL\)[^:]*: out of rotation; 1 of 2 replicas started here remain/);
    expect((await replicasOf(stack.headUrl)).find((replica) => replica.url === victim.url)?.up).toBe(false);
    const facts = `killed with ${before.length} rows written; the collector exited ${result.code} with ${rows.length} rows and ${failures.length} failures of ${TASKS}`;
    expect(failures.length, `${facts}\n${result.stderr.slice(-2000)}\n${stack.head.output().slice(-2000)}`).toBeGreaterThanOrEqual(1);
    expect(result.code).toBe(1);
    expect(rows.filter((row) => row.reward !== 1)).toEqual([]);
    expect(rows.length + failures.length).toBe(TASKS);
    expect(failures.some((failure) => /holds this session|Could not reach/.test(JSON.stringify(failure)))).toBe(true);
    const after = new Set(rows.map((row) => `${row._ng_task_index}/${row._ng_rollout_index}`));
    expect(before.filter((key) => !after.has(key))).toEqual([]);

    // Resumed, the failed rollouts run again on the replicas that are up: everything exactly once.
    const resumed = await startCollect({ headPort: stack.headPort } as never, work, collectArgs(stack, ['+num_samples_in_parallel=12', '+resume=true'])).exited;
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    const all = jsonlRows(work.output);
    expect(new Set(all.map((row) => `${row._ng_task_index}/${row._ng_rollout_index}`)).size).toBe(TASKS);
    expect(all).toHaveLength(TASKS);
    expect(all.filter((row) => row.reward !== 1)).toEqual([]);
  }, TIMEOUT_MS);
});
