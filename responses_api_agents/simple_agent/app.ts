/**
 * simple_agent: the reference agent loop (spec resource-servers section 2). `/v1/responses` calls the
 * model, runs every function call against the resources server, feeds the outputs back, and stops when
 * the model answers without tool calls, stops early (`incomplete_details`), or `max_steps` is reached
 * (the loop is src/agent/tool-loop.ts, shared with the other agents).
 * `/run` seeds the environment, runs that loop and returns the environment's verify response.
 *
 * Three fixes over upstream v0.1.1: invalid JSON tool arguments become a tool error output the model
 * reads (the rollout goes on); cookies from tool responses are merged rather than replaced, so an error
 * response without a cookie never loses the session; usage is summed over all model calls. And a row the
 * environment refuses (422 from `/seed_session` or `/verify`) is a 422 of `/run` with the environment's detail,
 * since the row is the caller's input, instead of a 500.
 */
import {
  defineAgent,
  ModelServerRef,
  relayAggregateMetrics,
  ResourcesServerRef,
  respondWithTools,
  runAgentRollout,
} from 'ngym';
import * as z from 'zod';

const config = {
  resources_server: ResourcesServerRef,
  model_server: ModelServerRef,
  max_steps: z.number().int().positive().nullable().optional(),
};

export default defineAgent({
  className: 'SimpleAgent',
  config,
  responses: respondWithTools,
  run: (row, context) => runAgentRollout(row, context, respondWithTools),
  routes: (app, { client, config: agentConfig }) => relayAggregateMetrics(app, client, agentConfig.resources_server.name),
});
