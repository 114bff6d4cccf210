/**
 * Escape and abuse attempts against the local sandbox, as a policy would try them. Each is run in a pooled
 * box that is reset and reused, as in production, and must be contained: the run ends with a status that
 * says what happened, the host (this process, its files, its network, its environment) is untouched, and
 * the next run of the same box sees nothing of it. The tally is printed at the end: "N tried, N contained".
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../util/package-root.ts';
import { bubblewrapUnavailableReason } from './availability.ts';
import { Sandbox } from './sandbox.ts';
import type { SandboxRunRequest, SandboxRunResult } from './types.ts';

const unavailable = bubblewrapUnavailableReason();
const tried: string[] = [];
const contained: string[] = [];

describe.skipIf(unavailable !== null)('sandbox abuse: every attempt is contained and reported', () => {
  let sandbox: Sandbox;
  let hostDirectory: string;
  let loopback: Server;
  let loopbackPort = 0;
  let loopbackConnections = 0;

  beforeAll(async () => {
    sandbox = new Sandbox({ poolSize: 1, runsPerBox: 1000, limits: { wallSeconds: 5, memoryBytes: 256 * 1024 ** 2, processes: 32 } });
    hostDirectory = mkdtempSync(join(tmpdir(), 'ngym-abuse-'));
    writeFileSync(join(hostDirectory, 'hidden_tests.txt'), 'expected output of the hidden tests');
    loopback = createServer((socket) => {
      loopbackConnections++;
      socket.end('host secret');
    });
    await new Promise<void>((resolve) => loopback.listen(0, '127.0.0.1', resolve));
    loopbackPort = (loopback.address() as { port: number }).port;
  });

  afterAll(async () => {
    await sandbox?.close();
    loopback?.close();
    if (hostDirectory) rmSync(hostDirectory, { recursive: true, force: true });
    console.log(`sandbox abuse tests: ${tried.length} tried, ${contained.length} contained${tried.length === contained.length ? '' : ` (not contained: ${tried.filter((name) => !contained.includes(name)).join(', ')})`}`);
  });

  /** Runs the attempt, checks containment, then checks the box's next run is clean. */
  async function attempt(name: string, request: SandboxRunRequest, check: (result: SandboxRunResult) => void | Promise<void>): Promise<void> {
    tried.push(name);
    const started = performance.now();
    const result = await sandbox.run(request);
    const limit = request.limits?.wallSeconds ?? sandbox.limits.wallSeconds;
    expect(performance.now() - started, `${name}: the run ends within its wall limit`).toBeLessThan((limit + 3) * 1000);
    await check(result);
    const next = await sandbox.run({ command: ['sh', '-c', 'ls -A /work /tmp /dev/shm; set -- /proc/[0-9]*; echo $#; cat /proc/sysvipc/shm | wc -l'] });
    // Processes are counted by the shell's own glob: a pipeline's members may not all exist yet when one reads /proc.
    expect(next.stdout, `${name}: the next run of the box starts clean`).toBe('/dev/shm:\n\n/tmp:\n\n/work:\n2\n1\n');
    contained.push(name);
  }

  const python = (source: string) => ['python3', '-c', source];

  it('fork bomb', async () => {
    await attempt('fork bomb (shell)', { command: ['sh', '-c', 'bomb() { bomb | bomb & }; bomb'], limits: { wallSeconds: 2 } }, (result) => {
      expect(['wall_timeout', 'exited']).toContain(result.status);
    });
    await attempt('fork bomb (python)', { command: python('import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass'), limits: { wallSeconds: 2 } }, (result) => {
      expect(result.status).toBe('wall_timeout');
    });
  });

  it('memory bomb', async () => {
    await attempt('memory bomb (one process)', { command: python('blocks = []\nwhile True:\n    blocks.append(bytearray(16 * 1024 * 1024))') }, (result) => {
      expect(result.status).toBe('exited');
      expect(result.stderr).toMatch(/MemoryError/);
    });
    await attempt(
      'memory bomb (many processes)',
      { command: python('import os, time\nfor _ in range(30):\n    if os.fork() == 0:\n        x = bytearray(200 * 1024 * 1024)\n        time.sleep(60)\ntime.sleep(60)') },
      (result) => expect(result.status).toBe('memory_limit'),
    );
  });

  it('infinite loop and sleeping forever', async () => {
    await attempt('infinite loop', { command: python('while True: pass'), limits: { cpuSeconds: 1, wallSeconds: 4 } }, (result) => expect(result.status).toBe('cpu_timeout'));
    await attempt('sleep forever', { command: python('import time\ntime.sleep(10 ** 9)'), limits: { wallSeconds: 1 } }, (result) => expect(result.status).toBe('wall_timeout'));
    await attempt('sleep forever, ignoring signals', { command: python('import signal, time\nfor s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):\n    signal.signal(s, signal.SIG_IGN)\ntime.sleep(10 ** 9)'), limits: { wallSeconds: 1 } }, (result) =>
      expect(result.status).toBe('wall_timeout'),
    );
  });

  it('1 GB of output', async () => {
    await attempt('1 GB of output', { command: python('import sys\nblock = "x" * (1 << 20)\nfor _ in range(1024):\n    sys.stdout.write(block)') }, (result) => {
      expect(result.status).toBe('output_limit');
      expect(result.stdout.length).toBe(sandbox.limits.outputBytes);
    });
  });

  it('sockets: the host loopback and the outside are unreachable', async () => {
    await attempt(
      'socket to the host loopback',
      { command: python(`import socket\ns = socket.socket()\ns.settimeout(2)\ntry:\n    s.connect(("127.0.0.1", ${loopbackPort}))\n    print("connected", s.recv(100))\nexcept OSError as error:\n    print("refused", error.errno)`) },
      (result) => {
        expect(result.stdout).toMatch(/^refused \d+\n$/);
        expect(loopbackConnections).toBe(0);
      },
    );
    await attempt(
      'socket to the outside',
      { command: python('import socket\nfor host in ("1.1.1.1", "8.8.8.8"):\n    try:\n        socket.create_connection((host, 53), timeout=2)\n        print("connected")\n    except OSError as error:\n        print("unreachable", error.errno)\ntry:\n    socket.getaddrinfo("example.com", 80)\n    print("resolved")\nexcept OSError:\n    print("no dns")') },
      (result) => expect(result.stdout).toBe('unreachable 101\nunreachable 101\nno dns\n'),
    );
    await attempt(
      'own loopback server (works, and stays inside)',
      { command: python('import socket, threading\nserver = socket.socket()\nserver.bind(("127.0.0.1", 0))\nserver.listen()\nport = server.getsockname()[1]\nthreading.Thread(target=lambda: server.accept()[0].sendall(b"inside"), daemon=True).start()\nprint(socket.create_connection(("127.0.0.1", port)).recv(10).decode())') },
      (result) => expect(result.stdout).toBe('inside\n'),
    );
  });

  it('reading outside the work directory', async () => {
    const targets = ['/etc/shadow', join(hostDirectory, 'hidden_tests.txt'), join(PACKAGE_ROOT, 'package.json'), '/root/.bashrc', '/proc/1/environ', '/proc/1/mem', '/proc/1/fd/0'];
    await attempt(
      'reading hidden tests, the project, /etc/shadow and the supervisor',
      { command: python(`for path in ${JSON.stringify(targets)}:\n    try:\n        open(path, "rb").read(10)\n        print("read", path)\n    except OSError as error:\n        print("denied", error.errno)`) },
      (result) => expect(result.stdout.split('\n').filter((line) => line.startsWith('read'))).toEqual([]),
    );
    await attempt('listing other processes in /proc', { command: python('import os\nprint(sorted(int(p) for p in os.listdir("/proc") if p.isdigit()) == [1, os.getpid()])') }, (result) => {
      // Only the supervisor (PID 1) and the program itself exist in the box's PID namespace.
      expect(result.stdout).toBe('True\n');
    });
  });

  it('writing outside the work directory', async () => {
    const targets = ['/usr/bin/injected', '/etc/injected', '/injected', join(hostDirectory, 'injected'), '/proc/sys/kernel/hostname'];
    await attempt(
      'writing the system, the host and /proc',
      { command: python(`for path in ${JSON.stringify(targets)}:\n    try:\n        open(path, "w").write("x")\n        print("wrote", path)\n    except OSError as error:\n        print("denied", error.errno)`) },
      (result) => {
        expect(result.stdout.split('\n').filter((line) => line.startsWith('wrote'))).toEqual([]);
        expect(() => readFileSync(join(hostDirectory, 'injected'))).toThrow();
      },
    );
    await attempt('filling the work directory', { command: python('block = b"x" * (1 << 20)\nwith open("fill", "wb") as f:\n    while True:\n        f.write(block)'), limits: { fileSizeBytes: null } }, (result) => {
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toMatch(/No space left on device/);
    });
  });

  it('signals to the supervisor and to everything', async () => {
    await attempt(
      'killing the parent, PID 1 and every process',
      {
        command: python(
          'import os, signal, time\nfor target in (os.getppid(), 1):\n    for s in (signal.SIGKILL, signal.SIGTERM, signal.SIGSTOP):\n        os.kill(target, s)\ntry:\n    os.kill(-1, signal.SIGKILL)\nexcept ProcessLookupError:\n    pass\ntime.sleep(0.1)\nprint("still here")',
        ),
      },
      // The kernel drops signals to a namespace's PID 1 that it does not handle, and kill(-1) spares the
      // sender: the supervisor lives on and reports the run (and attempt() checks the box still works).
      (result) => {
        expect(result.status).toBe('exited');
        expect(result.stdout).toBe('still here\n');
      },
    );
    await attempt('ptrace of the supervisor', { command: python('import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\nprint(libc.ptrace(16, 1, 0, 0), ctypes.get_errno())') }, (result) => expect(result.stdout).toBe('-1 1\n'));
  });

  it('outliving the run: setsid and daemonising', async () => {
    const daemon = python(
      'import os, time\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n        while True:\n            with open("/work/daemon.log", "a") as log:\n                log.write("alive\\n")\n            time.sleep(0.05)\n    os._exit(0)\ntime.sleep(0.3)\nprint("parent done")',
    );
    await attempt('setsid + double fork daemon', { command: daemon }, (result) => expect(result.stdout).toBe('parent done\n'));
    // In a session the work directory persists, so a surviving daemon would keep writing to it.
    const session = await sandbox.openSession();
    try {
      tried.push('daemon in a session');
      await session.run({ command: daemon });
      const first = await session.run({ command: ['sh', '-c', 'wc -l < daemon.log; ps -e -o comm= | sort | tr "\\n" " "'] });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const second = await session.run({ command: ['sh', '-c', 'wc -l < daemon.log'] });
      expect(second.stdout.split('\n')[0]).toBe(first.stdout.split('\n')[0]);
      expect(first.stdout.split('\n')[1]).toBe('ps python3 sh sort tr ');
      contained.push('daemon in a session');
    } finally {
      session.close();
    }
  });

  it("reading the host's environment", async () => {
    process.env.NGYM_ABUSE_CANARY = 'canary-7f3a';
    try {
      await attempt(
        'environment, /proc/*/environ and /proc/1/cmdline',
        // The needles are assembled at run time: the program's own command line must not contain them.
        { command: python('import os\nseen = str(dict(os.environ))\nfor pid in os.listdir("/proc"):\n    for name in ("environ", "cmdline"):\n        try:\n            seen += open(f"/proc/{pid}/{name}", "rb").read().decode("latin1")\n        except OSError:\n            pass\nprint("-".join(["canary", "7f3a"]) in seen, "_".join(["NGYM", "ABUSE"]) in seen)') },
        (result) => expect(result.stdout).toBe('False False\n'),
      );
    } finally {
      delete process.env.NGYM_ABUSE_CANARY;
    }
  });

  it('leaving something for the next run: IPC objects, keyrings, namespaces', async () => {
    await attempt('System V shared memory left behind', { command: python('import ctypes\nlibc = ctypes.CDLL(None)\nprint(libc.shmget(4242, 4096, 0o1666) >= 0)') }, (result) => expect(result.stdout).toBe('True\n'));
    await attempt('POSIX message queue left behind', { command: python('import ctypes\nlibc = ctypes.CDLL("librt.so.1", use_errno=True)\nprint(libc.mq_open(b"/ngym", 0o100 | 2, 0o600, None), ctypes.get_errno())') }, (result) =>
      expect(result.stdout).toMatch(/^-1 \d+\n$/),
    );
    await attempt('kernel keyring', { command: python('import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\nprint(libc.syscall(248, b"user", b"note", b"x", 1, -4), ctypes.get_errno())') }, (result) =>
      expect(result.stdout).toBe('-1 1\n'),
    );
    await attempt('new user namespace', { command: ['unshare', '--user', '--map-root-user', 'id'] }, (result) => {
      expect(result.exitCode).not.toBe(0);
    });
  });
});

describe.skipIf(unavailable === null)('sandbox abuse: every attempt is contained and reported', () => {
  it.skip(`skipped: ${unavailable ?? ''}`, () => {});
});
