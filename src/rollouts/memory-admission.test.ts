import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type InProcessGym, startInProcessGym } from '../gym/in-process.ts';
import { defineResourcesServer } from '../server/resources-server.ts';
import { assistantMessage, scriptedModel } from '../server/scripted-model.ts';
import { simpleAgentConfig } from '../testing/agent-config.ts';
import { readJsonlRows } from '../testing/jsonl-rows.ts';
import { collectRollouts } from './collect.ts';
import type { ProgressReporter } from './progress.ts';

const MIB = 2 ** 20;
const TASKS = 6;

let gym: InProcessGym | undefined;
afterEach(async () => {
  await gym?.close();
  gym = undefined;
});

async function startGym(): Promise<InProcessGym> {
  const scorer = defineResourcesServer({ className: 'Scorer', verify: () => ({ reward: 1 }) });
  const model = scriptedModel(() => [assistantMessage('ok')]);
  return startInProcessGym({
    config: { policy_model: { responses_api_models: { scripted: { entrypoint: 'app.ts' } } }, ...simpleAgentConfig({ resources: { name: 'scorer_env', implementation: 'scorer' }, agent: 'scorer' }) },
    definitions: { policy_model: model.definition, scorer_env: scorer },
  });
}

function inputFile(): { input: string; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ngym-memory-'));
  const input = join(dir, 'in.jsonl');
  writeFileSync(input, Array.from({ length: TASKS }, (_, index) => `${JSON.stringify({ responses_create_params: { input: `q${index}` } })}\n`).join(''));
  return { input, output: join(dir, 'out.jsonl') };
}

/** A progress reporter that keeps every update's fields, and resolves `held` at the first one showing rollouts waiting for memory. */
function recordingProgress() {
  let seen: () => void = () => {};
  const held = new Promise<void>((resolve) => (seen = resolve));
  const updates: Record<string, string | number>[] = [];
  const reporter: ProgressReporter = {
    start() {},
    setTotal() {},
    stop() {},
    update(_done, fields = {}) {
      updates.push(fields);
      if (Number(fields.waiting_for_memory) > 0) seen();
    },
  };
  return { reporter, held, updates };
}

describe("the collector's admission by memory", () => {
  it('starts no rollout while the collector is over memory_budget, says so on the progress line, and collects everything once memory is freed', async () => {
    gym = await startGym();
    const files = inputFile();
    const progress = recordingProgress();
    const budget = `${Math.round(process.memoryUsage.rss() / MIB) + 64}MiB`;
    const collection = collectRollouts({ client: gym.client, input: files.input, outputPath: files.output, agentName: 'scorer', memoryBudget: budget, progress: progress.reporter });
    // The budget is checked as the run starts (the process is under it); then the process goes over it before
    // the first rollout is admitted. Resident, not just reserved: filled pages count in RSS.
    const done = collection.done();
    let ballast: Buffer | undefined = Buffer.alloc(160 * MIB, 1);
    await progress.held;
    expect(readJsonlRows(files.output)).toHaveLength(0);
    expect(ballast.length).toBe(160 * MIB);
    // Garbage now: the collector's own full collection frees it, and the rollouts start.
    ballast = undefined;
    const summary = await done;
    expect(summary.completed).toBe(TASKS);
    expect(readJsonlRows(files.output)).toHaveLength(TASKS);
    expect(progress.updates.at(-1)?.waiting_for_memory).toBeUndefined();
  });

  it('refuses, before opening the output, a budget the collector is already over or one in bad units, naming the key', async () => {
    gym = await startGym();
    const files = inputFile();
    const collect = (memoryBudget: string) => collectRollouts({ client: gym!.client, input: files.input, outputPath: files.output, agentName: 'scorer', memoryBudget }).done();
    await expect(collect('1MiB')).rejects.toThrow(/^memory_budget: 1 MiB is below what the collector holds before any work \(\d+ MiB resident\): it could never admit anything/);
    await expect(collect('2 gigs')).rejects.toThrow(/^memory_budget: 'gigs' in '2 gigs' is not a unit/);
    expect(existsSync(files.output)).toBe(false);
  });
});
