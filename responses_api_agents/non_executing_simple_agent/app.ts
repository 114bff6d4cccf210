/**
 * non_executing_simple_agent (NeMo Gym 0.7.0): for tasks whose answer is the model's tool call itself (the
 * environment scores the call, nothing runs it). `/v1/responses` makes one model call and returns its response as
 * it came: tool calls are neither run nor parsed, and no tool output is appended. `/run` seeds the environment,
 * makes that call and returns the environment's verify response, as simple_agent's `/run`.
 */
import {
  defineAgent,
  ModelServerRef,
  relayAggregateMetrics,
  ResourcesServerRef,
  respondWithTools,
  runAgentRollout,
} from 'ngym';

const respondOnce: typeof respondWithTools = (params, context) => respondWithTools(params, context, { executeToolCalls: false });

export default defineAgent({
  className: 'NonExecutingSimpleAgent',
  config: {
    resources_server: ResourcesServerRef,
    model_server: ModelServerRef,
  },
  responses: respondOnce,
  run: (row, context) => runAgentRollout(row, context, respondOnce),
  routes: (app, { client, config }) => relayAggregateMetrics(app, client, config.resources_server.name),
});
