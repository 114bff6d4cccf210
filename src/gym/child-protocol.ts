/** What `ngym run` and the server processes it launches agree on, beyond upstream's two env vars. */

/**
 * Set to `1` when the parent sends the listening sockets over IPC: `{type: 'ngym:listen', protocol: 'http'}`
 * and `{type: 'ngym:listen', protocol: 'h2c'}`, each with its socket.
 */
export const LISTEN_HANDLE_ENV = 'NGYM_LISTEN_HANDLE';
/** JSON list of folders where server implementations are looked up. */
export const SEARCH_ROOTS_ENV = 'NGYM_SEARCH_ROOTS';
/** The head server's URL: ngym servers ask it for the replicas of the servers they call. */
export const HEAD_URL_ENV = 'NGYM_HEAD_URL';
/** How long a stopping server lets in-flight requests finish. */
export const SHUTDOWN_GRACE_MS = 5_000;

export type ListenProtocol = 'http' | 'h2c';
export type ChildMessage = { type: 'ngym:listen'; protocol: ListenProtocol } | { type: 'ngym:ready'; port: number };
