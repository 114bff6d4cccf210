/**
 * A real npm registry for tests: Verdaccio from npm-registry/ (`npm run setup:registry`), started on a port the OS
 * picks, with one user whose token lets npm publish. Projects reach it as the registry of the `@local` scope (npm's
 * scoped private registries), so everything else still comes from the registry npm is configured for.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { PACKAGE_ROOT } from '../util/package-root.ts';

const SERVE = join(PACKAGE_ROOT, 'npm-registry', 'serve.mjs');

/** Why the registry cannot start here, or undefined when it can. */
export const localRegistryMissing: string | undefined = existsSync(join(PACKAGE_ROOT, 'npm-registry', 'node_modules', 'verdaccio'))
  ? undefined
  : 'Verdaccio is not installed: run `npm run setup:registry`';

export interface LocalRegistry {
  url: string;
  /** `.npmrc` lines: `@local` resolved from this registry, with the token that publishes to it. */
  npmrc: string;
  /** Writes `npmrc` into a project folder (npm reads a project's .npmrc). */
  configure(folder: string): void;
  stop(): Promise<void>;
}

export async function startLocalRegistry(): Promise<LocalRegistry> {
  if (localRegistryMissing !== undefined) throw new Error(localRegistryMissing);
  const folder = mkdtempSync(join(tmpdir(), 'ngym-registry-'));
  // Standard input stays open as long as this process: Verdaccio ends when it closes, however the test ends.
  const child: ChildProcess = spawn(process.execPath, [SERVE, folder], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    lines.once('line', (line) => resolve((JSON.parse(line) as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`Verdaccio exited (${code}) before it listened`)));
  });
  const url = `http://127.0.0.1:${port}/`;
  const stop = async () => {
    child.stdin?.end();
    child.kill('SIGTERM');
    // A loaded machine may keep it from closing its connections at once; it is not left behind.
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(killer);
    rmSync(folder, { recursive: true, force: true });
  };
  try {
    // npm adduser's request: creates the user and answers its token.
    const answer = await fetch(`${url}-/user/org.couchdb.user:ngym-test`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'ngym-test', password: 'ngym-test-password', type: 'user', roles: [] }),
    });
    const { token } = (await answer.json()) as { token?: string };
    if (!answer.ok || token === undefined) throw new Error(`Verdaccio did not create the test user (HTTP ${answer.status})`);
    const npmrc = `@local:registry=${url}\n//127.0.0.1:${port}/:_authToken=${token}\n`;
    return { url, npmrc, configure: (project) => writeFileSync(join(project, '.npmrc'), npmrc), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
