import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RoutingRules } from './agent-routing.ts';
import { checkRepeatsCoverage } from './check-routing.ts';
import { checkedRouting, type CollectOptions } from './collect-options.ts';
import { rolloutRequest } from './rollout-request.ts';
import { type InvalidInput, readTasks, type Task } from './task-source.ts';

type Knobs = Pick<CollectOptions, 'agentName' | 'agentMap' | 'fanOut' | 'numRepeats'>;

async function tasksOf(input: Record<string, unknown>[], knobs: Knobs = {}, addSeed = false): Promise<{ tasks: Task[]; invalid: InvalidInput[]; warnings: string[] }> {
  const invalid: InvalidInput[] = [];
  const warnings: string[] = [];
  const tasks: Task[] = [];
  const routing: RoutingRules = checkedRouting(knobs);
  for await (const task of readTasks({ input, routing, addSeed, onInvalid: (entry) => invalid.push(entry), onWarning: (message) => warnings.push(message) })) tasks.push(task);
  return { tasks, invalid, warnings };
}

const row = (question: string, agent?: string, extra: Record<string, unknown> = {}) => ({
  responses_create_params: { input: question, ...extra },
  ...(agent === undefined ? {} : { agent_ref: { type: 'responses_api_agents', name: agent } }),
});

/** Each task as `agent:task/first+rollouts`. */
const layout = (tasks: Task[]) => tasks.map((task) => `${task.agent}:${task.taskIndex}/${task.firstRollout}+${task.rollouts}`);

