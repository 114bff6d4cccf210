/**
 * The docker provider's warm pool against a real engine: spares made ahead are handed out once (a create returns
 * one), never recycled after an agent had them, count against the run's max_sandboxes and give their room to a
 * create that would otherwise wait, and none is left after aclose. Skips with the reason when there is no engine.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { containerEngineForTests } from '../../../testing/container-engine.ts';
import { ownRunId } from '../run-identity.ts';
import { DockerSandboxProvider } from './docker-provider.ts';
import { EngineClient } from './engine-client.ts';
import { RUN_LABEL } from '../run-identity.ts';

const engine = await containerEngineForTests();
const runId = `${ownRunId()}-warm-pool-test`;

describe.skipIf('skipReason' in engine)(`docker warm pool${'skipReason' in engine ? ` (skipped: ${engine.skipReason})` : ''}`, () => {
  const { dockerHost, baseImage } = engine as { dockerHost: string; baseImage: string };
  const client = new EngineClient(dockerHost);
  const runBoxes = async () => (await client.listContainers([`${RUN_LABEL}=${runId}`])).map((box) => (box.Names[0] ?? '').replace(/^\//, ''));
  afterAll(async () => {
    const left = await client.listContainers([`${RUN_LABEL}=${runId}`]);
    await Promise.all(left.map((box) => client.removeContainer(box.Id)));
    await client.close();
    expect(left).toEqual([]);
  });

  it('hands out spares once, never recycles them, keeps them under max_sandboxes and leaves none after aclose', async () => {
    const provider = new DockerSandboxProvider({ probe: { deadline_s: 60 } }, { dockerHost, runId, maxSandboxes: 2, warmPool: { size: 2 } });
    try {
      await provider.warm({ image: baseImage });
      const spares = await runBoxes();
      expect(spares).toHaveLength(2);

      // A create is handed a spare that is up and probed; closed, it is removed, not put back.
      const first = await provider.create({ image: baseImage });
      expect(spares).toContain(first.sandbox_id);
      expect(provider.poolStats).toMatchObject({ hits: 1, misses: 0 });
      expect(await provider.exec(first, 'touch /tmp/had-an-agent && echo ok')).toMatchObject({ stdout: 'ok\n' });
      await provider.close(first);
      expect(await client.inspectContainer(first.sandbox_id)).toBeUndefined();

      // Two boxes held under max_sandboxes 2: the spares (made again after the take) give their room; never 3 boxes.
      const held = await Promise.all([provider.create({ image: baseImage }), provider.create({ image: baseImage })]);
      expect(await runBoxes()).toHaveLength(2);
      for (const handle of held) expect((await provider.exec(handle, 'test -e /tmp/had-an-agent; echo $?')).stdout).toBe('1\n');
      await Promise.all(held.map((handle) => provider.close(handle)));
    } finally {
      await provider.aclose();
    }
    expect(await runBoxes()).toEqual([]);
  }, 60_000);
});
