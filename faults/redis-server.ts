/**
 * A real `redis-server` (the Debian package) for the distributed tests: in its own temp folder, listening on
 * a unix socket only (`--port 0`: no TCP, so no port to collide on), append-only file on and fsynced on every
 * write, so a SIGKILLed and restarted server comes back with every acknowledged job.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const REDIS_AVAILABLE = spawnSync('redis-server', ['--version']).status === 0;
/** util-linux's setpriv, which can give redis-server a parent-death signal: it dies with the test's process. */
const SETPRIV_AVAILABLE = spawnSync('setpriv', ['--pdeathsig', 'KILL', '--', 'true']).status === 0;

export interface RedisProcess {
  url: string;
  /** SIGKILL (a crash, nothing flushed beyond what appendfsync already wrote) and start again on the same files. */
  restart(): Promise<void>;
  kill(): Promise<void>;
}

function launch(dir: string): Promise<ChildProcess> {
  const args = ['--port', '0', '--unixsocket', join(dir, 'redis.sock'), '--unixsocketperm', '700', '--dir', dir, '--appendonly', 'yes', '--appendfsync', 'always', '--save', ''];
  // Redis has no parent to watch: without setpriv, a test that dies before its cleanup leaves it running.
  const child = SETPRIV_AVAILABLE
    ? spawn('setpriv', ['--pdeathsig', 'KILL', '--', 'redis-server', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      if (/ready to accept connections/i.test(output)) resolve(child);
    });
    child.on('exit', (code) => reject(new Error(`redis-server exited (${code}) before it was ready:\n${output}`)));
  });
}

export async function startRedis(): Promise<RedisProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'ngym-redis-'));
  let child = await launch(dir);
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  };
  return {
    url: `unix://${join(dir, 'redis.sock')}`,
    kill,
    async restart() {
      await kill();
      child = await launch(dir);
    },
  };
}
