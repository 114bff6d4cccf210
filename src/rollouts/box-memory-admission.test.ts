/**
 * Admission by memory that counts the sandbox boxes of the gym run, against a real engine: rollouts that each make
 * a box reserving 512 MiB, under a budget of the collector's memory plus 2.5 GiB, run at most three at once however
 * many are asked for at once, and all of them run. Skips with the reason when there is no engine or image.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { DockerSandboxProvider } from '../sandbox/providers/docker/docker-provider.ts';
import { ownRunId } from '../sandbox/providers/run-identity.ts';
import { containerEngineForTests } from '../testing/container-engine.ts';
import { memoryGateCountingBoxes } from './admission.ts';

const engine = await containerEngineForTests();
const runId = `${ownRunId()}-box-memory-test`;
const MIB = 2 ** 20;

describe.skipIf('skipReason' in engine)(`admission counting sandbox boxes${'skipReason' in engine ? ` (skipped: ${engine.skipReason})` : ''}`, () => {
  const { dockerHost, baseImage } = engine as { dockerHost: string; baseImage: string };
  const provider = new DockerSandboxProvider({ probe: { deadline_s: 60 } }, { dockerHost, runId });
  afterAll(() => provider.aclose());

  it("holds rollouts back while their boxes' memory would pass the budget, and runs them all", async () => {
    const budget = process.memoryUsage.rss() + 2560 * MIB;
    const { gate, boxes, close } = await memoryGateCountingBoxes(budget, { dockerHost, runId });
    let open = 0;
    let most = 0;
    const rollout = async () => {
      const admitted = gate.admit();
      if (admitted !== true) expect(await admitted).toBe(true);
      try {
        const handle = await provider.create({ image: baseImage, resources: { memory_mib: 512 } });
        most = Math.max(most, ++open);
        // The rollout's work in its box.
        expect(await provider.exec(handle, 'echo done')).toMatchObject({ stdout: 'done\n' });
        await provider.close(handle);
        open--;
      } finally {
        gate.release();
      }
    };
    try {
      await Promise.all(Array.from({ length: 5 }, rollout));
      expect(await boxes.refresh()).toBe(0);
    } finally {
      await close();
    }
    // 512 MiB boxes under 2.5 GiB over the collector's own memory, with two boxes' room kept spare: at most three at once.
    expect(most).toBeLessThanOrEqual(3);
    expect(most).toBeGreaterThanOrEqual(2);
  }, 60_000);

  it('counts a box by its memory limit, and one without a limit by what it uses', async () => {
    const watched = await memoryGateCountingBoxes(2 ** 40, { dockerHost, runId });
    try {
      const limited = await provider.create({ image: baseImage, resources: { memory_mib: 300 } });
      const unlimited = await provider.create({ image: baseImage });
      const held = await watched.boxes.refresh();
      expect(watched.boxes.boxes).toBe(2);
      expect(held).toBeGreaterThan(300 * MIB);
      expect(held).toBeLessThan(400 * MIB);
      await Promise.all([provider.close(limited), provider.close(unlimited)]);
      expect(await watched.boxes.refresh()).toBe(0);
    } finally {
      await watched.close();
    }
  }, 60_000);
});
