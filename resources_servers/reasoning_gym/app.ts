/**
 * reasoning_gym: procedurally generated reasoning tasks (mini_sudoku, knights_knaves, basic_arithmetic,
 * word_sorting, propositional_logic), no tools. The reward is the task's own score of the answer extracted
 * from the model's final text (see extract-answer.ts), with partial credit where the task gives it.
 */
import { defineResourcesServer, NgymError } from 'ngym';
import * as z from 'zod';
import { extractAnswer, responseText } from './extract-answer.ts';
import { TASKS, type TaskEntry, taskNames } from './tasks/index.ts';

export default defineResourcesServer({
  className: 'ReasoningGymResourcesServer',
  config: {
    /**
     * Upstream scores a task its library does not know as 0. ngym answers 422 instead, so that rows of tasks
     * ngym has not ported fail loudly rather than train on zeros; set true for upstream's behaviour.
     */
    score_unknown_tasks_as_zero: z.boolean().default(false),
  },
  verifyRequest: z.looseObject({
    question: z.string(),
    answer: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()),
  }),
  verify: (request, { config, logger }) => {
    const extracted = extractAnswer(responseText(request.response));
    const metadata = request.metadata;
    const taskName = metadata.source_dataset;
    if (typeof taskName !== 'string' || taskName === '') {
      throw Object.assign(new Error(`No task name found in metadata: ${JSON.stringify(metadata)}`), { name: 'ValueError' });
    }
    const task = TASKS.get(taskName);
    if (task === undefined && !config.score_unknown_tasks_as_zero) {
      throw new NgymError(
        'NGYM_INVALID_REQUEST',
        `reasoning_gym cannot score task '${taskName}': ngym implements ${taskNames().join(', ')}. Set score_unknown_tasks_as_zero: true to score such rows 0 as upstream does.`,
        { status: 422 },
      );
    }
    const entry: TaskEntry = { question: request.question, answer: request.answer, metadata };
    let score = 0;
    try {
      score = task === undefined ? 0 : task.score(extracted, entry);
    } catch (error) {
      // Upstream scores any scorer failure (malformed metadata, say) as 0.
      logger.warn({ err: error, task: taskName }, 'scoring failed; reward 0');
    }
    return { reward: score, task_name: taskName, score, extracted_answer: extracted };
  },
});
