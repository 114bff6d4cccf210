/**
 * reasoning_gym: procedurally generated reasoning tasks, every task of the reasoning-gym library, no tools.
 * The reward is the task's own score of the answer extracted from the model's final text (see
 * extract-answer.ts), with partial credit where the task gives it. Five tasks are scored by TypeScript ports
 * (tasks/); every other task by the library itself in a managed Python worker (library.ts), started when a
 * row first needs it (docs/decisions/0017-reasoning-gym-library-worker.md).
 */
import { defineResourcesServer, NgymError } from 'ngym';
import * as z from 'zod';
import { extractAnswer, responseText } from './extract-answer.ts';
import { LibraryScorer, libraryPython } from './library.ts';
import { TASKS, type TaskEntry } from './tasks/index.ts';

export default defineResourcesServer({
  className: 'ReasoningGymResourcesServer',
  config: {
    /**
     * Upstream scores a task its library does not know as 0. ngym answers 422 instead, so that rows of tasks
     * ngym has not ported fail loudly rather than train on zeros; set true for upstream's behaviour.
     */
    score_unknown_tasks_as_zero: z.boolean().default(false),
    /** Interpreter with reasoning-gym installed; default `$NGYM_PYTHON_VENV/bin/python`, else ngym's `.venv`. */
    library_python: z.string().nullable().default(null),
    /** Time limit of one scoring by the library; past it the worker is restarted and the verify fails. */
    library_timeout_seconds: z.number().positive().default(120),
  },
  setup: ({ config }) => ({ library: new LibraryScorer(() => libraryPython(config.library_python), config.library_timeout_seconds * 1000) }),
  close: ({ library }) => library.close(),
  verifyRequest: z.looseObject({
    question: z.string(),
    answer: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()),
  }),
  verify: async (request, { config, logger, state }) => {
    const extracted = extractAnswer(responseText(request.response));
    const metadata = request.metadata;
    const taskName = metadata.source_dataset;
    if (typeof taskName !== 'string' || taskName === '') {
      throw Object.assign(new Error(`No task name found in metadata: ${JSON.stringify(metadata)}`), { name: 'ValueError' });
    }
    const entry: TaskEntry = { question: request.question, answer: request.answer, metadata };
    const port = TASKS.get(taskName);
    let score = 0;
    if (port !== undefined) {
      try {
        score = port.score(extracted, entry);
      } catch (error) {
        // Upstream scores any scorer failure (malformed metadata, say) as 0.
        logger.warn({ err: error, task: taskName }, 'scoring failed; reward 0');
      }
    } else {
      const result = await state.library.score(taskName, extracted, entry);
      if (result.kind === 'unknown_task') {
        if (!config.score_unknown_tasks_as_zero) {
          throw new NgymError(
            'NGYM_INVALID_REQUEST',
            `reasoning_gym cannot score task '${taskName}': the reasoning-gym library has no such task. Set score_unknown_tasks_as_zero: true to score such rows 0 as upstream does.`,
            { status: 422 },
          );
        }
      } else {
        score = result.score;
        if (result.scorerError !== undefined) logger.warn({ task: taskName, error: result.scorerError }, 'scoring failed; reward 0');
      }
    }
    return { reward: score, task_name: taskName, score, extracted_answer: extracted };
  },
});
