/**
 * One run of a harness CLI (Claude Code, Codex, OpenCode) in a sandbox box: the task's workspace is copied into
 * the box's work directory, the pinned CLIs are mounted read-only, the rollout's model relay is reachable through
 * box-relay.ts, and the CLI runs until it exits or its time is up. Whatever the CLI changed in the work
 * directory is then copied back to the host workspace (regular files only, paths checked), so the environment's
 * verify sees the workspace as the harness left it; nothing outside the work directory survives the box.
 */
import { mkdtemp, readdir, readFile, rm, stat, unlink, writeFile, mkdir, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { SandboxError, type SandboxFile, type SandboxLimits, type SandboxRunResult } from '../../sandbox/types.ts';
import { BOX_RELAY_PORT, BOX_RELAY_SCRIPT, BOX_SOCKET_DIR, BOX_SOCKET_NAME } from './box-relay.ts';
import { type ModelRelayOptions, startModelRelay } from './model-relay.ts';

/** Where the pinned CLIs (harness-cli/node_modules) are mounted in the box. */
export const BOX_CLI_ROOT = '/opt/harness-cli';
/** The CLI's own files (config, home): private to the box, never copied back. */
const BOX_HARNESS_DIR = '/tmp/ngym-harness';
const STAGED_DIR = '.ngym-harness';
/** The box's work directory: the workspace. */
const BOX_WORKDIR = '/work';
/** The base URL a CLI inside the box uses for the model. */
export const BOX_MODEL_URL = `http://127.0.0.1:${BOX_RELAY_PORT}`;

export interface HarnessInvocation {
  /** argv inside the box. */
  command: string[];
  env: Record<string, string>;
  /** Files for the CLI itself (config), relative to BOX_HARNESS_DIR. */
  harnessFiles?: SandboxFile[];
}

export interface HarnessRunOptions {
  sandbox: Sandbox;
  /** The host folder holding the CLIs' node_modules (harness-cli/). */
  cliRoot: string;
  invocation: HarnessInvocation;
  /** The host workspace copied into the box and back; null runs in an empty work directory. */
  workspace: string | null;
  timeoutSeconds: number;
  limits?: Partial<SandboxLimits>;
  relay: ModelRelayOptions;
}

export interface HarnessRunResult {
  result: SandboxRunResult;
  /** Workspace files written back (relative paths). */
  changedFiles: string[];
}

/** Prints every regular file of the work directory as JSON (base64 contents); symlinks and special files are skipped. */
const DUMP_WORKSPACE = `
import base64, json, os, stat, sys
root = sys.argv[1]
files = {}
for folder, dirs, names in os.walk(root):
    dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(folder, d))]
    for name in names:
        path = os.path.join(folder, name)
        info = os.lstat(path)
        if stat.S_ISREG(info.st_mode):
            with open(path, "rb") as handle:
                files[os.path.relpath(path, root)] = [base64.b64encode(handle.read()).decode(), info.st_mode & 0o777]
json.dump(files, sys.stdout)
`;

async function workspaceFiles(root: string, folder = root): Promise<SandboxFile[]> {
  const files: SandboxFile[] = [];
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) files.push(...(await workspaceFiles(root, path)));
    else if (entry.isFile()) files.push({ path: relative(root, path), content: await readFile(path), mode: (await stat(path)).mode & 0o777 });
  }
  return files;
}

/** Writes the box's workspace back to the host: new and changed files, and removes the files the harness deleted. */
async function copyBack(workspace: string, dumped: Record<string, [string, number]>, before: SandboxFile[]): Promise<string[]> {
  const root = resolve(workspace);
  const changed: string[] = [];
  const previous = new Map(before.map((file) => [file.path, file.content as Buffer]));
  for (const [path, [encoded, mode]] of Object.entries(dumped)) {
    const target = resolve(root, path);
    if (!target.startsWith(root + sep)) throw new SandboxError(`The harness's workspace holds a path outside it: ${path}`);
    const content = Buffer.from(encoded, 'base64');
    if (previous.get(path)?.equals(content)) continue;
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content, { mode });
    changed.push(path);
  }
  for (const path of previous.keys()) {
    if (!(path in dumped)) {
      await unlink(resolve(root, path));
      changed.push(path);
    }
  }
  return changed;
}

export async function runHarness(options: HarnessRunOptions): Promise<HarnessRunResult> {
  const socketDir = await mkdtemp(join(tmpdir(), 'ngym-harness-'));
  // The box runs as another user when ngym is root: it must reach the socket.
  await chmod(socketDir, 0o755);
  const relay = await startModelRelay(join(socketDir, BOX_SOCKET_NAME), options.relay);
  const session = await options.sandbox.openSession({
    workdir: BOX_WORKDIR,
    mounts: [
      { source: options.cliRoot, target: BOX_CLI_ROOT },
      { source: socketDir, target: BOX_SOCKET_DIR },
    ],
  });
  try {
    const before = options.workspace === null ? [] : await workspaceFiles(options.workspace);
    const staged = (options.invocation.harnessFiles ?? []).map((file) => ({ ...file, path: `${STAGED_DIR}/${file.path}` }));
    // The CLI's config moves out of the workspace before it starts; the relay binds before the CLI starts.
    const prelude = `mkdir -p ${BOX_HARNESS_DIR}/home && if [ -d ${STAGED_DIR} ]; then cp -r ${STAGED_DIR}/. ${BOX_HARNESS_DIR}/ && rm -rf ${STAGED_DIR}; fi && python3 -c "$0" ${BOX_RELAY_PORT} ${BOX_SOCKET_DIR}/${BOX_SOCKET_NAME} && exec "$@"`;
    const result = await session.run({
      command: ['sh', '-c', prelude, BOX_RELAY_SCRIPT, ...options.invocation.command],
      files: [...before, ...staged],
      // An empty, closed stdin: CLIs read a piped stdin as more prompt (Codex) and would wait for it.
      stdin: '',
      cwd: BOX_WORKDIR,
      env: { HOME: `${BOX_HARNESS_DIR}/home`, ...options.invocation.env },
      // The CLIs' engines and their tools run many threads, each counted as a process; and OpenCode's JavaScript
      // engine reserves more address space than the sandbox's memory limit (RLIMIT_AS) allows: it would crash.
      limits: { memoryBytes: null, processes: 512, outputBytes: 32 * 1024 ** 2, ...options.limits, wallSeconds: options.timeoutSeconds, cpuSeconds: options.timeoutSeconds },
    });
    let changedFiles: string[] = [];
    if (options.workspace !== null && session.alive) {
      const dump = await session.run({ command: ['python3', '-c', DUMP_WORKSPACE, BOX_WORKDIR], limits: { wallSeconds: 60, outputBytes: 256 * 1024 ** 2, memoryBytes: null } });
      if (dump.status !== 'exited' || dump.exitCode !== 0) throw new SandboxError(`Could not read the harness's workspace back from the box: ${dump.status} ${dump.stderr.slice(0, 500)}`);
      changedFiles = await copyBack(options.workspace, JSON.parse(dump.stdout) as Record<string, [string, number]>, before);
    }
    return { result, changedFiles };
  } finally {
    session.close();
    await relay.close();
    await rm(socketDir, { recursive: true, force: true });
  }
}
