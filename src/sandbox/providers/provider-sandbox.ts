/**
 * One box of a provider, as a caller holds it (upstream 0.7.0's AsyncSandbox, nemo_gym/sandbox/api.py): start it
 * from a spec (its `files` written in), run commands in its workdir, move files, resolve service ports, stop it; or
 * serialize it so another server adopts it (`ProviderSandbox.connect`) and later lets go of it (`disconnect`)
 * without ending it. With tracing on, start, exec and stop are spans of the `sandbox` group with upstream's names
 * (`gym.sandbox.start`, `gym.sandbox.exec`, `gym.sandbox.stop`); a command itself is never recorded, since it is
 * model output or task content.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { traced } from '../../telemetry/tracing.ts';
import {
  parseSandboxSpec,
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
} from './contract.ts';

/** An exec's time limit when the caller gives none (upstream's facade default). */
export const DEFAULT_EXEC_TIMEOUT_S = 180;

export interface ProviderSandboxOptions {
  /** Whether stopping this box also closes the provider (`aclose`); false when the provider serves other boxes. */
  ownsProvider?: boolean;
}

export class ProviderSandbox {
  private spec: SandboxSpec | undefined;
  private current: SandboxHandle | undefined;
  private stopped = true;
  private closed = false;
  private connected = false;
  private readonly ownsProvider: boolean;

  constructor(
    readonly provider: SandboxProvider,
    spec?: SandboxSpecInput | SandboxSpec,
    options: ProviderSandboxOptions = {},
  ) {
    this.spec = spec === undefined ? undefined : parseSandboxSpec(spec);
    this.ownsProvider = options.ownsProvider ?? true;
  }

  /** The provider's handle of the running box. */
  get handle(): SandboxHandle {
    if (this.current === undefined || this.stopped) throw new SandboxProviderError('not_found', 'The sandbox has not been started (or was stopped).');
    return this.current;
  }

  /** The box's id (docker: its container name), which another process adopts it by. */
  get sandboxId(): string {
    return this.handle.sandbox_id;
  }

  /** Creates the box and writes the spec's files into it; the box is ended again if a file cannot be written. */
  async start(spec?: SandboxSpecInput | SandboxSpec): Promise<this> {
    if (this.closed) throw new SandboxProviderError('not_found', 'This sandbox was stopped; make a new one.');
    if (this.current !== undefined && !this.stopped) throw new SandboxProviderError('unsupported', 'This sandbox is already started.');
    const requested = spec === undefined ? this.spec : parseSandboxSpec(spec);
    if (requested === undefined) throw new SandboxProviderError('unsupported', 'ProviderSandbox.start() needs a spec.');
    const handle = await traced('sandbox', 'gym.sandbox.start', async (span) => {
      span?.setAttribute('nemo.gym.sandbox.provider', this.provider.name);
      const created = await this.provider.create(requested);
      span?.setAttribute('nemo.gym.sandbox.id', created.sandbox_id);
      return created;
    });
    this.current = handle;
    this.spec = requested;
    this.stopped = false;
    try {
      await this.writeFiles(handle, requested.files);
    } catch (error) {
      await this.stop();
      throw error;
    }
    return this;
  }

