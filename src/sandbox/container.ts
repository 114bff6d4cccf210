/**
 * The container provider: a box is a container of Podman or Docker running our supervisor as PID 1, with
 * no network, all capabilities dropped, no-new-privileges, and the engine's cgroup limits on memory and
 * processes for the whole container. Programs run with the image's own system (SWE-bench images: the
 * repository at /testbed and its conda environment); the image needs python3 (3.8 or later) for the
 * supervisor.
 */
import { randomUUID } from 'node:crypto';
import { type BoxSpawn, launcherCommand } from './box.ts';
import { baseEnvironment } from './bubblewrap.ts';
import type { SandboxLimits } from './types.ts';

export type ContainerEngine = 'podman' | 'docker';

export interface ContainerOptions {
  engine: ContainerEngine;
  image: string;
  python: string;
  workdir: string;
  /**
   * `tmpfs`: the work directory is an empty private tmpfs and the container's root is read-only (code
   * execution). `image`: the work directory is the image's own (a repository checkout), writable in the
   * container's private layer, which is discarded with the container.
   */
  workspace: 'tmpfs' | 'image';
  workspaceBytes: number;
  tmpBytes: number;
  mounts: { source: string; target: string }[];
  env: Record<string, string>;
  /** `--user` (empty: the image's user, which SWE-bench images need for their conda setup). */
  user: string;
  /** Whole-container limits (cgroups): memory and processes of all runs together. */
  limits: Pick<SandboxLimits, 'memoryBytes' | 'processes'>;
}

export function containerSpawn(options: ContainerOptions): BoxSpawn {
  const readOnlyRoot = options.workspace === 'tmpfs';
  const name = `ngym-sandbox-${randomUUID()}`;
  const args = [
    'run',
    '--rm',
    '--interactive',
    '--name', name,
    '--network', 'none',
    '--cap-drop', 'ALL',
    '--security-opt', 'no-new-privileges',
    '--ipc', 'private',
    '--hostname', 'sandbox',
    ...(options.limits.memoryBytes === null ? [] : ['--memory', String(options.limits.memoryBytes), '--memory-swap', String(options.limits.memoryBytes)]),
    // The supervisor is one of the container's processes.
    ...(options.limits.processes === null ? [] : ['--pids-limit', String(options.limits.processes + 1)]),
    '--tmpfs', `/tmp:rw,exec,size=${options.tmpBytes}`,
    '--shm-size', String(options.tmpBytes),
    ...(readOnlyRoot ? ['--read-only', '--tmpfs', `${options.workdir}:rw,exec,size=${options.workspaceBytes},mode=1777`] : []),
    '--workdir', options.workdir,
    ...(options.user === '' ? [] : ['--user', options.user]),
    ...options.mounts.flatMap((mount) => ['--volume', `${mount.source}:${mount.target}:ro`]),
    options.image,
    ...launcherCommand(options.python, options.workdir, readOnlyRoot ? [options.workdir, '/tmp', '/dev/shm'] : ['/tmp', '/dev/shm']),
  ];
  return {
    command: options.engine,
    args,
    workdir: options.workdir,
    env: baseEnvironment(options),
    // RLIMIT_NPROC counts per user on the host when the engine maps no user namespace; the container's
    // pids limit bounds processes instead.
    processLimitByBox: true,
    reusable: readOnlyRoot,
    // Killing the engine's client leaves the container running; the engine removes it. (A host that dies
    // closes the client's stdin instead: the supervisor reads its end and exits, ending the container.)
    teardown: { command: options.engine, args: ['rm', '--force', name] },
  };
}
