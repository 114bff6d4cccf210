/**
 * The image half of the Docker Engine API (inspect, list, import, build, pull, tag) over the engine's socket, as
 * DOCKER_HOST names it. It works with Docker and with Podman's Docker-compatible service (the project's engine,
 * scripts/container-engine.sh). Imports and builds stream their input (a root file system, a build context) from
 * a child process's output and report the engine's progress lines as they come.
 */
import type { Readable } from 'node:stream';
import { Pool } from 'undici';
import { currentDockerHost, engineAddress, engineMessage } from '../engine-address.ts';
import { SandboxImageError } from './image-errors.ts';

export interface ImageInspect {
  Id: string;
  RepoTags: string[] | null;
  Created: string;
  Size: number;
  Config: { Labels: Record<string, string> | null; Cmd?: string[] | null; WorkingDir?: string; Env?: string[] | null } | null;
}

export interface ImageSummary {
  Id: string;
  RepoTags: string[] | null;
  Created: number;
  Size: number;
  Labels: Record<string, string> | null;
}

/** One line of an import's, build's or pull's progress, as the engine words it. */
export type ProgressListener = (line: string) => void;

export class ImageEngine {
  readonly dockerHost: string;
  /** The socket's path (unix engines), for error messages. */
  readonly socketPath: string | undefined;
  private readonly pool: Pool;

  constructor(dockerHost: string = currentDockerHost()) {
    this.dockerHost = dockerHost;
    const address = engineAddress(dockerHost);
    if (address === undefined) {
      throw new SandboxImageError('engine_unreachable', `DOCKER_HOST=${dockerHost} is not supported: use unix:///path/to/socket or tcp://host:port.`);
    }
    this.socketPath = address.socketPath;
    const origin = address.origin;
    // An import or a build may be silent for minutes (a large layer, a long RUN): only the caller's signal ends it.
    this.pool = new Pool(origin, { connections: 4, bodyTimeout: 0, headersTimeout: 0, ...(this.socketPath === undefined ? {} : { socketPath: this.socketPath }) });
  }

  private unreachable(cause: unknown): SandboxImageError {
    const detail = cause instanceof Error ? ((cause as NodeJS.ErrnoException).code ?? cause.message) : String(cause);
    return new SandboxImageError(
      'engine_unreachable',
      `Cannot reach the container engine at ${this.dockerHost} (${detail}). Start the project's engine (npm run setup:containers, or scripts/container-engine.sh start) or a Docker daemon, and point DOCKER_HOST at its socket; see docs/sandbox.md, "Container engine".`,
      cause,
    );
  }

