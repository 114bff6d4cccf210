/**
 * Upstream parity: every rollout NeMo Gym 0.7.0 ships for terminus_judge (the wheel's data/example_rollouts.jsonl),
 * joined back to its row of data/example.jsonl by the last user message and re-verified here with the judge answering
 * from the recorded judge evaluations, gets the recorded reward, similarity score, check flags, judge verdicts, parsed
 * batch and echoed fields, with the same number of judge calls; every judge prompt we send is byte for byte the
 * recorded one (the replaying judge answers only prompts it has a recording for). They were recorded with
 * terminus_judge_simple.yaml (the simple prompt, the swap check on).
 *
 * One field is newer in 0.7.0 than the recordings: a judge that says "not equivalent" was `judge_evaluation_failed`
 * then and is `judge_not_equivalent` in 0.7.0's FailureCode (which has no other name for it); the expectation is
 * 0.7.0's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordedJudge } from 'ngym';
import { callServer, type InProcessGym, startInProcessGym, upstreamRollouts, upstreamWheel } from 'ngym/testing';

const { skipReason } = upstreamWheel('terminus_judge');

const FIELDS = ['reward', 'similarity_score', 'schema_check_passed', 'task_complete_check_passed', 'string_similarity_passed', 'judge_passed', 'failure_reason', 'uuid', 'expected_answer', 'model_output', 'parsed_output', 'metadata', 'threshold'];
const RENAMED = { judge_evaluation_failed: 'judge_not_equivalent' } as Record<string, string>;

describe.skipIf(skipReason !== null)('terminus_judge: upstream parity', () => {
  const recorded = skipReason === null ? upstreamRollouts('terminus_judge', { source: 'wheel' }) : [];
  const judge = recordedJudge(recorded.flatMap(({ rollout }) => rollout.judge_evaluations));
  let gym: InProcessGym;
  beforeAll(async () => {
    gym = await startInProcessGym({
      overrides: ['+config_paths=[resources_servers/terminus_judge/configs/terminus_judge_simple.yaml]', '+policy_model.responses_api_models.scripted.entrypoint=app.ts'],
      definitions: { policy_model: judge.definition },
    });
  });
  afterAll(async () => gym?.close());

  it('re-verifies every recorded rollout to its recorded fields and verdicts', async () => {
    expect(recorded.map(({ rollout }) => [rollout.reward, rollout.judge_evaluations.length])).toEqual([[0, 1], [0, 1], [0, 1], [0, 1], [0, 2]]);
    for (const [index, { row, rollout }] of recorded.entries()) {
      const answeredBefore = judge.answered;
      const result = await callServer(gym, 'terminus_judge_resources_server', '/verify', { ...row, response: rollout.response });
      const expected = Object.fromEntries(FIELDS.map((field) => [field, field === 'failure_reason' ? (RENAMED[rollout[field]] ?? rollout[field]) : rollout[field]]));
      expect(Object.fromEntries(FIELDS.map((field) => [field, result[field]])), `rollout ${index}`).toEqual(expected);
      expect(result.judge_evaluations.map((evaluation: any) => evaluation.verdict_label)).toEqual(rollout.judge_evaluations.map((evaluation: any) => evaluation.verdict_label));
      expect(judge.answered - answeredBefore).toBe(rollout.judge_evaluations.length);
    }
  });
});

describe.skipIf(skipReason === null)('terminus_judge: upstream parity', () => {
  it.skip(skipReason ?? '', () => {});
});
