/**
 * The `docker` sandbox provider: one long-lived container per box on a Docker-API engine (Docker, or Podman's
 * Docker-compatible service) found through DOCKER_HOST, driven through the Engine API over its socket.
 *
 * It keeps upstream 0.7.0's DockerProvider's behaviour and names, so the two adopt each other's boxes: containers
 * `nemo-gym-<hex>` labelled `nemo-gym.sandbox=1`, a keep-alive shell as the main process (the image's entrypoint
 * replaced), the readiness probe `printf docker-sandbox-ready`, bash when the image has it, `<shell> -c <command>`
 * for every exec, resource limits as `--cpus`/`--memory`/`--memory-swap`, declared ports published on
 * `publish_host`. Beyond upstream: every box is also labelled `ngym.sandbox=1` and `ngym.run=<run id>` (boxes of a
 * dead run are reaped at the next create), a timed-out command is killed in the box (upstream leaves it running),
 * an out-of-memory kill is reported as such (`error_type: oom`), and `max_sandboxes` bounds the boxes of the gym run
 * on the engine, whichever server made them (run-box-bound.ts).
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, posix } from 'node:path';
import { ConfigError } from '../../../errors.ts';
import { Semaphore } from '../../../util/semaphore.ts';
import { BoxSlots } from '../box-slots.ts';
import {
  boxPath,
  parseSandboxSpec,
  runtimeFailure,
  type SandboxDescriptor,
  type SandboxEndpoint,
  type SandboxExecOptions,
  type SandboxExecResult,
  type SandboxHandle,
  type SandboxProvider,
  SandboxProviderError,
  type SandboxSpec,
  type SandboxSpecInput,
  type SandboxStatus,
} from '../contract.ts';
import { type ImageMap, resolveImage } from '../../images/image-map.ts';
import { currentRunId, RUN_LABEL } from '../run-identity.ts';
import { applyExecArgs, applyRunArgs, type ContainerBody, type DockerProviderConfig, type ExecArgs, gpuRequest, parseDockerProviderConfig } from './docker-config.ts';
import { EngineClient, EngineResponseError } from './engine-client.ts';
import { reapDeadRunBoxes, SANDBOX_LABELS } from './reaper.ts';
import { RunBoxBound } from './run-box-bound.ts';
import { WarmPool, type WarmPoolStats } from './warm-pool.ts';
import { firstTarEntry, tarOneFile } from './tar.ts';

const CONTAINER_NAME_PREFIX = 'nemo-gym-';
/** Set on every exec's processes, so a timed-out command's processes can be found and killed in the box. */
const EXEC_MARKER_ENV = 'NGYM_EXEC_ID';
const BASH_MARKER = 'ngym-shell=bash';

/** What a docker handle holds (`handle.raw`). */
export interface DockerBox {
  /** The container's name (`nemo-gym-<hex>`), which is also the handle's sandbox_id. */
  name: string;
  image: string;
  /** `bash` or `sh` (or the configured exec_shell): every exec runs `<shell> -c <command>`. */
  shell: string;
  env: Record<string, string>;
  /** Ports declared in the spec (the only ones `endpoint` resolves). */
  ports: number[];
  /** Where relative upload/download paths land: the spec's workdir, else the image's WORKDIR, else `/`. */
  workdir: string;
  memoryMib: number | null;
  /** Out-of-memory kills seen in the box so far (its cgroup's count). */
  oomKills: number;
}

/** What a provider gets beyond its config: which run its boxes belong to, how many it may hold, where the engine is. */
export interface ProviderRuntimeOptions {
  runId?: string;
  /** Boxes held at once (null: no bound); creates beyond it wait. The docker provider bounds the whole gym run's boxes on its engine. */
  maxSandboxes?: number | null;
  /** Spares made ahead of need for specs asked for again and again (warm-pool.ts); null or size 0: none. */
  warmPool?: { size: number } | null;
  /** The engine's address; default DOCKER_HOST, else Docker's socket. */
  dockerHost?: string;
  /** The sandbox block's image_map: a spec's image is run as the image it maps to. */
  imageMap?: ImageMap;
}

