/**
 * mcqa: multiple-choice questions graded by the letter the model picks, by upstream NeMo Gym 0.7.0's rules
 * (extract.ts). The letter is read with the row's template regex when it has one
 * (`template_metadata.output_regex`, Python syntax, one pattern or a list), else by the grading mode: the server
 * config's `grading_mode` when set, else the row's. Reward is 1.0 when that letter is the expected one.
 */
import { defineResourcesServer, responseOutputText } from 'ngym';
import { computePassMajorityMetrics, highestKMetrics } from 'ngym/metrics';
import { pythonStrip } from 'ngym/python-compat';
import * as z from 'zod';
import { CONFIG_GRADING_MODES, extractLetter, ROW_GRADING_MODES } from './extract.ts';

export default defineResourcesServer({
  className: 'MCQAResourcesServer',
  config: {
    /** Grades every row with this mode instead of the row's; `lenient_answer_colon_md` can only be chosen here. */
    grading_mode: z.enum(CONFIG_GRADING_MODES).nullable().default(null),
  },
  verifyRequest: z.looseObject({
    uuid: z.string().nullish(),
    options: z.array(z.record(z.string(), z.string().nullable())).nullish(),
    expected_answer: z.string().nullish(),
    metadata: z.record(z.string(), z.unknown()).nullish(),
    grading_mode: z.enum(ROW_GRADING_MODES).default('strict_single_letter_boxed'),
    template_metadata: z.record(z.string(), z.unknown()).nullish(),
  }),
  // Upstream 0.7.0's run metrics: pass@k, pass@1[avg-of-k] and majority@k of the extracted letter.
  computeMetrics: (tasks) => computePassMajorityMetrics(tasks, undefined, 'extracted_answer').metrics,
  getKeyMetrics: (metrics) => ({
    ...('mean/reward' in metrics ? { 'mean/reward': metrics['mean/reward'] } : {}),
    ...highestKMetrics(metrics, 'pass@1[avg-of-{k}]', { scoreNames: ['accuracy', 'no_answer'] }),
    ...highestKMetrics(metrics, 'pass@{k}', { scoreNames: ['no_answer'] }),
    ...highestKMetrics(metrics, 'majority@{k}', { scoreNames: ['accuracy'] }),
    ...('pass@1/accuracy' in metrics ? { 'pass@1/accuracy': metrics['pass@1/accuracy'] } : {}),
  }),
  verify: (request, { config }) => {
    // The Responses API's output_text: every output_text part of every message, joined without separator.
    const text = pythonStrip(responseOutputText(request.response));
    const extracted = text === '' ? null : extractLetter(text, request, config.grading_mode ?? request.grading_mode ?? 'strict_single_letter_boxed');
    const gold = pythonStrip(request.expected_answer ?? '').toUpperCase();
    return { reward: extracted !== null && gold !== '' && extracted === gold ? 1.0 : 0.0, expected_answer: gold, extracted_answer: extracted };
  },
});
