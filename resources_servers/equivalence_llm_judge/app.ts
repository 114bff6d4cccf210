/**
 * equivalence_llm_judge: short-answer and open questions graded by an LLM judge that compares the model's
 * answer with the gold answer, following NeMo Gym 0.7.0. An empty final answer (or one over `max_answer_chars`)
 * scores 0 without a judge call, with a `failure_reason`. The answer may first be cut out of the generation with
 * a regex (the server's `response_extract_regex`, or the row's own `template_metadata.output_regex`). A passing
 * verdict can be confirmed with the answers swapped (`check_twice_swap`); a failing one on a regex-extracted
 * answer can be retried on the whole generation for partial credit (`check_full_generation_on_fail`).
 */
import {
  assistantMessages,
  ConfigError,
  defineResourcesServer,
  isMessage,
  judgeConfigShape,
  type JudgeEvaluation,
  type JudgeMessage,
  LlmJudge,
  type Logger,
  messageTexts,
  type Response,
  type ResponseCreateParams,
  type VerdictLabels,
} from 'ngym';
import {
  pythonFloatRepr,
  pythonLength,
  PythonRegex,
  PythonRegexError,
  pythonStrip,
  pythonTruthy,
} from 'ngym/python-compat';
import * as z from 'zod';
import { loadJudgePrompt } from './judge-prompt.ts';
import { JUDGEMENT_PARSING_ISSUE_RATE, judgementParsingMetrics } from './parsing-metrics.ts';
import { parseEquivalenceVerdict } from './verdict.ts';

const TEMPLATE_FIELDS = ['question', 'expected_answer', 'generated_answer'];
const EXTRACTION_FLAGS = { multiline: true, dotAll: true };

/**
 * The text captured by the last match of `pattern` (its first non-empty group, else the whole match,
 * stripped), or `text` when nothing matches. A pattern Python would reject matches nothing, as upstream
 * catches `re.error`; one we cannot translate fails the verify (422) rather than guess.
 */
export function extractWithRegex(text: string, pattern: string | null | undefined): string {
  if (!pattern) return text;
  let regex: PythonRegex;
  try {
    regex = PythonRegex.cached(pattern, EXTRACTION_FLAGS);
  } catch (error) {
    if (error instanceof PythonRegexError && error.kind === 'invalid') return text;
    throw error;
  }
  const last = regex.finditer(text).at(-1);
  if (last === undefined) return text;
  const group = last.groups.find((value) => value !== undefined && pythonStrip(value) !== '');
  return pythonStrip(group ?? last.text);
}

/**
 * The last assistant message's texts joined with newlines, stripped, then `pattern` applied; `whenEmpty` when
 * there is no such message or its text is empty.
 */
export function lastAssistantText(response: Response, pattern: string | null | undefined, whenEmpty = ''): string {
  const last = assistantMessages(response.output).at(-1);
  const text = last === undefined ? '' : pythonStrip(messageTexts(last).join('\n'));
  return text === '' ? whenEmpty : extractWithRegex(text, pattern);
}

/** Upstream's JudgeEvaluation adds the reply's parsing issues, left out when there are none. */
type EquivalenceEvaluation = JudgeEvaluation & { judgement_parsing_issues?: string[] };

const TemplateMetadata = z.looseObject({ output_regex: z.unknown() });

/**
 * The last user message with text (a string content, or the text parts of a list content joined with newlines,
 * as multimodal rows carry), stripped, then `pattern` applied.
 */
export function questionText(params: ResponseCreateParams, pattern: string | null | undefined): string {
  let last: string | undefined;
  // A bare-string input holds no messages here, as upstream iterates it as one.
  for (const item of typeof params.input === 'string' ? [] : params.input) {
    if (!isMessage(item) || item.role !== 'user') continue;
    const texts = messageTexts(item);
    if (typeof item.content === 'string' || texts.length > 0) last = texts.join('\n');
  }
  const text = pythonStrip(last ?? '');
  return text === '' ? text : extractWithRegex(text, pattern);
}

/** Python's `str()` of a metadata value. */
function pythonString(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : pythonFloatRepr(value);
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  return JSON.stringify(value);
}

/** Config regexes are checked at start-up: an untranslatable one is a config error, an invalid one a warning. */
function checkConfigRegex(key: string, pattern: string | null, logger: Logger): void {
  if (!pattern) return;
  try {
    PythonRegex.cached(pattern, EXTRACTION_FLAGS);
  } catch (error) {
    if (!(error instanceof PythonRegexError)) throw error;
    if (error.kind === 'unsupported') throw new ConfigError('NGYM_CONFIG_INVALID', `${key}: ${error.message}`, { key });
    logger.warn(`${key}: ${error.message}; Python rejects it too, so it never matches.`);
  }
}

/** The instance's verdict labels: verify reads the judge's reply with them, and so do the run metrics. */
const labelsOf = (config: { judge_equal_label: string; judge_not_equal_label: string }): VerdictLabels => ({ equal: config.judge_equal_label, notEqual: config.judge_not_equal_label });

