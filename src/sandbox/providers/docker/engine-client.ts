/**
 * A client of the Docker Engine API (the subset the docker provider and `ngym sandbox` use) over the engine's
 * socket, as `DOCKER_HOST` names it: `unix:///path` (Docker's `/var/run/docker.sock` when unset) or `tcp://host:port`.
 * Podman's Docker-compatible service (`podman system service`) speaks the same API. Calls go through one undici
 * pool; the API version is the engine's own (`GET /version`), so Docker's newer minimum versions and Podman's 1.41
 * both work.
 */
import { existsSync } from 'node:fs';
import { Pool } from 'undici';
import { currentDockerHost, type EngineAddress, engineAddress, engineMessage } from '../../engine-address.ts';
import { SandboxProviderError } from '../contract.ts';

/** Output kept of each stream of one exec; beyond it the rest is dropped and stderr says so (a runaway command must not exhaust the host). */
const MAX_EXEC_OUTPUT_BYTES = 64 * 1024 ** 2;

export interface ContainerSummary {
  Id: string;
  Names: string[];
  Image: string;
  State: string;
  Status: string;
  Created: number;
  Labels: Record<string, string> | null;
}

export interface ContainerInspect {
  Id: string;
  Name: string;
  Created: string;
  State: { Status: string; Running: boolean; Paused: boolean; OOMKilled: boolean; ExitCode: number; Error?: string; StartedAt?: string; Pid?: number };
  Config: { Image: string; Labels: Record<string, string> | null; WorkingDir?: string; Env?: string[] | null; User?: string };
  HostConfig: { Memory?: number; NanoCpus?: number; PidsLimit?: number | null; NetworkMode?: string };
  NetworkSettings: { Ports: Record<string, { HostIp: string; HostPort: string }[] | null> | null };
}

export interface ExecOutput {
  stdout: string;
  stderr: string;
  /** The exec's exit code (null when the engine lost it). */
  exitCode: number | null;
}


/** An error the engine answered with (HTTP status and its message). */
export class EngineResponseError extends Error {
  constructor(
    readonly status: number,
    readonly engineMessage: string,
  ) {
    super(`the engine answered HTTP ${status}: ${engineMessage}`);
  }
}

export class EngineClient {
  readonly dockerHost: string;
  private readonly address: EngineAddress;
  private readonly pool: Pool;
  private versionPrefix: Promise<string> | undefined;

  constructor(dockerHost: string = currentDockerHost(), connections = 32) {
    this.dockerHost = dockerHost;
    const address = engineAddress(dockerHost);
    if (address === undefined) {
      throw new SandboxProviderError('engine_unreachable', `DOCKER_HOST=${dockerHost} is not supported: use unix:///path/to/socket or tcp://host:port (TLS engines are not supported).`);
    }
    this.address = address;
    this.pool = new Pool(this.address.origin, {
      connections,
      ...(this.address.socketPath === undefined ? {} : { socketPath: this.address.socketPath }),
      // An exec's output may pause for as long as its command runs: only the caller's own timeout ends it.
      bodyTimeout: 0,
      headersTimeout: 0,
    });
  }

  /** Why the engine is unreachable, in words that name the socket and how to start one. */
  private unreachable(cause: unknown): SandboxProviderError {
    const detail = cause instanceof Error ? ((cause as NodeJS.ErrnoException).code ?? cause.message) : String(cause);
    const missing = this.address.socketPath !== undefined && !existsSync(this.address.socketPath);
    return new SandboxProviderError(
      'engine_unreachable',
      `Cannot reach the container engine at ${this.dockerHost} (${missing ? 'no such socket' : detail}). Start one (npm run setup:containers, or a Docker daemon) and point DOCKER_HOST at its socket; see docs/sandbox.md.`,
      cause,
    );
  }

