/**
 * The `opensandbox` sandbox provider: a client of an OpenSandbox server (Alibaba's, or ngym's compatible one,
 * `ngym sandbox opensandbox-server`). Boxes are made, renewed, described and deleted through the lifecycle API
 * (`/v1/sandboxes`, header OPEN-SANDBOX-API-KEY); commands and files go to execd, the box's daemon, at the endpoint
 * the server gives for port 44772: directly, or through the server's proxy with `connection.use_server_proxy`
 * (then the API key goes along, as upstream sends it). Commands stream as server-sent events, or with
 * `operations.background_exec` are started in the background and polled (status, then logs), for load balancers
 * that cut long streams.
 *
 * Upstream 0.7.0's config keys and semantics (nemo_gym/sandbox/providers/opensandbox/provider.py): the same create
 * body (the SDK's defaults: 10 min lifetime, 1 cpu and 2Gi when the spec names no resources, the image pull policy
 * as extensions), the readiness probe, job attribution in the metadata, a command's output as execd's lines joined
 * with newlines, a command that could not finish as 125. Beyond upstream: the spec's `workdir` is the default cwd
 * and the base of relative paths, its `files` are written at create, a timed-out command is `error_type: timeout`
 * when the server says so, and `max_sandboxes` bounds the boxes held.
 */
import { readFile, mkdir, writeFile } from 'node:fs/promises';
import { dirname, posix } from 'node:path';
import { Agent, fetch, FormData, type Response } from 'undici';
import { ConfigError } from '../../../errors.ts';
import { BoxSlots } from '../box-slots.ts';
import {
  boxPath,
  parseSandboxSpec,
  runtimeFailure,
  SANDBOX_RUNTIME_RETURN_CODE,
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
import type { ProviderRuntimeOptions } from '../docker/docker-provider.ts';
import { attributionMetadata, camelCaseKeys, labelValue, type OpenSandboxProviderConfig, parseOpenSandboxConfig, parseOpenSandboxProviderOptions, serverAddressOf } from './opensandbox-config.ts';
import { API_KEY_HEADER, EXECD_PORT, type ExecdEvent, KEEP_ALIVE_ENTRYPOINT, neutralStatus, resourceLimitsOf, TIMEOUT_ERROR_NAME } from './wire.ts';

/** What an opensandbox handle holds (`handle.raw`). */
export interface OpenSandboxBox {
  id: string;
  /** execd's base URL (direct, or the server's proxy path). */
  execdUrl: string;
  /** Headers every execd call carries (the endpoint's own, and the API key through the proxy). */
  execdHeaders: Record<string, string>;
  /** The default cwd and the base of relative paths (the spec's workdir), or null: execd's own. */
  workdir: string | null;
}

/** The SDK's defaults when a spec leaves them out. */
const DEFAULT_LIFETIME_S = 600;
const DEFAULT_READY_TIMEOUT_S = 30;
const DEFAULT_RESOURCES = { cpu: '1', memory: '2Gi' };
/** How often readiness (execd's /ping) is polled at create, as the SDK does. */
const HEALTH_POLL_S = 0.2;
const RETRYABLE_STATUSES = new Set([408, 409, 425, 429, 500, 502, 503, 504]);
/** The client's own bound on a command beyond its timeout, for a server that never answers (upstream: timeout + 60 s). */
const COMMAND_GRACE_S = 60;

/** An answer of the server other than success. */
class OpenSandboxHttpError extends SandboxProviderError {
  constructor(
    readonly httpStatus: number,
    what: string,
    body: string,
  ) {
    const detail = (() => {
      try {
        const parsed = JSON.parse(body) as { message?: unknown; detail?: unknown };
        return String(parsed.message ?? (typeof parsed.detail === 'object' ? JSON.stringify(parsed.detail) : parsed.detail) ?? body);
      } catch {
        return body.slice(0, 500);
      }
    })();
    super(httpStatus === 404 ? 'not_found' : httpStatus === 501 ? 'unsupported' : RETRYABLE_STATUSES.has(httpStatus) ? 'create_failed' : 'transfer_failed', `${what}: the OpenSandbox server answered ${httpStatus}: ${detail}`);
  }
}

const sleep = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));
const backoff = (attempt: number, first: number, max: number) => Math.min(max, first * 2 ** attempt);
const isRetryable = (error: unknown) => !(error instanceof OpenSandboxHttpError) || RETRYABLE_STATUSES.has(error.httpStatus);
const shellQuote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

