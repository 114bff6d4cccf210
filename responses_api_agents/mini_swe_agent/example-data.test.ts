import { describe, expect, it } from 'vitest';
import { bubblewrapUnavailableReason } from 'ngym';
import { readJsonlRows, replayExampleRollouts } from 'ngym/testing';
import { EXAMPLE_DATA, exampleRows } from './example-data.ts';

const unavailable = bubblewrapUnavailableReason();

describe('mini_swe_agent example data', () => {
  it('example.jsonl is what example-data.ts writes (base commits and patches from the repositories)', () => {
    expect(readJsonlRows(EXAMPLE_DATA.examplePath)).toEqual(JSON.parse(JSON.stringify(exampleRows())));
  });

  it.skipIf(unavailable !== null)('the example rollouts replay in strict mode (every observation byte for byte) with their rewards', async () => {
    const replayed = await replayExampleRollouts(EXAMPLE_DATA);
    expect(replayed.map(({ recorded }) => recorded.reward)).toEqual([1, 1, 0]);
    for (const { recorded, result } of replayed) {
      expect(result.reward).toBe(recorded.reward);
      expect(result.response.output.map((item: any) => item.content)).toEqual(recorded.response.output.map((item: any) => item.content));
      expect(result.metadata.eval_report).toEqual(recorded.metadata.eval_report);
    }
  });
});
