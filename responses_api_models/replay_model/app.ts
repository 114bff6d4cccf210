/**
 * replay_model: serves `/v1/responses` from recorded rollouts (for example upstream's
 * `example_rollouts.jsonl`), so ngym runs end to end with no LLM: the demo, conformance tests, and
 * re-scoring a recorded run after changing an environment. See replay-index.ts for the matching rule and the
 * order in which identical requests are answered.
 * `/v1/chat/completions` and `/v1/messages` are answered from the same recordings, through the framework's
 * conversion to and from the Responses API.
 */
import { defineModelServer, NgymError, normalizeInput, type Response, type ResponseCreateParams } from 'ngym';
import * as z from 'zod';
import { ReplayIndex } from './replay-index.ts';

/** Usage recorded in Chat Completions' shape (`prompt_tokens`, `completion_tokens`) in the Responses API's own. */
function responsesUsage(usage: Response['usage']): Response['usage'] {
  const fields = (usage ?? {}) as Record<string, unknown>;
  const { prompt_tokens: input, completion_tokens: output, total_tokens: total } = fields;
  if ('input_tokens' in fields || typeof input !== 'number' || typeof output !== 'number') return usage;
  const detail = (value: unknown, key: string) => ((value as Record<string, unknown> | null | undefined)?.[key] as number | undefined) ?? 0;
  return {
    input_tokens: input,
    output_tokens: output,
    total_tokens: typeof total === 'number' ? total : input + output,
    input_tokens_details: { cached_tokens: detail(fields.prompt_tokens_details, 'cached_tokens') },
    output_tokens_details: { reasoning_tokens: detail(fields.completion_tokens_details, 'reasoning_tokens') },
  };
}

/**
 * The recorded reply as a valid Response where the recording is not one (a synthesized trace, usage in Chat
 * Completions' shape): missing fields echo the request, as a model server's reply does, so agents that validate
 * the reply accept it.
 */
function withResponseFields(reply: Response, params: ResponseCreateParams): Response {
  const recorded = reply as Partial<Response>;
  return {
    ...reply,
    created_at: recorded.created_at ?? Math.floor(Date.now() / 1000),
    parallel_tool_calls: recorded.parallel_tool_calls ?? params.parallel_tool_calls ?? true,
    tool_choice: recorded.tool_choice ?? params.tool_choice ?? 'auto',
    tools: recorded.tools ?? params.tools ?? [],
    usage: responsesUsage(recorded.usage),
  };
}

/** The replay's own refusals (no recorded reply, a divergence from the recording), which it also logs. */
const REFUSALS = new Set(['NGYM_REPLAY_NO_MATCH', 'NGYM_REPLAY_DIVERGENCE']);

export default defineModelServer({
  className: 'ReplayModel',
  config: {
    /** One rollouts JSONL file or a list of them. */
    rollouts_jsonl_fpath: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
    /** Check that the tool outputs the agent sends equal the recorded ones; answer a 409 naming the first divergence. */
    strict: z.boolean().default(false),
    /** `nearest`: answer a request no recording agrees with from one recording per rollout, turn by turn, instead of failing (replay-index.ts). For environments that draw at random. */
    fallback: z.enum(['none', 'nearest']).default('none'),
  },
  setup: ({ config, logger }) => {
    const paths = typeof config.rollouts_jsonl_fpath === 'string' ? [config.rollouts_jsonl_fpath] : config.rollouts_jsonl_fpath;
    const index = ReplayIndex.fromFiles(paths);
    logger.info({ rollouts: index.size, keyedReplies: index.keyedSize, files: paths }, 'replaying recorded rollouts');
    return { index };
  },
  responses: async (params, { config, state, sessionId, logger }) => {
    try {
      return withResponseFields(state.index.reply(normalizeInput(params.input), sessionId, { strict: config.strict, metadata: params.metadata, fallback: config.fallback, instructions: params.instructions }), params);
    } catch (error) {
      // Said here too: a caller that is not ngym's (a Python server's judge client) often shows only the status.
      if (error instanceof NgymError && REFUSALS.has(error.code)) logger.warn(error.message);
      throw error;
    }
  },
});
