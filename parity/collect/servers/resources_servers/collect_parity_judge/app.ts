/**
 * The judge of `npm run parity:collect`'s resume cases (agent `omega`): the reward is 1 when the model's answer is
 * the expected one. A row whose prompt says `judge_invalid_once` gets, on its first attempt only (no
 * `_ng_attempt_index`, which both collectors stamp on a retry a resume makes), the answer of a judge whose reply
 * could not be parsed: `invalid_judge_response: true` with a reward of 0, as LLM-judge environments write it.
 */
import { defineResourcesServer, responseOutputText } from 'ngym';
import * as z from 'zod';

export default defineResourcesServer({
  className: 'CollectParityJudge',
  verifyRequest: z.looseObject({ expected_answer: z.string() }),
  verify: (request) => {
    const prompt = JSON.stringify((request as { responses_create_params?: unknown }).responses_create_params ?? '');
    if (/\bjudge_invalid_once\b/.test(prompt) && (request as { _ng_attempt_index?: unknown })._ng_attempt_index === undefined) {
      return { reward: 0, invalid_judge_response: true };
    }
    return { reward: responseOutputText(request.response).trim() === request.expected_answer ? 1 : 0, invalid_judge_response: false };
  },
});