  private async writeFiles(handle: SandboxHandle, files: Record<string, string>): Promise<void> {
    const entries = Object.entries(files);
    if (entries.length === 0) return;
    const folder = await mkdtemp(join(tmpdir(), 'ngym-sandbox-upload-'));
    try {
      for (const [index, [target, content]] of entries.entries()) {
        const source = join(folder, `file-${index}`);
        await writeFile(source, content, 'utf8');
        await this.provider.upload_file(handle, source, target);
      }
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  }

  /** `start`, then `setup` on the started box; a setup that throws ends the box before the error goes on. */
  async startWithSetup(spec: SandboxSpecInput | SandboxSpec | undefined, setup: (sandbox: this) => Promise<void>): Promise<this> {
    await this.start(spec);
    try {
      await setup(this);
    } catch (error) {
      await this.stop();
      throw error;
    }
    return this;
  }

  /**
   * Runs one shell command. `cwd` defaults to the spec's workdir, `timeout_s` to 180 s (null: the provider's own
   * default). A failed command, a timeout or a gone box is a result (125 with `error_type`), never a throw.
   */
  exec(command: string, options: SandboxExecOptions = {}): Promise<SandboxExecResult> {
    const handle = this.handle;
    const resolved: SandboxExecOptions = {
      ...options,
      cwd: options.cwd ?? this.spec?.workdir ?? null,
      timeout_s: options.timeout_s === undefined ? DEFAULT_EXEC_TIMEOUT_S : options.timeout_s,
    };
    return traced('sandbox', 'gym.sandbox.exec', async (span) => {
      const result = await this.provider.exec(handle, command, resolved);
      span?.setAttributes({
        'nemo.gym.sandbox.provider': this.provider.name,
        'nemo.gym.sandbox.id': handle.sandbox_id,
        'nemo.gym.sandbox.return_code': result.return_code,
        ...(result.error_type === null ? {} : { 'nemo.gym.sandbox.error_type': result.error_type }),
      });
      return result;
    });
  }

  upload(localPath: string, remotePath: string): Promise<void> {
    return this.provider.upload_file(this.handle, localPath, remotePath);
  }

  download(remotePath: string, localPath: string): Promise<void> {
    return this.provider.download_file(this.handle, remotePath, localPath);
  }

  async status(): Promise<SandboxStatus> {
    if (this.current === undefined) return 'unknown';
    if (this.stopped) return 'stopped';
    return this.provider.status(this.current);
  }

  /** Where a caller reaches `port` of the box; the port must be in the spec's `ports`. */
  endpoint(port: number): Promise<SandboxEndpoint> {
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new RangeError(`Sandbox endpoint port must be an integer between 1 and 65535, got ${port}`);
    const declared = this.spec?.ports ?? [];
    if (!declared.includes(port)) throw new SandboxProviderError('unsupported', `Sandbox port ${port} was not declared in the spec's ports; declared ports: [${declared.join(', ')}].`);
    if (this.provider.endpoint === undefined) throw new SandboxProviderError('unsupported', `The sandbox provider '${this.provider.name}' does not expose service endpoints.`);
    return this.provider.endpoint(this.handle, port);
  }

  /** Ends the box (and the provider when this sandbox owns it). A second stop does nothing. */
  async stop(): Promise<void> {
    if (this.closed) return;
    if (this.current !== undefined && !this.stopped) {
      const handle = this.current;
      await traced('sandbox', 'gym.sandbox.stop', async (span) => {
        span?.setAttributes({ 'nemo.gym.sandbox.provider': this.provider.name, 'nemo.gym.sandbox.id': handle.sandbox_id });
        await this.provider.close(handle);
      });
      this.stopped = true;
    }
    if (this.ownsProvider) await this.provider.aclose();
    this.closed = true;
  }

  /** Lets go of a box adopted with `connect` without ending it: the server that made it ends it. */
  async disconnect(): Promise<void> {
    if (this.closed) return;
    if (!this.connected) throw new SandboxProviderError('unsupported', 'disconnect() is only for a sandbox adopted with ProviderSandbox.connect(); use stop() to end a box you started.');
    if (this.ownsProvider) await this.provider.aclose();
    this.current = undefined;
    this.stopped = true;
    this.closed = true;
  }

  /** A JSON descriptor another process adopts this box by: the provider's, plus the workdir and the declared ports. */
  async serialize(): Promise<SandboxDescriptor> {
    if (this.provider.serialize_handle === undefined) throw new SandboxProviderError('unsupported', `The sandbox provider '${this.provider.name}' cannot hand its boxes to another process.`);
    let descriptor = await this.provider.serialize_handle(this.handle);
    if (descriptor.workdir === undefined || descriptor.workdir === null) descriptor = { ...descriptor, workdir: this.spec?.workdir ?? null };
    if (this.spec !== undefined && this.spec.ports.length > 0) descriptor = { ...descriptor, ports: [...this.spec.ports] };
    return descriptor;
  }

  /** Adopts a running box from its descriptor (`serialize()`'s, or just `{sandbox_id}`), as another server made it. */
  static async connect(descriptor: { sandbox_id: string } & Record<string, unknown>, options: ProviderSandboxOptions & { provider: SandboxProvider }): Promise<ProviderSandbox> {
    const provider = options.provider;
    if (provider.connect === undefined) throw new SandboxProviderError('unsupported', `The sandbox provider '${provider.name}' cannot adopt boxes by id.`);
    const handle = await provider.connect(descriptor);
    const workdir = typeof descriptor.workdir === 'string' ? descriptor.workdir : null;
    const ports = Array.isArray(descriptor.ports) ? descriptor.ports.map(Number) : [];
    const sandbox = new ProviderSandbox(provider, { workdir, ports }, options);
    sandbox.current = handle;
    sandbox.stopped = false;
    sandbox.connected = true;
    return sandbox;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }
}
