/**
 * `ngym run`: the head server in this process and every configured server as its own child process.
 *
 * Order of work: validate every server's config (nothing starts if one is wrong), bind the head server,
 * bind each TypeScript server's port here and pass the socket to its child (race-free), start the
 * children with `NEMO_GYM_CONFIG_DICT` / `NEMO_GYM_CONFIG_PATH`, and wait until each is ready. A child
 * that dies is reported with its output and its memory at the last sample, as killed by the kernel's OOM killer
 * when the kernel counted an OOM kill as it died (server-memory.ts), as out of JavaScript heap when V8 said so on
 * its stderr (heap-exhaustion.ts); until the gym is stopped, its ports answer callers with why (tombstone.ts).
 * Stopping sends SIGTERM, then SIGKILL after a grace period.
 *
 * No server outlives this process: a TypeScript server ends when its IPC channel closes (child-main.ts), a Python
 * one runs through python-child.py, which ends its process group when its stdin, whose only writer is this
 * process, reads EOF. A Python server leads its own process group, so stopping it stops what it started.
 *
 * A server entry with `replicas: N` starts N children, each on its own ports; the config names the first, and
 * clients learn the others from the head server (src/client/replica-router.ts). A replica that dies while
 * others of its name live is taken out of rotation instead of stopping the gym. With `head_server.url` this run
 * starts no head server and its servers join that head's as replicas (src/gym/replica-join.ts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import type { Server as NetServer } from 'node:net';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sharedHttpClient } from '../client/http-client.ts';
import { CONFIG_DICT_ENV, CONFIG_PATH_ENV, type GlobalConfig, formatHost } from '../config/global-config.ts';
import { withRaisedFileLimit } from '../util/file-limits.ts';
import { configuredBudgetBytes, MEMORY_BUDGET_KEY } from '../util/memory-budget.ts';
import { siblingModule, SOURCE_NODE_ARGS } from '../util/package-root.ts';
import { configPathOf, type ServerInstance } from '../config/server-instances.ts';
import type { ConfigDict } from '../config/tree.ts';
import { dumpYaml } from '../config/yaml-file.ts';
import { ConfigError, NgymError, ServerStartError } from '../errors.ts';
import { authorizationHeader, AUTH_TOKEN_KEY, authTokenOf } from '../client/auth-token.ts';
import { type ChildMessage, HEAD_URL_ENV, LISTEN_HANDLE_ENV, SEARCH_ROOTS_ENV, SHUTDOWN_GRACE_MS } from './child-protocol.ts';
import { createHeadServerApp, type ServerInstanceInfo } from './head-server.ts';
import { checkReachable, joinedHeadUrl, joinHead, type Membership } from './replica-join.ts';
import type { ReplicaInfo } from '../protocol/replicas.ts';
import { ReplicaRegistry } from './replica-registry.ts';
import { checkHarnessCli, loadServerDefinition, locateServer, type ServerLocation, validatedServerConfig } from './hosting.ts';
import { baseInterpreterOf, preparePythonEnvironments, type PythonEnvironmentReport, uvOf } from './python-environment.ts';
import { type BoundServer, bindServer } from '../server/serve.ts';
import { describeEnd, type MemorySample, OomKillWatch, type ProcessEnd, sampleMemory } from './server-memory.ts';
import { HeapExhaustionWatch, heapLimitOf, nodeFlagsOf } from './heap-exhaustion.ts';
import { type Death, serveTombstone, type Tombstone } from './tombstone.ts';
import { OutputLines } from './output-lines.ts';
import { bindPort, probeFreePort } from './ports.ts';
import { TELEMETRY_KEY, telemetrySettings } from '../telemetry/settings.ts';
import { sandboxReferenceProblems } from '../sandbox/providers/registry.ts';
import { currentRunId, RUN_ID_ENV } from '../sandbox/providers/run-identity.ts';
import { prepareUpstreamSandboxes, removeUpstreamRunBoxes, upstreamSandboxSetup } from '../sandbox/providers/upstream-python.ts';

const CHILD_MAIN = fileURLToPath(siblingModule(import.meta.url, 'child-main'));
const PYTHON_CHILD = fileURLToPath(new URL('./python-child.py', import.meta.url));
/** How often each server's resident memory is read, for the report of its death. */
const MEMORY_SAMPLE_INTERVAL_MS = 1_000;
const TSX_LOADER = import.meta.resolve('tsx');
const OUTPUT_TAIL_LINES = 60;
const NODE_ARGS_ENV = 'NGYM_NODE_ARGS';
/** How long a death report waits for the rest of the dead server's output (V8's last words come as it aborts). */
const OUTPUT_DRAIN_MS = 1_000;
const HEAP_REMEDY = 'give it more heap (NODE_OPTIONS=--max-old-space-size=<MiB> in the environment of ngym run), or a memory_budget under the resident memory it died at, so that its requests wait for memory instead';

