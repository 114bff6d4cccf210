/**
 * terminus_judge: one step of a terminal agent, graded against the gold step, by NeMo Gym 0.7.0's terminus_judge.
 * The model answers with a JSON command batch (terminus_1 or terminus_2 format, as the row's `metadata.harness`
 * says); it must parse, follow the harness's schema and declare the task complete when the gold batch does. Then,
 * by config: its keystrokes are close enough to the gold ones (difflib ratio >= threshold), else (or only) an LLM
 * judge calls the two batches equivalent (optionally confirmed with the two swapped); with both checks off the
 * format checks alone give 1.0. `failure_reason` says which check failed.
 */
import {
  assistantMessages,
  ConfigError,
  defineResourcesServer,
  judgeConfigShape,
  type JudgeEvaluation,
  type JudgeMessage,
  LlmJudge,
  messageTexts,
  ModelServerRef,
  ResponseCreateParams,
} from 'ngym';
import { isPythonDict, parsePythonFloat, pythonJsonLoads, pythonStr, pythonStrip, pythonTruthy } from 'ngym/python-compat';
import * as z from 'zod';
import { commandSimilarity, followsSchema, isHarness, taskCompleteAgrees } from './command-batch.ts';
import { loadJudgePrompt } from './judge-prompt.ts';
import { sanitizeJson, sanitizeString } from './sanitize.ts';
import { parseTerminusVerdict, verdictText } from './verdict.ts';

/** Upstream's `FailureCode` values (`unknown_error` is not reachable here: a bad template is refused at start-up). */
type FailureReason =
  | 'none'
  | 'expected_answer_invalid'
  | 'model_output_invalid'
  | 'schema_check_failed'
  | 'task_complete_check_failed'
  | 'string_similarity_below_threshold'
  | 'unknown_harness'
  | 'judge_not_equivalent'
  | 'judge_parsing_failed'
  | 'judge_swap_parsing_failed';

/** pydantic's lax `int` for `uuid` (after `str`): integral numbers, and bools as 0/1. */
const LaxInt = z.union([z.number().int(), z.boolean()]);
/** pydantic's lax `float` for `threshold`: numbers, bools, numeric strings (`" 0.9 "`, `"nan"`). */
const LaxFloat = z.union([z.number(), z.boolean(), z.string().refine((text) => parsePythonFloat(text) !== undefined, 'Input should be a valid number')]);
const laxNumber = (value: number | boolean | string): number => (typeof value === 'string' ? (parsePythonFloat(value) as number) : Number(value));

/** Upstream's `_extract_expected_answer`: the row's non-empty `expected_answer`, else `str(metadata.expected_answer)`. */
function expectedAnswerOf(request: { expected_answer?: string | null; metadata?: Record<string, unknown> | null }): string | null {
  if (request.expected_answer) return request.expected_answer;
  const fromMetadata = request.metadata?.expected_answer;
  return fromMetadata === undefined || fromMetadata === null ? null : pythonStr(fromMetadata);
}

/** A JSON object parsed as Python's `json.loads` parses it, or null for any other text. */
function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value = pythonJsonLoads(text);
    return isPythonDict(value) ? value : null;
  } catch {
    return null;
  }
}

