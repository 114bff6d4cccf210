/**
 * Upstream parity: every rollout NeMo Gym 0.7.0 recorded for abstention (the wheel's data/example_rollouts.jsonl,
 * in the venv of `npm run setup:python`), joined back to its example row by the last user message and re-verified
 * here, gets the recorded reward and fields. The judge answers the recorded grade only to the prompt upstream
 * would have sent (its template filled with the row's question, gold answer and the recorded extracted answer), so
 * a prompt that differs fails the verify; and the default template is upstream's, byte for byte.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PromptTemplate } from 'ngym';
import { assistantMessage, callServer, type InProcessGym, scriptedModel, startInProcessGym, upstreamRollouts, upstreamWheel } from 'ngym/testing';
import { DEFAULT_JUDGE_PROMPT_TEMPLATE } from './judge-prompt.ts';

const { folder: UPSTREAM, skipReason: skip } = upstreamWheel('abstention');

const FIELDS = ['reward', 'extracted_answer', 'ground_truth', 'verdict', 'judge_output', 'is_correct', 'is_abstain', 'is_incorrect', 'omniscience_index'];

describe.skipIf(skip !== null)('abstention: upstream parity', () => {
  const rollouts = skip === null ? upstreamRollouts('abstention', { source: 'wheel' }) : [];
  const template = new PromptTemplate(DEFAULT_JUDGE_PROMPT_TEMPLATE);
  const replies = new Map(
    rollouts
      .map(({ rollout }) => rollout)
      .filter((recorded) => recorded.judge_output !== null)
      .map((recorded) => [template.format({ question: recorded.question ?? '', target: recorded.ground_truth, predicted_answer: recorded.extracted_answer }), recorded.judge_output as string]),
  );
  const judge = scriptedModel(({ input }) => [assistantMessage(replies.get((input[0] as { content: string }).content) ?? '')]);
  let gym: InProcessGym;
  beforeAll(async () => {
    gym = await startInProcessGym({
      overrides: [
        '+config_paths=[resources_servers/abstention/configs/abstention.yaml]',
        '+genrm_model.responses_api_models.scripted.entrypoint=app.ts',
        '+policy_model.responses_api_models.scripted.entrypoint=app.ts',
      ],
      definitions: { genrm_model: judge.definition, policy_model: scriptedModel(() => []).definition },
    });
  });
  afterAll(async () => gym?.close());

  it('grades with upstream 0.7.0 default judge prompt, byte for byte', () => {
    expect(readFileSync(join(UPSTREAM, 'app.py'), 'utf8')).toContain(`_DEFAULT_JUDGE_PROMPT_TEMPLATE = """\\\n${DEFAULT_JUDGE_PROMPT_TEMPLATE}"""`);
  });

  it('re-verifies every recorded rollout to its recorded reward, verdict and fields, sending the prompt upstream sent', async () => {
    expect(rollouts).toHaveLength(5);
    for (const { row, rollout: recorded } of rollouts) {
      const calls = judge.calls.length;
      const result = await callServer(gym, 'abstention', '/verify', { ...row, response: recorded.response });
      expect(Object.fromEntries(FIELDS.map((field) => [field, result[field]]))).toEqual(Object.fromEntries(FIELDS.map((field) => [field, recorded[field]])));
      expect(judge.calls.length - calls).toBe(recorded.judge_output === null ? 0 : 1);
    }
  });
});

describe.skipIf(skip === null)('abstention: upstream parity', () => {
  it.skip(skip ?? '', () => {});
});
