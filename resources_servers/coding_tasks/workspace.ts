/**
 * A rollout's workspace: a host directory holding the task's files, the one place the agent's edits live.
 * Tools, harness agents and verify all read it; code only ever runs on a copy of it inside the sandbox.
 * Every path comes from the model, so each is checked to stay inside the directory: relative, no `..`
 * segment, and no symbolic link on the way (a link planted by a command could point anywhere on the host).
 */
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, writeFile, chmod } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { NgymError, type SandboxFile } from 'ngym';

export interface TaskFile {
  path: string;
  content: string;
}

/** A path the model gave that cannot be used: outside the workspace, a link, or no such file. */
class WorkspacePathError extends NgymError {
  constructor(message: string) {
    super('NGYM_INVALID_REQUEST', message, { status: 400 });
  }
}

/** Caches and tool folders a run leaves behind that are not the agent's work. */
const SKIPPED_DIRECTORIES = new Set(['__pycache__', '.pytest_cache', 'node_modules']);

/** `path` as segments relative to the workspace; throws when it is absolute or climbs out with `..`. */
export function workspaceSegments(path: string): string[] {
  if (path.includes('\0')) throw new WorkspacePathError(`The path ${JSON.stringify(path)} contains a NUL byte.`);
  if (posix.isAbsolute(path) || /^[A-Za-z]:[\\/]/.test(path)) {
    throw new WorkspacePathError(`The path ${JSON.stringify(path)} is absolute: give a path relative to the workspace (e.g. "solution.py").`);
  }
  const normalized = posix.normalize(path.replaceAll('\\', '/'));
  if (normalized === '..' || normalized.startsWith('../')) {
    throw new WorkspacePathError(`The path ${JSON.stringify(path)} is outside the workspace: paths must stay inside it (no "..").`);
  }
  const segments = normalized.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.length === 0) throw new WorkspacePathError(`The path ${JSON.stringify(path)} names the workspace itself, not a file in it.`);
  return segments;
}

export class Workspace {
  private constructor(readonly root: string) {}

  /** A fresh directory under `parent` holding `files` (readable by the sandbox's unprivileged user). */
  static async create(parent: string, files: readonly TaskFile[]): Promise<Workspace> {
    await mkdir(parent, { recursive: true });
    const workspace = new Workspace(await mkdtemp(join(parent, 'workspace-')));
    await chmod(workspace.root, 0o755);
    for (const file of files) await workspace.write(file.path, file.content);
    return workspace;
  }

  /** The host path of `path`, after checking that no existing segment of it is a symbolic link. */
  private async resolve(path: string): Promise<string> {
    const segments = workspaceSegments(path);
    let current = this.root;
    for (const segment of segments) {
      current = join(current, segment);
      const stats = await lstat(current).catch(() => null);
      if (stats === null) break;
      if (stats.isSymbolicLink()) throw new WorkspacePathError(`The path ${JSON.stringify(path)} goes through a symbolic link; links are not followed.`);
    }
    return join(this.root, ...segments);
  }

  async read(path: string): Promise<string> {
    const target = await this.resolve(path);
    const stats = await lstat(target).catch(() => null);
    if (stats === null) throw new WorkspacePathError(`No such file in the workspace: ${JSON.stringify(path)}.`);
    if (!stats.isFile()) throw new WorkspacePathError(`${JSON.stringify(path)} is not a regular file.`);
    return readFile(target, 'utf8');
  }

  async write(path: string, content: string | Uint8Array, mode = 0o644): Promise<void> {
    const target = await this.resolve(path);
    const parent = posix.dirname(workspaceSegments(path).join('/'));
    if (parent !== '.') await mkdir(join(this.root, parent), { recursive: true, mode: 0o755 });
    const existing = await lstat(target).catch(() => null);
    if (existing?.isDirectory()) throw new WorkspacePathError(`${JSON.stringify(path)} is a directory.`);
    await writeFile(target, content, { mode });
    await chmod(target, mode);
  }

  /** Every regular file, as paths relative to the workspace, sorted (links and caches left out). */
  async list(): Promise<string[]> {
    const paths: string[] = [];
    const walk = async (relative: string) => {
      for (const entry of await readdir(join(this.root, relative), { withFileTypes: true })) {
        const path = relative === '' ? entry.name : `${relative}/${entry.name}`;
        if (entry.isDirectory() && !SKIPPED_DIRECTORIES.has(entry.name)) await walk(path);
        else if (entry.isFile()) paths.push(path);
      }
    };
    await walk('');
    return paths.sort();
  }

  /** The workspace as files for a sandbox run, with `overrides` (the task's own tests) in place of the agent's copies. */
  async snapshot(overrides: readonly TaskFile[] = []): Promise<SandboxFile[]> {
    const replaced = new Set(overrides.map((file) => workspaceSegments(file.path).join('/')));
    const files: SandboxFile[] = [];
    for (const path of await this.list()) {
      if (replaced.has(path)) continue;
      const target = join(this.root, path);
      const stats = await lstat(target);
      files.push({ path, content: await readFile(target), mode: stats.mode & 0o755 });
    }
    for (const file of overrides) files.push({ path: workspaceSegments(file.path).join('/'), content: file.content });
    return files;
  }

  /** Makes the workspace hold exactly `files` (what a command left in the sandbox's work directory). */
  async replaceWith(files: readonly SandboxFile[]): Promise<void> {
    const kept = new Set(files.map((file) => workspaceSegments(file.path).join('/')));
    for (const path of await this.list()) if (!kept.has(path)) await rm(join(this.root, path), { force: true });
    for (const file of files) await this.write(file.path, file.content, (file.mode ?? 0o644) & 0o755);
  }

  async remove(): Promise<void> {
    await rm(this.root, { recursive: true, force: true });
  }
}
