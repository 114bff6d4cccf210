import { describe, expect, it } from 'vitest';
import { checkResumable, CompletedRollouts, type RunManifest } from './output-files.ts';

describe('CompletedRollouts', () => {
  it('answers membership for keys added in any order, across large task indices', () => {
    const completed = new CompletedRollouts();
    const added: [number, number][] = [];
    for (let task = 5_000; task >= 0; task -= 7) for (const rollout of [3, 0, 1]) added.push([task * 1_000, rollout]);
    for (const [task, rollout] of added) completed.add(task, rollout);
    expect(completed.size).toBe(added.length);
    for (const [task, rollout] of added) expect(completed.has(task, rollout)).toBe(true);
    expect(completed.has(7_000, 2)).toBe(false);
    expect(completed.has(1_000, 0)).toBe(false);
    expect(completed.has(5_000_001, 0)).toBe(false);
    completed.add(1_000, 0);
    expect(completed.has(1_000, 0)).toBe(true);
  });
});

describe('checkResumable', () => {
  const manifest: RunManifest = {
    input: 'in.jsonl',
    input_size: 10,
    input_fingerprint: 'abc',
    num_repeats: 2,
    limit: null,
    agent_name: 'a',
    agent_map: { _default: 'a' },
    fan_out: null,
    num_repeats_add_seed: false,
    responses_create_params: {},
    started_at: '2026-01-01T00:00:00Z',
  };

  it('refuses a resume whose routing, repeats or seeding differ from the run it would continue, naming each key', () => {
    const changed = { ...manifest, agent_map: { _default: 'a', x: 'b' }, fan_out: { x: ['a', 'b'] }, num_repeats: { a: 2 }, num_repeats_add_seed: true };
    expect(() => checkResumable(manifest, changed, 'out_run.json')).toThrow(
      /Cannot resume: num_repeats was 2, now \{"a":2\}; agent_map was \{"_default":"a"\}, now \{"_default":"a","x":"b"\}; fan_out was null, now \{"x":\["a","b"\]\}; num_repeats_add_seed was false, now true \(recorded in out_run.json\)/,
    );
    expect(() => checkResumable(manifest, { ...manifest }, 'out_run.json')).not.toThrow();
  });

  it('resumes a run recorded before agent_map was: its agent_name is its _default', () => {
    const { agent_map: _map, fan_out: _fan, num_repeats_add_seed: _seed, ...older } = manifest;
    expect(() => checkResumable(older, manifest, 'out_run.json')).not.toThrow();
    expect(() => checkResumable(older, { ...manifest, agent_map: { _default: 'b' } }, 'out_run.json')).toThrow(/agent_map was/);
  });
});
