/**
 * The container provider against a real engine, where one can run a container: podman or docker, with
 * an image that has python3 already present (nothing is pulled). NGYM_SANDBOX_TEST_IMAGE names the image
 * (default python:3.11-slim). Skips saying why when no engine can run it here.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { containerSpawn } from './container.ts';
import { Sandbox } from './sandbox.ts';

const IMAGE = process.env.NGYM_SANDBOX_TEST_IMAGE ?? 'docker.io/library/python:3.11-slim';

function probe(engine: 'podman' | 'docker'): string | null {
  const run = spawnSync(engine, ['run', '--rm', '--pull', 'never', '--network', 'none', IMAGE, 'python3', '-c', 'print("ok")'], { encoding: 'utf8', timeout: 60_000 });
  if (run.error !== undefined) return `${engine}: ${(run.error as NodeJS.ErrnoException).code === 'ENOENT' ? 'not installed' : run.error.message}`;
  if (run.status !== 0 || run.stdout.trim() !== 'ok') return `${engine} cannot run ${IMAGE} here: ${(run.stderr || run.stdout).trim().replace(/\s+/g, ' ').slice(0, 300)}`;
  return null;
}

const reasons: string[] = [];
let engine: 'podman' | 'docker' | undefined;
for (const candidate of ['podman', 'docker'] as const) {
  const reason = probe(candidate);
  if (reason === null) {
    engine = candidate;
    break;
  }
  reasons.push(reason);
}

describe.skipIf(engine === undefined)(`sandbox (container provider: ${engine ?? 'none'})`, () => {
  const sandbox = engine === undefined ? undefined : new Sandbox({ provider: engine, image: IMAGE, poolSize: 1, limits: { wallSeconds: 20, processes: 32, memoryBytes: 256 * 1024 ** 2 } });
  afterAll(async () => sandbox?.close());

  it('runs a program with stdin and files, without network, and reuses the reset container', async () => {
    const result = await sandbox!.run({
      command: ['python3', '-c', 'import sys, socket\nprint(open("in.txt").read() + sys.stdin.read())\ntry:\n    socket.create_connection(("1.1.1.1", 53), timeout=2)\nexcept OSError:\n    print("offline")'],
      files: [{ path: 'in.txt', content: 'from a file, ' }],
      stdin: 'from stdin',
    });
    expect(result.status).toBe('exited');
    expect(result.stdout).toBe('from a file, from stdin\noffline\n');
    const next = await sandbox!.run({ command: ['sh', '-c', 'ls -A .; echo done'] });
    expect(next.stdout).toBe('done\n');
  });

  it('enforces wall time and the container memory limit', async () => {
    expect((await sandbox!.run({ command: ['sleep', '60'], limits: { wallSeconds: 1 } })).status).toBe('wall_timeout');
    const memory = await sandbox!.run({ command: ['python3', '-c', 'x = bytearray(1024 * 1024 * 1024)'] });
    expect(memory.status === 'memory_limit' || memory.stderr.includes('MemoryError') || memory.signal === 'SIGKILL').toBe(true);
  });
});

describe('container provider: the container it asks for', () => {
  const options = { engine: 'podman' as const, image: 'img', python: 'python3', workdir: '/work', workspaceBytes: 1000, tmpBytes: 500, mounts: [{ source: '/data', target: '/data' }], env: {}, user: '', limits: { memoryBytes: 2000, processes: 8 } };

  it('has no network, no capabilities, cgroup limits, a read-only root and a tmpfs work directory, and is removed when killed', () => {
    const spec = containerSpawn({ ...options, workspace: 'tmpfs' });
    const args = spec.args.join(' ');
    for (const flag of ['--rm', '--network none', '--cap-drop ALL', '--security-opt no-new-privileges', '--ipc private', '--memory 2000', '--memory-swap 2000', '--pids-limit 9', '--read-only', '--tmpfs /work:rw,exec,size=1000,mode=1777', '--volume /data:/data:ro']) {
      expect(args).toContain(flag);
    }
    expect(spec.args.slice(spec.args.indexOf('img') + 1, spec.args.indexOf('img') + 5)).toEqual(['python3', '-I', '-S', '-c']);
    const name = spec.args[spec.args.indexOf('--name') + 1];
    expect(spec.teardown).toEqual({ command: 'podman', args: ['rm', '--force', name] });
    expect(spec).toMatchObject({ processLimitByBox: true, reusable: true });
  });

  it("keeps the image's own work directory writable for a repository checkout, and never reuses such a box", () => {
    const spec = containerSpawn({ ...options, workdir: '/testbed', workspace: 'image' });
    expect(spec.args).not.toContain('--read-only');
    expect(spec.args.join(' ')).toContain('--workdir /testbed');
    expect(spec.reusable).toBe(false);
  });
});

describe.skipIf(engine !== undefined)('sandbox (container provider)', () => {
  it.skip(`skipped: no container engine can run a container here (${reasons.join('; ')})`, () => {});
});
