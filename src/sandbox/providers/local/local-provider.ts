/**
 * The `local` sandbox provider: ngym's bubblewrap box (src/sandbox/, docs/sandbox.md) behind the provider contract,
 * for tasks that need no image. Each box is one `SandboxSession`: fresh namespaces, no network, the host's `/usr`
 * read-only, a private tmpfs work directory, `/tmp` and `/dev/shm`, its processes killed with it. Commands run as
 * `<shell> -c <command>` there, one at a time per box.
 *
 * Upstream's `local` provider runs commands straight on the host with no isolation; its config keys load unchanged
 * here (`workspace_root`, `shell`, `default_timeout_s`, `concurrency`) but the box is isolated: nothing it writes
 * reaches the host's disk, so `workspace_root` (upstream's host folder for work directories) has nothing to hold.
 * A box lives in the process that made it: another provider instance of that process adopts it by id; another
 * process cannot.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as z from 'zod';
import { ConfigError } from '../../../errors.ts';
import { describeValidationError, parseReportingInput } from '../../../protocol/validation.ts';
import { Semaphore } from '../../../util/semaphore.ts';
import { Sandbox, type SandboxSession } from '../../sandbox.ts';
import { SandboxError, type SandboxRunResult } from '../../types.ts';
import { BoxSlots } from '../box-slots.ts';
import {
  boxPath,
  parseSandboxSpec,
  runtimeFailure,
  type SandboxDescriptor,
  type SandboxExecOptions,
  type SandboxExecResult,
  type SandboxHandle,
  type SandboxProvider,
  SandboxProviderError,
  type SandboxSpec,
  type SandboxSpecInput,
  type SandboxStatus,
} from '../contract.ts';
import type { ProviderRuntimeOptions } from '../docker/docker-provider.ts';

/** The `local:` block of a sandbox config: upstream 0.7.0's keys (providers/local/configs/local.yaml). */
const LocalProviderConfig = z
  .strictObject({
    /** Upstream's host folder for work directories; ngym's boxes keep theirs in memory, so it is accepted and unused. */
    workspace_root: z.string().nullish(),
    /** Runs every command as `<shell> -c <command>`; must exist under the host's /usr (the box shows it read-only). */
    shell: z.string().min(1).default('/bin/bash'),
    default_timeout_s: z.number().positive('default_timeout_s must be > 0').default(180),
    /** Commands running at once over all boxes of this provider. */
    concurrency: z.number().int().min(1, 'concurrency must be >= 1').default(8),
  })
  .nullish()
  .transform((value) => value ?? { shell: '/bin/bash', default_timeout_s: 180, concurrency: 8 });
type LocalProviderConfig = z.output<typeof LocalProviderConfig>;

const DEFAULT_WORKDIR = '/work';
const MIB = 1024 ** 2;
/** The box's work directory when the spec asks for no disk size. */
const DEFAULT_WORKSPACE_BYTES = 1024 * MIB;
/** Output kept of each stream of one command. */
const OUTPUT_BYTES = 64 * MIB;
/** Processes (and threads) a command may have at once: a shell pipeline, a build, a test runner. */
const PROCESS_LIMIT = 512;

/** What a local handle holds (`handle.raw`). */
export interface LocalBox {
  sandbox: Sandbox;
  session: SandboxSession;
  workdir: string;
}

/** Boxes alive in this process, by id: what `connect` adopts. */
const LIVE_BOXES = new Map<string, LocalBox>();

const SIGNAL_NUMBERS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGABRT: 6, SIGKILL: 9, SIGSEGV: 11, SIGPIPE: 13, SIGALRM: 14, SIGTERM: 15, SIGXCPU: 24, SIGXFSZ: 25 };

export class LocalSandboxProvider implements SandboxProvider<LocalBox> {
  readonly name = 'local';
  readonly config: LocalProviderConfig;
  private readonly slots: BoxSlots;
  private readonly commands: Semaphore;

  constructor(config: unknown = {}, options: Pick<ProviderRuntimeOptions, 'maxSandboxes'> = {}) {
    const result = parseReportingInput(LocalProviderConfig, config);
    if (!result.success) throw new ConfigError('NGYM_CONFIG_INVALID', `Invalid sandbox provider config local: ${describeValidationError(result.error)}`);
    this.config = result.data;
    this.slots = new BoxSlots(options.maxSandboxes);
    this.commands = new Semaphore(this.config.concurrency);
  }

