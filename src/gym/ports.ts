/**
 * The ports `ngym run` gives its servers. A TypeScript server's port is bound here and its socket handed to the
 * child (race-free). A Python server binds its own, so it gets a port probed free here, then closed: racy. A probe
 * with port 0 hands out a port from the kernel's ephemeral range, which is also where every outgoing connection on
 * the machine takes its local port, so between the probe and the server's bind a connection can take it (seen in
 * CI as `[Errno 98] address already in use` with some 40 servers starting). Ports are therefore probed below that
 * range, where only an explicit bind can take one.
 */
import { readFileSync } from 'node:fs';
import { createServer as createNetServer, type Server as NetServer } from 'node:net';
import { ServerStartError } from '../errors.ts';

/** The lowest port probed below the ephemeral range: above the ports services are usually configured on. */
const PROBE_FLOOR = 10_000;
const PROBE_ATTEMPTS = 50;

export async function bindPort(host: string, port: number): Promise<NetServer> {
  const server = createNetServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new ServerStartError(`Port ${port} on ${host} is already in use. Free it, or set the port to 0 to get a free one.`)
          : error,
      ),
    );
    server.listen({ host, port, backlog: 65_535 }, resolve);
  });
  return server;
}

/** The kernel's ephemeral port range (Linux), or undefined where it cannot be read. */
export function ephemeralPortRange(): [number, number] | undefined {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    return low !== undefined && high !== undefined && low > 0 && high >= low ? [low, high] : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `port` can be bound on `host` now. */
async function isFree(host: string, port: number): Promise<boolean> {
  try {
    const server = await bindPort(host, port);
    await new Promise((resolve) => server.close(resolve));
    return true;
  } catch {
    return false;
  }
}

/**
 * A port free on `host` now, not in `disallowed`, for a server that binds its own: below the ephemeral range when
 * there is room there (a random one, so that gyms starting side by side seldom probe the same), else from the
 * kernel (upstream's probe).
 */
export async function probeFreePort(host: string, disallowed: ReadonlySet<number>, ephemeral = ephemeralPortRange()): Promise<number> {
  const ceiling = ephemeral === undefined ? undefined : ephemeral[0] - 1;
  for (let attempt = 0; ceiling !== undefined && ceiling - PROBE_FLOOR >= 1_000 && attempt < PROBE_ATTEMPTS; attempt++) {
    const port = PROBE_FLOOR + Math.floor(Math.random() * (ceiling - PROBE_FLOOR + 1));
    if (!disallowed.has(port) && (await isFree(host, port))) return port;
  }
  for (let attempt = 0; attempt < PROBE_ATTEMPTS; attempt++) {
    const server = await bindPort(host, 0);
    const port = (server.address() as { port: number }).port;
    await new Promise((resolve) => server.close(resolve));
    if (!disallowed.has(port)) return port;
  }
  throw new ServerStartError(`Unable to find an open port that does not conflict with ${[...disallowed].join(', ')} after ${PROBE_ATTEMPTS} attempts.`);
}