  private async send(method: 'GET' | 'POST' | 'DELETE', path: string, options: { query?: Record<string, string | string[]>; body?: Readable | string; contentType?: string; signal?: AbortSignal } = {}) {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(options.query ?? {})) for (const item of Array.isArray(value) ? value : [value]) search.append(key, item);
    const query = search.size === 0 ? '' : `?${search.toString()}`;
    try {
      return await this.pool.request({
        method,
        path: `${path}${query}`,
        headers: options.contentType === undefined ? {} : { 'content-type': options.contentType },
        body: options.body,
        signal: options.signal,
      });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw this.unreachable(error);
    }
  }

  private async json<T>(method: 'GET' | 'POST' | 'DELETE', path: string, query?: Record<string, string>): Promise<{ status: number; value: T | undefined; message: string }> {
    const response = await this.send(method, path, { query });
    const text = await response.body.text();
    if (response.statusCode >= 300) return { status: response.statusCode, value: undefined, message: engineMessage(text) };
    // Podman answers some calls (a tag) with a bare newline.
    return { status: response.statusCode, value: (text.trim() === '' ? undefined : JSON.parse(text)) as T, message: '' };
  }

  /** Checks that the engine answers; throws engine_unreachable naming DOCKER_HOST when it does not. */
  async ping(): Promise<void> {
    const response = await this.send('GET', '/_ping');
    const text = await response.body.text();
    if (response.statusCode !== 200) throw this.unreachable(new Error(`/_ping answered HTTP ${response.statusCode}: ${text.trim()}`));
  }

  /** The image's inspect answer; undefined when the engine has no image of that name. */
  async inspectImage(name: string): Promise<ImageInspect | undefined> {
    const answer = await this.json<ImageInspect>('GET', `/images/${encodeURIComponent(name)}/json`);
    if (answer.status === 404) return undefined;
    if (answer.value === undefined) throw new SandboxImageError('engine_failed', `Inspecting the image ${name} failed on ${this.dockerHost}: ${answer.message}`);
    return answer.value;
  }

  async listImages(): Promise<ImageSummary[]> {
    const answer = await this.json<ImageSummary[]>('GET', '/images/json');
    if (answer.value === undefined) throw new SandboxImageError('engine_failed', `Listing images failed on ${this.dockerHost}: ${answer.message}`);
    return answer.value;
  }

  /** Gives `source` (a name or id) the name `reference` too. */
  async tagImage(source: string, reference: string): Promise<void> {
    const { repository, tag } = splitReference(reference);
    const answer = await this.json('POST', `/images/${encodeURIComponent(source)}/tag`, { repo: repository, tag });
    if (answer.status >= 300) throw new SandboxImageError('engine_failed', `Tagging ${source} as ${reference} failed on ${this.dockerHost}: ${answer.message}`);
  }

  /** Removes an image by name or id (unforced: not while a container or another name uses it); false when there was none. */
  async removeImage(name: string, force = true): Promise<boolean> {
    const answer = await this.json('DELETE', `/images/${encodeURIComponent(name)}`, { force: String(force) });
    if (answer.status === 404) return false;
    if (answer.status >= 300) throw new SandboxImageError('engine_failed', `Removing the image ${name} failed on ${this.dockerHost}: ${answer.message}`);
    return true;
  }

  /**
   * Imports a root file system (an uncompressed tar stream) as the image `reference`, with Dockerfile-style
   * `changes` (LABEL, ENV, CMD, WORKDIR) applied to its config.
   */
  async importImage(rootfs: Readable, reference: string, changes: string[], progress: ProgressListener = () => {}): Promise<void> {
    // The whole reference goes in `repo`: Podman 4.3 ignores `tag` on import (the image became `:latest`).
    const response = await this.send('POST', '/images/create', { query: { fromSrc: '-', repo: reference, changes }, body: rootfs, contentType: 'application/x-tar' });
    let imported: string | undefined;
    await followProgress(
      response,
      (line) => {
        if (/^sha256:[0-9a-f]{64}$/.test(line)) imported = line;
        progress(line);
      },
      (message) => new SandboxImageError('build_failed', `Importing ${reference} into ${this.dockerHost} failed: ${message}`),
    );
    if ((await this.inspectImage(reference)) !== undefined) return;
    if (imported === undefined) throw new SandboxImageError('build_failed', `The engine at ${this.dockerHost} imported ${reference} without error but has no image of that name.`);
    await this.tagImage(imported.slice('sha256:'.length, 'sha256:'.length + 12), reference);
  }

  /**
   * Builds an image from a build context (an uncompressed tar stream holding the Dockerfile at `dockerfile`),
   * tagged `reference`, with `labels`. Base images the Dockerfile names are used from the engine when present.
   */
  async build(context: Readable, options: { reference: string; dockerfile: string; labels: Record<string, string>; buildArgs?: Record<string, string> }, progress: ProgressListener = () => {}): Promise<void> {
    const response = await this.send('POST', '/build', {
      query: {
        t: options.reference,
        dockerfile: options.dockerfile,
        labels: JSON.stringify(options.labels),
        buildargs: JSON.stringify(options.buildArgs ?? {}),
        rm: '1',
        forcerm: '1',
      },
      body: context,
      contentType: 'application/x-tar',
    });
    await followProgress(response, progress, (message) => new SandboxImageError('build_failed', `Building ${options.reference} failed: ${message}`));
  }

  /** Pulls an image from its registry; the error names the image and the registry. */
  async pullImage(reference: string, progress: ProgressListener = () => {}): Promise<void> {
    const response = await this.send('POST', '/images/create', { query: { fromImage: reference } });
    await followProgress(response, progress, (message) => new SandboxImageError('pull_failed', `Pulling ${reference} from ${registryOf(reference)} failed: ${message}`));
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}

/** Repository and tag of a reference (`name:tag`; a digest reference keeps its digest in the repository). */
function splitReference(reference: string): { repository: string; tag: string } {
  if (reference.includes('@')) return { repository: reference, tag: '' };
  const slash = reference.lastIndexOf('/');
  const colon = reference.lastIndexOf(':');
  return colon > slash ? { repository: reference.slice(0, colon), tag: reference.slice(colon + 1) } : { repository: reference, tag: 'latest' };
}

/** The registry a reference pulls from: its first component when that names a host, else Docker Hub. */
export function registryOf(reference: string): string {
  const first = reference.split('/')[0] ?? '';
  return reference.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost') ? first : 'docker.io';
}

/**
 * Reads an import's, build's or pull's answer: JSON progress lines, any of which may carry the failure (the HTTP
 * status is 200 once the stream has begun).
 */
async function followProgress(response: Awaited<ReturnType<Pool['request']>>, progress: ProgressListener, failure: (message: string) => SandboxImageError): Promise<void> {
  if (response.statusCode >= 300) throw failure(engineMessage(await response.body.text()));
  let pending = '';
  let error: string | undefined;
  const take = (line: string) => {
    if (line.trim() === '') return;
    let parsed: { stream?: string; status?: string; progress?: string; error?: string; errorDetail?: { message?: string } };
    try {
      parsed = JSON.parse(line) as typeof parsed;
    } catch {
      progress(line);
      return;
    }
    const message = parsed.errorDetail?.message ?? parsed.error;
    if (message !== undefined && message !== '') error = message.trim();
    const text = parsed.stream ?? (parsed.status === undefined ? undefined : `${parsed.status}${parsed.progress === undefined ? '' : ` ${parsed.progress}`}`);
    for (const part of (text ?? '').split('\n')) if (part.trim() !== '') progress(part.trimEnd());
  };
  for await (const chunk of response.body) {
    pending += (chunk as Buffer).toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) take(line);
  }
  take(pending);
  if (error !== undefined) throw failure(error);
}