export interface LaunchOptions {
  globalConfig: GlobalConfig;
  /** Receives every line children print, prefixed with `(<instance>) `; default stderr. */
  output?: (line: string) => void;
}

/** Once all servers are ready: `GET /` each every `intervalMs`; `misses` unanswered checks in a row are reported. */
export interface HealthCheckOptions {
  intervalMs: number;
  timeoutMs: number;
  misses: number;
  /** Called when a server stops answering (`answering: false`) and when it answers again. */
  report: (message: string, answering: boolean) => void;
}

export const DEFAULT_HEALTH_CHECK = { interval_seconds: 10, timeout_seconds: 10, misses: 3 };

const SPINUP_TIMEOUT_KEY = 'server_spinup_timeout_seconds';
/** Upstream 0.7.0's default: long enough for a Python server that builds its venv or starts Ray first. */
const DEFAULT_SPINUP_TIMEOUT_SECONDS = 600;

/**
 * `server_spinup_timeout_seconds` in milliseconds, as upstream 0.7.0 reads it: unset or null is 600 s, 0 or less
 * waits without a limit (Infinity), a numeric string (from `${oc.env:...}`) counts as its number.
 */
export function spinupTimeoutMs(value: unknown): number {
  if (value === undefined || value === null) return DEFAULT_SPINUP_TIMEOUT_SECONDS * 1000;
  const seconds = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
  if (!Number.isFinite(seconds)) {
    throw new ConfigError('NGYM_CONFIG_INVALID', `${SPINUP_TIMEOUT_KEY} must be a number of seconds, got ${JSON.stringify(value)}. Set it to 0 to wait for servers without a limit.`, { key: SPINUP_TIMEOUT_KEY });
  }
  return seconds <= 0 ? Number.POSITIVE_INFINITY : seconds * 1000;
}

interface Child {
  instance: ServerInstance;
  /** 0 for the first replica (the one the config and `/server_instances` name). */
  replica: number;
  location: ServerLocation;
  process: ChildProcess;
  info: ServerInstanceInfo;
  /** Its cleartext HTTP/2 address (TypeScript servers). */
  h2cUrl: string | null;
  tail: string[];
  /** Reads its stderr for V8 running out of heap (TypeScript servers). */
  heap: HeapExhaustionWatch | undefined;
  /** Settles when its stdout and stderr have closed. */
  outputClosed: Promise<unknown>;
  ready: boolean;
  exited: boolean;
  /** Its resident memory at the last sample. */
  memory: MemorySample | undefined;
}


/** Validates everything before any process starts; reports every broken server at once. */
export async function locateAndValidate(globalConfig: GlobalConfig, output: (line: string) => void = () => {}): Promise<Map<string, ServerLocation>> {
  const locations = new Map<string, ServerLocation>();
  const problems: string[] = [];
  for (const instance of globalConfig.servers) {
    try {
      let location = locateServer(globalConfig, instance);
      if (location.language === 'typescript') {
        try {
          validatedServerConfig(globalConfig, instance, await loadServerDefinition(location.entrypoint));
        } catch (error) {
          if (location.upstream === undefined) throw error;
          output(`Server '${instance.name}': ngym's TypeScript ${instance.serverType}/${instance.impl} does not take this config, so upstream's app.py runs (${(error as Error).message.split('\n').slice(1, 3).join(' ').trim()})`);
          location = location.upstream;
        }
      }
      checkHarnessCli(instance, location);
      locations.set(instance.name, location);
    } catch (error) {
      problems.push(NgymError.isInstance(error) ? error.message : String(error));
    }
  }
  // A server's sandbox_provider: its block is there; a TypeScript server's provider is one ngym has, with good settings.
  problems.push(...sandboxReferenceProblems(globalConfig, (instance) => locations.get(instance.name)?.language === 'typescript'));
  if (problems.length > 0) throw new ConfigError('NGYM_CONFIG_INVALID', problems.join('\n'));
  return locations;
}

