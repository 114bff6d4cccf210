/**
 * Calls between Gym servers by instance name. Names resolve to `http://host:port` through the global
 * config: a server process has it from its environment; an external process (`ngym collect`, a trainer
 * script) fetches it once from the head server's `GET /global_config_dict_yaml`.
 */
import { type GlobalConfig, formatHost, globalConfigFromYaml } from '../config/global-config.ts';
import type { ServerType } from '../protocol/server-types.ts';
import { ERROR_CODE_HEADER, UpstreamError } from '../errors.ts';
import { AUTH_TOKEN_KEY, authorizationHeader, authTokenOf } from './auth-token.ts';
import { type Replica, ReplicaRouter, type ReplicaSet } from './replica-router.ts';
import type { CookieJar } from './cookies.ts';
import { type HttpClient, type HttpResponse, sharedHttpClient } from './http-client.ts';

export const DEFAULT_REQUEST_TIMEOUT_SECONDS = 10_800;

/**
 * A server's own request limit when its config sets none (it answers 504 past it): an agent's `/run` and a model's
 * generation may take hours, a resources server's verify or tool call should not, so a frozen environment
 * fails its rollouts in 30 minutes rather than 3 hours.
 */
export const DEFAULT_REQUEST_TIMEOUT_SECONDS_BY_TYPE: Record<ServerType, number> = {
  responses_api_agents: DEFAULT_REQUEST_TIMEOUT_SECONDS,
  responses_api_models: DEFAULT_REQUEST_TIMEOUT_SECONDS,
  resources_servers: 1_800,
  // A relay of whole rollouts: as long as the agent's.
  environment_servers: DEFAULT_REQUEST_TIMEOUT_SECONDS,
};

/** Callers wait this much longer than the server's own limit, so its 504 (which says why) arrives first. */
const CALLER_MARGIN_MS = 5_000;

export interface ServerCallOptions {
  cookies?: CookieJar;
  timeoutMs?: number | null;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

export class ServerClient {
  private readonly urls = new Map<string, string>();
  private readonly multiplexOrigins = new Map<string, string | undefined>();
  private readonly timeouts = new Map<string, number | null>();
  readonly defaultTimeoutMs: number | null;
  /** The top-level `request_timeout_seconds`, which overrides the per-type defaults of every call. */
  private readonly globalTimeoutMs: number | null | undefined;

  /** `Authorization` for every call, when the gym has an `auth_token`. */
  private readonly authHeaders: Record<string, string> | undefined;
  /** Set when servers may run as several replicas: the head server lists them (src/client/replica-router.ts). */
  private replicas: ReplicaRouter | undefined;

  constructor(
    readonly config: GlobalConfig,
    readonly http: HttpClient = sharedHttpClient(),
    /** The gym's auth_token when the config does not hold it (a config fetched from the head server has it redacted). */
    authToken?: string,
  ) {
    const token = authToken ?? authTokenOf(config.dict[AUTH_TOKEN_KEY]);
    this.authHeaders = token === undefined ? undefined : authorizationHeader(token);
    const seconds = config.resolvedValue(['request_timeout_seconds']);
    this.globalTimeoutMs = seconds === null ? null : typeof seconds === 'number' ? seconds * 1000 : undefined;
    this.defaultTimeoutMs = this.globalTimeoutMs === undefined ? DEFAULT_REQUEST_TIMEOUT_SECONDS * 1000 : this.globalTimeoutMs;
  }

  /** How long a call to `serverName` may take: its own `request_timeout_seconds` plus a margin, else the defaults. */
  timeoutFor(serverName: string): number | null {
    let timeout = this.timeouts.get(serverName);
    if (timeout === undefined && !this.timeouts.has(serverName)) {
      const instance = this.config.server(serverName);
      let own: unknown;
      try {
        own = instance === undefined ? undefined : this.config.resolvedServerConfig(serverName).request_timeout_seconds;
      } catch {
        own = undefined;
      }
      if (own === null) timeout = null;
      else if (typeof own === 'number') timeout = own * 1000 + CALLER_MARGIN_MS;
      else if (this.globalTimeoutMs !== undefined) timeout = this.globalTimeoutMs;
      else timeout = (instance === undefined ? DEFAULT_REQUEST_TIMEOUT_SECONDS : DEFAULT_REQUEST_TIMEOUT_SECONDS_BY_TYPE[instance.serverType]) * 1000 + CALLER_MARGIN_MS;
      this.timeouts.set(serverName, timeout);
    }
    return timeout ?? null;
  }