/** Server-sent events of a response body: each event's `data:` lines joined, parsed as JSON. */
async function* sseEvents(response: Response): AsyncGenerator<ExecdEvent> {
  if (response.body === null) return;
  const decoder = new TextDecoder();
  let buffer = '';
  const flush = function* (final: boolean) {
    const blocks = buffer.split(/\r?\n\r?\n/);
    buffer = final ? '' : (blocks.pop() ?? '');
    for (const block of blocks) {
      const data = block
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data.trim() === '') continue;
      try {
        yield JSON.parse(data) as ExecdEvent;
      } catch {
        // Not an event of execd's (a comment or keep-alive): skipped, as the SDK does.
      }
    }
  };
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk as Uint8Array, { stream: true });
    yield* flush(false);
  }
  buffer += decoder.decode();
  yield* flush(true);
}

export class OpenSandboxProvider implements SandboxProvider<OpenSandboxBox> {
  readonly name = 'opensandbox';
  readonly config: OpenSandboxProviderConfig;
  /** The lifecycle API's base: `<protocol>://<domain>/v1`. */
  readonly apiUrl: string;
  private readonly protocol: 'http' | 'https';
  private readonly dispatcher: Agent;
  private readonly slots: BoxSlots;
  private readonly boxes = new Map<string, { handle: SandboxHandle<OpenSandboxBox>; renewal?: NodeJS.Timeout }>();

  constructor(config: unknown = {}, options: ProviderRuntimeOptions = {}) {
    this.config = parseOpenSandboxConfig(config);
    const address = serverAddressOf(this.config.connection);
    this.apiUrl = `${address.baseUrl}/v1`;
    this.protocol = address.protocol;
    const connection = this.config.connection;
    this.dispatcher = new Agent({
      connect: { rejectUnauthorized: connection.tls_verify },
      ...(connection.max_connections ? { connections: connection.max_connections } : {}),
      ...(connection.disable_connection_pooling ? { pipelining: 0, keepAliveTimeout: 1 } : connection.keepalive_expiry_s ? { keepAliveTimeout: connection.keepalive_expiry_s * 1000 } : {}),
    });
    this.slots = new BoxSlots(options.maxSandboxes);
  }

  private apiHeaders(): Record<string, string> {
    const key = this.config.connection.api_key;
    return key ? { [API_KEY_HEADER]: key } : {};
  }

  /** One HTTP call; a refusal is an OpenSandboxHttpError, an unreachable server `engine_unreachable`. */
  private async call(url: string, init: { method: string; headers?: Record<string, string>; body?: string | FormData; timeoutS?: number | null; what: string }): Promise<Response> {
    const timeoutS = init.timeoutS === undefined ? this.config.connection.request_timeout_s : init.timeoutS;
    let response: Response;
    try {
      response = await fetch(url, {
        method: init.method,
        headers: { ...(typeof init.body === 'string' ? { 'content-type': 'application/json' } : {}), ...init.headers },
        ...(init.body === undefined ? {} : { body: init.body }),
        dispatcher: this.dispatcher,
        ...(timeoutS ? { signal: AbortSignal.timeout(timeoutS * 1000) } : {}),
      });
    } catch (error) {
      const cause = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
      const timedOut = (error as Error).name === 'TimeoutError';
      throw new SandboxProviderError(timedOut ? 'create_timeout' : 'engine_unreachable', `${init.what}: ${timedOut ? `no answer from the OpenSandbox server in ${timeoutS} s` : `cannot reach the OpenSandbox server at ${url}: ${cause}`}.`, error);
    }
    if (!response.ok) throw new OpenSandboxHttpError(response.status, init.what, await response.text().catch(() => ''));
    return response;
  }

  /** A lifecycle call (JSON in and out), retried `operations.retries` times when idempotent and retryable. */
  private async lifecycle<T>(method: string, path: string, what: string, options: { body?: unknown; timeoutS?: number | null; retries?: number } = {}): Promise<T> {
    const retries = options.retries ?? (method === 'GET' ? this.config.operations.retries : 0);
    for (let attempt = 0; ; attempt++) {
      try {
        const response = await this.call(`${this.apiUrl}${path}`, {
          method,
          headers: this.apiHeaders(),
          ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
          ...(options.timeoutS === undefined ? {} : { timeoutS: options.timeoutS }),
          what,
        });
        const text = await response.text();
        return (text === '' ? undefined : JSON.parse(text)) as T;
      } catch (error) {
        if (attempt >= retries || !isRetryable(error)) throw error;
        await sleep(backoff(attempt, this.config.operations.retry_delay_s, this.config.operations.retry_max_delay_s));
      }
    }
  }