export class RunningGym {
  private readonly children: Child[] = [];
  private stopping: Promise<void> | undefined;
  private failureListeners: ((error: ServerStartError) => void)[] = [];
  private healthTimer: NodeJS.Timeout | undefined;
  private memoryTimer: NodeJS.Timeout | undefined;
  private readonly oomKills = new OomKillWatch();
  private readonly tombstones: Promise<Tombstone>[] = [];
  /** Set when a server's death stops the gym: the agents then stop before the servers they call. */
  private afterDeath = false;
  /** Set when this run joined another head server (`head_server.url`). */
  membership: Membership | undefined;
  /** Set when Python servers make boxes with upstream's docker provider: the run whose boxes are removed at stop. */
  upstreamBoxesRunId: string | undefined;
  readonly startedAt = Date.now();

  constructor(
    readonly globalConfig: GlobalConfig,
    /** This run's head server; undefined when it joined another's. */
    readonly head: BoundServer | undefined,
    private readonly output: (line: string) => void,
    private readonly joinedHeadUrl?: string,
  ) {}

  get headUrl(): string {
    return this.head?.url ?? (this.joinedHeadUrl as string);
  }

  /** One entry per server (its first replica), in upstream's shape. */
  get instances(): ServerInstanceInfo[] {
    return this.children.filter((child) => child.replica === 0).map((child) => child.info);
  }

  /** Every replica launched here, up or not. */
  get replicas(): ReplicaInfo[] {
    return this.children.map((child) => ({
      name: child.instance.name,
      server_type: child.instance.serverType,
      url: child.info.url,
      h2c_url: child.h2cUrl,
      pid: child.info.pid,
      origin: 'local',
      up: !child.exited,
    }));
  }

  /** Called once if a server dies while the gym runs (not while it is being stopped). */
  onServerFailure(listener: (error: ServerStartError) => void): void {
    this.failureListeners.push(listener);
  }

  addChild(child: Child): void {
    this.children.push(child);
  }

  async waitUntilAllReady(deadline: number): Promise<void> {
    await Promise.all(this.children.map((child) => waitUntilReady(this, child, deadline)));
  }

  childFailure(child: Child, reason: string): ServerStartError {
    const tail = child.tail.length > 0 ? `\nLast output of ${childLabel(child)}:\n${child.tail.join('\n')}` : '';
    return new ServerStartError(`Server '${childLabel(child)}' ${reason}.${tail}`);
  }

  async reportExit(child: Child, code: number | null, signal: NodeJS.Signals | null): Promise<void> {
    child.exited = true;
    // What a Python server started dies with it (its group; python-child.py leads it).
    if (child.location.language === 'python') signalChild(child, 'SIGKILL');
    if (this.stopping !== undefined) return;
    const siblings = this.children.filter((other) => other.instance === child.instance);
    const alive = siblings.filter((other) => !other.exited).length;
    // The last server of its name: its ports answer with the death from now on (tombstone.ts), before its cause is
    // read, so that no caller's retries give up on a refused port in between.
    let describe: ((death: Death) => void) | undefined;
    const tombstone =
      child.ready && alive === 0
        ? serveTombstone(
            { host: child.info.host, port: child.info.port, h2cPort: child.h2cUrl === null ? undefined : Number(new URL(child.h2cUrl).port) },
            new Promise<Death>((resolve) => (describe = resolve)),
          )
        : undefined;
    if (tombstone !== undefined) this.tombstones.push(tombstone);
    const end = await this.endOf(child, code, signal);
    const reason = describeEnd(end, 'unexpectedly');
    const deathCode = end.heapExhausted !== undefined ? 'NGYM_SERVER_HEAP_EXHAUSTED' : end.oomKilled ? 'NGYM_SERVER_OOM_KILLED' : 'NGYM_SERVER_DIED';
    describe?.({ code: deathCode, message: `Server '${childLabel(child)}' (pid ${child.info.pid}, ${child.info.url}) ${reason}.` });
    if (this.stopping !== undefined) return;
    if (alive > 0 && child.ready) {
      // Its sessions die with it (their rollouts fail and are retried by the collector); new ones go to the others.
      this.print(`Replica ${child.replica + 1} of '${child.instance.name}' (pid ${child.info.pid}, ${child.info.url}) ${reason}: out of rotation; ${alive} of ${siblings.length} replicas started here remain.`);
      return;
    }
    // The gym stops only once the dead server's ports answer: the rollouts in flight learn why from them.
    if (tombstone !== undefined && !(await tombstone).listening) this.print(`Server '${childLabel(child)}': its ports were taken by another process, so callers cannot be told why it died.`);
    this.afterDeath = true;
    const error = this.childFailure(child, reason);
    for (const listener of this.failureListeners) listener(error);
  }