function normalizeImage(image: string): string {
  return image.startsWith('docker://') ? image.slice('docker://'.length) : image;
}

function stringList(value: unknown, what: string): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.map(String);
  throw new ConfigError('NGYM_CONFIG_INVALID', `provider_options.${what} must be a string or a list, got ${typeof value}.`);
}

function withTimeout<T>(work: (signal: AbortSignal) => Promise<T>, seconds: number | null, onTimeout: () => Error): Promise<T> {
  if (seconds === null) return work(new AbortController().signal);
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(onTimeout());
    }, seconds * 1000);
  });
  return Promise.race([work(controller.signal), timeout]).finally(() => clearTimeout(timer));
}

/** What tells specs apart in the warm pool: every field, with the image as it runs, keys in order. */
function poolKey(spec: SandboxSpec, image: string): string {
  const ordered = (value: unknown): unknown =>
    Array.isArray(value) ? value.map(ordered) : typeof value === 'object' && value !== null ? Object.fromEntries(Object.entries(value).sort(([left], [right]) => (left < right ? -1 : 1)).map(([key, inner]) => [key, ordered(inner)])) : value;
  return JSON.stringify(ordered({ ...spec, image }));
}

const sleep = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

export class DockerSandboxProvider implements SandboxProvider<DockerBox> {
  readonly name = 'docker';
  readonly config: DockerProviderConfig;
  readonly engine: EngineClient;
  readonly runId: string;
  /** The boxes this instance made and has not closed (what aclose removes). */
  private readonly slots = new BoxSlots(null);
  /** The gym-wide max_sandboxes; undefined without one. */
  private readonly bound: RunBoxBound | undefined;
  private readonly pool: WarmPool<{ spec: SandboxSpec; image: string }, SandboxHandle<DockerBox>> | undefined;
  private readonly commands: Semaphore;
  private readonly execArgs: ExecArgs;
  readonly imageMap: ImageMap;
  private reaping: Promise<void> | undefined;

  constructor(config: unknown = {}, options: ProviderRuntimeOptions = {}) {
    this.config = parseDockerProviderConfig(config);
    this.engine = new EngineClient(options.dockerHost, this.config.exec.concurrency + 8);
    this.runId = options.runId ?? currentRunId();
    this.bound = options.maxSandboxes === null || options.maxSandboxes === undefined ? undefined : new RunBoxBound(this.engine, this.runId, options.maxSandboxes);
    const poolSize = options.warmPool?.size ?? 0;
    this.pool =
      poolSize > 0
        ? new WarmPool({
            size: poolSize,
            make: ({ spec, image }) => this.startBox(spec, image, 'try'),
            discard: async (handle) => {
              await this.engine.removeContainer(handle.raw.name).catch(() => false);
              this.bound?.boxGone();
            },
          })
        : undefined;
    // A create that has to wait for room gets the room the spares hold.
    if (this.bound !== undefined && this.pool !== undefined) {
      const pool = this.pool;
      this.bound.onFull = () => void pool.drain();
    }
    this.commands = new Semaphore(this.config.exec.concurrency);
    this.execArgs = applyExecArgs({}, this.config.exec.extra_exec_args, 'docker.exec.extra_exec_args');
    this.imageMap = options.imageMap ?? {};
  }

  /** Boxes this provider made and has not closed. */
  get openBoxes(): number {
    return this.slots.inUse;
  }