  /** Where port `port` of box `id` is reached, as the server says (with a scheme), and the headers it needs. */
  private async resolveEndpoint(id: string, port: number): Promise<SandboxEndpoint> {
    const proxy = this.config.connection.use_server_proxy;
    const answer = await this.lifecycle<{ endpoint?: string; headers?: Record<string, string> | null }>('GET', `/sandboxes/${encodeURIComponent(id)}/endpoints/${port}?use_server_proxy=${proxy}`, `Resolving port ${port} of OpenSandbox box ${id}`);
    const endpoint = String(answer?.endpoint ?? '');
    if (endpoint === '') throw new SandboxProviderError('unsupported', `The OpenSandbox server gave an empty endpoint for port ${port} of box ${id}.`);
    // Through the proxy the API key goes along (the server checks it there too); a direct endpoint, which runs
    // untrusted code, never sees it.
    return { endpoint: endpoint.includes('://') ? endpoint : `${this.protocol}://${endpoint.replace(/^\/+/, '')}`, headers: { ...(proxy ? this.apiHeaders() : {}), ...answer?.headers } };
  }

  async create(specInput: SandboxSpecInput | SandboxSpec): Promise<SandboxHandle<OpenSandboxBox>> {
    const spec = parseSandboxSpec(specInput);
    const options = parseOpenSandboxProviderOptions(spec.provider_options);
    const renewEvery = this.config.create.renew_interval_s;
    if (renewEvery !== null && renewEvery !== undefined && (spec.ttl_s === null || spec.ttl_s === undefined || renewEvery >= spec.ttl_s)) {
      throw new ConfigError('NGYM_CONFIG_INVALID', `opensandbox create.renew_interval_s (${renewEvery} s) needs a spec ttl_s longer than it (got ${spec.ttl_s ?? 'none'}).`);
    }
    if (!spec.image && !options.snapshot_id) throw new ConfigError('NGYM_CONFIG_INVALID', 'The opensandbox provider needs spec.image (or provider_options.snapshot_id).');
    const release = await this.slots.acquire();
    try {
      const handle = await this.createWithRetries(spec, options);
      this.slots.hold(handle.sandbox_id, release);
      const entry: { handle: SandboxHandle<OpenSandboxBox>; renewal?: NodeJS.Timeout } = { handle };
      if (renewEvery !== null && renewEvery !== undefined) {
        entry.renewal = setInterval(() => void this.renew(handle.sandbox_id, spec.ttl_s as number).catch(() => undefined), renewEvery * 1000);
        entry.renewal.unref();
      }
      this.boxes.set(handle.sandbox_id, entry);
      return handle;
    } catch (error) {
      release();
      throw error;
    }
  }

