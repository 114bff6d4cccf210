import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Workspace, workspaceSegments } from './workspace.ts';

const parent = mkdtempSync(join(tmpdir(), 'ngym-coding-workspace-test-'));
afterAll(() => rmSync(parent, { recursive: true, force: true }));

describe('workspaceSegments', () => {
  it('accepts relative paths inside the workspace, normalized', () => {
    expect(workspaceSegments('a.py')).toEqual(['a.py']);
    expect(workspaceSegments('./src/../lib/b.js')).toEqual(['lib', 'b.js']);
  });

  it('refuses paths that leave the workspace, naming the path', () => {
    expect(() => workspaceSegments('../secret')).toThrow('The path "../secret" is outside the workspace');
    expect(() => workspaceSegments('src/../../x')).toThrow(/outside the workspace/);
    expect(() => workspaceSegments('/etc/passwd')).toThrow('The path "/etc/passwd" is absolute');
    expect(() => workspaceSegments('C:\\x')).toThrow(/is absolute/);
    expect(() => workspaceSegments('.')).toThrow(/names the workspace itself/);
    expect(() => workspaceSegments('a\0b')).toThrow(/NUL byte/);
  });
});

describe('Workspace', () => {
  it('is made from the task files, read and written by relative path', async () => {
    const workspace = await Workspace.create(parent, [
      { path: 'main.py', content: 'x = 1\n' },
      { path: 'tests/test_main.py', content: 'pass\n' },
    ]);
    expect(workspace.root.startsWith(parent)).toBe(true);
    expect(readFileSync(join(workspace.root, 'tests/test_main.py'), 'utf8')).toBe('pass\n');
    await workspace.write('lib/util.py', 'y = 2\n');
    expect(await workspace.read('lib/util.py')).toBe('y = 2\n');
    mkdirSync(join(workspace.root, '__pycache__'));
    writeFileSync(join(workspace.root, '__pycache__', 'main.pyc'), 'cache');
    expect(await workspace.list()).toEqual(['lib/util.py', 'main.py', 'tests/test_main.py']);
    await expect(workspace.read('missing.py')).rejects.toThrow('No such file in the workspace: "missing.py"');
    await expect(workspace.read('lib')).rejects.toThrow('"lib" is not a regular file');
  });

  it('follows no symbolic link, so a planted link cannot reach the host', async () => {
    const outside = join(parent, 'outside.txt');
    writeFileSync(outside, 'host secret');
    const workspace = await Workspace.create(parent, [{ path: 'a.py', content: '' }]);
    symlinkSync(outside, join(workspace.root, 'link.txt'));
    symlinkSync(parent, join(workspace.root, 'dir'));
    await expect(workspace.read('link.txt')).rejects.toThrow('The path "link.txt" goes through a symbolic link');
    await expect(workspace.write('dir/outside.txt', 'overwritten')).rejects.toThrow(/symbolic link/);
    expect(readFileSync(outside, 'utf8')).toBe('host secret');
    expect(await workspace.list()).toEqual(['a.py']);
    expect((await workspace.snapshot()).map((file) => file.path)).toEqual(['a.py']);
  });

  it('snapshots with the task tests in place of the agent copies, and mirrors a run back', async () => {
    const workspace = await Workspace.create(parent, [
      { path: 'a.py', content: 'a' },
      { path: 'test_a.py', content: 'original test' },
    ]);
    await workspace.write('test_a.py', 'tampered test');
    const snapshot = await workspace.snapshot([{ path: 'test_a.py', content: 'original test' }]);
    expect(snapshot.map((file) => [file.path, String(file.content)])).toEqual([
      ['a.py', 'a'],
      ['test_a.py', 'original test'],
    ]);
    await workspace.replaceWith([
      { path: 'a.py', content: Buffer.from('changed') },
      { path: 'new/b.sh', content: Buffer.from('echo'), mode: 0o755 },
    ]);
    expect(await workspace.list()).toEqual(['a.py', 'new/b.sh']);
    expect(await workspace.read('a.py')).toBe('changed');
    await expect(workspace.replaceWith([{ path: '../escape', content: 'x' }])).rejects.toThrow(/outside the workspace/);
    expect(existsSync(join(parent, 'escape'))).toBe(false);
    await workspace.remove();
    expect(existsSync(workspace.root)).toBe(false);
  });
});
