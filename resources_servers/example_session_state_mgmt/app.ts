/**
 * example_session_state_mgmt: a counter per rollout, kept on the server and keyed by the session cookie.
 * `/seed_session` starts it at the task's `initial_count`; the tools add to it and read it; verify
 * rewards 1.0 when the counter ends at `expected_count`. Verify reads server state, not the transcript,
 * so it only works when the agent forwards the session cookie from seed_session through to verify.
 */
import { defineResourcesServer, SessionStore } from 'ngym';
import * as z from 'zod';

export default defineResourcesServer({
  className: 'StatefulCounterResourcesServer',
  setup: () => ({ counters: new SessionStore<number>() }),
  seedSessionRequest: z.looseObject({ initial_count: z.number().int() }),
  seedSession: (request, { sessionId, state }) => {
    state.counters.getOrCreate(sessionId, () => request.initial_count);
    return {};
  },
  tools: {
    increment_counter: {
      description: 'Increment the counter by a given amount.',
      parameters: z.strictObject({ count: z.number().int() }),
      handler: ({ count }, { sessionId, state }) => {
        state.counters.set(sessionId, state.counters.getOrCreate(sessionId, () => 0) + count);
        return { success: true };
      },
    },
    get_counter_value: {
      description: 'Get the current counter value.',
      parameters: z.looseObject({}),
      handler: (_args, { sessionId, state }) => ({ count: state.counters.getOrCreate(sessionId, () => 0) }),
    },
  },
  verifyRequest: z.looseObject({ expected_count: z.number().int() }),
  verify: (request, { sessionId, state }) => {
    const count = state.counters.get(sessionId);
    return { reward: count !== undefined && count === request.expected_count ? 1.0 : 0.0 };
  },
});