  async create(specInput: SandboxSpecInput | SandboxSpec): Promise<SandboxHandle<DockerBox>> {
    const spec = parseSandboxSpec(specInput);
    if (spec.image === null || spec.image === undefined) throw new ConfigError('NGYM_CONFIG_INVALID', 'The docker sandbox provider needs spec.image.');
    // Once per provider: boxes that a killed run left behind go before this one is made.
    this.reaping ??= reapDeadRunBoxes(this.engine).then(
      () => undefined,
      () => undefined,
    );
    await this.reaping;
    const image = resolveImage(normalizeImage(spec.image), this.imageMap).image;
    const release = await this.slots.acquire();
    try {
      const handle = this.takeSpare(spec, image) ?? ((await this.startBox(spec, image, 'wait')) as SandboxHandle<DockerBox>);
      this.slots.hold(handle.sandbox_id, release);
      return handle;
    } catch (error) {
      release();
      this.bound?.boxGone();
      throw error;
    }
  }

  private containerBody(spec: SandboxSpec, image: string): ContainerBody & Record<string, unknown> {
    const create = this.config.create;
    const host: ContainerBody['HostConfig'] = {};
    const body: ContainerBody & Record<string, unknown> = {
      Image: image,
      Labels: {
        ...Object.fromEntries(Object.entries(spec.metadata).map(([key, value]) => [`ngym.metadata.${key}`, value])),
        ...SANDBOX_LABELS,
        [RUN_LABEL]: this.runId,
        ...this.bound?.labels(),
      },
      Env: Object.entries(spec.env).map(([key, value]) => `${key}=${value}`),
      HostConfig: host,
    };
    if (spec.workdir) body.WorkingDir = spec.workdir;
    if (create.use_init) host.Init = true;
    const resources = spec.resources;
    if (create.apply_resource_limits) {
      if (resources.cpu !== null && resources.cpu !== undefined) host.NanoCpus = Math.round(resources.cpu * 1e9);
      if (resources.memory_mib !== null && resources.memory_mib !== undefined) {
        // Swap equal to memory: the limit is a hard cap, not twice it through swap.
        host.Memory = resources.memory_mib * 1024 ** 2;
        host.MemorySwap = resources.memory_mib * 1024 ** 2;
      }
    }
    if (resources.gpu) host.DeviceRequests = [gpuRequest(resources.gpu)];
    if (create.network !== null) host.NetworkMode = create.network;
    if (create.read_only) host.ReadonlyRootfs = true;
    if (create.cap_drop.length > 0) host.CapDrop = [...create.cap_drop];
    if (create.security_opt.length > 0) host.SecurityOpt = [...create.security_opt];
    if (create.pids_limit !== null) host.PidsLimit = create.pids_limit;
    if (spec.ports.length > 0) {
      body.ExposedPorts = Object.fromEntries(spec.ports.map((port) => [`${port}/tcp`, {}]));
      host.PortBindings = Object.fromEntries(spec.ports.map((port) => [`${port}/tcp`, [{ HostIp: create.publish_host, HostPort: '' }]]));
    }
    const volumes = stringList(spec.provider_options.volumes, 'volumes');
    if (volumes.length > 0) host.Binds = [...volumes];
    applyRunArgs(body, create.extra_run_args, 'docker.create.extra_run_args');
    applyRunArgs(body, stringList(spec.provider_options.run_args, 'run_args'), 'provider_options.run_args');
    // ttl_s (without an entrypoint of the spec's own): the keep-alive sleeps that long and the engine removes the box after.
    const enforceTtl = spec.ttl_s !== null && spec.ttl_s !== undefined && !spec.entrypoint;
    if (enforceTtl) host.AutoRemove = true;
    if (spec.entrypoint) {
      body.Entrypoint = [spec.entrypoint[0]];
      body.Cmd = spec.entrypoint.slice(1);
    } else {
      body.Entrypoint = [create.keepalive_shell];
      body.Cmd = ['-c', enforceTtl ? `sleep ${Math.max(1, Math.ceil(spec.ttl_s as number))}` : create.keepalive_cmd];
    }
    return body;
  }

  /** A spare of the warm pool for this spec, when there is one (a spec with ttl_s is never pooled). */
  private takeSpare(spec: SandboxSpec, image: string): SandboxHandle<DockerBox> | undefined {
    if (this.pool === undefined || (spec.ttl_s !== null && spec.ttl_s !== undefined)) return undefined;
    return this.pool.take(poolKey(spec, image), { spec, image });
  }