  async create(specInput: SandboxSpecInput | SandboxSpec): Promise<SandboxHandle<LocalBox>> {
    const spec = parseSandboxSpec(specInput);
    if (spec.image) throw new ConfigError('NGYM_CONFIG_INVALID', `The local sandbox provider runs no images (spec.image is ${spec.image}): use the docker provider.`);
    if (spec.entrypoint) throw new ConfigError('NGYM_CONFIG_INVALID', 'The local sandbox provider has no entrypoint to replace (spec.entrypoint): use the docker provider.');
    if (spec.ports.length > 0) throw new ConfigError('NGYM_CONFIG_INVALID', `A local box has no network to serve ports from (spec.ports: [${spec.ports.join(', ')}]): use the docker provider.`);
    const release = await this.slots.acquire();
    const workdir = spec.workdir ?? DEFAULT_WORKDIR;
    const sandbox = new Sandbox({
      poolSize: 0,
      workdir,
      workspaceBytes: spec.resources.disk_gib ? spec.resources.disk_gib * 1024 * MIB : DEFAULT_WORKSPACE_BYTES,
      env: spec.env,
      limits: {
        ...(spec.resources.memory_mib ? { memoryBytes: spec.resources.memory_mib * MIB } : {}),
        processes: PROCESS_LIMIT,
        cpuSeconds: null,
        outputBytes: OUTPUT_BYTES,
      },
    });
    try {
      const session = await sandbox.openSession({ workdir });
      const sandboxId = `local-${randomUUID().replaceAll('-', '').slice(0, 12)}`;
      const box: LocalBox = { sandbox, session, workdir };
      LIVE_BOXES.set(sandboxId, box);
      this.slots.hold(sandboxId, release);
      return { sandbox_id: sandboxId, provider_name: this.name, raw: box };
    } catch (error) {
      release();
      await sandbox.close();
      if (error instanceof SandboxError) throw new SandboxProviderError('create_failed', `Cannot start a local (bubblewrap) box: ${error.message}`, error);
      throw error;
    }
  }

  /** Runs one program in the box; a box that is gone is a SandboxError. */
  private run(box: LocalBox, command: string[], options: { cwd?: string; env?: Record<string, string>; stdin?: Buffer; timeoutSeconds: number }): Promise<SandboxRunResult> {
    return this.commands.run(() =>
      box.session.run({
        command,
        ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
        ...(options.env === undefined ? {} : { env: options.env }),
        ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
        limits: { wallSeconds: options.timeoutSeconds, cpuSeconds: null },
      }),
    );
  }

  async exec(handle: SandboxHandle<LocalBox>, command: string, options: SandboxExecOptions = {}): Promise<SandboxExecResult> {
    if (options.user !== null && options.user !== undefined) {
      throw new SandboxProviderError('unsupported', `The local sandbox provider cannot run commands as another user (user: ${options.user}); commands run as the box's one unprivileged user.`);
    }
    const timeoutSeconds = options.timeout_s ?? this.config.default_timeout_s;
    let result: SandboxRunResult;
    try {
      result = await this.run(handle.raw, [this.config.shell, '-c', command], {
        ...(options.cwd ? { cwd: options.cwd } : {}),
        ...(options.env ? { env: options.env } : {}),
        timeoutSeconds,
      });
    } catch (error) {
      return runtimeFailure('sandbox', `The local box ${handle.sandbox_id} is gone: ${(error as Error).message}`);
    }
    const reason = result.reason === null ? '' : `[ngym] ${result.reason}\n`;
    switch (result.status) {
      case 'exited':
        return { stdout: result.stdout, stderr: result.stderr, return_code: result.exitCode ?? 0, error_type: null };
      case 'wall_timeout':
      case 'cpu_timeout':
        return runtimeFailure('timeout', `The command timed out after ${timeoutSeconds} s in box ${handle.sandbox_id}; its processes were killed.`, result.stdout);
      case 'memory_limit':
        return { stdout: result.stdout, stderr: `${result.stderr}[ngym] the command was killed at the box's memory limit (resources.memory_mib): ${result.reason}\n`, return_code: 137, error_type: 'oom' };
      case 'signaled':
      case 'file_size_limit':
        return { stdout: result.stdout, stderr: result.stderr + reason, return_code: 128 + (SIGNAL_NUMBERS[result.signal ?? ''] ?? 9), error_type: null };
      case 'exec_failed':
        return { stdout: result.stdout, stderr: `${result.stderr}[ngym] cannot run the shell ${this.config.shell}: ${result.reason}\n`, return_code: 127, error_type: null };
      default:
        return runtimeFailure('sandbox', `The command in box ${handle.sandbox_id} was stopped: ${result.reason ?? result.status}`, result.stdout);
    }
  }