  /**
   * How `child` ended: its exit status, whether the OOM killer or V8's heap limit ended it, its memory at the last
   * sample. Waits (a bounded time: what it started may hold its pipes) for the output it wrote as it died.
   */
  async endOf(child: Child, code: number | null, signal: NodeJS.Signals | null): Promise<ProcessEnd> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([child.outputClosed, new Promise((resolve) => (timer = setTimeout(resolve, OUTPUT_DRAIN_MS)))]);
    clearTimeout(timer);
    const heapExhausted = child.heap?.exhausted ? { limit: heapLimitOf(nodeFlagsOf(serverNodeArgs())), remedy: HEAP_REMEDY } : undefined;
    return this.oomKills.end(code, signal, child.memory, heapExhausted);
  }

  /** Reads every live server's resident memory, and the kernel's OOM kill count, every `intervalMs`. */
  startMemorySampling(intervalMs = MEMORY_SAMPLE_INTERVAL_MS): void {
    const sample = () => {
      this.oomKills.sample();
      for (const child of this.children) {
        if (!child.exited && child.process.pid !== undefined) child.memory = sampleMemory(child.process.pid) ?? child.memory;
      }
    };
    sample();
    this.memoryTimer = setInterval(sample, intervalMs);
    this.memoryTimer.unref();
  }

  print(line: string): void {
    this.output(line);
  }

  /**
   * Health checks while the gym runs: a server that is alive but stops answering (frozen by SIGSTOP, deadlocked,
   * swapping) does not exit, so only asking it shows it. Reports each change between answering and not.
   */
  startHealthChecks(options: HealthCheckOptions): void {
    const state = new Map<Child, { missed: number; lastAnswer: number; checking: boolean; reported: boolean }>();
    for (const child of this.children) state.set(child, { missed: 0, lastAnswer: Date.now(), checking: false, reported: false });
    this.healthTimer = setInterval(() => {
      for (const [child, health] of state) {
        if (child.exited || health.checking || this.stopping !== undefined) continue;
        health.checking = true;
        sharedHttpClient()
          .request(`${child.info.url}/`, { timeoutMs: options.timeoutMs, connectionRetries: 0 })
          .then(
            () => {
              if (health.reported) options.report(`Server '${child.instance.name}' answers its health check again.`, true);
              Object.assign(health, { missed: 0, lastAnswer: Date.now(), reported: false });
            },
            () => {
              health.missed++;
              if (health.missed < options.misses || health.reported || child.exited || this.stopping !== undefined) return;
              health.reported = true;
              const silent = Math.round((Date.now() - health.lastAnswer) / 1000);
              options.report(
                `Server '${child.instance.name}' (pid ${child.info.pid}, ${child.info.url}) has not answered its health check for ${silent} s (${health.missed} checks in a row): it may be frozen (SIGSTOP), deadlocked or overloaded. Rollouts that need it wait; the collector reports them as stalled.`,
                false,
              );
            },
          )
          .finally(() => (health.checking = false));
      }
    }, options.intervalMs);
    this.healthTimer.unref();
  }

  /**
   * SIGTERM to every child, SIGKILL to those still alive after the grace period; then the head server. After a
   * server's death, agents stop first: the rollouts they finish in their grace period still reach the models and
   * the dead server's tombstone, so they end with the death (or a result) instead of a refused connection.
   */
  stop(): Promise<void> {
    clearInterval(this.healthTimer);
    clearInterval(this.memoryTimer);
    this.stopping ??= (async () => {
      if (this.afterDeath) {
        const callers = this.children.filter((child) => CALLER_TYPES.has(child.instance.serverType));
        await stopChildren(callers);
        await stopChildren(this.children.filter((child) => !callers.includes(child)));
      } else {
        await stopChildren(this.children);
      }
      // What upstream's provider left (a server killed mid-rollout does not close its boxes); an engine gone has none.
      if (this.upstreamBoxesRunId !== undefined) await removeUpstreamRunBoxes(this.upstreamBoxesRunId).catch(() => 0);
      await Promise.all(this.tombstones.map(async (tombstone) => (await tombstone).close()));
      await this.membership?.stop();
      await this.head?.close(1_000);
    })();
    return this.stopping;
  }
}

