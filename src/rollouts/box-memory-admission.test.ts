/**
 * Admission by memory that counts the sandbox boxes of the gym run, against a real engine: rollouts that each make
 * a box reserving 512 MiB, under a budget of the collector's memory plus 2.5 GiB, run at most three at once however
 * many are asked for at once, and all of them run. Skips with the reason when there is no engine or image.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startInProcessGym } from '../gym/in-process.ts';
import { defineResourcesServer } from '../server/resources-server.ts';
import { assistantMessage, scriptedModel } from '../server/scripted-model.ts';
import { DockerSandboxProvider } from '../sandbox/providers/docker/docker-provider.ts';
import { ownRunId } from '../sandbox/providers/run-identity.ts';
import { containerEngineForTests } from '../testing/container-engine.ts';
import { memoryGateCountingBoxes } from './admission.ts';
import { collectRollouts } from './collect.ts';
import { simpleAgentConfig } from '../testing/agent-config.ts';
import { readJsonlRows } from '../testing/jsonl-rows.ts';

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

  it('ngym collect with memory_budget_counts_boxes: rollouts whose verify holds a 512 MiB box run at most three at once under 2.5 GiB', async () => {
    let open = 0;
    let most = 0;
    const boxy = defineResourcesServer({
      className: 'Boxy',
      verify: async () => {
        const handle = await provider.create({ image: baseImage, resources: { memory_mib: 512 } });
        most = Math.max(most, ++open);
        try {
          return { reward: (await provider.exec(handle, 'echo done')).stdout === 'done\n' ? 1 : 0 };
        } finally {
          await provider.close(handle);
          open--;
        }
      },
    });
    const gym = await startInProcessGym({
      config: { policy_model: { responses_api_models: { scripted: { entrypoint: 'app.ts' } } }, ...simpleAgentConfig({ resources: { name: 'boxy_env', implementation: 'boxy' }, agent: 'boxy' }) },
      definitions: { policy_model: scriptedModel(() => [assistantMessage('ok')]).definition, boxy_env: boxy },
    });
    try {
      const dir = mkdtempSync(join(tmpdir(), 'ngym-box-admission-'));
      const input = join(dir, 'in.jsonl');
      writeFileSync(input, Array.from({ length: 5 }, (_, index) => JSON.stringify({ responses_create_params: { input: `q${index}` } })).join('\n'));
      const options = { client: gym.client, input, outputPath: join(dir, 'out.jsonl'), agentName: 'boxy', concurrency: 5, dockerHost, boxesOfRun: runId, memoryBudgetCountsBoxes: true };
      // No budget to count the boxes against: refused before anything starts.
      await expect(collectRollouts({ ...options, memoryBudget: null }).done()).rejects.toThrow(/memory_budget_counts_boxes needs a memory_budget/);
      const summary = await collectRollouts({ ...options, memoryBudget: `${Math.round((process.memoryUsage.rss() + 2560 * MIB) / MIB)}MiB` }).done();
      expect(summary.failed).toBe(0);
      expect(readJsonlRows(join(dir, 'out.jsonl')).map((row) => row.reward)).toEqual([1, 1, 1, 1, 1]);
    } finally {
      await gym.close();
    }
    expect(most).toBeLessThanOrEqual(3);
  }, 90_000);
});
