/**
 * instruction_following: IFEval / IFBench-style verifiable instructions ("answer in fewer than 200 words",
 * "wrap the title in << >>", "respond in Hindi"...). Each row lists instruction ids with their kwargs; verify
 * checks the final assistant text against every one. Reward 1.0 when all are followed, else 0.0.
 */
import { defineResourcesServer, firstPartText, VerifyWorkerPool, verifyWorkersConfigShape } from 'ngym';
import * as z from 'zod';
import type { InstructionResult } from './instructions.ts';
import type { VerifyTask } from './verify-worker.ts';

export default defineResourcesServer({
  className: 'InstructionFollowingResourcesServer',
  // The checks of one response (language detection, data-supplied regexes) run on one of verify_workers threads.
  config: verifyWorkersConfigShape,
  setup: ({ config }) => ({
    pool: new VerifyWorkerPool<VerifyTask, InstructionResult[]>({
      module: new URL('./verify-worker.ts', import.meta.url),
      config,
      name: 'instruction_following',
      check: 'instruction checks',
    }),
  }),
  close: (state) => state.pool.close(),
  verifyRequest: z.looseObject({
    id: z.number().int(),
    instruction_id_list: z.array(z.unknown()),
    prompt: z.string(),
    kwargs: z.array(z.unknown()),
  }),
  verify: async (request, context) => {
    const ids = request.instruction_id_list;
    const kwargsList = request.kwargs;
    // zip(): the shorter list wins.
    const instructions = ids.slice(0, Math.min(ids.length, kwargsList.length)).map((id, index) => ({ id: String(id), kwargs: kwargsList[index] }));
    // Upstream checks `output[-1].content[0].text`; a last item without text (a refusal) follows no instruction.
    const results = await context.state.pool.run({ text: firstPartText(request.response.output.at(-1)), instructions });
    results.forEach((result, index) => {
      if (result.error !== undefined) context.logger.warn({ instruction_id: instructions[index]?.id, error: result.error }, 'instruction could not be checked; scored as not followed');
    });
    const followed = results.map((result) => result.followed);
    const followAll = followed.length > 0 && followed.every(Boolean);
    return { reward: followAll ? 1.0 : 0.0, follow_all_instructions: followAll, follow_instruction_list: followed };
  },
});