/** Servers that call the others in a rollout. */
const CALLER_TYPES: ReadonlySet<string> = new Set(['responses_api_agents', 'environment_servers']);

/** SIGTERM to each child still running, SIGKILL to those still alive after the grace period; resolves once all have exited. */
function stopChildren(children: Child[]): Promise<unknown> {
  return Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exited || child.process.exitCode !== null || child.process.signalCode !== null) {
            resolve();
            return;
          }
          const timer = setTimeout(() => signalChild(child, 'SIGKILL'), SHUTDOWN_GRACE_MS + 1_000);
          child.process.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
          signalChild(child, 'SIGTERM');
        }),
    ),
  );
}

/** A Python server's signal goes to its process group (it leads one): what it started gets it too. */
function signalChild(child: Child, signal: NodeJS.Signals): void {
  const pid = child.process.pid;
  if (child.location.language === 'python' && pid !== undefined) {
    try {
      process.kill(-pid, signal);
      return;
    } catch {
      // The group is gone already.
    }
  }
  child.process.kill(signal);
}

/** `name`, or `name#2` for a second replica. */
function childLabel(child: Child): string {
  return child.replica === 0 ? child.instance.name : `${child.instance.name}#${child.replica + 1}`;
}

function captureOutput(gym: RunningGym, child: Child, stream: NodeJS.ReadableStream | null, heap?: HeapExhaustionWatch): void {
  if (stream === null) return;
  const output = new OutputLines();
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    heap?.write(chunk);
    for (const line of output.push(chunk)) {
      child.tail.push(line);
      if (child.tail.length > OUTPUT_TAIL_LINES) child.tail.shift();
      gym.print(`(${childLabel(child)}) ${line}`);
    }
  });
}

async function waitUntilReady(gym: RunningGym, child: Child, deadline: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      clearInterval(poller);
      clearTimeout(timer);
      void gym.endOf(child, code, signal).then((end) => reject(gym.childFailure(child, describeEnd(end, 'before it was ready'))));
    };
    const done = () => {
      child.ready = true;
      child.process.off('exit', onExit);
      clearInterval(poller);
      clearTimeout(timer);
      resolve();
    };
    child.process.once('exit', onExit);
    child.process.on('message', (message: unknown) => {
      if ((message as { type?: string } | null)?.type === 'ngym:ready') done();
    });
    // Servers that cannot report over IPC (Python) are ready when `GET /` answers anything, as upstream.
    const poller = setInterval(() => {
      if (child.location.language === 'typescript') return;
      sharedHttpClient()
        .request(`${child.info.url}/`, { timeoutMs: 2_000, connectionRetries: 0 })
        .then(done, () => {});
    }, 250);
    const limitMs = deadline - Date.now();
    // No timer without a limit (setTimeout would fire at once for Infinity).
    const timer = Number.isFinite(limitMs)
      ? setTimeout(() => {
          child.process.off('exit', onExit);
          clearInterval(poller);
          reject(gym.childFailure(child, `did not become ready within ${Math.round(Math.max(0, limitMs) / 100) / 10} s (raise the limit with ++${SPINUP_TIMEOUT_KEY}=<seconds>, or 0 to wait without one)`));
        }, Math.max(0, limitMs))
      : undefined;
  });
}

