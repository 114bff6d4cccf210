import { afterEach, describe, expect, it } from 'vitest';
import { type InProcessGym, startInProcessGym } from '../gym/in-process.ts';
import { defineResourcesServer } from './resources-server.ts';
import { modelResponse } from './scripted-model.ts';

const MIB = 2 ** 20;
const scorer = defineResourcesServer({ className: 'Scorer', verify: () => ({ reward: 1 }) });

let gym: InProcessGym | undefined;
afterEach(async () => {
  await gym?.close();
  gym = undefined;
});

function startScorer(memoryBudget: string | number): Promise<InProcessGym> {
  return startInProcessGym({
    config: { scorer: { resources_servers: { scorer: { entrypoint: 'app.ts', domain: 'other', memory_budget: memoryBudget } } } },
    definitions: { scorer },
  });
}

async function metric(server: InProcessGym, name: string): Promise<number> {
  const text = await (await fetch(server.url('scorer', '/metrics'))).text();
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
}

describe('admission by memory on a server', () => {
  it('holds a /verify while the process is over memory_budget, answers GET / meanwhile, and runs it once memory is freed', async () => {
    gym = await startScorer(`${Math.round(process.memoryUsage.rss() / MIB) + 64}MiB`);
    const verifyBody = { responses_create_params: { input: [] }, response: modelResponse([]) };
    // Resident, not just reserved: filled pages count in RSS.
    let ballast: Buffer | undefined = Buffer.alloc(160 * MIB, 1);
    let answered = false;
    const verify = fetch(gym.url('scorer', '/verify'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(verifyBody) }).then((response) => {
      answered = true;
      return response;
    });
    const started = Date.now();
    while ((await metric(gym, 'gym_admission_waiting')) !== 1) expect(Date.now() - started).toBeLessThan(10_000);
    expect((await fetch(gym.url('scorer', '/'))).status).toBe(200);
    expect(answered).toBe(false);
    expect(ballast.length).toBe(160 * MIB);
    // Garbage now: the server's own collection frees it, and the request goes on.
    ballast = undefined;
    const response = await verify;
    expect(response.status).toBe(200);
    expect(((await response.json()) as { reward: number }).reward).toBe(1);
    expect(await metric(gym, 'gym_admission_waits_total')).toBe(1);
    expect(await metric(gym, 'gym_admission_waiting')).toBe(0);
  });

  it('refuses at start a budget the server is already over, naming the key', async () => {
    await expect(startScorer('1MiB')).rejects.toThrow(/memory_budget: 1 MiB is below what server 'scorer' holds before any work \(\d+ MiB resident\): it could never admit anything/);
  });

  it('refuses a budget in bad units, naming the key', async () => {
    await expect(startScorer('2 gigs')).rejects.toThrow(/memory_budget.*'gigs' in '2 gigs' is not a unit/s);
    await expect(startScorer(2048)).rejects.toThrow(/memory_budget.*2048 has no unit/s);
  });
});