  /** Fetches the global config from a running head server. */
  static async fromHeadServer(head: { host: string; port: number }, http: HttpClient = sharedHttpClient(), authToken?: string): Promise<ServerClient> {
    const url = `http://${formatHost(head.host)}:${head.port}/global_config_dict_yaml`;
    let response: HttpResponse;
    try {
      response = await http.request(url, { timeoutMs: 30_000, connectionRetries: 2, headers: authToken === undefined ? undefined : authorizationHeader(authToken) });
    } catch (error) {
      throw new UpstreamError(
        'NGYM_HEAD_SERVER_UNREACHABLE',
        `Could not connect to the head server at http://${formatHost(head.host)}:${head.port}. Is \`ngym run\` running? If it runs on another host or port, pass +head_server.host=... and +head_server.port=....`,
        { url, cause: error },
      );
    }
    if (!response.ok) {
      throw new UpstreamError('NGYM_HEAD_SERVER_UNREACHABLE', `The head server at ${url} answered HTTP ${response.status}: ${response.text.slice(0, 300)}`, {
        url,
        statusCode: response.status,
        responseBody: response.text,
      });
    }
    const yamlText = response.json<unknown>();
    if (typeof yamlText !== 'string') {
      throw new UpstreamError('NGYM_UPSTREAM_BODY', `${url} must answer a JSON string holding YAML.`, { url, responseBody: response.text });
    }
    const client = new ServerClient(globalConfigFromYaml(yamlText), http, authToken);
    client.routeReplicasVia(`http://${formatHost(head.host)}:${head.port}`);
    return client;
  }

  /** Spreads new sessions over the replicas the head server at `headUrl` lists and keeps each session on its own. */
  routeReplicasVia(headUrl: string): void {
    this.replicas ??= new ReplicaRouter(this.http, headUrl, this.authHeaders);
  }

  url(serverName: string, path = ''): string {
    let base = this.urls.get(serverName);
    if (base === undefined) {
      base = this.config.serverUrl(serverName);
      this.urls.set(serverName, base);
    }
    return `${base}${path}`;
  }

  /** An ngym server's HTTP/2 address (its `h2c_port`), where calls beyond its HTTP/1.1 pool multiplex. */
  private multiplexOrigin(serverName: string): string | undefined {
    if (!this.multiplexOrigins.has(serverName)) {
      const config = this.config.server(serverName)?.config;
      const port = config?.h2c_port;
      const origin = typeof port === 'number' && port > 0 ? `http://${formatHost(String(config?.host))}:${port}` : undefined;
      this.multiplexOrigins.set(serverName, origin);
    }
    return this.multiplexOrigins.get(serverName);
  }

  async post(serverName: string, path: string, body: unknown, options: ServerCallOptions = {}): Promise<HttpResponse> {
    const replicas = await this.replicaSetOf(serverName);
    if (replicas !== undefined) return this.requestReplica(replicas, 'POST', path, body, options);
    const response = await this.http.request(this.url(serverName, path), {
      method: 'POST',
      multiplexOrigin: this.multiplexOrigin(serverName),
      body,
      cookies: options.cookies,
      headers: this.headersWith(options.headers),
      signal: options.signal,
      timeoutMs: options.timeoutMs === undefined ? this.timeoutFor(serverName) : options.timeoutMs,
    });
    return Object.assign(response, { server: serverName });
  }

  /** The replicas of `serverName` when it runs as several; undefined for a server of one instance or no router. */
  private async replicaSetOf(serverName: string): Promise<ReplicaSet | undefined> {
    const router = this.replicas;
    if (router === undefined) return undefined;
    // Waits once, for the head server's first listing; after that, a server of one instance costs a map lookup.
    if (router.loading !== undefined) await router.loading;
    return router.replicated(serverName);
  }

