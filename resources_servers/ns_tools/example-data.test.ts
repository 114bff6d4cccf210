/**
 * The committed example data is what example-data.ts writes, and its rollouts replay: the model's turns answered
 * from the recording in strict mode, every tool output produced again by the sandbox byte for byte, with the
 * recorded rewards and verifier answers.
 */
import { describe, expect, it } from 'vitest';
import { readJsonlRows } from 'ngym/testing';
import { EXAMPLE_DATA, exampleRows, replayExampleRows } from './example-data.ts';
import { pythonToolUnavailableReason } from './sandbox-requirements.ts';

// One example's code imports sympy.
const unavailable = pythonToolUnavailableReason(['IPython', 'sympy']);

describe('ns_tools example data', () => {
  it('example.jsonl is what example-data.ts writes', () => {
    expect(readJsonlRows(EXAMPLE_DATA.examplePath)).toEqual(JSON.parse(JSON.stringify(exampleRows())));
  });

  it.skipIf(unavailable !== null)('the example rollouts replay in strict mode (every tool output byte for byte) with their rewards', async () => {
    const recorded = readJsonlRows(EXAMPLE_DATA.rolloutsPath);
    const replayed = await replayExampleRows();
    expect(recorded.map((rollout) => rollout.reward)).toEqual([1, 1, 1, 0, 0]);
    for (const [index, result] of replayed.entries()) {
      const rollout = recorded[index] as Record<string, any>;
      expect(result.response.output, `rollout ${index}`).toEqual(rollout.response.output);
      expect([result.reward, result.num_tool_calls, result.delegated_response.extracted_answer]).toEqual([rollout.reward, rollout.num_tool_calls, rollout.delegated_response.extracted_answer]);
    }
  }, 120_000);
});
