/**
 * instruction_following: IFEval / IFBench-style verifiable instructions ("answer in fewer than 200 words",
 * "wrap the title in << >>", "respond in Hindi"...). Each row lists instruction ids with their kwargs under
 * `verifier_metadata` (upstream 0.7.0; rows with them at the top level are migrated); verify checks the final
 * assistant text against every one. Reward: 1.0 when all are followed (`grading_mode: binary`, the default) or
 * the share followed (`fraction`).
 */
import { defineResourcesServer, firstPartText, VerifyWorkerPool, verifyWorkersConfigShape } from 'ngym';
import { isPythonDict, pythonTruthy } from 'ngym/python-compat';
import * as z from 'zod';
import type { InstructionResult } from './instructions.ts';
import type { VerifyTask } from './verify-worker.ts';

const METADATA_FIELDS = ['instruction_id_list', 'prompt', 'kwargs', 'grading_mode'] as const;
const REQUIRED_FIELDS = ['instruction_id_list', 'prompt', 'kwargs'] as const;

/**
 * 0.7.0 reads the verifier fields from `verifier_metadata`; a field a row keeps at the top level (published
 * blends do) is copied in when `verifier_metadata` lacks it, so explicit `verifier_metadata` values win.
 */
function migrateLegacyMetadata(raw: unknown): unknown {
  if (!isPythonDict(raw)) return raw;
  const given = raw.verifier_metadata;
  // Python's `data.get("verifier_metadata") or {}`: a falsy value is an empty one; anything else but an object is refused below.
  if (pythonTruthy(given) && !isPythonDict(given)) return raw;
  const metadata: Record<string, unknown> = { ...(pythonTruthy(given) ? (given as Record<string, unknown>) : {}) };
  for (const field of METADATA_FIELDS) if (!(field in metadata) && field in raw) metadata[field] = raw[field];
  return { ...raw, verifier_metadata: metadata };
}

const VerifierMetadata = z
  .looseObject({
    instruction_id_list: z.array(z.unknown()).optional(),
    prompt: z.unknown(),
    kwargs: z.array(z.unknown()).optional(),
    grading_mode: z.enum(['binary', 'fraction']).optional(),
  })
  .check((context) => {
    // Present is enough (a null `prompt` is accepted, as 0.7.0 checks only that the key exists).
    const missing = REQUIRED_FIELDS.filter((field) => !(field in context.value));
    if (missing.length > 0) context.issues.push({ code: 'custom', message: `verifier_metadata is missing required fields: ${missing.join(', ')}`, input: context.value, path: [] });
  });

const InstructionFollowingRequest = z.preprocess(
  migrateLegacyMetadata,
  z.looseObject({
    id: z.number().int(),
    verifier_metadata: z.record(z.string(), z.unknown(), { error: 'verifier_metadata must be an object' }).pipe(VerifierMetadata),
  }),
);

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
  verifyRequest: InstructionFollowingRequest,
  verify: async (request, context) => {
    // The schema validated the migrated row; verify gets the row as sent, so it migrates it again to read it.
    const metadata = (migrateLegacyMetadata(request) as z.output<typeof InstructionFollowingRequest>).verifier_metadata;
    const ids = metadata.instruction_id_list ?? [];
    const kwargsList = metadata.kwargs ?? [];
    // zip(): the shorter list wins.
    const instructions = ids.slice(0, Math.min(ids.length, kwargsList.length)).map((id, index) => ({ id: String(id), kwargs: kwargsList[index] }));
    // Upstream checks `output[-1].content[0].text`; a last item without text (a refusal) follows no instruction.
    const results = await context.state.pool.run({ text: firstPartText(request.response.output.at(-1)), instructions });
    results.forEach((result, index) => {
      if (result.error !== undefined) context.logger.warn({ instruction_id: instructions[index]?.id, error: result.error }, 'instruction could not be checked; scored as not followed');
    });
    const followed = results.map((result) => result.followed);
    // Python's all(): true for no instructions, so `binary` gives 1.0 there and `fraction` (no share) 0.0.
    const followAll = followed.every(Boolean);
    const reward = metadata.grading_mode === 'fraction' ? (followed.length === 0 ? 0.0 : followed.filter(Boolean).length / followed.length) : followAll ? 1.0 : 0.0;
    return { reward, follow_all_instructions: followAll, follow_instruction_list: followed, verifier_metadata: metadata };
  },
});