export default defineResourcesServer({
  className: 'LLMJudgeResourcesServer',
  config: {
    ...judgeConfigShape,
    judge_system_message: z.string().nullable().default(null),
    /** Python `str.format` template with {question}, {expected_answer}, {generated_answer}; or a file of one (0.7.0's key). */
    judge_prompt_template: z.string().nullable().default(null),
    judge_prompt_template_fpath: z.string().min(1).nullable().default(null),
    judge_equal_label: z.string().default('[[A=B]]'),
    judge_not_equal_label: z.string().default('[[A!=B]]'),
    question_extract_regex: z.string().nullable().default(null),
    response_extract_regex: z.string().nullable().default(null),
    /** What the judge sees as the answer when the assistant message has no text. */
    msg_extraction_failure: z.string().default('[NO VALID ANSWER EXTRACTED]'),
    /** Longer final answers (code points, thinking excluded) score 0 without a judge call; null: no limit. */
    max_answer_chars: z.number().int().positive().nullable().default(null),
    check_twice_swap: z.boolean().default(false),
    reward_if_swap_fails: z.number().default(0.0),
    use_per_record_regex: z.boolean().default(true),
    extraction_length_threshold: z.number().int().nullable().default(120),
    check_full_generation_on_fail: z.boolean().default(true),
    reward_if_full_generation_succeeds: z.number().default(0.5),
  },
  setup: ({ config, client, logger }) => {
    checkConfigRegex('question_extract_regex', config.question_extract_regex, logger);
    checkConfigRegex('response_extract_regex', config.response_extract_regex, logger);
    return {
      judge: new LlmJudge(client, config),
      template: loadJudgePrompt(config, TEMPLATE_FIELDS),
    };
  },
  // 0.7.0's run metrics: the share of judged rollouts whose judge reply was hard to read, overall (a headline) and per kind.
  computeMetrics: (tasks, config) => judgementParsingMetrics(tasks, labelsOf(config)),
  getKeyMetrics: (metrics) => ({
    ...Object.fromEntries(Object.entries(metrics).filter(([name]) => name.startsWith('mean/'))),
    ...(JUDGEMENT_PARSING_ISSUE_RATE in metrics ? { [JUDGEMENT_PARSING_ISSUE_RATE]: metrics[JUDGEMENT_PARSING_ISSUE_RATE] } : {}),
  }),
  verifyRequest: z.looseObject({
    expected_answer: z.string().nullish(),
    metadata: z.record(z.string(), z.unknown()).nullish(),
    template_metadata: z.unknown().optional(),
  }),
  verify: async (request, { config, state }) => {
    const fromMetadata = request.metadata?.expected_answer;
    const expected = request.expected_answer ? request.expected_answer : fromMetadata !== undefined && fromMetadata !== null ? pythonString(fromMetadata) : '';
    // The raw final answer is checked before any extraction, and a bad one never reaches the judge.
    const answer = lastAssistantText(request.response, null);
    if (answer === '') return { reward: 0.0, expected_answer: expected, judge_evaluations: [], failure_reason: 'empty_final_answer' };
    const limit = config.max_answer_chars;
    if (limit !== null && pythonLength(answer) > limit) {
      return { reward: 0.0, expected_answer: expected, judge_evaluations: [], failure_reason: `final_answer_too_long: ${pythonLength(answer)} characters exceeds ${limit}` };
    }
    const question = questionText(request.responses_create_params, config.question_extract_regex);

    // Upstream reads `output_regex` only when template_metadata is a dict.
    const recordRegex = TemplateMetadata.safeParse(request.template_metadata).data?.output_regex;
    const perRecord = config.use_per_record_regex && pythonTruthy(recordRegex);
    // Long gold answers are judged against the whole generation: a regex would cut them short.
    const tooLong = perRecord && config.extraction_length_threshold !== null && pythonLength(expected) > config.extraction_length_threshold;
    const regex = perRecord ? (tooLong ? null : String(recordRegex)) : config.response_extract_regex;
    const generated = lastAssistantText(request.response, regex, config.msg_extraction_failure);

    const labels = labelsOf(config);
    const evaluations: EquivalenceEvaluation[] = [];
    const judge = async (expectedAnswer: string, generatedAnswer: string) => {
      const messages: JudgeMessage[] = [];
      if (config.judge_system_message) messages.push({ role: 'system', content: config.judge_system_message });
      messages.push({ role: 'user', content: state.template.format({ question, expected_answer: expectedAnswer, generated_answer: generatedAnswer }) });
      const evaluation = await state.judge.call(messages);
      const verdict = parseEquivalenceVerdict(evaluation.response, labels);
      evaluations.push({ ...evaluation, verdict_label: verdict.label, ...(verdict.issues.length > 0 ? { judgement_parsing_issues: verdict.issues } : {}) });
      return verdict.equal;
    };
    const result = (reward: number) => ({ reward, expected_answer: expected, judge_evaluations: evaluations });

    if (!(await judge(expected, generated))) {
      if (tooLong) return result(0.0);
      if (config.check_full_generation_on_fail && perRecord) {
        // The regex may have cut the answer badly: the whole generation can still earn partial credit.
        return result((await judge(expected, lastAssistantText(request.response, null, config.msg_extraction_failure))) ? config.reward_if_full_generation_succeeds : 0.0);
      }
      return result(0.0);
    }
    if (!config.check_twice_swap || tooLong) return result(1.0);
    // Swapped roles catch a judge that favours whichever answer it reads first.
    return result((await judge(generated, expected)) ? 1.0 : config.reward_if_swap_fails);
  },
});
