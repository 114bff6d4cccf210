/**
 * ngym's OpenSandbox-compatible server: the subset of OpenSandbox's lifecycle API (`/v1/sandboxes`, as
 * `opensandbox-server` 1.1.1 serves it) that the `opensandbox` SDK and upstream NeMo Gym's OpenSandboxProvider use,
 * backed by one of ngym's sandbox providers (the docker provider by default), so a cluster without OpenSandbox runs
 * configs that name it (`ngym sandbox opensandbox-server`). Every endpoint it hands out is its own proxy path
 * (`{host}/v1/sandboxes/{id}/proxy/{port}`), where execd is served in this process through the provider
 * (execd-routes.ts): no daemon runs in the box. What it cannot do (pause, snapshots, network policy, PVC volumes, ports
 * of services in the box) it refuses by name. docs/sandbox.md, "OpenSandbox".
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Context, Hono } from 'hono';
import * as z from 'zod';
import { describeValidationError, parseReportingInput } from '../../protocol/validation.ts';
import { bindServer } from '../../server/serve.ts';
import type { SandboxHandle, SandboxProvider, SandboxResources, SandboxSpecInput } from '../providers/contract.ts';
import { SandboxProviderError } from '../providers/contract.ts';
import { API_KEY_HEADER, EXECD_PORT, KEEP_ALIVE_ENTRYPOINT, proxyPath } from '../providers/opensandbox/wire.ts';
import { OpenSandboxApiError } from './api-error.ts';
import { type ExecdBox, ExecdService } from './execd-routes.ts';

const HostVolume = z.strictObject({ path: z.string().min(1) });
const Volume = z.object({
  name: z.string().min(1),
  host: HostVolume.nullish(),
  pvc: z.unknown().optional(),
  ossfs: z.unknown().optional(),
  mountPath: z.string().min(1),
  readOnly: z.boolean().optional(),
  subPath: z.string().nullish(),
});

const CreateSandboxRequest = z.object({
  image: z.object({ uri: z.string().min(1), auth: z.unknown().optional() }).nullish(),
  snapshotId: z.string().nullish(),
  templateId: z.string().nullish(),
  platform: z.unknown().optional(),
  /** Seconds until the box ends (null: until deleted). */
  timeout: z.number().int().positive().nullish(),
  resourceLimits: z.record(z.string(), z.string()).nullish(),
  resourceRequests: z.record(z.string(), z.string()).nullish(),
  env: z.record(z.string(), z.string().nullable()).nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
  lifecycle: z.unknown().optional(),
  entrypoint: z.array(z.string()).min(1).nullish(),
  networkPolicy: z.unknown().optional(),
  credentialProxy: z.unknown().optional(),
  secureAccess: z.boolean().optional(),
  volumes: z.array(Volume).nullish(),
  extensions: z.record(z.string(), z.string()).nullish(),
});
type CreateSandboxRequest = z.infer<typeof CreateSandboxRequest>;

interface ServedBox extends ExecdBox {
  id: string;
  image: string;
  entrypoint: string[];
  metadata: Record<string, string>;
  createdAt: Date;
  expiresAt: Date | null;
  expiryTimer?: NodeJS.Timeout;
}

export interface OpenSandboxServerOptions {
  /** Holds the boxes (its `aclose` ends them when the server stops). */
  provider: SandboxProvider;
  /** When set, every request must carry it in OPEN-SANDBOX-API-KEY. */
  apiKey?: string | null;
  /** The base clients reach this server at (with its mount prefix), for endpoints; default: what each request came to. */
  publicUrl?: string | null;
}

/** Kubernetes quantities ("2", "500m", "512Mi", "2Gi", "1G") read into a spec's resources. */
function cpuOf(value: string): number {
  const milli = /^(\d+)m$/.exec(value);
  const cores = milli ? Number(milli[1]) / 1000 : Number(value);
  if (!Number.isFinite(cores) || cores <= 0) throw new OpenSandboxApiError(400, 'INVALID_PARAMETER', `resourceLimits.cpu ${JSON.stringify(value)} is not a CPU quantity (e.g. "2" or "500m").`);
  return cores;
}