  /**
   * A call to a server run as several replicas. A session already bound to one goes there, or fails if that
   * one is down (its state died with it: the rollout fails and may be retried from the start). Otherwise the
   * call picks a replica, binds the session's jar to it, and moves on to another if the connection fails.
   */
  private async requestReplica(set: ReplicaSet, method: 'GET' | 'POST', path: string, body: unknown, options: ServerCallOptions): Promise<HttpResponse> {
    const jar = options.cookies;
    const bound = jar === undefined ? undefined : set.boundReplica(jar);
    if (typeof bound === 'string') {
      throw new UpstreamError('NGYM_UPSTREAM_CONNECTION', `${bound}: the session's state is lost with it.`, { url: this.url(set.name, path), retryable: true });
    }
    const tried = new Set<Replica>();
    for (;;) {
      const replica = bound ?? set.choose(tried);
      if (replica === undefined) {
        const why = set.replicas.map((each) => `${each.url}: ${each.downReason ?? (tried.has(each) ? 'unreachable' : 'down')}`).join('; ');
        throw new UpstreamError('NGYM_UPSTREAM_CONNECTION', `No replica of server '${set.name}' is up (${why}).`, { url: this.url(set.name, path), retryable: true });
      }
      tried.add(replica);
      if (bound === undefined && jar !== undefined) set.bind(jar, replica);
      replica.inFlight++;
      try {
        const response = await this.http.request(`${replica.url}${path}`, {
          method,
          multiplexOrigin: replica.h2cUrl,
          body,
          cookies: jar,
          headers: this.headersWith(options.headers),
          signal: options.signal,
          timeoutMs: options.timeoutMs === undefined ? this.timeoutFor(set.name) : options.timeoutMs,
          // A new session tries the next replica at once instead of retrying one that refuses.
          connectionRetries: bound === undefined ? 0 : undefined,
        });
        return Object.assign(response, { server: set.name });
      } catch (error) {
        if (!(error instanceof UpstreamError && error.code === 'NGYM_UPSTREAM_CONNECTION')) throw error;
        set.markDown(replica, error.message);
        if (bound !== undefined) {
          throw new UpstreamError(
            'NGYM_UPSTREAM_CONNECTION',
            `Replica ${replica.url} of server '${set.name}', which holds this session, is unreachable: the session's state is lost with it. ${error.message}`,
            { url: error.url, cause: error, retryable: true },
          );
        }
      } finally {
        replica.inFlight--;
      }
    }
  }

  private headersWith(headers: Record<string, string> | undefined): Record<string, string> | undefined {
    return this.authHeaders === undefined ? headers : { ...this.authHeaders, ...headers };
  }

  async get(serverName: string, path: string, options: ServerCallOptions = {}): Promise<HttpResponse> {
    const replicas = await this.replicaSetOf(serverName);
    if (replicas !== undefined) return this.requestReplica(replicas, 'GET', path, undefined, options);
    return this.http.request(this.url(serverName, path), {
      method: 'GET',
      multiplexOrigin: this.multiplexOrigin(serverName),
      cookies: options.cookies,
      headers: this.headersWith(options.headers),
      signal: options.signal,
      timeoutMs: options.timeoutMs === undefined ? this.timeoutFor(serverName) : options.timeoutMs,
    });
  }
}

/**
 * Throws an UpstreamError carrying the body when a response is not 2xx (upstream's `raise_for_status`). A 4xx
 * other than 429 means the other server refused the request: that is a 502 NGYM_UPSTREAM_REJECTED naming the
 * server, its status and its message, which callers answer with `{"detail": ...}` and never retry.
 */
export function raiseForStatus(response: HttpResponse): HttpResponse {
  if (response.ok) return response;
  const upstreamCode = typeof response.headers[ERROR_CODE_HEADER] === 'string' ? (response.headers[ERROR_CODE_HEADER] as string) : undefined;
  const who = response.server === undefined ? response.url : `Server '${response.server}' (${response.url})`;
  const rejected = (response.status >= 400 && response.status < 500 && response.status !== 429) || upstreamCode === 'NGYM_UPSTREAM_REJECTED';
  if (rejected) {
    throw new UpstreamError('NGYM_UPSTREAM_REJECTED', `${who} answered HTTP ${response.status}: ${detailOf(response.text)}`, {
      url: response.url,
      statusCode: response.status,
      responseBody: response.text,
      status: 502,
      retryable: false,
    });
  }
  throw new UpstreamError('NGYM_UPSTREAM_STATUS', `${who} answered HTTP ${response.status}: ${response.text.slice(0, 2000)}`, {
    url: response.url,
    statusCode: response.status,
    responseBody: response.text,
    retryable: response.status === 429 || response.status >= 500,
    upstreamCode,
  });
}

/** FastAPI's and our `{"detail": ...}` as text; any other body as it is (cut at 2,000 characters). */
function detailOf(text: string): string {
  try {
    const detail = (JSON.parse(text) as { detail?: unknown }).detail;
    if (detail !== undefined) return (typeof detail === 'string' ? detail : JSON.stringify(detail)).slice(0, 2000);
  } catch {
    // Not JSON: the body itself is the message.
  }
  return text.slice(0, 2000);
}
