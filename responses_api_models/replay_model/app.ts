/**
 * replay_model: serves `/v1/responses` from recorded rollouts (for example upstream's
 * `example_rollouts.jsonl`), so ngym runs end to end with no LLM: the demo, conformance tests, and
 * re-scoring a recorded run after changing an environment. See replay-index.ts for the matching rule.
 * `/v1/chat/completions` and `/v1/messages` are answered from the same recordings, through the framework's
 * conversion to and from the Responses API.
 */
import { defineModelServer, normalizeInput } from 'ngym';
import * as z from 'zod';
import { ReplayIndex } from './replay-index.ts';

export default defineModelServer({
  className: 'ReplayModel',
  config: {
    /** One rollouts JSONL file or a list of them. */
    rollouts_jsonl_fpath: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
    /** Check that the tool outputs the agent sends equal the recorded ones; answer a 409 naming the first divergence. */
    strict: z.boolean().default(false),
  },
  setup: ({ config, logger }) => {
    const paths = typeof config.rollouts_jsonl_fpath === 'string' ? [config.rollouts_jsonl_fpath] : config.rollouts_jsonl_fpath;
    const index = ReplayIndex.fromFiles(paths);
    logger.info({ rollouts: index.size, files: paths }, 'replaying recorded rollouts');
    return { index };
  },
  responses: async (params, { config, state, sessionId }) => state.index.reply(normalizeInput(params.input), sessionId, config.strict),
});