  /**
   * Makes spares of this spec in the warm pool now (up to its size, as the run's max_sandboxes allows), so the next
   * creates of it return at once; resolves once they are up. Without `warm_pool`, does nothing.
   */
  async warm(specInput: SandboxSpecInput | SandboxSpec): Promise<void> {
    const spec = parseSandboxSpec(specInput);
    if (this.pool === undefined || !spec.image) return;
    const image = resolveImage(normalizeImage(spec.image), this.imageMap).image;
    await this.pool.warm(poolKey(spec, image), { spec, image });
  }

  /** The warm pool's counts (undefined without one). */
  get poolStats(): WarmPoolStats | undefined {
    return this.pool === undefined ? undefined : { ...this.pool.stats };
  }

  /**
   * Makes a box: `wait` for room under max_sandboxes (a create), or `try` (a spare of the warm pool: undefined when
   * the run has no room now).
   */
  private async startBox(spec: SandboxSpec, image: string, admission: 'wait' | 'try'): Promise<SandboxHandle<DockerBox> | undefined> {
    const name = CONTAINER_NAME_PREFIX + randomUUID().replaceAll('-', '');
    const body = this.containerBody(spec, image);
    const startTimeout = this.config.create.start_timeout_s;
    const timedOut = () => new SandboxProviderError('create_timeout', `The box for image ${image} did not start within create.start_timeout_s=${startTimeout} s.`);
    try {
      // Waiting for room under max_sandboxes is not part of the box's start time.
      const make = () => withTimeout((signal) => this.createContainer(name, image, body, signal), startTimeout, timedOut);
      if (this.bound === undefined) await make();
      else if (admission === 'wait') await this.bound.admit(name, make);
      else if (!(await this.bound.tryAdmit(name, make))) return undefined;
      const inspected = await withTimeout(
        async () => {
          try {
            await this.engine.startContainer(name);
          } catch (error) {
            throw this.createError(error, `The container engine could not start the box for image ${image}`);
          }
          return this.engine.inspectContainer(name);
        },
        startTimeout,
        timedOut,
      );
      const handle: SandboxHandle<DockerBox> = {
        sandbox_id: name,
        provider_name: this.name,
        raw: {
          name,
          image,
          shell: 'sh',
          env: { ...spec.env },
          ports: [...spec.ports],
          workdir: spec.workdir || inspected?.Config.WorkingDir || '/',
          memoryMib: spec.resources.memory_mib ?? null,
          oomKills: 0,
        },
      };
      await this.probeAndPickShell(handle);
      return handle;
    } catch (error) {
      await this.engine.removeContainer(name).catch(() => false);
      throw error;
    }
  }

  private async createContainer(name: string, image: string, body: Record<string, unknown>, signal: AbortSignal): Promise<void> {
    try {
      await this.engine.createContainer(name, body);
      return;
    } catch (error) {
      if (!(error instanceof EngineResponseError && error.status === 404)) throw this.createError(error, `The container engine could not create a box from image ${image}`);
    }
    // The image is not on the engine: pull it (as `docker run` would), where a registry is reachable.
    try {
      await this.engine.pullImage(image, signal);
    } catch (error) {
      if (signal.aborted) throw error;
      const detail = error instanceof EngineResponseError ? error.engineMessage : (error as Error).message;
      throw new SandboxProviderError(
        'image_missing',
        `The image ${image} is not on the container engine at ${this.engine.dockerHost}, and pulling it failed: ${detail}. Build or load it first (ngym sandbox image build), or map the config's image to a local one.`,
        error,
      );
    }
    try {
      await this.engine.createContainer(name, body);
    } catch (error) {
      throw this.createError(error, `The container engine could not create a box from image ${image}`);
    }
  }