const BYTE_UNITS: Record<string, number> = { '': 1, K: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4 };
function bytesOf(value: string, key: string): number {
  const match = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|K|M|G|T|)$/.exec(value);
  if (!match) throw new OpenSandboxApiError(400, 'INVALID_PARAMETER', `resourceLimits.${key} ${JSON.stringify(value)} is not a size (e.g. "512Mi" or "2Gi").`);
  return Number(match[1]) * (BYTE_UNITS[match[2] as string] as number);
}

function resourcesOf(limits: Record<string, string>): SandboxResources {
  const resources: SandboxResources = {};
  for (const [key, value] of Object.entries(limits)) {
    if (key === 'cpu') resources.cpu = cpuOf(value);
    else if (key === 'memory') resources.memory_mib = Math.max(1, Math.ceil(bytesOf(value, key) / 1024 ** 2));
    else if (key === 'ephemeral-storage') resources.disk_gib = Math.max(1, Math.ceil(bytesOf(value, key) / 1024 ** 3));
    else if (key === 'gpu' || key === 'nvidia.com/gpu') resources.gpu = Number(value);
    else if (key === 'gpu_type') resources.gpu_type = value;
    else throw new OpenSandboxApiError(400, 'INVALID_PARAMETER', `resourceLimits.${key} is not a resource ngym's OpenSandbox-compatible server knows (cpu, memory, ephemeral-storage, gpu, gpu_type).`);
  }
  return resources;
}

/** The request as a provider spec; what ngym cannot honour is refused by name. */
function specOf(request: CreateSandboxRequest): SandboxSpecInput {
  const refuse = (what: string, why: string) => new OpenSandboxApiError(400, 'INVALID_PARAMETER', `ngym's OpenSandbox-compatible server does not support ${what}: ${why} (docs/sandbox.md, "OpenSandbox").`);
  if (request.snapshotId) throw refuse('snapshotId', 'it has no snapshots; build the image instead (ngym sandbox image build)');
  if (request.templateId) throw refuse('templateId', 'it has no templates; name an image');
  if (request.lifecycle !== undefined && request.lifecycle !== null) throw refuse('lifecycle hooks', 'run the command after create instead');
  if (request.networkPolicy !== undefined && request.networkPolicy !== null) throw refuse('networkPolicy', "a box's network is the docker provider's create.network");
  if (request.credentialProxy !== undefined && request.credentialProxy !== null) throw refuse('credentialProxy', 'it has no credential proxy');
  if (request.secureAccess) throw refuse('secureAccess', 'it has no signed routes');
  if (request.platform !== undefined && request.platform !== null) throw refuse('platform', "boxes run on the engine's own platform");
  if (request.image?.auth !== undefined && request.image.auth !== null) throw refuse('image.auth', 'images come from the engine (ngym sandbox image build or pull)');
  if (!request.image) throw new OpenSandboxApiError(400, 'INVALID_PARAMETER', 'A sandbox needs image.uri.');
  const volumes = (request.volumes ?? []).map((volume) => {
    if (!volume.host) throw refuse(`volume '${volume.name}'`, 'only host volumes are served (no pvc, no ossfs)');
    const source = volume.subPath ? join(volume.host.path, volume.subPath) : volume.host.path;
    return `${source}:${volume.mountPath}${volume.readOnly ? ':ro' : ''}`;
  });
  const entrypoint = request.entrypoint ?? KEEP_ALIVE_ENTRYPOINT;
  const keepAlive = entrypoint.join(' ') === KEEP_ALIVE_ENTRYPOINT.join(' ');
  return {
    image: request.image.uri,
    env: Object.fromEntries(Object.entries(request.env ?? {}).filter((entry): entry is [string, string] => entry[1] !== null)),
    metadata: request.metadata ?? {},
    resources: resourcesOf(request.resourceLimits ?? {}),
    // The SDK's default entrypoint just keeps the box up, which the provider's keep-alive does already.
    ...(keepAlive ? {} : { entrypoint }),
    ...(volumes.length > 0 ? { provider_options: { volumes } } : {}),
  };
}