export default defineResourcesServer({
  className: 'TerminusJudgeResourcesServer',
  config: {
    ...judgeConfigShape,
    /** Needed (with `judge_responses_create_params`) only when `enable_llm_judge` is on. */
    judge_model_server: ModelServerRef.nullable().default(null),
    judge_responses_create_params: ResponseCreateParams.nullable().default(null),
    judge_system_message: z.string().nullable().default(null),
    /** Python `str.format` template with {expected_answer} and {generated_answer}; relative to this folder. */
    judge_prompt_template_fpath: z.string().min(1).default('prompt_templates/terminus_prompt.txt'),
    judge_equal_label: z.string().default('[[A=B]]'),
    judge_not_equal_label: z.string().default('[[A!=B]]'),
    /** Confirm an "equivalent" verdict with the two batches swapped. */
    check_twice_swap: z.boolean().default(false),
    /** The reward when the swapped verdict disagrees (e.g. -1.0). */
    reward_if_swap_fails: z.number().default(0.0),
    enable_string_similarity: z.boolean().default(false),
    /** The difflib ratio of the keystrokes at which the string check passes; a row's `threshold` wins. */
    string_similarity_threshold: z.number().default(0.95),
    enable_llm_judge: z.boolean().default(true),
  },
  setup: ({ config, client }) => {
    if (!config.enable_llm_judge) return { judge: null };
    const { judge_model_server: server, judge_responses_create_params: params } = config;
    if (server === null || params === null) {
      const key = server === null ? 'judge_model_server' : 'judge_responses_create_params';
      throw new ConfigError('NGYM_CONFIG_INVALID', `${key} is required when enable_llm_judge is true.`, { key });
    }
    const llm = new LlmJudge(client, { ...config, judge_model_server: server, judge_responses_create_params: params });
    return { judge: { llm, template: loadJudgePrompt(config.judge_prompt_template_fpath) } };
  },
  verifyRequest: z.looseObject({
    uuid: z.union([z.string(), LaxInt]).nullish(),
    expected_answer: z.string().nullish(),
    metadata: z.record(z.string(), z.unknown()).nullish(),
    threshold: LaxFloat.nullish(),
  }),
  verify: async (request, { config, state }) => {
    const rowThreshold = request.threshold === undefined || request.threshold === null ? null : laxNumber(request.threshold);
    let reward = 0.0;
    let failureReason: FailureReason = 'none';
    let schemaPassed: boolean | null = null;
    let taskCompletePassed: boolean | null = null;
    let similarityPassed: boolean | null = null;
    let judgePassed: boolean | null = null;
    let similarityScore: number | null = null;
    let parsedOutput: Record<string, unknown> | null = null;
    const evaluations: JudgeEvaluation[] = [];
    // What upstream answers, strings cleaned of lone surrogates, at whichever step the grading stops.
    const answer = (expected: string, modelOutput: string, reason: FailureReason) => ({
      responses_create_params: sanitizeJson(request.responses_create_params),
      response: sanitizeJson(request.response),
      reward,
      uuid: typeof request.uuid === 'boolean' ? Number(request.uuid) : (request.uuid ?? null),
      expected_answer: sanitizeString(expected),
      model_output: sanitizeString(modelOutput),
      parsed_output: sanitizeJson(parsedOutput),
      similarity_score: similarityScore,
      schema_check_passed: schemaPassed,
      task_complete_check_passed: taskCompletePassed,
      string_similarity_passed: similarityPassed,
      judge_passed: judgePassed,
      failure_reason: reason,
      judge_evaluations: sanitizeJson(evaluations),
      metadata: sanitizeJson(request.metadata ?? null),
      threshold: rowThreshold,
    });

    const expected = expectedAnswerOf(request);
    if (!expected) return answer('', '', 'expected_answer_invalid');
    const generated = pythonStrip(assistantMessages(request.response.output).flatMap(messageTexts).join('\n'));
    if (!generated) return answer(expected, '', 'model_output_invalid');
    // The batch follows the reasoning when the model wrote it inline.
    const text = generated.includes('</think>') ? pythonStrip(generated.split('</think>').at(-1) as string) : generated;

    const expectedBatch = parseObject(expected);
    if (expectedBatch === null) return answer(expected, text, 'expected_answer_invalid');
    const predicted = parseObject(text);
    if (predicted === null) return answer(expected, text, 'model_output_invalid');
    parsedOutput = predicted;

    const harness = pythonTruthy(request.metadata) ? request.metadata?.harness : undefined;
    if (!isHarness(harness)) return answer(expected, text, 'unknown_harness');
    if (!followsSchema(expectedBatch, harness)) return answer(expected, text, 'expected_answer_invalid');
    schemaPassed = followsSchema(predicted, harness);
    if (!schemaPassed) return answer(expected, text, 'schema_check_failed');
    taskCompletePassed = taskCompleteAgrees(predicted, expectedBatch);
    if (!taskCompletePassed) return answer(expected, text, 'task_complete_check_failed');

    let needJudge = config.enable_llm_judge;
    if (config.enable_string_similarity) {
      similarityScore = commandSimilarity(expectedBatch, predicted);
      similarityPassed = similarityScore >= (rowThreshold ?? config.string_similarity_threshold);
      // A close enough batch needs no judge; a far one goes to the judge when there is one.
      needJudge = !similarityPassed && config.enable_llm_judge;
      if (similarityPassed) reward = 1.0;
      else if (!needJudge) failureReason = 'string_similarity_below_threshold';
    }

    if (needJudge && state.judge !== null) {
      const { llm, template } = state.judge;
      const judge = async (expectedAnswer: string, generatedAnswer: string) => {
        const messages: JudgeMessage[] = [];
        if (config.judge_system_message) messages.push({ role: 'system', content: config.judge_system_message });
        messages.push({ role: 'user', content: template.format({ expected_answer: expectedAnswer, generated_answer: generatedAnswer }) });
        const evaluation = await llm.call(messages);
        const verdict = parseTerminusVerdict(verdictText(evaluation.response), config.judge_equal_label, config.judge_not_equal_label);
        evaluations.push({ ...evaluation, verdict_label: verdict.label });
        return verdict;
      };
      const first = await judge(expected, text);
      if (first.label === null) {
        failureReason = 'judge_parsing_failed';
      } else if (!first.equal) {
        judgePassed = false;
        failureReason = 'judge_not_equivalent';
      } else if (!config.check_twice_swap) {
        judgePassed = true;
        reward = 1.0;
      } else {
        // The same question with the roles swapped catches a judge that favours the answer it reads first.
        const swapped = await judge(text, expected);
        if (swapped.label === null) failureReason = 'judge_swap_parsing_failed';
        else if (swapped.equal) {
          judgePassed = true;
          reward = 1.0;
        } else {
          judgePassed = false;
          reward = config.reward_if_swap_fails;
          failureReason = 'judge_not_equivalent';
        }
      }
    }
    if (!config.enable_string_similarity && !config.enable_llm_judge) reward = 1.0;
    return answer(expected, text, failureReason);
  },
});