export async function launch(options: LaunchOptions): Promise<RunningGym> {
  const { globalConfig } = options;
  const output = options.output ?? ((line: string) => process.stderr.write(`${line}\n`));
  const startupTimeoutMs = spinupTimeoutMs(globalConfig.dict[SPINUP_TIMEOUT_KEY]);
  const locations = await locateAndValidate(globalConfig, output);
  await preparePythonServers(globalConfig, locations, output);
  // Python servers that use nemo_gym.sandbox: their blocks, the engine, this run's labels on their boxes.
  const runId = currentRunId();
  const sandboxes = upstreamSandboxSetup(globalConfig, (instance) => locations.get(instance.name)?.language === 'python', runId);
  for (const line of await prepareUpstreamSandboxes(sandboxes)) output(line);

  const headConfig = globalConfig.dict.head_server as ConfigDict;
  const joined = joinedHeadUrl(headConfig.url);
  const token = authTokenOf(globalConfig.dict[AUTH_TOKEN_KEY]);
  const authHeaders = token === undefined ? undefined : authorizationHeader(token);
  let head: BoundServer | undefined;
  if (joined === undefined) {
    head = await bindServer({ host: String(headConfig.host), port: Number(headConfig.port) });
    headConfig.port = head.port;
  } else {
    await checkJoinable(joined, authHeaders);
    // Servers of this run that read `head_server` find the head they joined.
    headConfig.host = new URL(joined).hostname;
    headConfig.port = Number(new URL(joined).port);
  }
  const gym = new RunningGym(globalConfig, head, output, joined);
  if (sandboxes.usesDocker) gym.upstreamBoxesRunId = runId;
  gym.startMemorySampling();
  const registry = new ReplicaRegistry(
    () => gym.replicas,
    () => globalConfig.servers.map((instance) => ({ name: instance.name, serverType: instance.serverType })),
  );
  head?.attach(createHeadServerApp(globalConfig, () => gym.instances, registry));

  try {
    // Explicit ports first, so an ephemeral port handed out below can never be one a server asked for.
    const disallowed = new Set<number>(head === undefined ? [] : [head.port]);
    const handles = new Map<string, { http: NetServer; h2c: NetServer }>();
    const ports = new Map<string, number[]>();
    const counts = replicaCounts(globalConfig);
    const ordered = [...globalConfig.servers].sort((a, b) => Number(!a.config.port) - Number(!b.config.port));
    for (const instance of ordered) {
      const host = String(instance.config.host);
      if (joined !== undefined) checkReachable(joined, instance.name, host);
      const location = locations.get(instance.name) as ServerLocation;
      const own: number[] = [];
      for (let replica = 0; replica < (counts.get(instance.name) ?? 1); replica++) {
        // The configured ports are the first replica's; the others take free ones.
        const first = replica === 0;
        let port: number;
        if (location.language === 'typescript') {
          const http = await bindPort(host, first ? Number(instance.config.port) || 0 : 0);
          const h2c = await bindPort(host, first ? Number(instance.config.h2c_port) || 0 : 0);
          handles.set(`${instance.name}#${replica}`, { http, h2c });
          port = (http.address() as { port: number }).port;
          const h2cPort = (h2c.address() as { port: number }).port;
          // ngym clients send what their HTTP/1.1 pool cannot take to this port, over HTTP/2.
          if (first) instance.config.h2c_port = h2cPort;
          disallowed.add(h2cPort);
        } else {
          port = first && instance.config.port ? Number(instance.config.port) : await probeFreePort(host, disallowed);
        }
        disallowed.add(port);
        own.push(port);
      }
      instance.config.port = own[0] as number;
      ports.set(instance.name, own);
    }
    globalConfig.dict.disallowed_ports = [...(head === undefined ? [] : [head.port]), ...[...ports.values()].flat()];

    const yaml = dumpYaml(globalConfig.dict);
    const pythonYaml = (instance: ServerInstance, port: number): string => {
      // A Python server binds the port its config names: each replica gets a config naming its own.
      const first = instance.config.port as number;
      instance.config.port = port;
      try {
        return dumpYaml({ ...upstreamChildConfig(globalConfig.dict), ...sandboxes.blocks });
      } finally {
        instance.config.port = first;
      }
    };
    const headUrl = gym.headUrl;
    for (const instance of globalConfig.servers) {
      const location = locations.get(instance.name) as ServerLocation;
      const host = String(instance.config.host);
      for (const [replica, port] of (ports.get(instance.name) as number[]).entries()) {
        const handle = handles.get(`${instance.name}#${replica}`);
        const python = location.language === 'python';
        const child = spawnChild(instance, location, python ? pythonYaml(instance, port) : yaml, globalConfig.searchRoots, handle !== undefined, headUrl, python ? { ...pythonChildEnv(globalConfig, instance), ...sandboxes.env } : {});
        const address = `http://${formatHost(host === '0.0.0.0' ? '127.0.0.1' : host)}`;
        const record: Child = {
          instance,
          replica,
          location,
          process: child,
          tail: [],
          heap: location.language === 'typescript' ? new HeapExhaustionWatch() : undefined,
          outputClosed: Promise.all([child.stdout, child.stderr].map((stream) => (stream === null ? undefined : once(stream, 'close').catch(() => undefined)))),
          ready: false,
          exited: false,
          memory: undefined,
          h2cUrl: handle === undefined ? null : `${address}:${(handle.h2c.address() as { port: number }).port}`,
          info: {
            name: instance.name,
            server_type: instance.serverType,
            impl: instance.impl,
            process_name: `${instance.name}[${instance.serverType}/${instance.impl}]`,
            dir_path: location.directory,
            // What runs: ngym's app.ts where it stands in for an upstream app.py.
            entrypoint: basename(location.entrypoint),
            host,
            port,
            url: `${address}:${port}`,
            pid: child.pid ?? null,
            start_time: Date.now() / 1000,
            config_path: configPathOf(instance).join('.'),
          },
        };
        gym.addChild(record);
        captureOutput(gym, record, child.stdout);
        captureOutput(gym, record, child.stderr, record.heap);
        child.on('exit', (code, signal) => void gym.reportExit(record, code, signal));
        if (handle !== undefined) {
          // The child owns the sockets from here; closing our copies keeps this process from accepting on them.
          const closeOurs = (server: NetServer) => () => {
            if (server.listening) server.close();
          };
          child.send({ type: 'ngym:listen', protocol: 'http' } satisfies ChildMessage, handle.http, closeOurs(handle.http));
          child.send({ type: 'ngym:listen', protocol: 'h2c' } satisfies ChildMessage, handle.h2c, closeOurs(handle.h2c));
          // A child that dies before it took them (a slow start past the spin-up limit) would leave them keeping ngym run alive.
          child.once('exit', () => [handle.http, handle.h2c].forEach((server) => closeOurs(server)()));
        }
      }
    }

    await gym.waitUntilAllReady(Date.now() + startupTimeoutMs);
    if (joined !== undefined) {
      gym.membership = await joinHead(joined, authHeaders, () => gym.replicas.filter((replica) => replica.up), output).catch((error: unknown) => {
        throw new ServerStartError((error as Error).message);
      });
    }
    return gym;
  } catch (error) {
    await gym.stop();
    throw error;
  }
}