describe('readTasks routing', () => {
  it('+agent_name routes every row to that agent, overriding agent_ref in the data, and warns what it overrode (as upstream 0.7.0)', async () => {
    const { tasks, invalid, warnings } = await tasksOf([row('q0', 'left'), row('q1'), row('q2', 'chosen'), row('q3', 'left')], { agentName: 'chosen' });
    expect(invalid).toEqual([]);
    expect(tasks.map((task) => task.agent)).toEqual(['chosen', 'chosen', 'chosen', 'chosen']);
    // The agent sees (and echoes) the agent it runs on, never the one the data named.
    expect(tasks.map((task) => (task.row.agent_ref as { name: string }).name)).toEqual(['chosen', 'chosen', 'chosen', 'chosen']);
    // One warning per overridden pair, in upstream's words.
    expect(warnings).toEqual([
      "agent_map overrode agent_ref values already present in the data: [('left', 'chosen')]. Prior to this release, +agent_name only filled rows missing an agent_ref; it now re-routes every row.",
    ]);
  });

  it('without +agent_name, each row goes to its own agent_ref and a row with none is invalid', async () => {
    const { tasks, invalid, warnings } = await tasksOf([row('q0', 'left'), row('q1')]);
    expect(tasks.map((task) => task.agent)).toEqual(['left']);
    expect(invalid).toEqual([{ line: 2, reason: expect.stringMatching(/no agent_ref\.name/) }]);
    expect(warnings).toEqual([]);
  });

  it('agent_map: an entry for the row wins over _default, which wins over the row; rows without agent_ref take _default', async () => {
    const { tasks, warnings } = await tasksOf([row('q0', 'old'), row('q1', 'other'), row('q2')], { agentMap: { old: 'new', _default: 'fallback' } });
    expect(tasks.map((task) => task.agent)).toEqual(['new', 'fallback', 'fallback']);
    expect(warnings).toHaveLength(2);
    const { tasks: only } = await tasksOf([row('q0', 'old'), row('q1', 'other')], { agentMap: { old: 'new' } });
    expect(only.map((task) => task.agent)).toEqual(['new', 'other']);
  });

  it('refuses agent_name against a different agent_map._default, and empty or repeated fan_out lists, in upstream words', () => {
    expect(() => checkedRouting({ agentName: 'a', agentMap: { _default: 'b' } })).toThrow("agent_name='a' conflicts with agent_map._default='b'. Set only one of them.");
    expect(checkedRouting({ agentName: 'a', agentMap: { _default: 'a', x: 'y' } }).agentMap).toEqual({ _default: 'a', x: 'y' });
    expect(() => checkedRouting({ fanOut: { k: [] } })).toThrow("fan_out['k'] is an empty list");
    expect(() => checkedRouting({ fanOut: { k: ['a', 'b', 'a'] } })).toThrow("fan_out['k'] lists the same agent more than once: ['a']");
    expect(() => checkedRouting({ numRepeats: 0 })).toThrow('num_repeats must be >= 1, got 0');
    expect(() => checkedRouting({ numRepeats: { a: 2, b: 0 } })).toThrow("num_repeats dict values must be >= 1, got {'b': 0}");
  });

  it('fan_out runs a row once per listed agent with consecutive rollout indices; repeats apply per agent', async () => {
    const { tasks } = await tasksOf([row('q0', 'judge'), row('q1', 'solo')], { fanOut: { judge: ['a', 'b'] }, numRepeats: 2 });
    expect(layout(tasks)).toEqual(['a:0/0+2', 'b:0/2+2', 'solo:1/0+2']);
    expect(tasks.map((task) => (task.row.agent_ref as { name: string }).name)).toEqual(['a', 'b', 'solo']);
  });

  it('num_repeats as a map: the dispatched agent first, then the row own agent, then _default', async () => {
    const { tasks } = await tasksOf([row('q0', 'x'), row('q1', 'y'), row('q2', 'z')], { agentMap: { y: 'mapped' }, numRepeats: { x: 3, mapped: 2, y: 5, _default: 1 } });
    expect(layout(tasks)).toEqual(['x:0/0+3', 'mapped:1/0+2', 'z:2/0+1']);
  });

  it('a num_repeats map that misses a row refuses the run before it starts; unused entries are warned of', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ngym-routing-'));
    const input = join(dir, 'in.jsonl');
    writeFileSync(input, `${[row('q0', 'x'), row('q1', 'y')].map((line) => JSON.stringify(line)).join('\n')}\n`);
    const warnings: string[] = [];
    const options = { input, onWarning: (message: string) => warnings.push(message) };
    await expect(checkRepeatsCoverage({ ...options, routing: checkedRouting({ numRepeats: { x: 2, typo: 1 } }) }, checkedRouting({ numRepeats: { x: 2, typo: 1 } }))).rejects.toThrow(
      "num_repeats dict has no entry for routing keys ['y'] and no '_default' fallback. Listed keys: ['typo', 'x']",
    );
    const rules = checkedRouting({ numRepeats: { x: 2, typo: 1, _default: 1 } });
    const router = await checkRepeatsCoverage({ ...options, routing: rules }, rules);
    expect(router).toBeDefined();
    expect(warnings).toEqual(["num_repeats dict contains agent names that never appeared in input rows (possible typo?): ['typo']"]);
  });

  it('num_repeats_add_seed puts seed=<rollout index> in metadata.extra_body, keeping what was there, as Python dumps it', async () => {
    const { tasks, invalid } = await tasksOf(
      [row('q0', 'a', { metadata: { extra_body: '{"top_k": 5, "min_p": 1.0}', other: 'kept' } }), row('q1', 'a'), row('q2', 'a', { metadata: { extra_body: '[1]' } })],
      { numRepeats: 2 },
      true,
    );
    expect(invalid).toEqual([{ line: 3, reason: expect.stringMatching(/extra_body is not a JSON object/) }]);
    const bodies = tasks.flatMap((task) => [0, 1].map((index) => JSON.parse(rolloutRequest(task, index).body).responses_create_params.metadata));
    expect(bodies).toEqual([
      { extra_body: '{"top_k": 5, "min_p": 1.0, "seed": 0}', other: 'kept' },
      { extra_body: '{"top_k": 5, "min_p": 1.0, "seed": 1}', other: 'kept' },
      { extra_body: '{"seed": 0}' },
      { extra_body: '{"seed": 1}' },
    ]);
  });
});
