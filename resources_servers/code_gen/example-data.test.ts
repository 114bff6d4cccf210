import { describe, expect, it } from 'vitest';
import { bubblewrapUnavailableReason } from 'ngym';
import { readJsonlRows, replayExampleRollouts } from 'ngym/testing';
import { EXAMPLE_DATA, exampleRows } from './example-data.ts';

const unavailable = bubblewrapUnavailableReason();

describe('code_gen example data', () => {
  it('example.jsonl is what example-data.ts writes', () => {
    expect(readJsonlRows(EXAMPLE_DATA.examplePath)).toEqual(JSON.parse(JSON.stringify(exampleRows())));
  });

  it.skipIf(unavailable !== null)('the example rollouts replay in strict mode with their recorded rewards and results', async () => {
    const replayed = await replayExampleRollouts(EXAMPLE_DATA);
    expect(replayed.map(({ recorded }) => recorded.reward)).toEqual([1, 1, 1, 0, 0]);
    for (const { recorded, result } of replayed) {
      expect(result.reward).toBe(recorded.reward);
      expect(result.result).toEqual(recorded.result);
      expect(result.extracted_model_code).toBe(recorded.extracted_model_code);
    }
  });
});