/** Every Python server's environment, made before anything starts (a build that fails starts nothing). */
export async function preparePythonServers(globalConfig: GlobalConfig, locations: Map<string, ServerLocation>, output: (line: string) => void): Promise<PythonEnvironmentReport[]> {
  const byDirectory = new Map<string, { names: string[]; locations: ServerLocation[] }>();
  for (const [name, location] of locations) {
    if (location.language !== 'python') continue;
    const entry = byDirectory.get(location.directory) ?? { names: [], locations: [] };
    entry.names.push(name);
    entry.locations.push(location);
    byDirectory.set(location.directory, entry);
  }
  const reports = await preparePythonEnvironments(globalConfig, [...byDirectory].map(([directory, { names }]) => ({ names, directory })), { output });
  for (const report of reports) {
    const uv = uvOf(baseInterpreterOf(globalConfig, report.directory));
    for (const location of byDirectory.get(report.directory)?.locations ?? []) Object.assign(location, { python: report.python, uv });
  }
  return reports;
}

/** `replicas` of every server entry (default 1). */
function replicaCounts(globalConfig: GlobalConfig): Map<string, number> {
  const counts = new Map<string, number>();
  for (const instance of globalConfig.servers) {
    const value = globalConfig.resolvedValue([...configPathOf(instance), 'replicas']);
    counts.set(instance.name, typeof value === 'number' ? value : 1);
  }
  return counts;
}

/** Before starting anything: the head server to join answers, and takes replicas (upstream's does not). */
async function checkJoinable(headUrl: string, headers: Record<string, string> | undefined): Promise<void> {
  let status: number;
  try {
    status = (await sharedHttpClient().request(`${headUrl}/server_replicas`, { headers, timeoutMs: 10_000, connectionRetries: 2 })).status;
  } catch (error) {
    throw new ServerStartError(`Could not reach the head server at ${headUrl} (head_server.url): ${(error as Error).message}`);
  }
  if (status === 401) throw new ServerStartError(`The head server at ${headUrl} refused this run's auth_token (HTTP 401): give both runs the same +auth_token=....`);
  if (status !== 200) throw new ServerStartError(`The head server at ${headUrl} does not take replicas (GET /server_replicas answered HTTP ${status}); it must be an ngym head server.`);
}

/**
 * The global config as upstream NeMo Gym's parent process hands it to its Python servers: they read keys the
 * parent fills in (`dry_run`, the artifact folders) without defaults of their own.
 */