  private createError(error: unknown, what: string): Error {
    if (error instanceof SandboxProviderError) return error;
    const detail = error instanceof EngineResponseError ? error.engineMessage : (error as Error).message;
    return new SandboxProviderError('create_failed', `${what}: ${detail}`, error);
  }

  /**
   * Waits for the probe to pass (stable_count times in a row, until deadline_s) and picks the shell. The first
   * attempt also asks whether bash is there, which saves upstream's second exec.
   */
  private async probeAndPickShell(handle: SandboxHandle<DockerBox>): Promise<void> {
    const probe = this.config.probe;
    const configuredShell = this.config.exec.exec_shell;
    if (probe.command === null) {
      handle.raw.shell = configuredShell ?? (await this.detectShell(handle.raw.name));
      return;
    }
    const deadline = probe.deadline_s === null ? undefined : Date.now() + probe.deadline_s * 1000;
    let consecutive = 0;
    let detected: string | undefined;
    let lastDetail = 'no probe attempt completed';
    for (;;) {
      const asksShell = configuredShell === null && detected === undefined;
      const command = asksShell ? `{ ${probe.command}\n} && { command -v bash >/dev/null 2>&1 && printf '\\n${BASH_MARKER}'; true; }` : probe.command;
      const result = await this.execInBox(handle.raw, command, { timeout_s: probe.timeout_s });
      let stdout = result.stdout ?? '';
      if (asksShell && result.return_code === 0) {
        detected = stdout.endsWith(`\n${BASH_MARKER}`) ? 'bash' : 'sh';
        stdout = stdout.slice(0, detected === 'bash' ? -(BASH_MARKER.length + 1) : undefined);
      }
      const passed = result.return_code === 0 && (probe.expected_stdout === null || stdout.includes(probe.expected_stdout));
      if (passed) {
        consecutive++;
        if (consecutive >= probe.stable_count) break;
      } else {
        consecutive = 0;
        lastDetail = `return_code=${result.return_code}, stderr=${JSON.stringify((result.stderr ?? '').trim())}`;
        if (deadline === undefined) throw new SandboxProviderError('create_failed', `The box ${handle.sandbox_id} (image ${handle.raw.image}) failed its readiness probe: ${lastDetail}.`);
      }
      if (deadline !== undefined && Date.now() >= deadline) {
        throw new SandboxProviderError('create_timeout', `The box ${handle.sandbox_id} (image ${handle.raw.image}) did not pass its readiness probe within ${probe.deadline_s} s: ${lastDetail}.`);
      }
      if (probe.stable_delay_s > 0) await sleep(probe.stable_delay_s);
      else if (!passed) await sleep(0.1);
    }
    handle.raw.shell = configuredShell ?? detected ?? (await this.detectShell(handle.raw.name));
  }

  private async detectShell(name: string): Promise<string> {
    const result = await this.engine.exec(name, ['sh', '-c', 'command -v bash']).catch(() => undefined);
    return result?.exitCode === 0 ? 'bash' : 'sh';
  }

  exec(handle: SandboxHandle<DockerBox>, command: string, options: SandboxExecOptions = {}): Promise<SandboxExecResult> {
    return this.execInBox(handle.raw, command, options);
  }

