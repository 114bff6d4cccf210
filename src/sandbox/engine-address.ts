/**
 * Where the container engine listens, read from `DOCKER_HOST` the way Docker's own client reads it, and how its
 * error bodies read: shared by the provider's client (containers, execs) and the image client (imports, builds).
 */

export const DEFAULT_DOCKER_HOST = 'unix:///var/run/docker.sock';

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
