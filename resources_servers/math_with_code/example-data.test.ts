import { describe, expect, it } from 'vitest';
import { bubblewrapUnavailableReason } from 'ngym';
import { readJsonlRows, replayExampleRollouts } from 'ngym/testing';
import { EXAMPLE_DATA, exampleRows } from './example-data.ts';

const unavailable = bubblewrapUnavailableReason();

describe('math_with_code example data', () => {
  it('example.jsonl is what example-data.ts writes', () => {
    expect(readJsonlRows(EXAMPLE_DATA.examplePath)).toEqual(JSON.parse(JSON.stringify(exampleRows())));
  });

  it.skipIf(unavailable !== null)('the example rollouts replay in strict mode (every tool output byte for byte) with their rewards', async () => {
    const replayed = await replayExampleRollouts(EXAMPLE_DATA);
    expect(replayed.map(({ recorded }) => recorded.reward)).toEqual([1, 0, 0, 1, 0]);
    for (const { recorded, result } of replayed) {
      expect(result.reward).toBe(recorded.reward);
      expect(result.extracted_answer).toBe(recorded.extracted_answer);
    }
  });
});
