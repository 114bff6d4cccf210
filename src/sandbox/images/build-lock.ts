/**
 * One build of a given image on this machine at a time, across processes (two test files, two commands): the
 * first takes a lock file holding its pid; the others wait for it to go, then look again. A lock whose process
 * is gone is taken over.
 */
import { link, readFile, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { ProgressListener } from './image-engine.ts';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function withBuildLock<T>(name: string, progress: ProgressListener, work: () => Promise<T>): Promise<T> {
  const path = join(tmpdir(), `ngym-image-build-${name}.lock`);
  // The lock appears with its pid already in it (a hard link of a written file), so no reader sees it empty.
  const own = `${path}.${process.pid}`;
  await writeFile(own, String(process.pid));
  let announced = false;
  for (;;) {
    try {
      await link(own, path);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        await unlink(own).catch(() => {});
        throw error;
      }
    }
    const holder = Number((await readFile(path, 'utf8').catch(() => '')).trim());
    if (!Number.isInteger(holder) || holder <= 0 || !alive(holder)) {
      await unlink(path).catch(() => {});
      continue;
    }
    if (!announced) {
      progress(`waiting for process ${holder}, which is building the same image (${path})`);
      announced = true;
    }
    await delay(500);
  }
  await unlink(own).catch(() => {});
  try {
    return await work();
  } finally {
    await unlink(path).catch(() => {});
  }
}
