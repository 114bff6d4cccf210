import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listProcesses, readProcess, untilNoneLeft } from '../testing/process-table.ts';
import { bubblewrapUnavailableReason } from './availability.ts';
import { Sandbox } from './sandbox.ts';
import { succeeded } from './types.ts';

const unavailable = bubblewrapUnavailableReason();
const python = (source: string) => ['python3', '-c', source];

describe.skipIf(unavailable !== null)('sandbox (bubblewrap)', () => {
  let sandbox: Sandbox;
  beforeAll(() => {
    sandbox = new Sandbox({ poolSize: 1, runsPerBox: 50, limits: { wallSeconds: 10 } });
  });
  afterAll(async () => sandbox?.close());

  it('runs a program with stdin, files and cwd, and reports exit status, output and times', async () => {
    const result = await sandbox.run({
      command: python('import sys, os\ndata = open("input/numbers.txt").read().split()\nprint(sum(map(int, data)) + int(sys.stdin.read()))\nprint("to stderr", file=sys.stderr)\nprint(os.getcwd())\nsys.exit(3)'),
      files: [{ path: 'input/numbers.txt', content: '1 2 3' }],
      stdin: '10',
    });
    expect(result.status).toBe('exited');
    expect(result.exitCode).toBe(3);
    expect(result.stdout).toBe('16\n/work\n');
    expect(result.stderr).toBe('to stderr\n');
    expect(result.wallSeconds).toBeGreaterThan(0);
    expect(result.cpuSeconds).toBeGreaterThan(0);
    expect(succeeded(result)).toBe(false);
  });

  it('merges stderr into stdout on request and runs in a relative cwd', async () => {
    const result = await sandbox.run({
      command: ['sh', '-c', 'echo one; echo two >&2; pwd'],
      files: [{ path: 'sub/keep', content: '' }],
      cwd: 'sub',
      mergeStderr: true,
    });
    expect(result.stdout).toBe('one\ntwo\n/work/sub\n');
    expect(result.stderr).toBe('');
  });

  it('passes only its own environment plus the request env', async () => {
    process.env.NGYM_SANDBOX_TEST_HOST_VARIABLE = 'host-only';
    try {
      const result = await sandbox.run({ command: python('import os, json; print(json.dumps(dict(os.environ)))'), env: { EXTRA: 'yes' } });
      const environment = JSON.parse(result.stdout) as Record<string, string>;
      expect(environment.EXTRA).toBe('yes');
      expect(environment.NGYM_SANDBOX_TEST_HOST_VARIABLE).toBeUndefined();
      expect(Object.keys(environment).sort()).toEqual(['EXTRA', 'HOME', 'LANG', 'MKL_NUM_THREADS', 'OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'PATH', 'TMPDIR', 'USER']);
    } finally {
      delete process.env.NGYM_SANDBOX_TEST_HOST_VARIABLE;
    }
  });

  it('runs under the seccomp filter, as an unprivileged user without capabilities', async () => {
    const result = await sandbox.run({ command: ['sh', '-c', 'grep -E "^(Seccomp|CapEff|NoNewPrivs):" /proc/self/status; id -u'] });
    expect(result.stdout).toBe('CapEff:\t0000000000000000\nNoNewPrivs:\t1\nSeccomp:\t2\n1000\n');
  });

  it('reports a program that cannot be started', async () => {
    const result = await sandbox.run({ command: ['no-such-program-here'] });
    expect(result.status).toBe('exec_failed');
    expect(result.reason).toMatch(/FileNotFoundError/);
  });

  it('stops a run at its wall limit, its CPU limit and its output limit, saying which', async () => {
    const sleeping = await sandbox.run({ command: ['sleep', '60'], limits: { wallSeconds: 0.5 } });
    expect(sleeping.status).toBe('wall_timeout');
    expect(sleeping.wallSeconds).toBeLessThan(3);
    expect(sleeping.reason).toBe('wall time limit of 0.5 s reached');

    const spinning = await sandbox.run({ command: python('while True: pass'), limits: { cpuSeconds: 1, wallSeconds: 20 } });
    expect(spinning.status).toBe('cpu_timeout');
    expect(spinning.cpuSeconds).toBeGreaterThanOrEqual(0.9);

    const chatty = await sandbox.run({ command: python('import sys\nwhile True: sys.stdout.write("x" * 4096)'), limits: { outputBytes: 10_000 } });
    expect(chatty.status).toBe('output_limit');
    expect(chatty.stdout).toBe('x'.repeat(10_000));
    expect(chatty.stdoutTruncated).toBe(true);
  });

  it('limits memory per process and for all processes of a run together', async () => {
    const single = await sandbox.run({ command: python('x = bytearray(512 * 1024 * 1024)'), limits: { memoryBytes: 256 * 1024 ** 2 } });
    expect(single.status).toBe('exited');
    expect(single.exitCode).toBe(1);
    expect(single.stderr).toMatch(/MemoryError/);

    // Each process stays under the per-process limit; together they do not.
    const together = await sandbox.run({
      command: python('import os, time\nfor _ in range(5):\n    if os.fork() == 0:\n        x = bytearray(120 * 1024 * 1024)\n        time.sleep(30)\ntime.sleep(30)'),
      limits: { memoryBytes: 256 * 1024 ** 2, wallSeconds: 20 },
    });
    expect(together.status).toBe('memory_limit');
    expect(together.wallSeconds).toBeLessThan(10);
  });

  it('limits processes and file sizes', async () => {
    const forks = await sandbox.run({
      command: python('import os\nn = 0\ntry:\n    while n < 100:\n        if os.fork() == 0:\n            import time; time.sleep(5); os._exit(0)\n        n += 1\nexcept OSError as error:\n    print("stopped", n, error.errno)'),
      limits: { processes: 8 },
    });
    expect(forks.stdout).toMatch(/^stopped [0-7] 11\n$/);

    const big = await sandbox.run({ command: python('open("big", "wb").write(b"x" * 2_000_000)'), limits: { fileSizeBytes: 1_000_000 } });
    expect(big.exitCode).toBe(1);
    expect(big.stderr).toMatch(/File too large/);
  });

  it('reuses a pooled box only after resetting it: no files or processes of a run reach the next', async () => {
    const pooled = new Sandbox({ poolSize: 1, runsPerBox: 10 });
    try {
      await pooled.run({ command: ['sh', '-c', 'echo secret > left-behind; echo x > /tmp/t; (sleep 60 &) ; true'] });
      const after = await pooled.run({ command: ['sh', '-c', 'ls -A /work /tmp; ls /proc | grep -c "^[0-9]"'] });
      // Only PID 1 (the supervisor), this shell and its ls/grep pipeline are left.
      expect(after.stdout).toMatch(/^\/tmp:\n\n\/work:\n[34]\n$/);
      for (let index = 0; index < 5; index++) await pooled.run({ command: ['true'] });
      expect(pooled.boxesStarted).toBe(1);
    } finally {
      await pooled.close();
    }
  });

  it('starts a box per run without a pool', async () => {
    const unpooled = new Sandbox({ poolSize: 0 });
    try {
      for (let index = 0; index < 3; index++) expect(succeeded(await unpooled.run({ command: ['true'] }))).toBe(true);
      expect(unpooled.boxesStarted).toBe(3);
    } finally {
      await unpooled.close();
    }
  });

  it('keeps files across the runs of a session, but no processes', async () => {
    const session = await sandbox.openSession();
    try {
      await session.run({ command: ['sh', '-c', 'echo kept > notes.txt; (sleep 60 &); true'] });
      // ps runs alone (not in a pipeline, whose members may still be named `sh` before they exec): no sleep survives.
      const next = await session.run({ command: ['sh', '-c', 'cat notes.txt; ps -e -o comm= > procs.txt; sort procs.txt | tr "\\n" " "'] });
      expect(next.stdout).toBe('kept\nps python3 sh ');
    } finally {
      session.close();
    }
  });

  it('talks to a long-lived program of a session through stdin and stdout', async () => {
    const session = await sandbox.openSession();
    try {
      const handle = session.start({ command: python('import sys\nfor line in sys.stdin:\n    print(int(line) * 2, flush=True)'), limits: { wallSeconds: 30 } });
      const replies: string[] = [];
      handle.onStdout((chunk) => replies.push(chunk.toString()));
      const reply = async (line: string) => {
        const before = replies.length;
        handle.write(`${line}\n`);
        await expect.poll(() => replies.length, { timeout: 5000 }).toBeGreaterThan(before);
        return replies.at(-1);
      };
      expect(await reply('21')).toBe('42\n');
      expect(await reply('5')).toBe('10\n');
      handle.closeStdin();
      const result = await handle.result;
      expect(result.status).toBe('exited');
      expect(result.stdout).toBe(''); // streamed to the listener, not kept
    } finally {
      session.close();
    }
  });

  it('a box and what runs in it end with the process that opened it, even when that one is SIGKILLed', { timeout: 60_000 }, async () => {
    const marker = randomUUID();
    const source = `const { Sandbox } = await import(${JSON.stringify(new URL('./sandbox.ts', import.meta.url).href)});
const session = await new Sandbox({ poolSize: 0 }).openSession();
session.start({ command: ['python3', '-c', 'import time; time.sleep(600)', '${marker}'], limits: { wallSeconds: 600 } });`;
    const host = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', source], { stdio: 'ignore' });
    try {
      // The program in the box (the host's own command line holds the marker too).
      const running = () => (listProcesses() ?? []).filter((entry) => entry.state !== 'Z' && entry.pid !== host.pid && entry.commandLine.includes(marker));
      await expect.poll(() => running().length, { timeout: 30_000, interval: 50 }).toBe(1);
      // The program, and between it and the host: the box's supervisor and bubblewrap.
      const box = [];
      for (let entry = running()[0]; entry !== undefined && entry.pid !== host.pid; entry = readProcess(entry.parentPid)) box.push(entry);
      expect(box.length).toBeGreaterThanOrEqual(3);
      host.kill('SIGKILL');
      const pids = new Set(box.map((entry) => entry.pid));
      expect(await untilNoneLeft(() => (listProcesses() ?? []).filter((entry) => pids.has(entry.pid) && entry.state !== 'Z'), 15_000)).toEqual([]);
    } finally {
      host.kill('SIGKILL');
    }
  });

  it('rejects file paths that leave the work directory', async () => {
    await expect(sandbox.run({ command: ['true'], files: [{ path: '../etc/x', content: '' }] })).rejects.toThrow(/relative to the work directory/);
    await expect(sandbox.run({ command: ['true'], files: [{ path: '/etc/x', content: '' }] })).rejects.toThrow(/relative to the work directory/);
  });
});

describe.skipIf(unavailable === null)('sandbox (bubblewrap)', () => {
  it.skip(`skipped: ${unavailable ?? ''}`, () => {});
});
