/**
 * inverse_if: single-turn instructions that go against habit (counter-conventional formatting, deliberate flaws,
 * questions to correct), graded by an LLM judge one rubric criterion at a time, following NeMo Gym 0.7.0. Unlike
 * multichallenge, each row carries its own judge prompt template and system prompt (the config's defaults stand in
 * for rows without them); the judge answers `{"result": "PASS"|"FAIL", "explanation": ...}` (verdict.ts), and the
 * server's `aggregation_mode` turns the criteria's scores into the reward.
 */
import {
  AGGREGATION_MODES,
  aggregateScores,
  configTemplate,
  countPassed,
  defineResourcesServer,
  evaluateEach,
  finalAnswerText,
  judgeConfigShape,
  type JudgeMessage,
  LlmJudge,
  RequestValidationError,
  rowList,
  rowTemplate,
} from 'ngym';
import { PydanticId, PydanticInt } from 'ngym/python-compat';
import * as z from 'zod';
import { passFailVerdict } from './verdict.ts';

const TEMPLATE_FIELDS = ['prompt', 'model_response', 'standard_response', 'criteria'];

/** A rubric criterion; an absent key is "" as upstream reads it. */
const Criterion = z.looseObject({ id: z.string().optional(), criteria: z.string().optional() });
type Criterion = z.infer<typeof Criterion>;

/**
 * A text a row may give in `metadata` instead (upstream reads it unchecked, and fails with 500 writing its answer
 * when it is not a string).
 */
function metadataText(metadata: Record<string, unknown>, field: string): string {
  const value = Object.hasOwn(metadata, field) ? metadata[field] : '';
  if (typeof value === 'string') return value;
  throw new RequestValidationError([{ type: 'string_type', loc: ['body', 'metadata', field], msg: 'Input should be a valid string', input: typeof value === 'object' ? undefined : value }]);
}

export default defineResourcesServer({
  className: 'InverseIFServer',
  config: {
    ...judgeConfigShape,
    aggregation_mode: z.enum(AGGREGATION_MODES).default('mean'),
    /** For rows without their own `judge_prompt_template`: Python `str.format` with {prompt}, {model_response}, {standard_response}, {criteria}. */
    default_judge_prompt_template: z.string(),
    /** For rows without their own `judge_system_prompt`; "" sends no system message. */
    default_judge_system_prompt: z.string(),
    /** Judge the criteria of a row all at once rather than one after another. */
    parallel_evaluation: z.boolean().default(true),
  },
  setup: ({ config, client }) => ({
    judge: new LlmJudge(client, config),
    defaultTemplate: configTemplate(config.default_judge_prompt_template, TEMPLATE_FIELDS, 'default_judge_prompt_template'),
  }),
  verifyRequest: z.looseObject({
    uuid: PydanticId,
    task_id: PydanticInt,
    prompt: z.string().nullish(),
    rubric: z.array(Criterion).nullish(),
    reference_response: z.string().nullish(),
    judge_prompt_template: z.string().nullish(),
    judge_system_prompt: z.string().nullish(),
    metadata: z.record(z.string(), z.unknown()).nullish(),
  }),
  verify: async (request, { config, state }) => {
    const generated = finalAnswerText(request.response);
    // Upstream falls back on metadata (when it has any keys) for what the row leaves empty.
    const metadata = request.metadata ?? {};
    const prompt = request.prompt || metadataText(metadata, 'prompt');
    const reference = request.reference_response || metadataText(metadata, 'reference_response');
    const rubric: Criterion[] = request.rubric?.length ? request.rubric : Object.hasOwn(metadata, 'rubric') ? rowList(metadata.rubric, Criterion, ['body', 'metadata', 'rubric']) : [];
    const systemPrompt = request.judge_system_prompt || config.default_judge_system_prompt;
    // A row's own template is read only when a criterion needs it, as upstream formats it per criterion.
    const template = rubric.length > 0 && request.judge_prompt_template ? rowTemplate(request.judge_prompt_template, TEMPLATE_FIELDS, 'judge_prompt_template') : state.defaultTemplate;

    const evaluations = await evaluateEach(rubric, config.parallel_evaluation, async (criterion) => {
      const criteria = criterion.criteria ?? '';
      const judgePrompt = template.format({ prompt, model_response: generated, standard_response: reference, criteria });
      const messages: JudgeMessage[] = systemPrompt ? [{ role: 'system', content: systemPrompt }] : [];
      messages.push({ role: 'user', content: judgePrompt });
      const judgeResponse = finalAnswerText((await state.judge.call(messages)).response);
      const { verdict, explanation } = passFailVerdict(judgeResponse);
      return { criterion_id: criterion.id ?? '', criteria, judge_prompt: judgePrompt, judge_response: judgeResponse, verdict, explanation, score: verdict === 'PASS' ? 1.0 : 0.0 };
    });

    const scores = evaluations.map((evaluation) => evaluation.score);
    return {
      reward: aggregateScores(scores, config.aggregation_mode),
      // Upstream's answer leaves these out: the evaluations replace the rubric, and the prompts are in them.
      rubric: undefined,
      judge_prompt_template: undefined,
      judge_system_prompt: undefined,
      prompt,
      generated_response: generated,
      reference_response: reference,
      rubric_evaluations: evaluations,
      aggregation_mode: config.aggregation_mode,
      num_passed: countPassed(scores),
      num_total: evaluations.length,
    };
  },
});