  async upload_file(handle: SandboxHandle<LocalBox>, localPath: string, remotePath: string): Promise<void> {
    const target = boxPath(remotePath, handle.raw.workdir);
    const [content, info] = await Promise.all([readFile(localPath), stat(localPath)]).catch((error: unknown) => {
      throw new SandboxProviderError('transfer_failed', `Cannot read ${localPath} to upload it to box ${handle.sandbox_id}: ${(error as Error).message}`, error);
    });
    const script = 'mkdir -p -- "$(dirname -- "$1")" && cat > "$1" && chmod "$2" "$1"';
    const result = await this.transfer(handle, ['/bin/sh', '-c', script, 'upload', target, (info.mode & 0o777).toString(8)], content);
    if (result.status !== 'exited' || result.exitCode !== 0) {
      throw new SandboxProviderError('transfer_failed', `Upload to ${target} in box ${handle.sandbox_id} failed (only its work directory ${handle.raw.workdir} and /tmp are writable): ${(result.reason ?? result.stderr).trim()}`);
    }
  }

  async download_file(handle: SandboxHandle<LocalBox>, remotePath: string, localPath: string): Promise<void> {
    const source = boxPath(remotePath, handle.raw.workdir);
    // base64 keeps the bytes whole through the supervisor's text output.
    const result = await this.transfer(handle, ['/bin/sh', '-c', 'test -f "$1" || { echo "no such file in the box" >&2; exit 2; }; base64 -w0 -- "$1"', 'download', source]);
    if (result.status !== 'exited' || result.exitCode !== 0 || result.stdoutTruncated) {
      throw new SandboxProviderError('transfer_failed', `Download of ${source} from box ${handle.sandbox_id} failed: ${(result.stdoutTruncated ? `larger than ${(OUTPUT_BYTES / MIB) * 0.75} MiB` : (result.reason ?? result.stderr)).trim()}`);
    }
    try {
      await mkdir(dirname(localPath), { recursive: true });
      await writeFile(localPath, Buffer.from(result.stdout, 'base64'));
    } catch (error) {
      throw new SandboxProviderError('transfer_failed', `Cannot write ${localPath} (downloaded from ${source} in box ${handle.sandbox_id}): ${(error as Error).message}`, error);
    }
  }

  private async transfer(handle: SandboxHandle<LocalBox>, command: string[], stdin?: Buffer): Promise<SandboxRunResult> {
    try {
      return await this.run(handle.raw, command, { timeoutSeconds: this.config.default_timeout_s, ...(stdin === undefined ? {} : { stdin }) });
    } catch (error) {
      throw new SandboxProviderError('not_found', `The local box ${handle.sandbox_id} is gone: ${(error as Error).message}`, error);
    }
  }

  status(handle: SandboxHandle<LocalBox>): Promise<SandboxStatus> {
    return Promise.resolve(handle.raw.session.alive ? 'running' : 'stopped');
  }

  async close(handle: SandboxHandle<LocalBox>): Promise<void> {
    handle.raw.session.close();
    await handle.raw.sandbox.close();
    LIVE_BOXES.delete(handle.sandbox_id);
    this.slots.release(handle.sandbox_id);
  }

  async aclose(): Promise<void> {
    this.slots.close();
    for (const sandboxId of this.slots.heldBoxes()) {
      const box = LIVE_BOXES.get(sandboxId);
      if (box !== undefined) await this.close({ sandbox_id: sandboxId, provider_name: this.name, raw: box });
      this.slots.release(sandboxId);
    }
  }

  serialize_handle(handle: SandboxHandle<LocalBox>): Promise<SandboxDescriptor> {
    return Promise.resolve({ sandbox_id: handle.sandbox_id, workdir: handle.raw.workdir });
  }

  /** Adopts a box of this process by id (boxes of other processes cannot be reached). */
  connect(descriptor: { sandbox_id: string } & Record<string, unknown>): Promise<SandboxHandle<LocalBox>> {
    const box = LIVE_BOXES.get(descriptor.sandbox_id);
    if (box === undefined || !box.session.alive) {
      return Promise.reject(new SandboxProviderError('not_found', `No local box ${descriptor.sandbox_id} in this process: local (bubblewrap) boxes live in the process that made them; use the docker provider to share boxes between servers.`));
    }
    return Promise.resolve({ sandbox_id: descriptor.sandbox_id, provider_name: this.name, raw: box });
  }
}
