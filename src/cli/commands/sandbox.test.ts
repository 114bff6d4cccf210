/**
 * `ngym sandbox list|debug|prune` against a real engine: a process that made a box is killed (SIGKILL, so it
 * cleans nothing), its box shows as belonging to a dead run, and prune removes it and nothing of live runs.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../testing/cli-process.ts';
import { containerEngineForTests } from '../../testing/container-engine.ts';
import { DockerSandboxProvider } from '../../sandbox/providers/docker/docker-provider.ts';
import { EngineClient } from '../../sandbox/providers/docker/engine-client.ts';
import { PACKAGE_ROOT } from '../../util/package-root.ts';

const engine = await containerEngineForTests();

/** A process that makes one box with its own run id, prints the box's name and waits to be killed. */
const BOX_MAKER = `
import { DockerSandboxProvider } from './src/sandbox/providers/docker/docker-provider.ts';
const provider = new DockerSandboxProvider();
const handle = await provider.create({ image: process.env.BOX_IMAGE });
process.stdout.write(handle.sandbox_id + '\\n');
setInterval(() => {}, 1000);
`;

describe.skipIf('skipReason' in engine)(`ngym sandbox${'skipReason' in engine ? ` (skipped: ${engine.skipReason})` : ''}`, () => {
  const { dockerHost, baseImage } = engine as { dockerHost: string; baseImage: string };
  const client = new EngineClient(dockerHost);
  const made: string[] = [];
  afterAll(async () => {
    await Promise.all(made.map((name) => client.removeContainer(name)));
    await client.close();
  });

  /** Starts a process that makes a box, kills it with SIGKILL once the box exists; resolves to the box's name. */
  async function boxOfAKilledRun(): Promise<string> {
    const maker = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', BOX_MAKER], { cwd: PACKAGE_ROOT, env: { ...process.env, DOCKER_HOST: dockerHost, BOX_IMAGE: baseImage }, stdio: ['ignore', 'pipe', 'inherit'] });
    const [firstLine] = (await once(maker.stdout, 'data')) as [Buffer];
    const name = firstLine.toString().trim();
    made.push(name);
    maker.kill('SIGKILL');
    await once(maker, 'exit');
    return name;
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
