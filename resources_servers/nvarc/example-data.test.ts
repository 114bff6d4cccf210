import { describe, expect, it } from 'vitest';
import { bubblewrapUnavailableReason } from 'ngym';
import { readJsonlRows, replayExampleRollouts } from 'ngym/testing';
import { EXAMPLE_DATA, exampleRows } from './example-data.ts';

// Two example rows are inductive: their programs run in the sandbox.
const unavailable = bubblewrapUnavailableReason();

describe('nvarc example data', () => {
  it('example.jsonl is what example-data.ts writes', () => {
    expect(readJsonlRows(EXAMPLE_DATA.examplePath)).toEqual(JSON.parse(JSON.stringify(exampleRows())));
  });

  it.skipIf(unavailable !== null)('the example rollouts replay in strict mode with their recorded rewards and grids', async () => {
    const replayed = await replayExampleRollouts(EXAMPLE_DATA);
    expect(replayed.map(({ recorded }) => recorded.reward)).toEqual([1, 0, 1, 1, 0]);
    for (const { recorded, result } of replayed) {
      expect({ reward: result.reward, predicted_output: result.predicted_output, agent_mode: result.agent_mode }).toEqual({
        reward: recorded.reward,
        predicted_output: recorded.predicted_output,
        agent_mode: recorded.agent_mode,
      });
    }
  });
});
