/**
 * The local provider: a box is a set of fresh Linux namespaces made by bubblewrap (Debian package
 * `bubblewrap`), with no network, the system directories read-only, size-limited private tmpfs for the
 * work directory, /tmp and /dev/shm, a cleared environment, a seccomp filter, and our supervisor as PID 1.
 * When ngym runs as root the box is started as an unprivileged user (nobody), so nothing in it is root
 * on the host in any way.
 */
import { lstatSync, readlinkSync } from 'node:fs';
import { type BoxSpawn, launcherCommand } from './box.ts';
import { seccompFilter } from './seccomp.ts';

export interface BoxOptions {
  /** The Python that runs the supervisor (and is `python3` for programs): looked up on the box's PATH. */
  python: string;
  /** Where runs start; a private tmpfs of `workspaceBytes`. */
  workdir: string;
  workspaceBytes: number;
  tmpBytes: number;
  /** Host directories to show read-only inside the box (a task's repository, a dataset). */
  mounts: { source: string; target: string }[];
  /** Added to every run's environment. */
  env: Record<string, string>;
  /** Host uid/gid the box runs as when ngym is root (default nobody, 65534). */
  rootlessUid: number;
}

export const SANDBOX_USER = { name: 'sandbox', uid: 1000, gid: 1000 };
export const SANDBOX_PATH = '/usr/local/bin:/usr/bin:/bin';

/** The environment every run starts from; nothing of the host's environment reaches a box. */
export function baseEnvironment(options: Pick<BoxOptions, 'workdir' | 'env'>): Record<string, string> {
  return {
    PATH: SANDBOX_PATH,
    HOME: options.workdir,
    USER: SANDBOX_USER.name,
    LANG: 'C.UTF-8',
    TMPDIR: '/tmp',
    // Numeric libraries otherwise start a thread per host core, each counted against the process limit.
    OMP_NUM_THREADS: '1',
    OPENBLAS_NUM_THREADS: '1',
    MKL_NUM_THREADS: '1',
    ...options.env,
  };
}

/** Files of /etc a program may reasonably read (the loader cache, time zone, alternatives); nothing else of /etc. */
const ETC_FILES = ['/etc/ld.so.cache', '/etc/ld.so.conf', '/etc/ld.so.conf.d', '/etc/alternatives', '/etc/localtime', '/etc/nsswitch.conf'];
const TOP_LEVEL_SYSTEM = ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'];

/** /bin, /lib... are symlinks into /usr on merged-/usr systems and directories elsewhere. */
function systemDirectoryArgs(): string[] {
  const args: string[] = [];
  for (const name of TOP_LEVEL_SYSTEM) {
    let stats;
    try {
      stats = lstatSync(`/${name}`);
    } catch {
      continue;
    }
    if (stats.isSymbolicLink()) args.push('--symlink', readlinkSync(`/${name}`), `/${name}`);
    else if (stats.isDirectory()) args.push('--ro-bind', `/${name}`, `/${name}`);
  }
  return args;
}

export function bubblewrapSpawn(options: BoxOptions): BoxSpawn {
  const inputs: Uint8Array[] = [
    Buffer.from(`root:x:0:0:root:/root:/bin/sh\n${SANDBOX_USER.name}:x:${SANDBOX_USER.uid}:${SANDBOX_USER.gid}:${SANDBOX_USER.name}:${options.workdir}:/bin/sh\n`),
    Buffer.from(`root:x:0:\n${SANDBOX_USER.name}:x:${SANDBOX_USER.gid}:\n`),
    Buffer.from('127.0.0.1 localhost\n::1 localhost\n'),
  ];
  const filter = seccompFilter();
  if (filter !== null) inputs.push(filter);
  const args = [
    '--unshare-all',
    '--unshare-user',
    '--disable-userns',
    '--die-with-parent',
    '--new-session',
    '--as-pid-1',
    '--uid', String(SANDBOX_USER.uid),
    '--gid', String(SANDBOX_USER.gid),
    '--hostname', 'sandbox',
    '--clearenv',
    '--setenv', 'PATH', SANDBOX_PATH,
    '--setenv', 'LANG', 'C.UTF-8',
    '--ro-bind', '/usr', '/usr',
    ...systemDirectoryArgs(),
    ...ETC_FILES.flatMap((path) => ['--ro-bind-try', path, path]),
    '--ro-bind-data', '3', '/etc/passwd',
    '--ro-bind-data', '4', '/etc/group',
    '--ro-bind-data', '5', '/etc/hosts',
    '--proc', '/proc',
    '--dev', '/dev',
    '--size', String(options.tmpBytes), '--tmpfs', '/dev/shm',
    '--size', String(options.tmpBytes), '--tmpfs', '/tmp',
    '--size', String(options.workspaceBytes), '--tmpfs', options.workdir,
    ...options.mounts.flatMap((mount) => ['--ro-bind', mount.source, mount.target]),
    '--remount-ro', '/dev',
    '--remount-ro', '/',
    '--chdir', options.workdir,
    ...(filter === null ? [] : ['--seccomp', '6']),
    '--',
    ...launcherCommand(options.python, options.workdir, [options.workdir, '/tmp', '/dev/shm']),
  ];
  const root = process.getuid?.() === 0;
  return {
    command: 'bwrap',
    args,
    ...(root ? { uid: options.rootlessUid, gid: options.rootlessUid } : {}),
    inputs,
    workdir: options.workdir,
    env: baseEnvironment(options),
  };
}