  private async send(method: string, path: string, options: { json?: unknown; body?: Buffer; query?: Record<string, string>; signal?: AbortSignal; versioned?: boolean } = {}) {
    const prefix = options.versioned === false ? '' : await this.apiPrefix();
    const query = options.query === undefined ? '' : `?${new URLSearchParams(options.query).toString()}`;
    const headers: Record<string, string> = {};
    let body: string | Buffer | undefined;
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    } else if (options.body !== undefined) {
      headers['content-type'] = 'application/x-tar';
      body = options.body;
    }
    try {
      return await this.pool.request({ method: method as 'GET', path: `${prefix}${path}${query}`, headers, body, signal: options.signal });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw this.unreachable(error);
    }
  }

  /** A JSON call; a non-2xx answer throws EngineResponseError with the engine's message. */
  private async call<T>(method: string, path: string, options: Parameters<EngineClient['send']>[2] = {}): Promise<T> {
    const response = await this.send(method, path, options);
    const text = await response.body.text();
    if (response.statusCode >= 300) throw new EngineResponseError(response.statusCode, engineMessage(text));
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  private apiPrefix(): Promise<string> {
    this.versionPrefix ??= this.call<{ ApiVersion: string }>('GET', '/version', { versioned: false }).then(
      (version) => `/v${version.ApiVersion}`,
      (error: unknown) => {
        this.versionPrefix = undefined;
        throw error;
      },
    );
    return this.versionPrefix;
  }

  /** The engine's version answer (checks that it is reachable). */
  version(): Promise<{ Version: string; ApiVersion: string; Components?: { Name: string }[] }> {
    return this.call('GET', '/version', { versioned: false });
  }

  async createContainer(name: string, config: Record<string, unknown>): Promise<string> {
    const created = await this.call<{ Id: string }>('POST', '/containers/create', { query: { name }, json: config });
    return created.Id;
  }

  async startContainer(id: string): Promise<void> {
    await this.call('POST', `/containers/${encodeURIComponent(id)}/start`);
  }

  /** The container's inspect answer; undefined when there is no such container. */
  async inspectContainer(id: string): Promise<ContainerInspect | undefined> {
    try {
      return await this.call<ContainerInspect>('GET', `/containers/${encodeURIComponent(id)}/json`);
    } catch (error) {
      if (error instanceof EngineResponseError && error.status === 404) return undefined;
      throw error;
    }
  }

  listContainers(labels: string[], all = true): Promise<ContainerSummary[]> {
    return this.call('GET', '/containers/json', { query: { all: String(all), filters: JSON.stringify({ label: labels }) } });
  }

  /** The memory a running container uses now (the engine's one-shot stats); undefined when it is gone or has no figure. */
  async containerMemoryUsage(id: string): Promise<number | undefined> {
    try {
      const stats = await this.call<{ memory_stats?: { usage?: number } }>('GET', `/containers/${encodeURIComponent(id)}/stats`, { query: { stream: 'false', 'one-shot': 'true' } });
      return stats.memory_stats?.usage;
    } catch (error) {
      if (error instanceof EngineResponseError && (error.status === 404 || error.status === 409)) return undefined;
      throw error;
    }
  }

  /** Removes a container (killing it first); false when there was none. */
  async removeContainer(id: string): Promise<boolean> {
    try {
      await this.call('DELETE', `/containers/${encodeURIComponent(id)}`, { query: { force: 'true', v: 'true' } });
      return true;
    } catch (error) {
      if (error instanceof EngineResponseError && error.status === 404) return false;
      // Docker answers 409 while it is already removing the container.
      if (error instanceof EngineResponseError && error.status === 409 && /removal.*in progress|already in progress/i.test(error.engineMessage)) return true;
      throw error;
    }
  }

  /** The processes of a running container (`ps` as the engine runs it). */
  top(id: string): Promise<{ Titles: string[]; Processes: string[][] }> {
    return this.call('GET', `/containers/${encodeURIComponent(id)}/top`);
  }

  /**
   * Runs argv in a container and returns its output and exit code. Aborting `signal` stops waiting (the process
   * in the box goes on: the caller ends it).
   */
  async exec(id: string, argv: string[], options: { env?: string[]; cwd?: string; user?: string; privileged?: boolean; signal?: AbortSignal } = {}): Promise<ExecOutput> {
    const created = await this.call<{ Id: string }>('POST', `/containers/${encodeURIComponent(id)}/exec`, {
      json: {
        AttachStdout: true,
        AttachStderr: true,
        Cmd: argv,
        ...(options.env === undefined ? {} : { Env: options.env }),
        ...(options.cwd === undefined ? {} : { WorkingDir: options.cwd }),
        ...(options.user === undefined ? {} : { User: options.user }),
        ...(options.privileged === true ? { Privileged: true } : {}),
      },
      signal: options.signal,
    });
    const response = await this.send('POST', `/exec/${created.Id}/start`, { json: { Detach: false, Tty: false }, signal: options.signal });
    if (response.statusCode >= 300) throw new EngineResponseError(response.statusCode, engineMessage(await response.body.text()));
    const demuxer = new StreamDemuxer();
    for await (const chunk of response.body) demuxer.push(chunk as Buffer);
    const inspected = await this.call<{ ExitCode: number | null; Running: boolean }>('GET', `/exec/${created.Id}/json`);
    return { ...demuxer.result(), exitCode: inspected.Running ? null : inspected.ExitCode };
  }

  /** Pulls an image from its registry; throws EngineResponseError with the registry's answer when it cannot. */
  async pullImage(image: string, signal?: AbortSignal): Promise<void> {
    const response = await this.send('POST', '/images/create', { query: { fromImage: image }, signal });
    const text = await response.body.text();
    if (response.statusCode >= 300) throw new EngineResponseError(response.statusCode, engineMessage(text));
    // The answer is a stream of JSON progress lines; a failed pull says so in one of them.
    for (const line of text.split('\n')) {
      if (!line.trim().startsWith('{')) continue;
      const progress = JSON.parse(line) as { error?: string; errorDetail?: { message?: string } };
      const failure = progress.errorDetail?.message ?? progress.error;
      if (failure !== undefined && failure !== '') throw new EngineResponseError(500, failure.trim());
    }
  }

  /** Writes a tar archive into a container, extracting it in `directory` (which must exist). */
  async putArchive(id: string, directory: string, archive: Buffer): Promise<void> {
    await this.call('PUT', `/containers/${encodeURIComponent(id)}/archive`, { query: { path: directory }, body: archive });
  }

  /** A tar archive of `path` in a container; undefined when there is no such path. */
  async getArchive(id: string, path: string): Promise<Buffer | undefined> {
    const response = await this.send('GET', `/containers/${encodeURIComponent(id)}/archive`, { query: { path } });
    if (response.statusCode === 404) {
      const message = engineMessage(await response.body.text());
      if (/no such container/i.test(message)) throw new EngineResponseError(404, message);
      return undefined;
    }
    if (response.statusCode >= 300) throw new EngineResponseError(response.statusCode, engineMessage(await response.body.text()));
    return Buffer.from(await response.body.arrayBuffer());
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}

/** Splits the engine's multiplexed exec stream (8-byte frame headers: stream, 0, 0, 0, length) into stdout and stderr. */
class StreamDemuxer {
  private pending: Buffer = Buffer.alloc(0);
  private readonly streams = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
  private readonly sizes = { stdout: 0, stderr: 0 };
  private truncated = false;

  push(chunk: Buffer): void {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    while (this.pending.length >= 8) {
      const length = this.pending.readUInt32BE(4);
      if (this.pending.length < 8 + length) return;
      const stream = this.pending[0] === 2 ? 'stderr' : 'stdout';
      this.keep(stream, this.pending.subarray(8, 8 + length));
      this.pending = this.pending.subarray(8 + length);
    }
  }

  private keep(stream: 'stdout' | 'stderr', data: Buffer): void {
    const room = MAX_EXEC_OUTPUT_BYTES - this.sizes[stream];
    if (data.length > room) this.truncated = true;
    const kept = data.length > room ? data.subarray(0, Math.max(0, room)) : data;
    if (kept.length === 0) return;
    // Copied: the frame is a view into a buffer that is about to be dropped or concatenated.
    this.streams[stream].push(Buffer.from(kept));
    this.sizes[stream] += kept.length;
  }

  result(): { stdout: string; stderr: string } {
    const note = this.truncated ? `\n[ngym: output beyond ${MAX_EXEC_OUTPUT_BYTES / 1024 ** 2} MiB per stream was dropped]\n` : '';
    return { stdout: Buffer.concat(this.streams.stdout).toString('utf8'), stderr: Buffer.concat(this.streams.stderr).toString('utf8') + note };
  }
}