  private async execInBox(box: DockerBox, command: string, options: SandboxExecOptions): Promise<SandboxExecResult> {
    const marker = randomUUID().replaceAll('-', '');
    const env = [
      ...Object.entries({ ...box.env, ...options.env }).map(([key, value]) => `${key}=${value}`),
      ...(this.execArgs.env ?? []),
      `${EXEC_MARKER_ENV}=${marker}`,
    ];
    const user = options.user === null || options.user === undefined ? this.execArgs.user : options.user === 'root' || options.user === 0 ? '0' : String(options.user);
    const cwd = options.cwd ?? this.execArgs.cwd;
    const timeoutSeconds = options.timeout_s ?? this.config.exec.default_timeout_s;
    return this.commands.run(async () => {
      const controller = new AbortController();
      const timer = timeoutSeconds === null ? undefined : setTimeout(() => controller.abort(), timeoutSeconds * 1000);
      try {
        const output = await this.engine.exec(box.name, [box.shell, '-c', command], {
          env,
          ...(cwd === undefined ? {} : { cwd }),
          ...(user === undefined ? {} : { user }),
          ...(this.execArgs.privileged ? { privileged: true } : {}),
          signal: controller.signal,
        });
        if (output.exitCode === null) return runtimeFailure('sandbox', `The engine lost the exit status of the command in box ${box.name}.`, output.stdout);
        if (output.exitCode === 137 && (await this.newOomKill(box))) {
          const limit = box.memoryMib === null ? 'its memory limit' : `its memory limit of ${box.memoryMib} MiB (resources.memory_mib)`;
          return {
            stdout: output.stdout,
            stderr: `${output.stderr}${output.stderr.endsWith('\n') || output.stderr === '' ? '' : '\n'}[ngym] the command was killed by the out-of-memory killer: box ${box.name} reached ${limit}.\n`,
            return_code: 137,
            error_type: 'oom',
          };
        }
        return { stdout: output.stdout, stderr: output.stderr, return_code: output.exitCode, error_type: null };
      } catch (error) {
        if (controller.signal.aborted) {
          await this.killMarked(box.name, marker);
          return runtimeFailure('timeout', `The command timed out after ${timeoutSeconds} s in box ${box.name}; its processes were killed.`);
        }
        return runtimeFailure('sandbox', this.describeBoxFailure(error, box.name));
      } finally {
        clearTimeout(timer);
      }
    });
  }

  private describeBoxFailure(error: unknown, name: string): string {
    if (error instanceof SandboxProviderError) return error.message;
    if (error instanceof EngineResponseError) {
      if (error.status === 404) return `The box ${name} is gone (the engine has no such container): ${error.engineMessage}`;
      if (error.status === 409) return `The box ${name} is not running: ${error.engineMessage}`;
      return `The container engine failed on box ${name}: ${error.engineMessage}`;
    }
    return `The container engine failed on box ${name}: ${(error as Error).message}`;
  }

  /** Whether the box's cgroup counted an out-of-memory kill since the last look. */
  private async newOomKill(box: DockerBox): Promise<boolean> {
    const output = await this.engine
      .exec(box.name, ['sh', '-c', 'cat /sys/fs/cgroup/memory.events /sys/fs/cgroup/memory/memory.oom_control 2>/dev/null'], { user: '0' })
      .catch(() => undefined);
    const count = Number(/^oom_kill (\d+)$/m.exec(output?.stdout ?? '')?.[1] ?? Number.NaN);
    if (Number.isNaN(count)) return (await this.engine.inspectContainer(box.name).catch(() => undefined))?.State.OOMKilled === true;
    const isNew = count > box.oomKills;
    box.oomKills = count;
    return isNew;
  }

  /** Kills every process of the box that carries an exec's marker (the command and what it started). */
  private async killMarked(name: string, marker: string): Promise<void> {
    const script = `for d in /proc/[0-9]*; do case "$(tr '\\0' ' ' < "$d/environ" 2>/dev/null)" in *"${EXEC_MARKER_ENV}=${marker} "*) kill -9 "\${d#/proc/}" 2>/dev/null;; esac; done; true`;
    await withTimeout((signal) => this.engine.exec(name, ['sh', '-c', script], { user: '0', signal }), 30, () => new Error('kill timed out')).catch(() => undefined);
  }