function upstreamChildConfig(dict: ConfigDict): ConfigDict {
  return {
    dry_run: false,
    results_dir: resolve('results'),
    cache_dir: resolve('cache'),
    ...dict,
  };
}

/**
 * A Python server's `memory_budget` in bytes, when its entry or the top level sets one (python-child.py admits its
 * requests by it); null otherwise: upstream's servers get no default budget, ngym's own do (src/server/admission.ts).
 */
function pythonMemoryBudget(globalConfig: GlobalConfig, instance: ServerInstance): number | null {
  const own = globalConfig.resolvedValue([...configPathOf(instance), MEMORY_BUDGET_KEY]);
  const topLevel = globalConfig.resolvedValue([MEMORY_BUDGET_KEY]);
  if (own === undefined && topLevel === undefined) return null;
  return configuredBudgetBytes(own, topLevel, `${instance.name}.${MEMORY_BUDGET_KEY}`);
}

/**
 * What python-child.py reads besides the server's config: its memory budget, whether it serves `GET /metrics`
 * (`telemetry.metrics_enabled`), and the auth_token that `/metrics` then needs, as an ngym server's does.
 */
function pythonChildEnv(globalConfig: GlobalConfig, instance: ServerInstance): Record<string, string> {
  const env: Record<string, string> = { NGYM_SERVER_METRICS: telemetrySettings(globalConfig.resolvedValue([TELEMETRY_KEY])).metrics ? '1' : '0' };
  const budget = pythonMemoryBudget(globalConfig, instance);
  if (budget !== null) env.NGYM_MEMORY_BUDGET_BYTES = String(Math.floor(budget));
  const token = authTokenOf(globalConfig.dict[AUTH_TOKEN_KEY]);
  if (token !== undefined) env.NGYM_AUTH_TOKEN = token;
  return env;
}

function spawnChild(
  instance: ServerInstance,
  location: ServerLocation,
  yaml: string,
  searchRoots: readonly string[],
  passHandle: boolean,
  headUrl: string,
  pythonEnv: Record<string, string> = {},
): ChildProcess {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    [CONFIG_DICT_ENV]: yaml,
    [CONFIG_PATH_ENV]: instance.name,
    [SEARCH_ROOTS_ENV]: JSON.stringify(searchRoots),
    [HEAD_URL_ENV]: headUrl,
    // The gym run the servers' sandbox boxes are labelled with, so a later run can tell they were left behind.
    [RUN_ID_ENV]: currentRunId(),
  };
  if (location.language === 'python') {
    env.PYTHONPATH = [location.directory, process.env.PYTHONPATH].filter(Boolean).join(':');
    const interpreter = location.python ?? 'python3';
    // As upstream's `source <venv>/bin/activate`: tools installed beside the interpreter (console scripts) are found,
    // and so is ngym's uv, which a server in an environment of its own does not have beside its interpreter, and
    // the pinned CLIs of harness-cli/, which upstream's harness agents would otherwise `npm install -g`.
    const onPath = [interpreter.includes('/') ? dirname(interpreter) : undefined, location.uv === undefined ? undefined : dirname(location.uv), location.cliBin];
    env.PATH = [...new Set([...onPath, process.env.PATH].filter((folder) => folder !== undefined && folder !== ''))].join(':');
    if (interpreter.includes('/')) env.VIRTUAL_ENV = dirname(dirname(interpreter));
    Object.assign(env, pythonEnv);
    const python = withRaisedFileLimit(interpreter, [PYTHON_CHILD, location.entrypoint]);
    // stdin: a pipe this process never writes to, whose EOF tells python-child.py that ngym run is gone.
    // detached: the server leads its own process group, which python-child.py and stop() signal as a whole.
    return spawn(python.command, python.args, {
      cwd: location.directory,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
  }
  if (passHandle) env[LISTEN_HANDLE_ENV] = '1';
  const { command, args } = withRaisedFileLimit(process.execPath, [...serverNodeArgs(), ...SOURCE_NODE_ARGS, '--import', TSX_LOADER, CHILD_MAIN]);
  return spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
}

/** Flags for every TypeScript server's Node (`--max-old-space-size=8192`, `--cpu-prof`), which NODE_OPTIONS may not carry. */
function serverNodeArgs(): string[] {
  return (process.env[NODE_ARGS_ENV] ?? '').split(/\s+/).filter(Boolean);
}
