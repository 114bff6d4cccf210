import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { SHARED_SKIP_MESSAGE, sharedFixture, sharedFixturesAvailable } from '../testing/shared-fixtures.ts';
import { createViewerApp } from './app.tsx';
import { RolloutIndex } from './rollout-index.ts';
import { rewardHistogram } from '../metrics/reward-histogram.ts';
import { matchesFilter, taskStats } from './stats.ts';

/** A rollout as ngym collect writes it. */
function rollout(prompt: string, reward: number, extra: Record<string, unknown> = {}, output: unknown[] = []) {
  return {
    responses_create_params: { input: [{ role: 'user', content: prompt }], tools: [] },
    response: { id: `resp_${prompt.length}_${reward}`, output: [...output, { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `answer to ${prompt}` }] }] },
    reward,
    ...extra,
  };
}

function writeRollouts(lines: string[]): string {
  const path = join(mkdtempSync(join(tmpdir(), 'ngym-view-')), 'rollouts.jsonl');
  writeFileSync(path, lines.join('\n'));
  return path;
}

describe('pass@k and the histogram', () => {
  it('bars each distinct reward when there are few, and bins continuous rewards in ten', () => {
    expect(rewardHistogram([1, 0, 1, 1]).map((bin) => [bin.label, bin.count])).toEqual([['0', 1], ['1', 3]]);
    const continuous = Array.from({ length: 100 }, (_, index) => index / 99);
    const bins = rewardHistogram(continuous);
    expect(bins).toHaveLength(10);
    expect(bins.reduce((sum, bin) => sum + bin.count, 0)).toBe(100);
    expect(bins.at(-1)).toMatchObject({ to: 1, inclusive: true });
  });
});

describe('RolloutIndex', () => {
  it('indexes lines across read chunks (CRLF, blank and broken lines included) and reads each back by offset', async () => {
    const big = 'x'.repeat(700_000);
    const rows = [
      JSON.stringify(rollout('first', 1, { _ng_task_index: 0, _ng_rollout_index: 0, agent_ref: { name: 'agent_a' } })),
      JSON.stringify(rollout(big, 0, { _ng_task_index: 0, _ng_rollout_index: 1, agent_ref: { name: 'agent_b' } })),
      '',
      '{"broken": ',
      `${JSON.stringify(rollout(`second ${big}`, 0.5))}\r`,
      JSON.stringify(rollout('no trailing newline', 1)),
    ];
    const path = writeRollouts(rows);
    const index = await RolloutIndex.build(path);
    expect(index.size).toBe(5);
    expect(index.rollouts.map((summary) => summary.line)).toEqual([1, 2, 4, 5, 6]);
    expect(await index.readText(1)).toBe(rows[1]);
    expect(await index.readText(3)).toBe(rows[4]?.slice(0, -1));
    expect(await index.readText(4)).toBe(rows[5]);
    expect(index.rollouts[2]?.problem).toMatch(/^not valid JSON/);
    expect(index.rollouts[0]).toMatchObject({ reward: 1, taskKey: 'task-0', rolloutIndex: 0, agent: 'agent_a', prompt: 'first', answer: 'answer to first', problem: null });
    expect(index.rollouts[1]?.taskKey).toBe('task-0');
    expect(index.rollouts[1]?.prompt.length).toBeLessThanOrEqual(160);
    expect(index.rollouts[3]?.taskKey).toMatch(/^[0-9a-f]{12}$/);
    expect(index.metrics.aggregate()['Number of examples']).toBe(4);
    const { tasks } = taskStats(index.rollouts, 1);
    expect(tasks[0]).toMatchObject({ taskKey: 'task-0', rollouts: 2, passed: 1, meanReward: 0.5 });
    expect(tasks[0]?.passAt.get(1)).toBeCloseTo(0.5);
    expect(index.rollouts.filter((summary) => matchesFilter(summary, { threshold: 1, outcome: 'fail' })).map((summary) => summary.index)).toEqual([1, 3]);
  });
});

