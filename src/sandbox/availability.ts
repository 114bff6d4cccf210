/**
 * Whether this machine can run bubblewrap boxes, answered synchronously so tests can skip with the reason
 * (bubblewrap missing, user namespaces disabled by the kernel or a container runtime's seccomp profile).
 */
import { spawnSync } from 'node:child_process';

let cached: string | null | undefined;

/** null when bubblewrap can make a box here; otherwise why not, in words. */
export function bubblewrapUnavailableReason(): string | null {
  if (cached !== undefined) return cached;
  const root = process.getuid?.() === 0;
  const probe = spawnSync('bwrap', ['--unshare-all', '--unshare-user', '--die-with-parent', '--ro-bind', '/', '/', '--', 'true'], {
    encoding: 'utf8',
    timeout: 10_000,
    ...(root ? { uid: 65534, gid: 65534 } : {}),
  });
  if (probe.error !== undefined) {
    cached = (probe.error as NodeJS.ErrnoException).code === 'ENOENT' ? 'bubblewrap is not installed (apt-get install bubblewrap)' : `bwrap cannot run: ${probe.error.message}`;
  } else if (probe.status !== 0) {
    cached = `bwrap cannot create namespaces here (${probe.stderr.trim() || `exit ${probe.status}`}); unprivileged user namespaces are probably disabled`;
  } else {
    cached = null;
  }
  return cached;
}
