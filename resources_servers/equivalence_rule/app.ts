/**
 * equivalence_rule: questions whose answer is a known text (long-context retrieval and counting, MRCR-style), graded
 * by a rule rather than a judge, as upstream NeMo Gym 0.7.0's equivalence_rule: the response's text (every
 * `output_text` part of its messages, joined) against the row's `expected_answer`, both normalized, by the server's
 * `grading_rule`: `exact` (the default), `seq_match` or `weighted_seq_match` (grading-rules.ts). The score is both
 * the reward and `equivalence_score`.
 */
import { defineResourcesServer, responseOutputText } from 'ngym';
import * as z from 'zod';
import { grade, GRADING_RULES } from './grading-rules.ts';

export default defineResourcesServer({
  className: 'EquivalenceRuleResourcesServer',
  config: {
    /** How the response is compared with the expected answer (upstream's key and default). */
    grading_rule: z.enum(GRADING_RULES).default('exact'),
  },
  // Only the answer is read; question, dataset, source, hashid and context_length are provenance, kept in the rollout.
  verifyRequest: z.looseObject({ expected_answer: z.string() }),
  verify: (request, { config }) => {
    const score = grade(responseOutputText(request.response), request.expected_answer, config.grading_rule);
    return { reward: score, equivalence_score: score };
  },
});
