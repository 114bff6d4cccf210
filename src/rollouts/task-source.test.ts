import { describe, expect, it } from 'vitest';
import { type InvalidInput, readTasks, type Task, type TaskSourceOptions } from './task-source.ts';

async function tasksOf(options: Partial<TaskSourceOptions> & Pick<TaskSourceOptions, 'input'>): Promise<{ tasks: Task[]; invalid: InvalidInput[]; warnings: string[] }> {
  const invalid: InvalidInput[] = [];
  const warnings: string[] = [];
  const tasks: Task[] = [];
  for await (const task of readTasks({ numRepeats: 1, onInvalid: (entry) => invalid.push(entry), onWarning: (message) => warnings.push(message), ...options })) tasks.push(task);
  return { tasks, invalid, warnings };
}

const row = (question: string, agent?: string) => ({
  responses_create_params: { input: question },
  ...(agent === undefined ? {} : { agent_ref: { type: 'responses_api_agents', name: agent } }),
});

describe('readTasks routing', () => {
  it('+agent_name routes every row to that agent, overriding agent_ref in the data, and warns what it overrode (as upstream 0.7.0)', async () => {
    const { tasks, invalid, warnings } = await tasksOf({ input: [row('q0', 'left'), row('q1'), row('q2', 'chosen'), row('q3', 'left')], agentName: 'chosen' });
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
    const { tasks, invalid, warnings } = await tasksOf({ input: [row('q0', 'left'), row('q1')] });
    expect(tasks.map((task) => task.agent)).toEqual(['left']);
    expect(invalid).toEqual([{ line: 2, reason: expect.stringMatching(/no agent_ref\.name/) }]);
    expect(warnings).toEqual([]);
  });
});