  async upload_file(handle: SandboxHandle<DockerBox>, localPath: string, remotePath: string): Promise<void> {
    const box = handle.raw;
    const target = boxPath(remotePath, box.workdir);
    const parent = posix.dirname(target);
    const [content, info] = await Promise.all([readFile(localPath), stat(localPath)]).catch((error: unknown) => {
      throw new SandboxProviderError('transfer_failed', `Cannot read ${localPath} to upload it to box ${box.name}: ${(error as Error).message}`, error);
    });
    const archive = tarOneFile(posix.basename(target), content, info.mode);
    try {
      await this.engine.putArchive(box.name, parent, archive);
      return;
    } catch (error) {
      if (!(error instanceof EngineResponseError && error.status === 404 && !/no such container/i.test(error.engineMessage))) throw this.transferError(error, box.name, `upload to ${target}`);
    }
    // The parent directory is missing: make it as root (as upstream), then copy again.
    const made = await this.engine.exec(box.name, ['mkdir', '-p', parent], { user: '0' }).catch((error: unknown) => {
      throw this.transferError(error, box.name, `upload to ${target}`);
    });
    if (made.exitCode !== 0) throw new SandboxProviderError('transfer_failed', `Upload to ${target} in box ${box.name} failed: cannot make ${parent}: ${made.stderr.trim()}`);
    await this.engine.putArchive(box.name, parent, archive).catch((error: unknown) => {
      throw this.transferError(error, box.name, `upload to ${target}`);
    });
  }

  async download_file(handle: SandboxHandle<DockerBox>, remotePath: string, localPath: string): Promise<void> {
    const box = handle.raw;
    let source = boxPath(remotePath, box.workdir);
    let entry = await this.fetchEntry(box.name, source);
    if (entry.type === 'symlink') {
      // Follow the link in the box, as reading the file there would.
      const resolved = await this.engine.exec(box.name, ['readlink', '-f', source]).catch(() => undefined);
      const real = resolved?.exitCode === 0 ? resolved.stdout.trim() : '';
      if (real === '') throw new SandboxProviderError('transfer_failed', `Download of ${source} from box ${box.name} failed: it is a link that leads nowhere.`);
      source = real;
      entry = await this.fetchEntry(box.name, source);
    }
    if (entry.type !== 'file') throw new SandboxProviderError('transfer_failed', `Download of ${source} from box ${box.name} failed: it is a ${entry.type}, not a file.`);
    try {
      await mkdir(dirname(localPath), { recursive: true });
      await writeFile(localPath, entry.content);
    } catch (error) {
      throw new SandboxProviderError('transfer_failed', `Cannot write ${localPath} (downloaded from ${source} in box ${box.name}): ${(error as Error).message}`, error);
    }
  }

  private async fetchEntry(name: string, source: string) {
    const archive = await this.engine.getArchive(name, source).catch((error: unknown) => {
      throw this.transferError(error, name, `download of ${source}`);
    });
    const entry = archive === undefined ? undefined : firstTarEntry(archive);
    if (entry === undefined) throw new SandboxProviderError('transfer_failed', `Download of ${source} from box ${name} failed: no such file in the box.`);
    return entry;
  }

  private transferError(error: unknown, name: string, what: string): SandboxProviderError {
    if (error instanceof SandboxProviderError) return error;
    if (error instanceof EngineResponseError && /no such container/i.test(error.engineMessage)) return new SandboxProviderError('not_found', `The ${what} failed: the box ${name} is gone.`, error);
    const detail = error instanceof EngineResponseError ? error.engineMessage : (error as Error).message;
    return new SandboxProviderError('transfer_failed', `The ${what} in box ${name} failed: ${detail}`, error);
  }

  /** The box's state; a box the engine no longer has is `stopped`, an engine that does not answer `unknown`. */
  async status(handle: SandboxHandle<DockerBox>): Promise<SandboxStatus> {
    let inspected;
    try {
      inspected = await this.engine.inspectContainer(handle.raw.name);
    } catch {
      return 'unknown';
    }
    if (inspected === undefined) return 'stopped';
    const state = inspected.State.Status.toLowerCase();
    if (state === 'running' || state === 'paused') return 'running';
    if (state === 'created' || state === 'restarting') return 'starting';
    if (state === 'exited' || state === 'removing' || state === 'dead' || state === 'stopped') return 'stopped';
    return 'unknown';
  }

