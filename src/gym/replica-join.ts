/**
 * `ngym run +head_server.url=http://<head>:<port>`: this run starts no head server of its own; its servers
 * join the named servers of that head as replicas. Each is registered once it is ready and re-registered every
 * few seconds (the head forgets registrations that stop coming), and removed when this run stops.
 */
import { sharedHttpClient } from '../client/http-client.ts';
import { ConfigError } from '../errors.ts';
import { isLoopbackHost } from '../client/auth-token.ts';
import type { ReplicaInfo } from '../protocol/replicas.ts';
import { REGISTRATION_RENEW_MS } from './replica-registry.ts';

/** The head server URL of `head_server.url`, or undefined when this run is its own head. */
export function joinedHeadUrl(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (url === undefined || url.protocol !== 'http:' || url.pathname !== '/' || url.port === '') {
    throw new ConfigError('NGYM_CONFIG_INVALID', `head_server.url must be the http://host:port of a running head server, got ${JSON.stringify(value)}.`, {
      key: 'head_server.url',
    });
  }
  return url.origin;
}

/** A replica other hosts must reach: not a wildcard address, and not loopback unless the head is on loopback too. */
export function checkReachable(headUrl: string, serverName: string, host: string): void {
  const headHost = new URL(headUrl).hostname;
  const wildcard = host === '0.0.0.0' || host === '::';
  if (wildcard || (isLoopbackHost(host) && !isLoopbackHost(headHost))) {
    throw new ConfigError(
      'NGYM_CONFIG_INVALID',
      `Server '${serverName}' listens on ${host}, which clients of the head server at ${headUrl} cannot reach as an address. Set its host (or +default_host=...) to this machine's address on their network.`,
      { key: 'default_host' },
    );
  }
}

export interface Membership {
  stop(): Promise<void>;
}

async function post(url: string, body: unknown, headers: Record<string, string> | undefined): Promise<{ status: number; detail: string }> {
  const response = await sharedHttpClient().request(url, { method: 'POST', body, headers, timeoutMs: 10_000, connectionRetries: 2 });
  return { status: response.status, detail: response.text.slice(0, 1000) };
}

/**
 * Registers `replicas()` with the head server; a refusal at the first registration (a name the head does not
 * have, a wrong auth token) is thrown, later ones and lost contact are reported as they start and end.
 */
export async function joinHead(
  headUrl: string,
  headers: Record<string, string> | undefined,
  replicas: () => ReplicaInfo[],
  report: (line: string) => void,
): Promise<Membership> {
  const registerAll = async () => {
    for (const replica of replicas()) {
      const { name, server_type, url, h2c_url, pid } = replica;
      const answer = await post(`${headUrl}/server_replicas`, { name, server_type, url, h2c_url, pid }, headers);
      if (answer.status !== 200) throw new Error(`The head server at ${headUrl} refused replica ${url} of '${name}' (HTTP ${answer.status}): ${answer.detail}`);
    }
  };
  await registerAll();
  let failing = false;
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    registerAll()
      .then(
        () => {
          if (failing) report(`Registered with the head server at ${headUrl} again.`);
          failing = false;
        },
        (error: unknown) => {
          if (!failing) report(`Could not renew the replicas' registration with ${headUrl}: ${(error as Error).message}. Retrying every ${REGISTRATION_RENEW_MS / 1000} s.`);
          failing = true;
        },
      )
      .finally(() => (busy = false));
  }, REGISTRATION_RENEW_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await post(`${headUrl}/server_replicas/remove`, { urls: replicas().map((replica) => replica.url) }, headers).catch(() => undefined);
    },
  };
}
