/**
 * Facts of OpenSandbox's two HTTP APIs (the `opensandbox` 1.1.1 SDK and `opensandbox-server` 1.1.1 on PyPI) that
 * both ngym's client (opensandbox-provider.ts) and ngym's compatible server (src/sandbox/opensandbox-server/) speak:
 * the lifecycle API under `/v1/sandboxes` on the server, and execd, the in-box daemon (commands as server-sent
 * events, files), reached directly or through the server's proxy path `/sandboxes/{id}/proxy/{port}`.
 */
import type { SandboxStatus } from '../contract.ts';

/** The header that carries the server's API key (lifecycle calls, and proxied execd calls). */
export const API_KEY_HEADER = 'OPEN-SANDBOX-API-KEY';
/** execd's port in a box. */
export const EXECD_PORT = 44772;
/** The header of `GET /command/{id}/logs` that says where the returned text ends. */
export const LOGS_CURSOR_HEADER = 'EXECD-COMMANDS-TAIL-CURSOR';
/** The entrypoint the SDK sends when its caller names none: a box that just stays up. */
export const KEEP_ALIVE_ENTRYPOINT = ['tail', '-f', '/dev/null'];

/** Where the server proxies a box's port (as the real server builds it; no scheme). */
export function proxyPath(sandboxId: string, port: number): string {
  return `/sandboxes/${encodeURIComponent(sandboxId)}/proxy/${port}`;
}

/** One server-sent event of `POST /command` (execd's ServerStreamEvent). */
export interface ExecdEvent {
  type: 'init' | 'stdout' | 'stderr' | 'result' | 'error' | 'execution_complete' | 'execution_count';
  text?: string;
  timestamp: number;
  execution_time?: number;
  error?: { ename: string; evalue: string; traceback: string[] };
}

/** The `ename` of the error event ngym's server sends when a command's `timeout` ran out (the command was killed). */
export const TIMEOUT_ERROR_NAME = 'TimeoutError';

/** Upstream's mapping of OpenSandbox lifecycle states to the provider-neutral statuses. */
export function neutralStatus(state: string | null | undefined): SandboxStatus {
  const normalized = String(state ?? '').toLowerCase();
  if (['active', 'ready', 'running'].includes(normalized)) return 'running';
  if (normalized === 'paused') return 'paused';
  if (['creating', 'initializing', 'pausing', 'pending', 'resuming', 'starting'].includes(normalized)) return 'starting';
  if (['completed', 'deleted', 'exited', 'stopped', 'terminated'].includes(normalized)) return 'stopped';
  if (['crashed', 'error', 'failed', 'unhealthy'].includes(normalized)) return 'error';
  return 'unknown';
}

/** A spec's resources as OpenSandbox resource limits (Kubernetes quantities), as upstream's provider sends them. */
export function resourceLimitsOf(resources: { cpu?: number | null; memory_mib?: number | null; disk_gib?: number | null; gpu?: number | null; gpu_type?: string | null }): Record<string, string> {
  const limits: Record<string, string> = {};
  if (resources.cpu !== null && resources.cpu !== undefined) limits.cpu = String(resources.cpu);
  if (resources.memory_mib !== null && resources.memory_mib !== undefined) limits.memory = `${resources.memory_mib}Mi`;
  if (resources.disk_gib !== null && resources.disk_gib !== undefined) limits['ephemeral-storage'] = `${resources.disk_gib}Gi`;
  if (resources.gpu !== null && resources.gpu !== undefined) limits.gpu = String(resources.gpu);
  if (resources.gpu_type !== null && resources.gpu_type !== undefined) limits.gpu_type = resources.gpu_type;
  return limits;
}