  async endpoint(handle: SandboxHandle<DockerBox>, port: number): Promise<SandboxEndpoint> {
    const box = handle.raw;
    if (!box.ports.includes(port)) throw new ConfigError('NGYM_CONFIG_INVALID', `Sandbox port ${port} was not declared in the spec's ports; declared ports: [${box.ports.join(', ')}].`);
    const inspected = await this.engine.inspectContainer(box.name);
    if (inspected === undefined) throw new SandboxProviderError('not_found', `The box ${box.name} is gone.`);
    const bindings = inspected.NetworkSettings.Ports?.[`${port}/tcp`] ?? [];
    const binding = bindings.find((candidate) => candidate.HostIp === '127.0.0.1') ?? bindings[0];
    if (binding === undefined || !binding.HostPort) throw new SandboxProviderError('unsupported', `The engine published no host port for port ${port} of box ${box.name}.`);
    let host = binding.HostIp === '' || binding.HostIp === '0.0.0.0' || binding.HostIp === '::' ? this.config.create.publish_host : binding.HostIp;
    if (host.includes(':')) host = `[${host}]`;
    return { endpoint: `http://${host}:${binding.HostPort}`, headers: {} };
  }

  /** Removes the box (a box already gone is fine) and gives its max_sandboxes slot back. */
  async close(handle: SandboxHandle<DockerBox>): Promise<void> {
    try {
      await this.engine.removeContainer(handle.raw.name);
    } catch (error) {
      const detail = error instanceof EngineResponseError ? error.engineMessage : (error as Error).message;
      throw new SandboxProviderError('engine_unreachable', `Could not remove box ${handle.raw.name}: ${detail}`, error);
    } finally {
      this.slots.release(handle.sandbox_id);
      this.bound?.boxGone();
    }
  }

  /** Removes the boxes this provider made and did not close, and closes its engine connections. */
  async aclose(): Promise<void> {
    this.slots.close();
    this.bound?.close();
    await this.pool?.close();
    await Promise.all(
      this.slots.heldBoxes().map(async (name) => {
        await this.engine.removeContainer(name).catch(() => false);
        this.slots.release(name);
      }),
    );
    this.bound?.boxGone();
    await this.engine.close();
  }

  serialize_handle(handle: SandboxHandle<DockerBox>): Promise<SandboxDescriptor> {
    return Promise.resolve({ sandbox_id: handle.sandbox_id });
  }

  /** Adopts a running container by name or id (one of ours or one upstream's DockerProvider made). */
  async connect(descriptor: { sandbox_id: string } & Record<string, unknown>): Promise<SandboxHandle<DockerBox>> {
    const name = descriptor.sandbox_id;
    if (typeof name !== 'string' || name === '') throw new ConfigError('NGYM_CONFIG_INVALID', 'docker connect needs a sandbox_id.');
    const inspected = await this.engine.inspectContainer(name);
    if (inspected === undefined) throw new SandboxProviderError('not_found', `Cannot connect to box ${name}: the engine at ${this.engine.dockerHost} has no such container.`);
    if (!inspected.State.Running) throw new SandboxProviderError('not_found', `Cannot connect to box ${name}: it is not running (${inspected.State.Status}).`);
    const ports = Array.isArray(descriptor.ports) ? descriptor.ports.map(Number) : [];
    const workdir = typeof descriptor.workdir === 'string' && descriptor.workdir !== '' ? descriptor.workdir : inspected.Config.WorkingDir || '/';
    const memory = inspected.HostConfig.Memory;
    return {
      sandbox_id: name,
      provider_name: this.name,
      raw: {
        name,
        image: inspected.Config.Image,
        shell: this.config.exec.exec_shell ?? (await this.detectShell(name)),
        env: {},
        ports,
        workdir,
        memoryMib: memory ? memory / 1024 ** 2 : null,
        oomKills: 0,
      },
    };
  }
}
