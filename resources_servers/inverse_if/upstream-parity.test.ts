/**
 * Upstream parity: every rollout NeMo Gym 0.7.0 recorded for inverse_if (the wheel's data/example_rollouts.jsonl,
 * each joined to its row of data/example.jsonl by the last user message: a rollout keeps neither the rubric nor the
 * row's judge prompts), re-verified here with the judge replaying the recorded replies, gets the recorded reward and
 * every recorded field: the prompt, the answer, the reference, and each criterion's judge prompt (byte for byte:
 * the replaying judge answers only prompts it has a recording for), reply, verdict, explanation and score.
 * Skips when the venv (NGYM_PYTHON_VENV, else .venv) has no nemo_gym.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assistantMessage, callServer, type InProcessGym, scriptedModel, startInProcessGym, upstreamRollouts, upstreamWheel } from 'ngym/testing';

const { skipReason } = upstreamWheel('inverse_if');

const RECORDED = ['reward', 'prompt', 'generated_response', 'reference_response', 'rubric_evaluations', 'aggregation_mode', 'num_passed', 'num_total'];
const recordedFields = (body: Record<string, unknown>) => Object.fromEntries(RECORDED.map((field) => [field, body[field]]));

describe.skipIf(skipReason !== null)('inverse_if: upstream parity', () => {
  const rollouts = skipReason === null ? upstreamRollouts('inverse_if', { source: 'wheel' }) : [];
  const replies = new Map<string, string>(rollouts.flatMap(({ rollout }) => rollout.rubric_evaluations.map((evaluation: Record<string, string>) => [evaluation.judge_prompt, evaluation.judge_response])));
  const judge = scriptedModel(({ input }) => {
    const reply = replies.get(String(input.at(-1)?.content));
    if (reply === undefined) throw new Error('no recorded judge reply has this prompt');
    return [assistantMessage(reply)];
  });
  let gym: InProcessGym;
  beforeAll(async () => {
    gym = await startInProcessGym({
      overrides: ['+config_paths=[resources_servers/inverse_if/configs/inverse_if.yaml]', '+judge_model.responses_api_models.scripted.entrypoint=app.ts', '+policy_model.responses_api_models.scripted.entrypoint=app.ts'],
      definitions: { judge_model: judge.definition, policy_model: scriptedModel(() => []).definition },
    });
  });
  afterAll(async () => gym?.close());

  it('re-verifies every recorded rollout to its recorded reward and fields, with the same judge calls', async () => {
    expect(rollouts).toHaveLength(5);
    for (const [index, { row, rollout }] of rollouts.entries()) {
      const answered = judge.calls.length;
      const result = await callServer(gym, 'inverse_if', '/verify', { ...row, response: rollout.response });
      expect({ index, ...recordedFields(result) }).toEqual({ index, ...recordedFields(rollout) });
      expect(judge.calls.length - answered).toBe(rollout.rubric_evaluations.length);
      // Each call carried the row's own judge system prompt.
      expect(judge.calls.at(-1)?.input[0]).toMatchObject({ role: 'system', content: row.judge_system_prompt });
    }
  });
});

describe.skipIf(skipReason === null)('inverse_if: upstream parity', () => {
  it.skip(skipReason ?? '', () => {});
});
