/**
 * Where the container engine listens, read from `DOCKER_HOST` the way Docker's own client reads it, and how its
 * error bodies read: shared by the provider's client (containers, execs) and the image client (imports, builds).
 */

import { existsSync } from 'node:fs';

const DEFAULT_DOCKER_HOST = 'unix:///var/run/docker.sock';

/** Where scripts/container-engine.sh serves the project's engine (NGYM_ENGINE_SOCKET overrides, as there). */
function projectEngineSocket(): string {
  return (process.env.NGYM_ENGINE_SOCKET || '/run/ngym-engine/podman.sock').replace(/^unix:\/\//, '');
}

/**
 * The engine to use: DOCKER_HOST when set, else the project's engine when it is running (its socket exists), else
 * Docker's default socket. ngym's clients and the Python servers `ngym run` starts (upstream's DockerProvider runs
 * the docker CLI, which reads DOCKER_HOST) use the same one.
 */
export function currentDockerHost(): string {
  if (process.env.DOCKER_HOST) return process.env.DOCKER_HOST;
  const socket = projectEngineSocket();
  return existsSync(socket) ? `unix://${socket}` : DEFAULT_DOCKER_HOST;
}

export interface EngineAddress {
  /** The HTTP origin requests go to (a placeholder host for a unix socket). */
  origin: string;
  socketPath?: string;
}

/** The address of `unix:///path`, `tcp://host:port` or `http://host:port`; undefined for any other form (TLS engines among them). */
export function engineAddress(dockerHost: string): EngineAddress | undefined {
  if (dockerHost.startsWith('unix://')) return { origin: 'http://localhost', socketPath: dockerHost.slice('unix://'.length) };
  if (/^(tcp|http):\/\//.test(dockerHost)) return { origin: `http://${dockerHost.replace(/^[a-z]+:\/\//, '')}` };
  return undefined;
}

/** The engine's words from an error body: its JSON `message`, else the text itself. */
export function engineMessage(text: string): string {
  try {
    const parsed = JSON.parse(text) as { message?: unknown };
    if (typeof parsed.message === 'string') return parsed.message.trim();
  } catch {
    // Not JSON: the text is the message.
  }
  return text.trim();
}
