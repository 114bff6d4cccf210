/**
 * abstention: trains a model to say it does not know rather than guess, following NeMo Gym 0.7.0. The answer is the
 * last `\boxed{...}` of the final assistant message (or the whole message without one). Boxing the abstention token
 * (`[IDK]`) earns `abstention_reward` without a judge call; any other answer is graded by an LLM judge against the
 * row's `answer` with the OMNISCIENCE grader prompt: A (correct) earns `correct_reward`, C (not attempted) counts as
 * an abstention, anything else is incorrect. A judge that fails, or answers no text, fails the verify (HTTP 502):
 * never a reward.
 */
import { defineResourcesServer, judgeConfigShape, JudgeError, lastBoxedContent, LlmJudge, PromptTemplate } from 'ngym';
import * as z from 'zod';
import { type Grade, lastAssistantText, normalizeAnswer, parseJudgeGrade } from './answer.ts';
import { DEFAULT_JUDGE_PROMPT_TEMPLATE } from './judge-prompt.ts';

type Verdict = 'correct' | 'abstain' | 'incorrect';
const VERDICTS: Record<Grade, Verdict> = { A: 'correct', B: 'incorrect', C: 'abstain' };

export default defineResourcesServer({
  className: 'AbstentionServer',
  config: {
    ...judgeConfigShape,
    /** Python `str.format` template with {question}, {target}, {predicted_answer}; checked at start-up. */
    judge_prompt_template: z.string().default(DEFAULT_JUDGE_PROMPT_TEMPLATE),
    /** The reward of an abstention (upstream's lambda, meant to lie between the other two; not enforced there either). */
    abstention_reward: z.number().default(0.5),
    /** What the model boxes to abstain; compared after normalisation (`\boxed{idk}` abstains too). */
    abstention_token: z.string().default('[IDK]'),
    correct_reward: z.number().default(1.0),
    incorrect_reward: z.number().default(0.0),
  },
  setup: ({ config, client }) => ({
    judge: new LlmJudge(client, config),
    template: new PromptTemplate(config.judge_prompt_template).assertFields(['question', 'target', 'predicted_answer'], 'judge_prompt_template'),
    abstention: normalizeAnswer(config.abstention_token),
  }),
  // All optional, as upstream's: a row without `answer` is judged against an empty gold target.
  verifyRequest: z.looseObject({
    // Python's Union[int, str] takes a bool as an int.
    id: z.union([z.number().int(), z.string(), z.boolean()]).nullish(),
    question: z.string().nullish(),
    answer: z.string().nullish(),
  }),
  verify: async (request, { config, state }) => {
    const policyOutput = lastAssistantText(request.response);
    const extracted = lastBoxedContent(policyOutput) ?? policyOutput;
    const groundTruth = request.answer || '';
    const scored = (verdict: Verdict, reward: number, judgeOutput: string | null) => {
      const flag = (name: Verdict) => (verdict === name ? 1.0 : 0.0);
      return {
        reward,
        extracted_answer: extracted,
        ground_truth: groundTruth,
        verdict,
        judge_output: judgeOutput,
        is_correct: flag('correct'),
        is_abstain: flag('abstain'),
        is_incorrect: flag('incorrect'),
        omniscience_index: flag('correct') - flag('incorrect'),
      };
    };
    if (normalizeAnswer(extracted) === state.abstention) return scored('abstain', config.abstention_reward, null);

    const prompt = state.template.format({ question: request.question || '', target: groundTruth, predicted_answer: extracted });
    const { response } = await state.judge.call([{ role: 'user', content: prompt }]);
    const judgeOutput = lastAssistantText(response);
    if (judgeOutput === '') throw new JudgeError(`The judge model server '${config.judge_model_server.name}' answered no text to grade (empty judge response)`);
    const verdict = VERDICTS[parseJudgeGrade(judgeOutput)];
    const rewards: Record<Verdict, number> = { correct: config.correct_reward, abstain: config.abstention_reward, incorrect: config.incorrect_reward };
    return scored(verdict, rewards[verdict], judgeOutput);
  },
});
