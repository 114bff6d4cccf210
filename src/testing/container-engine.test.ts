/**
 * scripts/container-engine.sh on its own socket and storage (beside any engine the tests use): start is
 * idempotent, the engine runs a container, and stop leaves nothing (no process of its namespace, no socket),
 * removing its sandbox containers and killing the rest. Needs root and podman; skips with the reason otherwise.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ImageEngine } from '../sandbox/images/image-engine.ts';
import { PACKAGE_ROOT } from '../util/package-root.ts';

const run = promisify(execFile);
const SCRIPT = join(PACKAGE_ROOT, 'scripts', 'container-engine.sh');
const podmanInstalled = (() => {
  try {
    execFileSync('podman', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
const skipReason = process.getuid?.() !== 0 ? 'the engine runs rootful: not root' : podmanInstalled ? undefined : 'podman is not installed (apt-get install podman crun conmon netavark iptables)';

describe.skipIf(skipReason !== undefined)(`scripts/container-engine.sh${skipReason === undefined ? '' : ` (skipped: ${skipReason})`}`, () => {
  const state = `/run/ngym-engine-test-${process.pid}`;
  const storage = mkdtempSync(join('/var/tmp', 'ngym-engine-test-storage-'));
  const socket = join(state, 'podman.sock');
  const env = { ...process.env, NGYM_ENGINE_SOCKET: socket, NGYM_ENGINE_STORAGE: storage };
  const script = (...args: string[]) => run('bash', [SCRIPT, ...args], { env, timeout: 60_000 });
  const podman = (...args: string[]) => run('podman', ['--remote', '--url', `unix://${socket}`, ...args], { timeout: 60_000 });

  afterAll(async () => {
    await script('stop').catch(() => {});
    rmSync(storage, { recursive: true, force: true });
    rmSync(state, { recursive: true, force: true });
  });

  /** Live processes in a mount namespace (by its number), read from /proc. */
  function processesIn(namespace: string): number[] {
    const pids: number[] = [];
    for (const entry of execFileSync('sh', ['-c', 'stat -L -c "%i %n" /proc/[0-9]*/ns/mnt 2>/dev/null || true'], { encoding: 'utf8' }).split('\n')) {
      const [inode, path] = entry.split(' ');
      if (inode === namespace && path !== undefined) pids.push(Number(path.split('/')[2]));
    }
    return pids;
  }

  it('starts once, runs a container, and a stop leaves no process, container or socket', async () => {
    const first = await script('start');
    expect(first.stdout.trim()).toBe(`export DOCKER_HOST=unix://${socket}`);
    const pid = readFileSync(join(state, 'engine.pid'), 'utf8').trim();
    const namespace = readFileSync(join(state, 'engine.mntns'), 'utf8').replace(/\D/g, '');
    expect((await script('start')).stdout.trim()).toBe(first.stdout.trim());
    expect(readFileSync(join(state, 'engine.pid'), 'utf8').trim()).toBe(pid);
    expect((await script('status')).stdout).toContain(`running (pid ${pid})`);

    // A root file system of the host's `sleep` and the libraries it links: an image without any registry.
    const root = mkdtempSync(join(tmpdir(), 'ngym-engine-test-root-'));
    const sleep = execFileSync('sh', ['-c', 'command -v sleep'], { encoding: 'utf8' }).trim();
    const libraries = [...execFileSync('ldd', [sleep], { encoding: 'utf8' }).matchAll(/(\/\S+\.so[.\d]*)/g)].map((match) => match[1] as string);
    for (const file of [sleep, ...libraries]) {
      mkdirSync(join(root, dirname(file)), { recursive: true });
      copyFileSync(file, join(root, file));
    }
    const engine = new ImageEngine(`unix://${socket}`);
    try {
      const tar = spawn('tar', ['-C', root, '-c', '.'], { stdio: ['ignore', 'pipe', 'inherit'] });
      await engine.importImage(tar.stdout, 'localhost/ngym/engine-test:1', []);
    } finally {
      await engine.close();
      rmSync(root, { recursive: true, force: true });
    }
    await podman('run', '-d', '--network', 'none', '--label', 'ngym.sandbox=1', '--name', 'engine-test-box', 'localhost/ngym/engine-test:1', sleep, '1000');
    await podman('exec', 'engine-test-box', sleep, '0');
    await podman('run', '-d', '--network', 'none', '--name', 'engine-test-unlabelled', 'localhost/ngym/engine-test:1', sleep, '1000');
    // The service, conmon of each container and of the exec, and the containers' sleeps.
    expect(processesIn(namespace).length).toBeGreaterThanOrEqual(3);

    const stopped = await script('stop');
    expect(stopped.stderr).toContain('removed 1 ngym sandbox container(s)');
    expect(processesIn(namespace)).toEqual([]);
    expect(existsSync(`/proc/${pid}`)).toBe(false);
    expect(existsSync(socket)).toBe(false);
    expect(execFileSync('sh', ['-c', `ps -eo args | grep -F -- '${storage}' | grep -v grep || true`], { encoding: 'utf8' })).toBe('');
    const status = await script('status').then(
      () => 0,
      (error: { code: number; stdout: string }) => (expect(error.stdout).toContain('not running'), error.code),
    );
    expect(status).toBe(3);

    // A fresh start finds the labelled container gone, and is a fresh boot for podman (no stale running state).
    await script('start');
    const { stdout } = await podman('ps', '-a', '--format', '{{.Names}} {{.State}}');
    expect(stdout).not.toContain('engine-test-box');
    expect(stdout).not.toMatch(/engine-test-unlabelled running/i);
  });
});
