/**
 * `ngym sandbox list|debug|prune` against a real engine: a box of a run that is gone shows as such, prune removes
 * it and nothing of live runs, and the next run's provider reaps such a box before its first.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../testing/cli-process.ts';
import { containerEngineForTests } from '../../testing/container-engine.ts';
import { DockerSandboxProvider } from '../../sandbox/providers/docker/docker-provider.ts';
import { EngineClient } from '../../sandbox/providers/docker/engine-client.ts';

const engine = await containerEngineForTests();

describe.skipIf('skipReason' in engine)(`ngym sandbox${'skipReason' in engine ? ` (skipped: ${engine.skipReason})` : ''}`, () => {
  const { dockerHost, baseImage } = engine as { dockerHost: string; baseImage: string };
  const client = new EngineClient(dockerHost);
  const made: string[] = [];
  afterAll(async () => {
    await Promise.all(made.map((name) => client.removeContainer(name)));
    await client.close();
  });

  /**
   * A box of a run that was killed: a Node process makes it with the docker provider, prints its name and is then
   * SIGKILLed, so its provider never closes the box and its run id names a process that is gone.
   */
  async function boxOfAKilledRun(): Promise<string> {
    const source = `const { DockerSandboxProvider } = await import(${JSON.stringify(new URL('../../sandbox/providers/docker/docker-provider.ts', import.meta.url).href)});
const provider = new DockerSandboxProvider({}, { dockerHost: ${JSON.stringify(dockerHost)} });
process.stdout.write((await provider.create({ image: ${JSON.stringify(baseImage)} })).sandbox_id + '\\n');
setInterval(() => {}, 1 << 30);`;
    // Its own process group, so the finally below ends whatever it started too.
    const maker = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', source], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const exited = once(maker, 'exit');
    try {
      let stderr = '';
      maker.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const lines = createInterface({ input: maker.stdout });
      const [name] = (await Promise.race([once(lines, 'line'), exited.then(() => [undefined])])) as [string | undefined];
      if (name === undefined) throw new Error(`the box-making process ended before it made a box: ${stderr}`);
      made.push(name);
      process.kill(-maker.pid!, 'SIGKILL');
      await exited;
      return name;
    } finally {
      if (maker.exitCode === null && maker.signalCode === null) process.kill(-maker.pid!, 'SIGKILL');
    }
  }

  it('lists and debugs boxes, prunes only those whose run was killed, and a new run reaps them at its first box', { timeout: 240_000 }, async () => {
    const live = new DockerSandboxProvider({}, { dockerHost });
    const kept = await live.create({ image: baseImage, resources: { memory_mib: 128 } });
    made.push(kept.sandbox_id);
    try {
      const orphan = await boxOfAKilledRun();
      const env = { DOCKER_HOST: dockerHost };
      const listed = await runCli(['sandbox', 'list'], { env });
      expect(listed.code).toBe(0);
      expect(listed.stdout).toMatch(new RegExp(`${orphan} .*running .*\\(dead\\)`));
      expect(listed.stdout).toMatch(new RegExp(`${kept.sandbox_id} .*running`));
      expect(listed.stdout.split('\n').find((line) => line.includes(kept.sandbox_id))).not.toContain('(dead)');

      const debugged = await runCli(['sandbox', 'debug', kept.sandbox_id], { env });
      expect(debugged.stdout).toMatch(/memory 128 MiB/);
      expect(debugged.stdout).toMatch(/processes:[\s\S]*sleep 2147483647/);

      const dryRun = await runCli(['sandbox', 'prune', '--dry-run'], { env });
      expect(dryRun.stdout).toMatch(new RegExp(`Would remove .*${orphan}`));
      expect(await client.inspectContainer(orphan)).toBeDefined();

      const pruned = await runCli(['sandbox', 'prune'], { env });
      expect(pruned.stdout).toContain(orphan);
      expect(pruned.stdout).not.toContain(kept.sandbox_id);
      expect(await client.inspectContainer(orphan)).toBeUndefined();
      expect((await client.inspectContainer(kept.sandbox_id))?.State.Running).toBe(true);

      const missing = await runCli(['sandbox', 'debug', 'nemo-gym-none'], { env });
      expect(missing.code).not.toBe(0);
      expect(missing.stderr).toMatch(/No box nemo-gym-none/);

      // The next run's provider reaps a killed run's box before it makes its first.
      const second = await boxOfAKilledRun();
      const next = new DockerSandboxProvider({}, { dockerHost });
      made.push((await next.create({ image: baseImage })).sandbox_id);
      expect(await client.inspectContainer(second)).toBeUndefined();
      await next.aclose();
    } finally {
      await live.aclose();
    }
  });

  it('names the socket when the engine is not there', { timeout: 120_000 }, async () => {
    const result = await runCli(['sandbox', 'list'], { env: { DOCKER_HOST: 'unix:///nonexistent/ngym-engine.sock' } });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/Cannot reach the container engine at unix:\/\/\/nonexistent\/ngym-engine.sock \(no such socket\)/);
  });
});