  private async createWithRetries(spec: SandboxSpec, options: ReturnType<typeof parseOpenSandboxProviderOptions>): Promise<SandboxHandle<OpenSandboxBox>> {
    const create = this.config.create;
    const totalS = create.timeout_s ?? this.config.connection.request_timeout_s ?? null;
    for (let attempt = 0; ; attempt++) {
      const controller = { id: undefined as string | undefined };
      try {
        const work = this.createOnce(spec, options, controller);
        if (totalS === null) return await work;
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new SandboxProviderError('create_timeout', `Timed out creating an OpenSandbox box after ${totalS} s (create.timeout_s); image ${spec.image ?? '(snapshot)'}.`)), totalS * 1000);
        });
        work.catch(() => undefined);
        try {
          return await Promise.race([work, timeout]);
        } finally {
          clearTimeout(timer);
        }
      } catch (error) {
        if (controller.id !== undefined) await this.deleteBox(controller.id).catch(() => undefined);
        if (attempt >= create.retries || !isRetryable(error) || error instanceof ConfigError) throw error;
        await sleep(backoff(attempt, create.retry_delay_s, create.retry_max_delay_s) * (0.5 + Math.random() / 2));
      }
    }
  }

  private createBody(spec: SandboxSpec, options: ReturnType<typeof parseOpenSandboxProviderOptions>): Record<string, unknown> {
    const metadata = { ...attributionMetadata(this.config.attribution), ...spec.metadata };
    const limits = resourceLimitsOf(spec.resources);
    // The SDK's default when a spec names no resources.
    const resourceLimits = Object.keys(limits).length > 0 ? limits : DEFAULT_RESOURCES;
    const pullPolicy = this.config.create.image_pull_policy;
    const body: Record<string, unknown> = {
      entrypoint: spec.entrypoint ?? KEEP_ALIVE_ENTRYPOINT,
      timeout: Math.ceil(spec.ttl_s ?? DEFAULT_LIFETIME_S),
      resourceLimits,
      env: spec.env,
      metadata: Object.fromEntries(Object.entries(metadata).map(([key, value]) => [key, labelValue(value)])),
      extensions: {
        ...(pullPolicy ? { imagePullPolicy: pullPolicy, 'opensandbox.extensions.image-pull-policy': pullPolicy } : {}),
        ...Object.fromEntries(Object.entries(options.extensions ?? {}).map(([key, value]) => [key, String(value)])),
      },
    };
    if (spec.image) body.image = { uri: spec.image.replace(/^docker:\/\//, ''), ...(options.image_auth ? { auth: options.image_auth } : {}) };
    if (options.snapshot_id) body.snapshotId = options.snapshot_id;
    if (options.resource_requests === 'limits') body.resourceRequests = resourceLimits;
    else if (options.resource_requests) body.resourceRequests = resourceLimitsOf(options.resource_requests as Parameters<typeof resourceLimitsOf>[0]);
    if (options.platform) body.platform = options.platform;
    if (options.network_policy) body.networkPolicy = camelCaseKeys(options.network_policy);
    if (options.volumes && options.volumes.length > 0) body.volumes = camelCaseKeys(options.volumes);
    return body;
  }

  private async createOnce(spec: SandboxSpec, options: ReturnType<typeof parseOpenSandboxProviderOptions>, created: { id: string | undefined }): Promise<SandboxHandle<OpenSandboxBox>> {
    const answer = await this.lifecycle<{ id?: string }>('POST', '/sandboxes', `Creating an OpenSandbox box of ${spec.image ?? '(snapshot)'}`, {
      body: this.createBody(spec, options),
      timeoutS: this.config.create.request_timeout_s ?? this.config.connection.request_timeout_s ?? null,
    });
    if (!answer?.id) throw new SandboxProviderError('create_failed', 'The OpenSandbox server answered the create without a sandbox id.');
    created.id = answer.id;
    const handle = await this.attach(answer.id, spec.workdir ?? null);
    const readyS = spec.ready_timeout_s ?? DEFAULT_READY_TIMEOUT_S;
    if (!(options.skip_health_check ?? this.config.create.skip_health_check)) await this.waitHealthy(handle.raw, readyS, HEALTH_POLL_S);
    await this.probe(handle);
    for (const [path, content] of Object.entries(spec.files)) await this.writeBytes(handle.raw, path, Buffer.from(content));
    return handle;
  }

  /** A handle on box `id`: its execd endpoint resolved. */
  private async attach(id: string, workdir: string | null): Promise<SandboxHandle<OpenSandboxBox>> {
    const execd = await this.resolveEndpoint(id, EXECD_PORT);
    return { sandbox_id: id, provider_name: this.name, raw: { id, execdUrl: execd.endpoint.replace(/\/+$/, ''), execdHeaders: execd.headers, workdir } };
  }

  /** Polls execd's /ping until it answers 200 (a 401/403 ends it at once: the key is wrong, waiting will not help). */
  private async waitHealthy(box: OpenSandboxBox, timeoutS: number, pollS: number): Promise<void> {
    const deadline = Date.now() + timeoutS * 1000;
    let last = 'no answer yet';
    while (Date.now() < deadline) {
      try {
        await this.call(`${box.execdUrl}/ping`, { method: 'GET', headers: box.execdHeaders, timeoutS: Math.max(1, Math.min(10, (deadline - Date.now()) / 1000)), what: `Health check of OpenSandbox box ${box.id}` });
        return;
      } catch (error) {
        if (error instanceof OpenSandboxHttpError && (error.httpStatus === 401 || error.httpStatus === 403)) throw error;
        last = (error as Error).message;
      }
      await sleep(pollS);
    }
    throw new SandboxProviderError('create_timeout', `OpenSandbox box ${box.id} did not become healthy in ${timeoutS} s: ${last}`);
  }

  /** Upstream's create probe: the command must print what is expected, `stable_count` times in a row, before the deadline. */
  private async probe(handle: SandboxHandle<OpenSandboxBox>): Promise<void> {
    const probe = this.config.probe;
    if (probe.command === null || probe.command === undefined) return;
    const deadlineS = probe.deadline_s ?? probe.timeout_s;
    const deadline = Date.now() + deadlineS * 1000;
    let successes = 0;
    let attempts = 0;
    let last = '';
    while (successes < probe.stable_count) {
      const remainingS = (deadline - Date.now()) / 1000;
      if (remainingS <= 0) {
        throw new SandboxProviderError('create_timeout', `OpenSandbox box ${handle.sandbox_id} failed its create probe (${JSON.stringify(probe.command)}) before the ${deadlineS} s deadline: ${successes}/${probe.stable_count} good answers in ${attempts} attempts; last: ${last}`);
      }
      attempts++;
      const result = await this.exec(handle, probe.command, { timeout_s: probe.deadline_s === null || probe.deadline_s === undefined ? probe.timeout_s : Math.min(probe.timeout_s, remainingS), ...(probe.user === null || probe.user === undefined ? {} : { user: probe.user }), cwd: null });
      const expected = probe.expected_stdout;
      if (result.return_code === 0 && (expected === null || expected === undefined || (result.stdout ?? '').includes(expected))) {
        successes++;
        if (successes < probe.stable_count && probe.stable_delay_s > 0) await sleep(probe.stable_delay_s);
        continue;
      }
      successes = 0;
      last = `return code ${result.return_code}, stdout ${JSON.stringify((result.stdout ?? '').slice(0, 200))}, stderr ${JSON.stringify((result.stderr ?? '').slice(0, 200))}`;
      await sleep(Math.min(this.config.create.connect_poll_s, Math.max(0, (deadline - Date.now()) / 1000)));
    }
  }

  async exec(handle: SandboxHandle<OpenSandboxBox>, command: string, options: SandboxExecOptions = {}): Promise<SandboxExecResult> {
    const box = handle.raw;
    const body: Record<string, unknown> = {};
    let effective = command;
    const user = options.user;
    if (typeof user === 'number' || (typeof user === 'string' && /^\d+$/.test(user))) body.uid = Number(user);
    else if (user === 'root') body.uid = 0;
    // A user by name: as upstream, through su (execd takes only a uid).
    else if (typeof user === 'string') effective = `su -s /bin/sh -c ${shellQuote(command)} ${shellQuote(user)}`;
    body.command = effective;
    const cwd = options.cwd === undefined ? box.workdir : options.cwd;
    if (cwd) body.cwd = cwd;
    if (options.env) body.envs = options.env;
    const timeoutS = options.timeout_s ?? null;
    if (timeoutS !== null) body.timeout = Math.round(timeoutS * 1000);
    const capS = timeoutS === null ? (this.config.connection.request_timeout_s ?? null) : timeoutS + COMMAND_GRACE_S;
    try {
      return this.config.operations.background_exec ? await this.execInBackground(box, body, timeoutS) : await this.execStreaming(box, body, capS);
    } catch (error) {
      if (error instanceof SandboxProviderError && error.reason === 'create_timeout') return runtimeFailure('timeout', `The command in OpenSandbox box ${box.id} got no answer within ${capS} s: ${error.message}`);
      return runtimeFailure('sandbox', (error as Error).message);
    }
  }

  /** `POST /command`, its events read to the end of the stream (execd may send output after the completion event). */
  private async execStreaming(box: OpenSandboxBox, body: Record<string, unknown>, capS: number | null): Promise<SandboxExecResult> {
    const response = await this.submit(box, body, capS);
    const stdout: string[] = [];
    const stderr: string[] = [];
    let error: ExecdEvent['error'] | undefined;
    let complete = false;
    for await (const event of sseEvents(response)) {
      if (event.type === 'stdout') stdout.push(event.text ?? '');
      else if (event.type === 'stderr') stderr.push(event.text ?? '');
      else if (event.type === 'error' && event.error) error = event.error;
      else if (event.type === 'execution_complete') complete = true;
    }
    if (error !== undefined) stderr.push(`${error.ename}: ${error.evalue}`);
    const result = { stdout: stdout.join('\n') || null, stderr: stderr.join('\n') || null };
    if (error !== undefined) {
      const code = /^-?\d+$/.test(error.evalue.trim()) ? Number(error.evalue) : null;
      if (code !== null) return { ...result, return_code: code, error_type: null };
      return { ...result, return_code: SANDBOX_RUNTIME_RETURN_CODE, error_type: error.ename === TIMEOUT_ERROR_NAME ? 'timeout' : 'sandbox' };
    }
    if (!complete) return { ...result, return_code: SANDBOX_RUNTIME_RETURN_CODE, error_type: 'sandbox', stderr: [result.stderr, `The command stream of OpenSandbox box ${box.id} ended without completing.`].filter(Boolean).join('\n') };
    return { ...result, return_code: 0, error_type: null };
  }

  /** Submits a command; a retry (operations.command_retries) only when the server was not reached, so it never runs twice. */
  private async submit(box: OpenSandboxBox, body: Record<string, unknown>, capS: number | null): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.call(`${box.execdUrl}/command`, { method: 'POST', headers: { ...box.execdHeaders, accept: 'text/event-stream' }, body: JSON.stringify(body), timeoutS: capS, what: `Running a command in OpenSandbox box ${box.id}` });
      } catch (error) {
        const notReached = (error instanceof SandboxProviderError && error.reason === 'engine_unreachable') || (error instanceof OpenSandboxHttpError && error.httpStatus === 502);
        if (!notReached || attempt >= Math.max(this.config.operations.command_retries, this.config.operations.retries)) throw error;
        await sleep(Math.min(0.25 * 2 ** attempt, 2));
      }
    }
  }

  /** `background_exec`: submit, poll `GET /command/status/{id}` (backing off), then read its combined logs once. */
  private async execInBackground(box: OpenSandboxBox, body: Record<string, unknown>, timeoutS: number | null): Promise<SandboxExecResult> {
    const operations = this.config.operations;
    const response = await this.submit(box, { ...body, background: true }, this.config.connection.request_timeout_s ?? null);
    let id: string | undefined;
    for await (const event of sseEvents(response)) {
      if (event.type === 'init') id = event.text;
      if (event.type === 'execution_complete') break;
    }
    if (!id) throw new SandboxProviderError('unsupported', `The OpenSandbox server started a background command in box ${box.id} without an execution id.`);
    const deadline = timeoutS === null ? null : Date.now() + (timeoutS + COMMAND_GRACE_S) * 1000;
    let interval = Math.min(operations.background_poll_initial_s, operations.background_poll_interval_s);
    const statusPath = `${box.execdUrl}/command/status/${encodeURIComponent(id)}`;
    let status: { running?: boolean; exit_code?: number | null; error?: string | null };
    for (let failures = 0; ; ) {
      try {
        const answer = await this.call(statusPath, { method: 'GET', headers: box.execdHeaders, timeoutS: operations.status_poll_timeout_s ?? this.config.connection.request_timeout_s ?? null, what: `Polling command ${id} in OpenSandbox box ${box.id}` });
        status = (await answer.json()) as typeof status;
        failures = 0;
      } catch (error) {
        if (++failures > operations.retries || !isRetryable(error)) throw error;
        await sleep(backoff(failures - 1, operations.retry_delay_s, operations.retry_max_delay_s));
        continue;
      }
      if (typeof status.running !== 'boolean') throw new SandboxProviderError('unsupported', `The status of command ${id} in OpenSandbox box ${box.id} has no 'running' field.`);
      if (!status.running) break;
      if (deadline !== null && Date.now() >= deadline) throw new SandboxProviderError('create_timeout', `Timed out polling background command ${id} in OpenSandbox box ${box.id}.`);
      await sleep(interval);
      interval = Math.min(interval * 1.5, operations.background_poll_interval_s);
    }
    const logs = await this.call(`${box.execdUrl}/command/${encodeURIComponent(id)}/logs`, { method: 'GET', headers: box.execdHeaders, what: `Reading the output of command ${id} in OpenSandbox box ${box.id}` });
    const stdout = (await logs.text()) || null;
    if (status.exit_code !== null && status.exit_code !== undefined) return { stdout, stderr: status.error || null, return_code: status.exit_code, error_type: null };
    if (status.error) return { stdout, stderr: status.error, return_code: SANDBOX_RUNTIME_RETURN_CODE, error_type: /timed out/i.test(status.error) ? 'timeout' : 'sandbox' };
    return { stdout, stderr: null, return_code: 0, error_type: null };
  }

  /** Stops a command started in the background (execd's `DELETE /command?id=`). */
  async interrupt(handle: SandboxHandle<OpenSandboxBox>, executionId: string): Promise<void> {
    const box = handle.raw;
    await this.call(`${box.execdUrl}/command?id=${encodeURIComponent(executionId)}`, { method: 'DELETE', headers: box.execdHeaders, what: `Interrupting command ${executionId} in OpenSandbox box ${box.id}` });
  }

  private async writeBytes(box: OpenSandboxBox, remotePath: string, content: Buffer): Promise<void> {
    const target = box.workdir === null && !posix.isAbsolute(remotePath) ? remotePath : boxPath(remotePath, box.workdir ?? '/');
    const form = new FormData();
    // The SDK's single-file write: metadata (path, and mode 755 as it sends it) before the file.
    form.append('metadata', new Blob([JSON.stringify({ path: target, owner: null, group: null, mode: 755 })], { type: 'application/json' }), 'metadata');
    form.append('file', new Blob([new Uint8Array(content)], { type: 'application/octet-stream' }), posix.basename(target));
    await this.call(`${box.execdUrl}/files/upload`, { method: 'POST', headers: box.execdHeaders, body: form, what: `Uploading ${target} to OpenSandbox box ${box.id}` });
  }

  async upload_file(handle: SandboxHandle<OpenSandboxBox>, localPath: string, remotePath: string): Promise<void> {
    const content = await readFile(localPath).catch((error: unknown) => {
      throw new SandboxProviderError('transfer_failed', `Cannot read ${localPath} to upload it to OpenSandbox box ${handle.sandbox_id}: ${(error as Error).message}`, error);
    });
    await this.writeBytes(handle.raw, remotePath, content);
  }

  async download_file(handle: SandboxHandle<OpenSandboxBox>, remotePath: string, localPath: string): Promise<void> {
    const box = handle.raw;
    const source = box.workdir === null && !posix.isAbsolute(remotePath) ? remotePath : boxPath(remotePath, box.workdir ?? '/');
    const response = await this.call(`${box.execdUrl}/files/download?path=${encodeURIComponent(source)}`, { method: 'GET', headers: box.execdHeaders, what: `Downloading ${source} from OpenSandbox box ${box.id}` });
    const content = Buffer.from(await response.arrayBuffer());
    try {
      await mkdir(dirname(localPath), { recursive: true });
      await writeFile(localPath, content);
    } catch (error) {
      throw new SandboxProviderError('transfer_failed', `Cannot write ${localPath} (downloaded from ${source} in OpenSandbox box ${box.id}): ${(error as Error).message}`, error);
    }
  }

  /** The box's lifecycle state; a box the server no longer has is `stopped`, a server that does not answer `unknown`. */
  async status(handle: SandboxHandle<OpenSandboxBox>): Promise<SandboxStatus> {
    try {
      const info = await this.lifecycle<{ status?: { state?: string } }>('GET', `/sandboxes/${encodeURIComponent(handle.sandbox_id)}`, `Describing OpenSandbox box ${handle.sandbox_id}`);
      return neutralStatus(info?.status?.state);
    } catch (error) {
      return error instanceof OpenSandboxHttpError && error.httpStatus === 404 ? 'stopped' : 'unknown';
    }
  }

  async endpoint(handle: SandboxHandle<OpenSandboxBox>, port: number): Promise<SandboxEndpoint> {
    return this.resolveEndpoint(handle.sandbox_id, port);
  }

  /** Sets the box's end to `ttlS` seconds from now (the lifecycle API's renew-expiration). */
  async renew(sandboxId: string, ttlS: number): Promise<void> {
    await this.lifecycle('POST', `/sandboxes/${encodeURIComponent(sandboxId)}/renew-expiration`, `Renewing OpenSandbox box ${sandboxId}`, { body: { expiresAt: new Date(Date.now() + ttlS * 1000).toISOString() }, retries: this.config.operations.retries });
  }

  /** Pauses the box and waits until the server says it is paused (operations.pause_resume_timeout_s). */
  async pause(handle: SandboxHandle<OpenSandboxBox>): Promise<void> {
    await this.transition(handle, 'pause', 'paused');
  }

  /** Resumes a paused box, waits until it runs, and checks execd answers again. */
  async resume(handle: SandboxHandle<OpenSandboxBox>): Promise<void> {
    await this.transition(handle, 'resume', 'running');
    const fresh = await this.attach(handle.sandbox_id, handle.raw.workdir);
    Object.assign(handle.raw, fresh.raw);
    await this.waitHealthy(handle.raw, this.config.operations.pause_resume_timeout_s, this.config.create.connect_poll_s);
  }

  private async transition(handle: SandboxHandle<OpenSandboxBox>, action: 'pause' | 'resume', target: SandboxStatus): Promise<void> {
    await this.lifecycle('POST', `/sandboxes/${encodeURIComponent(handle.sandbox_id)}/${action}`, `${action === 'pause' ? 'Pausing' : 'Resuming'} OpenSandbox box ${handle.sandbox_id}`);
    const deadline = Date.now() + this.config.operations.pause_resume_timeout_s * 1000;
    for (;;) {
      const status = await this.status(handle);
      if (status === target) return;
      if (status === 'error' || status === 'stopped') throw new SandboxProviderError('not_found', `OpenSandbox box ${handle.sandbox_id} is ${status} while waiting for it to ${action}.`);
      if (Date.now() >= deadline) throw new SandboxProviderError('create_timeout', `OpenSandbox box ${handle.sandbox_id} did not ${action} in ${this.config.operations.pause_resume_timeout_s} s (operations.pause_resume_timeout_s); it is ${status}.`);
      await sleep(this.config.create.connect_poll_s);
    }
  }

  private async deleteBox(id: string): Promise<void> {
    try {
      await this.lifecycle('DELETE', `/sandboxes/${encodeURIComponent(id)}`, `Deleting OpenSandbox box ${id}`, { timeoutS: this.config.operations.close_timeout_s ?? null, retries: this.config.operations.retries });
    } catch (error) {
      // Already gone (a double close, a box that expired) is what close wanted.
      if (!(error instanceof OpenSandboxHttpError && error.httpStatus === 404)) throw error;
    }
  }

  /** Deletes the box (one already gone is fine) and gives its max_sandboxes slot back. */
  async close(handle: SandboxHandle<OpenSandboxBox>): Promise<void> {
    const entry = this.boxes.get(handle.sandbox_id);
    clearInterval(entry?.renewal);
    this.boxes.delete(handle.sandbox_id);
    try {
      await this.deleteBox(handle.sandbox_id);
    } finally {
      this.slots.release(handle.sandbox_id);
    }
  }

  /** Deletes the boxes this provider made and did not close, and closes its connections. */
  async aclose(): Promise<void> {
    this.slots.close();
    await Promise.all([...this.boxes.values()].map((entry) => this.close(entry.handle).catch(() => undefined)));
    await this.dispatcher.close();
  }

  serialize_handle(handle: SandboxHandle<OpenSandboxBox>): Promise<SandboxDescriptor> {
    return Promise.resolve({ sandbox_id: handle.sandbox_id, ...(handle.raw.workdir === null ? {} : { workdir: handle.raw.workdir }) });
  }

  /** Adopts a box by id (any process with this connection config can): health-checked unless it is paused. */
  async connect(descriptor: { sandbox_id: string } & Record<string, unknown>): Promise<SandboxHandle<OpenSandboxBox>> {
    const id = descriptor.sandbox_id;
    if (typeof id !== 'string' || id === '') throw new ConfigError('NGYM_CONFIG_INVALID', 'opensandbox connect needs a sandbox_id.');
    const info = await this.lifecycle<{ status?: { state?: string } }>('GET', `/sandboxes/${encodeURIComponent(id)}`, `Connecting to OpenSandbox box ${id}`).catch((error: unknown) => {
      if (error instanceof OpenSandboxHttpError && error.httpStatus === 404) throw new SandboxProviderError('not_found', `Cannot connect to OpenSandbox box ${id}: the server at ${this.apiUrl} has no such box.`, error);
      throw error;
    });
    const handle = await this.attach(id, typeof descriptor.workdir === 'string' && descriptor.workdir !== '' ? descriptor.workdir : null);
    if (!this.config.create.skip_health_check && neutralStatus(info?.status?.state) !== 'paused') await this.waitHealthy(handle.raw, this.config.create.connect_attempt_timeout_s, this.config.create.connect_poll_s);
    return handle;
  }
}