/** The longest a Node timer waits (about 24.8 days); a later expiry is re-armed when this one fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

class OpenSandboxServer {
  readonly app = new Hono();
  private readonly boxes = new Map<string, ServedBox>();
  private readonly provider: SandboxProvider;
  private readonly apiKey: string | null;
  private readonly publicUrl: string | null;
  private execd: ExecdService | undefined;
  private scratch: string | undefined;

  constructor(options: OpenSandboxServerOptions) {
    this.provider = options.provider;
    this.apiKey = options.apiKey ?? null;
    this.publicUrl = options.publicUrl?.replace(/\/+$/, '') ?? null;
    this.app.onError((error, context) => {
      if (error instanceof OpenSandboxApiError) return context.json({ code: error.apiCode, message: error.message }, error.httpStatus as 400);
      if (error instanceof SandboxProviderError) {
        const status = error.reason === 'not_found' ? 404 : error.reason === 'image_missing' || error.reason === 'transfer_failed' ? 400 : error.reason === 'unsupported' ? 501 : 503;
        return context.json({ code: `SANDBOX_${error.reason.toUpperCase()}`, message: error.message }, status);
      }
      const status = (error as { status?: unknown }).status;
      return context.json({ code: 'INTERNAL_ERROR', message: (error as Error).message }, typeof status === 'number' && status >= 400 && status < 500 ? (status as 400) : 500);
    });
    this.app.notFound((context) => context.json({ code: 'NOT_FOUND', message: `ngym's OpenSandbox-compatible server has no ${context.req.method} ${new URL(context.req.url).pathname}.` }, 404));
    this.app.use('*', async (context, next) => {
      if (this.apiKey !== null && context.req.header(API_KEY_HEADER) !== this.apiKey) {
        return context.json({ code: 'UNAUTHORIZED', message: `Missing or wrong ${API_KEY_HEADER} header.` }, 401);
      }
      await next();
    });
    // Served both under /v1 (the SDK's base) and bare, as the real server.
    for (const prefix of ['/v1', '']) this.routes(prefix);
  }

  private routes(prefix: string): void {
    const app = this.app;
    app.post(`${prefix}/sandboxes`, (context) => this.create(context));
    app.get(`${prefix}/sandboxes`, (context) => this.list(context));
    app.get(`${prefix}/sandboxes/:id`, async (context) => context.json(await this.describe(this.box(context.req.param('id')))));
    app.delete(`${prefix}/sandboxes/:id`, async (context) => {
      await this.remove(this.box(context.req.param('id')));
      return context.body(null, 204);
    });
    app.patch(`${prefix}/sandboxes/:id/metadata`, async (context) => {
      const box = this.box(context.req.param('id'));
      const patch = (await context.req.json().catch(() => undefined)) as unknown;
      if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) throw new OpenSandboxApiError(400, 'INVALID_PARAMETER', 'A metadata patch is a JSON object (null deletes a key).');
      for (const [key, value] of Object.entries(patch)) {
        if (value === null) delete box.metadata[key];
        else box.metadata[key] = String(value);
      }
      return context.json(await this.describe(box));
    });
    app.post(`${prefix}/sandboxes/:id/renew-expiration`, async (context) => {
      const box = this.box(context.req.param('id'));
      const body = (await context.req.json().catch(() => undefined)) as { expiresAt?: unknown } | undefined;
      const expiresAt = typeof body?.expiresAt === 'string' ? new Date(body.expiresAt) : new Date(Number.NaN);
      if (Number.isNaN(expiresAt.getTime())) throw new OpenSandboxApiError(400, 'INVALID_PARAMETER', 'renew-expiration needs expiresAt, an RFC 3339 time.');
      this.expireAt(box, expiresAt);
      return context.json({ expiresAt: expiresAt.toISOString() });
    });
    for (const action of ['pause', 'resume']) {
      app.post(`${prefix}/sandboxes/:id/${action}`, (context) => {
        this.box(context.req.param('id'));
        throw new OpenSandboxApiError(501, 'NOT_IMPLEMENTED', `ngym's OpenSandbox-compatible server does not ${action} sandboxes (its boxes have no checkpoint); close the box and create another.`);
      });
    }
    app.get(`${prefix}/sandboxes/:id/endpoints/:port`, (context) => {
      const box = this.box(context.req.param('id'));
      const port = Number(context.req.param('port'));
      if (!Number.isInteger(port) || port < 1 || port > 65535) throw new OpenSandboxApiError(400, 'INVALID_PARAMETER', `Port ${context.req.param('port')} is not a TCP port.`);
      if (context.req.query('expires') !== undefined) throw new OpenSandboxApiError(400, 'INVALID_PARAMETER', "ngym's OpenSandbox-compatible server has no signed endpoints (expires=).");
      // Direct or not, the way to a box is this server's proxy: nothing in the box listens for execd. A client
      // asking for a direct endpoint sends no API key there (a real one is the box), so the endpoint carries it.
      const url = new URL(context.req.url);
      const base = this.publicUrl ?? `${url.protocol}//${url.host}${prefix}`;
      const direct = context.req.query('use_server_proxy') !== 'true';
      return context.json({ endpoint: `${base.replace(/^https?:\/\//, '')}${proxyPath(box.id, port)}`, ...(direct && this.apiKey !== null ? { headers: { [API_KEY_HEADER]: this.apiKey } } : {}) });
    });
    app.all(`${prefix}/sandboxes/:id/proxy/:port/*`, (context) => this.proxy(context, prefix));
  }

  private box(id: string): ServedBox {
    const box = this.boxes.get(id);
    if (box === undefined) throw new OpenSandboxApiError(404, 'SANDBOX_NOT_FOUND', `No sandbox ${id} on this server.`);
    return box;
  }

  private async create(context: Context): Promise<Response> {
    const parsed = parseReportingInput(CreateSandboxRequest, await context.req.json().catch(() => undefined));
    if (!parsed.success) throw new OpenSandboxApiError(400, 'INVALID_PARAMETER', `Invalid sandbox request: ${describeValidationError(parsed.error)}`);
    const request = parsed.data;
    const spec = specOf(request);
    const handle: SandboxHandle = await this.provider.create(spec);
    const box: ServedBox = {
      id: handle.sandbox_id,
      handle,
      image: request.image?.uri as string,
      entrypoint: request.entrypoint ?? KEEP_ALIVE_ENTRYPOINT,
      metadata: { ...request.metadata },
      createdAt: new Date(),
      expiresAt: null,
      commands: new Map(),
    };
    this.boxes.set(box.id, box);
    if (request.timeout) this.expireAt(box, new Date(Date.now() + request.timeout * 1000));
    return context.json(await this.describe(box, 'Running'), 202);
  }

  private expireAt(box: ServedBox, expiresAt: Date): void {
    clearTimeout(box.expiryTimer);
    box.expiresAt = expiresAt;
    const wait = expiresAt.getTime() - Date.now();
    box.expiryTimer = setTimeout(
      () => {
        if (Date.now() < expiresAt.getTime()) this.expireAt(box, expiresAt);
        else void this.remove(box).catch(() => undefined);
      },
      Math.min(Math.max(0, wait), MAX_TIMER_MS),
    );
    box.expiryTimer.unref();
  }

  private async remove(box: ServedBox): Promise<void> {
    clearTimeout(box.expiryTimer);
    this.boxes.delete(box.id);
    await this.provider.close(box.handle);
  }

  private async describe(box: ServedBox, knownState?: string): Promise<Record<string, unknown>> {
    const state = knownState ?? STATE_NAMES[await this.provider.status(box.handle)];
    return {
      id: box.id,
      image: { uri: box.image },
      status: { state, lastTransitionAt: box.createdAt.toISOString() },
      metadata: box.metadata,
      entrypoint: box.entrypoint,
      ...(box.expiresAt === null ? {} : { expiresAt: box.expiresAt.toISOString() }),
      createdAt: box.createdAt.toISOString(),
    };
  }

  private async list(context: Context): Promise<Response> {
    const states = context.req.queries('state')?.map((state) => state.toLowerCase()) ?? [];
    const metadata = new URLSearchParams(context.req.query('metadata') ?? '');
    const page = Math.max(1, Number(context.req.query('page') ?? 1) || 1);
    const pageSize = Math.max(1, Number(context.req.query('pageSize') ?? 20) || 20);
    const described = await Promise.all([...this.boxes.values()].map((box) => this.describe(box)));
    const matching = described.filter((item) => {
      const state = String((item.status as { state: string }).state).toLowerCase();
      if (states.length > 0 && !states.includes(state)) return false;
      return [...metadata.entries()].every(([key, value]) => (item.metadata as Record<string, string>)[key] === value);
    });
    const totalPages = Math.ceil(matching.length / pageSize);
    return context.json({
      items: matching.slice((page - 1) * pageSize, page * pageSize),
      pagination: { page, pageSize, totalItems: matching.length, totalPages, hasNextPage: page < totalPages },
    });
  }

  private async proxy(context: Context, prefix: string): Promise<Response> {
    const box = this.box(context.req.param('id') as string);
    const port = Number(context.req.param('port'));
    const path = new URL(context.req.url).pathname.slice(`${prefix}${proxyPath(box.id, port)}`.length) || '/';
    if (port !== EXECD_PORT) {
      throw new OpenSandboxApiError(501, 'NOT_IMPLEMENTED', `ngym's OpenSandbox-compatible server proxies only execd (port ${EXECD_PORT}), which it serves itself; port ${port} of sandbox ${box.id} is not reachable through it.`);
    }
    if (this.execd === undefined) {
      this.scratch = await mkdtemp(join(tmpdir(), 'ngym-opensandbox-server-'));
      this.execd = new ExecdService(this.provider, this.scratch);
    }
    return this.execd.handle(context, box, path);
  }

  /** Ends every box this server holds and the provider's connections. */
  async close(): Promise<void> {
    const boxes = [...this.boxes.values()];
    for (const box of boxes) clearTimeout(box.expiryTimer);
    this.boxes.clear();
    await Promise.all(boxes.map((box) => this.provider.close(box.handle).catch(() => undefined)));
    await this.provider.aclose();
    if (this.scratch !== undefined) await rm(this.scratch, { recursive: true, force: true });
  }
}

/** The provider's statuses as OpenSandbox's lifecycle states. */
const STATE_NAMES: Record<string, string> = { starting: 'Pending', running: 'Running', paused: 'Paused', stopped: 'Terminated', error: 'Failed', unknown: 'Unknown' };

export interface RunningOpenSandboxServer {
  /** `http://host:port` (the SDK's domain is `host:port`). */
  url: string;
  server: OpenSandboxServer;
  close(): Promise<void>;
}

/** Serves an OpenSandboxServer on host:port (port 0: a free one). */
export async function startOpenSandboxServer(options: OpenSandboxServerOptions & { host?: string; port?: number }): Promise<RunningOpenSandboxServer> {
  const server = new OpenSandboxServer(options);
  const bound = await bindServer({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
  bound.attach(server.app);
  return {
    url: bound.url,
    server,
    async close() {
      await bound.close(1_000);
      await server.close();
    },
  };
}
