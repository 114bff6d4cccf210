/**
 * The gym-wide max_sandboxes against a real engine: two docker provider instances of one gym run (as two servers of
 * one `ngym run`) never hold more than the bound between them, a create of one waits for a box the other closes,
 * and the boxes of a holder process that died come back. Skips with the reason when there is no engine or image.
 */
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { containerEngineForTests } from '../../../testing/container-engine.ts';
import type { SandboxHandle } from '../contract.ts';
import { ownRunId } from '../run-identity.ts';
import { type DockerBox, DockerSandboxProvider } from './docker-provider.ts';
import { EngineClient } from './engine-client.ts';
import { SANDBOX_LABELS } from './reaper.ts';
import { RUN_LABEL } from '../run-identity.ts';
import { HOLDER_LABEL } from './run-box-bound.ts';

const engine = await containerEngineForTests();
const runId = `${ownRunId()}-box-bound-test`;

describe.skipIf('skipReason' in engine)(`gym-wide max_sandboxes${'skipReason' in engine ? ` (skipped: ${engine.skipReason})` : ''}`, () => {
  const { dockerHost, baseImage } = engine as { dockerHost: string; baseImage: string };
  const client = new EngineClient(dockerHost);
  const providers: DockerSandboxProvider[] = [];
  const provider = () => {
    const made = new DockerSandboxProvider({ probe: { deadline_s: 60 } }, { dockerHost, runId, maxSandboxes: 2 });
    providers.push(made);
    return made;
  };
  const runBoxes = async () => (await client.listContainers([`${RUN_LABEL}=${runId}`])).length;

  afterAll(async () => {
    await Promise.all(providers.map((made) => made.aclose()));
    const left = await client.listContainers([`${RUN_LABEL}=${runId}`]);
    await Promise.all(left.map((box) => client.removeContainer(box.Id)));
    await client.close();
    expect(left.map((box) => box.Names[0])).toEqual([]);
  });

  it('holds two provider instances of one run to the bound between them; a create waits for a box the other closes', async () => {
    const [first, second] = [provider(), provider()];
    const settled: { owner: DockerSandboxProvider; handle: SandboxHandle<DockerBox> }[] = [];
    let wake = () => {};
    const creates = [first, second, first, second].map((owner) =>
      owner.create({ image: baseImage }).then((handle) => {
        settled.push({ owner, handle });
        wake();
      }),
    );
    const made = (count: number) =>
      new Promise<void>((resolve) => {
        wake = () => {
          if (settled.length >= count) resolve();
        };
        wake();
      });

    // Two of the four get room; the other two wait however long it takes.
    await made(2);
    expect(await runBoxes()).toBe(2);
    expect(settled).toHaveLength(2);
    // Each box that goes frees room for one waiting create, of either instance.
    for (const next of [3, 4]) {
      const { owner, handle } = settled[next - 3]!;
      await owner.close(handle);
      await made(next);
      expect(await runBoxes()).toBe(2);
      expect(settled).toHaveLength(next);
    }
    await Promise.all(creates);
    expect(new Set(settled.map(({ owner }) => owner)).size).toBe(2);
    for (const { owner, handle } of settled.slice(2)) await owner.close(handle);
    expect(await runBoxes()).toBe(0);
  }, 60_000);

  it('gives back the boxes of a holder process that died: they are removed and count no more', async () => {
    // A process that has ended: its pid names no live process (or a younger one, whose start time differs).
    const deadHolder = `${hostname()}:${spawnSync('true').pid}:1`;
    const orphans = ['nemo-gym-orphan-box-bound-1', 'nemo-gym-orphan-box-bound-2'];
    for (const name of orphans) {
      await client.createContainer(name, { Image: baseImage, Entrypoint: ['sh'], Cmd: ['-c', 'sleep 600'], Labels: { ...SANDBOX_LABELS, [RUN_LABEL]: runId, [HOLDER_LABEL]: deadHolder } });
    }
    expect(await runBoxes()).toBe(2);
    const owner = provider();
    const handle = await owner.create({ image: baseImage });
    expect(await Promise.all(orphans.map((name) => client.inspectContainer(name)))).toEqual([undefined, undefined]);
    expect(await runBoxes()).toBe(1);
    await owner.close(handle);
  }, 60_000);
});
