/**
 * math_with_judge: math problems graded by answer equivalence, by upstream 0.7.0's rules. An answer without a
 * complete `\boxed{...}` scores 0. Otherwise the library check (our Math-Verify 0.8 counterpart: answer
 * extraction, LaTeX normalization, symbolic and numeric comparison on worker threads with a time limit) decides first; when it finds no match and `should_use_judge` is set, an LLM judge
 * compares the expected answer with the whole generation in both orders, and both must say "equal".
 */
import {
  DEFAULT_MATH_TIMEOUT_SECONDS,
  defineResourcesServer,
  judgeConfigShape,
  type JudgeEvaluation,
  lastBoxedContent,
  LlmJudge,
  MathVerifier,
  parseVerdict,
  PromptTemplate,
  responseOutputText,
} from 'ngym';
import { computePassMajorityMetrics, highestKMetrics, pickMetrics } from 'ngym/metrics';
import * as z from 'zod';

// Upstream's judge prompt (data carried over verbatim, including the two spaces after "1." and "2.").
export const JUDGE_SYSTEM_MESSAGE =
  "Please act as an impartial judge and evaluate the equivalence of the solutions given by two AI assistants to the mathematical problem displayed below. You will be given AI assistant A's answer and AI assistant B's answer. Your job is to evaluate whether assistant A's answer is equivalent to assistant B's answer.\n\n" +
  "Consider the mathematical equivalence of the AI assistants' answers above all other considerations. If the problem requests special formatting instructions, you may disregard any formatting considerations when evaluating the answers -- consider only mathematical equivalence.\n\n" +
  'After evaluating both answers for equivalence, you must output only one of the following choices as your final verdict with a label:\n\n' +
  "1.  The AI assistants' answers are equivalent: [[A=B]]\n" +
  "2.  The AI assistants' answers are different: [[A!=B]]\n\n" +
  'Example output: "My final verdict is different [[A!=B]]".';

export const JUDGE_PROMPT_TEMPLATE = new PromptTemplate(
  "<|Problem|>\n{question}\n\n<|Start of Assistant A's Answer|>\n{first_answer}\n<|End of Assistant A's Answer|>\n\n<|Start of Assistant B's Answer|>\n{second_answer}\n<|End of Assistant B's Answer|>",
);

const LABELS = { equal: '[[A=B]]', notEqual: '[[A!=B]]' };

export default defineResourcesServer({
  className: 'LibraryJudgeMathResourcesServer',
  config: {
    ...judgeConfigShape,
    /** Ask the judge when the library finds no match (true in math_with_judge.yaml). */
    should_use_judge: z.boolean().default(true),
    /** Time limit of one library check; beyond it the check counts as "no match". */
    math_timeout_seconds: z.number().positive().default(DEFAULT_MATH_TIMEOUT_SECONDS),
    /** Worker threads for library checks; null: available cores, at most 4. */
    math_workers: z.number().int().min(1).nullable().default(null),
  },
  setup: ({ config, client }) => ({
    judge: new LlmJudge(client, config),
    math: new MathVerifier({ timeoutSeconds: config.math_timeout_seconds, threads: config.math_workers ?? undefined }),
  }),
  close: (state) => state.math.close(),
  verifyRequest: z.looseObject({ question: z.string(), expected_answer: z.string() }),
  verify: async (request, { config, state, logger }) => {
    const question = request.question;
    const expected = request.expected_answer;
    const generated = responseOutputText(request.response);
    // Upstream 0.7.0 scores an answer with no complete, non-empty last `\boxed{...}` 0 before the library or judge
    // sees it, and reports no extracted answer.
    const boxed = lastBoxedContent(generated);
    if (boxed === undefined || boxed.trim() === '') return { expected_answer: expected, extracted_answer: null, library_reward: 0, reward: 0, judge_evaluations: null };
    const library = await state.math.check(expected, generated);
    if (library.failure !== undefined) logger.warn({ failure: library.failure, elapsedMs: Math.round(library.elapsedMs) }, 'math library check gave no verdict');
    const result = { expected_answer: expected, extracted_answer: library.extractedAnswer, library_reward: library.reward };
    if (!config.should_use_judge || library.reward > 0.5) return { ...result, reward: library.reward, judge_evaluations: null };

    // The judge sees the last box's content, not the whole generation (0.7.0; v0.1.1 sent the whole text). Both
    // orders must agree, so a judge that favours position A or B cannot pass a wrong answer.
    const evaluations: JudgeEvaluation[] = [];
    const ask = async (first: string, second: string) => {
      const evaluation = await state.judge.call([
        { role: 'system', content: JUDGE_SYSTEM_MESSAGE },
        { role: 'user', content: JUDGE_PROMPT_TEMPLATE.format({ question, first_answer: first, second_answer: second }) },
      ]);
      evaluations.push(evaluation);
      return parseVerdict(evaluation.response, LABELS).equal;
    };
    const equal = (await ask(expected, boxed)) && (await ask(boxed, expected));
    return { ...result, reward: equal ? 1.0 : 0.0, judge_evaluations: evaluations };
  },
  // Upstream 0.7.0's run metrics: pass@k and friends of the library's and the judge's verdicts. Written after
  // `verify`, so that TypeScript types the rollouts as `verify` returns them.
  computeMetrics: (tasks) =>
    computePassMajorityMetrics(
      tasks,
      (rollout) => ({
        ...('library_reward' in rollout ? { symbolic_accuracy: rollout.library_reward } : {}),
        ...(rollout.judge_evaluations !== null && rollout.judge_evaluations !== undefined ? { judge_accuracy: rollout.reward } : {}),
      }),
      'extracted_answer',
    ).metrics,
  getKeyMetrics: (metrics) => ({
    ...pickMetrics(metrics, ['mean/input_tokens', 'mean/output_tokens']),
    ...highestKMetrics(metrics, 'pass@1[avg-of-{k}]'),
    ...highestKMetrics(metrics, 'pass@{k}', { excludeNames: ['no_answer'] }),
    ...highestKMetrics(metrics, 'majority@{k}', { excludeNames: ['no_answer'] }),
  }),
});
