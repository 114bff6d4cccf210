/**
 * Upstream parity: every rollout NeMo Gym recorded for math_with_judge, re-verified here with the judge
 * answering from the recorded judge evaluations, gets the recorded reward, library_reward, number of judge
 * evaluations and extracted_answer; and every judge prompt we send is byte for byte the recorded one with the
 * generation cut to its last box, as 0.7.0 sends it (the replaying judge only answers a prompt it has a recording for).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastBoxedContent, recordedJudge, responseOutputText } from 'ngym';
import {
  callServer,
  type InProcessGym,
  scriptedModel,
  SHARED_SKIP_MESSAGE,
  sharedFixturesAvailable,
  startInProcessGym,
  upstreamRollouts,
} from 'ngym/testing';

describe.skipIf(!sharedFixturesAvailable())('math_with_judge: upstream parity', () => {
  const recordings = sharedFixturesAvailable() ? upstreamRollouts('math_with_judge') : [];
  // The recordings are v0.1.1's, whose judge saw the whole generation; 0.7.0 (and ngym) send only the last box's
  // content, so each recorded prompt is replayed with the generation replaced by that content.
  const judge = recordedJudge(
    recordings.flatMap(({ rollout }) => {
      const generation = responseOutputText(rollout.response);
      const boxed = lastBoxedContent(generation) ?? generation;
      return (rollout.judge_evaluations ?? []).map((evaluation: any) => ({
        ...evaluation,
        responses_create_params: {
          ...evaluation.responses_create_params,
          input: evaluation.responses_create_params.input.map((item: any) => ({ ...item, content: item.content.replace(`\n${generation}\n`, `\n${boxed}\n`) })),
        },
      }));
    }),
  );
  let gym: InProcessGym;
  beforeAll(async () => {
    gym = await startInProcessGym({
      overrides: [
        '+config_paths=[resources_servers/math_with_judge/configs/math_with_judge.yaml]',
        '+math_with_judge.resources_servers.math_with_judge.judge_model_server.name=judge_model',
        '+judge_model.responses_api_models.scripted.entrypoint=app.ts',
        '+policy_model.responses_api_models.scripted.entrypoint=app.ts',
      ],
      definitions: { judge_model: judge.definition, policy_model: scriptedModel(() => []).definition },
    });
  });
  afterAll(async () => gym?.close());

  it('re-verifies every recorded rollout to its recorded reward, library reward, judge calls and answer', async () => {
    expect(recordings).toHaveLength(5);
    for (const { row, rollout: recorded } of recordings) {
      const answeredBefore = judge.answered;
      const result = await callServer(gym, 'math_with_judge', '/verify', { ...row, response: recorded.response });
      expect({ reward: result.reward, library_reward: result.library_reward, expected_answer: result.expected_answer }).toEqual({
        reward: recorded.reward,
        library_reward: recorded.library_reward,
        expected_answer: recorded.expected_answer,
      });
      expect(result.extracted_answer).toBe(recorded.extracted_answer);
      expect(result.judge_evaluations?.length ?? null).toBe(recorded.judge_evaluations?.length ?? null);
      expect(judge.answered - answeredBefore).toBe(recorded.judge_evaluations?.length ?? 0);
      for (const [index, evaluation] of (result.judge_evaluations ?? []).entries()) {
        expect(evaluation.response.output).toEqual(recorded.judge_evaluations[index].response.output);
      }
    }
  });
});

describe.skipIf(sharedFixturesAvailable())('math_with_judge: upstream parity', () => {
  it.skip(SHARED_SKIP_MESSAGE, () => {});
});
