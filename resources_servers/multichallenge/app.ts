/**
 * multichallenge: the last turn of a multi-turn conversation (NVIDIA's MultiChallenge: inference memory,
 * instruction retention, version editing, self-coherence), graded by an LLM judge against the row's rubric of
 * yes/no questions, following NeMo Gym 0.7.0. Each rubric item is one judge call (the conversation, the final
 * answer without its reasoning, the question and the expected answer); the item passes when the verdict is its
 * `pass_criteria`, and the server's `aggregation_mode` turns the items' scores into the reward.
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
} from 'ngym';
import { PydanticFloat, pydanticFloat, PydanticId, PydanticInt, pythonStr } from 'ngym/python-compat';
import * as z from 'zod';
import { meetsCriteria, yesNoVerdict } from './verdict.ts';

const TEMPLATE_FIELDS = ['context', 'response', 'question', 'pass_criteria'];

/** Upstream's class defaults; the shipped config sets its own template and system message. */
const DEFAULT_PROMPT_TEMPLATE = `You are evaluating whether a model's response meets a specific criterion.

CONVERSATION CONTEXT:
{context}

MODEL'S FINAL RESPONSE:
{response}

EVALUATION QUESTION:
{question}

EXPECTED ANSWER: {pass_criteria}

Does the model's response satisfy the criterion described in the evaluation question?
Analyze carefully, then respond with exactly [[YES]] or [[NO]] on the last line.`;
const DEFAULT_SYSTEM_MESSAGE = 'You are a precise evaluator. Assess responses objectively based on the given criteria.';

/** A rubric item; an absent key takes upstream's default (question "", pass_criteria "YES", weight 1.0). */
const RubricItem = z.looseObject({ question: z.string().optional(), pass_criteria: z.string().optional(), weight: PydanticFloat.optional() });
type RubricItem = z.infer<typeof RubricItem>;

/** A message of `metadata.messages`, read when the row has no `context`. */
const ContextMessage = z.looseObject({ role: z.string().optional() });

/**
 * The conversation as the judge reads it, built from `metadata.messages` as upstream's dataset_preprocess.py builds
 * a row's `context`: `[ROLE]: content` blocks (content as Python's str() writes it) joined by blank lines,
 * `thinking` messages left out.
 */
function contextFromMessages(messages: unknown): string {
  return rowList(messages, ContextMessage, ['body', 'metadata', 'messages'])
    .filter((message) => message.role !== 'thinking')
    .map((message) => `[${(message.role ?? 'unknown').toUpperCase()}]: ${pythonStr(Object.hasOwn(message, 'content') ? message.content : '')}`)
    .join('\n\n');
}

export default defineResourcesServer({
  className: 'MultiChallengeServer',
  config: {
    ...judgeConfigShape,
    aggregation_mode: z.enum(AGGREGATION_MODES).default('mean'),
    /** Python `str.format` with {context}, {response}, {question}, {pass_criteria}. */
    judge_prompt_template: z.string().default(DEFAULT_PROMPT_TEMPLATE),
    /** Sent before the prompt when set (and not empty). */
    judge_system_message: z.string().nullable().default(DEFAULT_SYSTEM_MESSAGE),
    /** Judge the items of a rubric all at once rather than one after another. */
    parallel_evaluation: z.boolean().default(true),
    yes_label: z.string().default('[[YES]]'),
    no_label: z.string().default('[[NO]]'),
  },
  setup: ({ config, client }) => ({
    judge: new LlmJudge(client, config),
    template: configTemplate(config.judge_prompt_template, TEMPLATE_FIELDS, 'judge_prompt_template'),
  }),
  verifyRequest: z.looseObject({
    uuid: PydanticId,
    task_id: PydanticInt,
    rubric: z.array(RubricItem).nullish(),
    context: z.string().nullish(),
    metadata: z.record(z.string(), z.unknown()).nullish(),
  }),
  verify: async (request, { config, state }) => {
    const generated = finalAnswerText(request.response);
    // Upstream falls back on metadata (when it has any keys) for what the row leaves empty.
    const metadata = request.metadata ?? {};
    const context = request.context || (Object.hasOwn(metadata, 'messages') ? contextFromMessages(metadata.messages) : '');
    const rowRubric = request.rubric ?? [];
    const fromRow = rowRubric.length > 0;
    const location = fromRow ? ['body', 'rubric'] : ['body', 'metadata', 'rubric'];
    const rubric: RubricItem[] = fromRow ? rowRubric : Object.hasOwn(metadata, 'rubric') ? rowList(metadata.rubric, RubricItem, location) : [];
    const weights = rubric.map((item) => (item.weight === undefined ? 1.0 : (pydanticFloat(item.weight) as number)));
    // Upstream takes "inf" and "nan" for weights; the weighted mean is then NaN, which it answers as a null reward.
    const infinite = config.aggregation_mode === 'weighted' ? weights.findIndex((weight) => !Number.isFinite(weight)) : -1;
    if (infinite >= 0) {
      throw new RequestValidationError([{ type: 'finite_number', loc: [...location, infinite, 'weight'], msg: 'Input should be a finite number (aggregation_mode is weighted)', input: rubric[infinite]?.weight }]);
    }

    const evaluations = await evaluateEach(rubric, config.parallel_evaluation, async (item, index) => {
      const question = item.question ?? '';
      const passCriteria = item.pass_criteria ?? 'YES';
      const judgePrompt = state.template.format({ context, response: generated, question, pass_criteria: passCriteria });
      const messages: JudgeMessage[] = config.judge_system_message ? [{ role: 'system', content: config.judge_system_message }] : [];
      messages.push({ role: 'user', content: judgePrompt });
      const judgeResponse = finalAnswerText((await state.judge.call(messages)).response);
      const verdict = yesNoVerdict(judgeResponse, config.yes_label, config.no_label);
      return { question, pass_criteria: passCriteria, judge_prompt: judgePrompt, judge_response: judgeResponse, verdict, score: meetsCriteria(verdict, passCriteria) ? 1.0 : 0.0, weight: weights[index] as number };
    });

    const scores = evaluations.map((evaluation) => evaluation.score);
    return {
      reward: aggregateScores(scores, config.aggregation_mode, weights),
      // Upstream's answer leaves the rubric out: the evaluations replace it.
      rubric: undefined,
      context,
      generated_response: generated,
      rubric_evaluations: evaluations,
      aggregation_mode: config.aggregation_mode,
      num_passed: countPassed(scores),
      num_total: evaluations.length,
    };
  },
});