describe('viewer pages', () => {
  it('filters, paginates, escapes model text and serves the raw line', async () => {
    const lines = Array.from({ length: 120 }, (_, index) =>
      JSON.stringify(rollout(`task ${Math.floor(index / 4)} <script>alert(1)</script>`, index % 4 === 0 ? 1 : 0, { _ng_task_index: Math.floor(index / 4), _ng_rollout_index: index % 4, agent_ref: { name: index < 60 ? 'alpha' : 'beta' } })),
    );
    const index = await RolloutIndex.build(writeRollouts(lines));
    const app = createViewerApp(index, { pageSize: 25 });
    const overview = await (await app.request('/')).text();
    expect(overview).toContain('pass@4 (mean over tasks)');
    expect(overview).toContain('100.0%');
    expect(overview).toContain('href="/rollouts?reward_min=0&amp;reward_max=0"');

    const page = await app.request('/rollouts?outcome=pass&agent=beta');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await page.text();
    expect(html).toContain('15 of 120');
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect([...html.matchAll(/data-index="(\d+)"/g)].map((match) => Number(match[1]))).toEqual(Array.from({ length: 15 }, (_, offset) => 60 + offset * 4));

    const second = await (await app.request('/rollouts?page=2')).text();
    expect(second).toContain('page 2 of 5');
    expect(second).toContain('href="/rollouts?page=3"');

    const trajectory = await (await app.request('/rollouts/64?outcome=pass&agent=beta')).text();
    expect(trajectory).toContain('href="/rollouts/60?outcome=pass&amp;agent=beta"');
    expect(trajectory).toContain('href="/rollouts/68?outcome=pass&amp;agent=beta"');
    const raw = await app.request('/rollouts/64/raw');
    expect(raw.headers.get('content-type')).toContain('application/json');
    expect(await raw.text()).toBe(lines[64]);
    expect((await app.request('/rollouts/120')).status).toBe(404);
    expect((await app.request('/rollouts/abc/raw')).status).toBe(404);
  });
});

describe.skipIf(!sharedFixturesAvailable())('viewer on upstream rollouts', () => {
  it('shows messages, reasoning, tool calls with arguments and outputs, and the verify result', async () => {
    const path = sharedFixture('example_multi_step', 'example_rollouts.jsonl');
    const index = await RolloutIndex.build(path);
    const app = createViewerApp(index);
    const first = JSON.parse(readFileSync(path, 'utf8').split('\n')[0] as string);
    const html = await (await app.request('/rollouts/0')).text();
    const call = first.response.output.find((item: any) => item.type === 'function_call');
    expect(html).toContain(`Function call - ${call.name} (tool call ID ${call.call_id})`);
    expect(html).toContain('Function call output (tool call ID');
    expect(html).toMatch(/Turn 1 Step 0 - User message/);
    expect(html).toContain('<dt>accuracy</dt>');
    const reasoningPath = sharedFixture('reasoning_gym', 'example_rollouts.jsonl');
    const reasoningRollout = JSON.parse(readFileSync(reasoningPath, 'utf8').split('\n')[0] as string);
    const summaryText: string = reasoningRollout.response.output.find((item: any) => item.type === 'reasoning').summary[0].text;
    const reasoningHtml = await (await createViewerApp(await RolloutIndex.build(reasoningPath)).request('/rollouts/0')).text();
    expect(reasoningHtml).toMatch(/Turn 1 Step 0 - Reasoning/);
    const plainWords = summaryText.match(/[A-Za-z ,]{30,}/)?.[0];
    expect(plainWords).toBeDefined();
    expect(reasoningHtml).toContain(plainWords);
  });
});

describe.skipIf(sharedFixturesAvailable())('viewer on upstream rollouts', () => {
  it.skip(SHARED_SKIP_MESSAGE, () => {});
});

describe('viewer on a 100 MB file', () => {
  it('indexes it without keeping it in memory and serves small pages', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'ngym-view-big-'));
    onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
    const path = join(folder, 'big.jsonl');
    const output = createWriteStream(path);
    const filler = 'lorem ipsum '.repeat(800);
    let bytes = 0;
    let rows = 0;
    while (bytes < 100e6) {
      const line = `${JSON.stringify(rollout(`question ${rows} ${filler}`, rows % 3 === 0 ? 0 : 1, { _ng_task_index: rows >> 3, _ng_rollout_index: rows % 8 }))}\n`;
      bytes += line.length;
      rows++;
      if (!output.write(line)) await once(output, 'drain');
    }
    output.end();
    await once(output, 'finish');
    const index = await RolloutIndex.build(path);
    expect(index.size).toBe(rows);
    expect(index.bytes).toBe(bytes);
    // What stays in memory is one short summary per line, not the file.
    expect(JSON.stringify(index.rollouts).length).toBeLessThan(bytes / 20);
    const app = createViewerApp(index);
    for (const url of ['/', '/rollouts', '/rollouts?outcome=fail&page=40', `/rollouts/${rows - 1}`]) {
      const response = await app.request(url);
      expect(response.status, url).toBe(200);
      expect((await response.text()).length, url).toBeLessThan(500_000);
    }
  });
});
