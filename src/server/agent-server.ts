/**
 * Agents: `POST /v1/responses` runs the model/tool loop for one conversation and returns the whole
 * trajectory; `POST /run` takes a dataset row, seeds the environment, runs the loop and returns the
 * environment's verify response. Trainers and `ngym collect` only ever call `/run`.
 */
import { Response as ResponseSchema, ResponseCreateParams, type Response } from '../protocol/responses.ts';
import { AggregateMetricsRequest, RunRequest, type VerifyResponse } from '../protocol/server-bodies.ts';
import { validateBody } from '../protocol/validation.ts';
import { computeAggregateMetrics } from '../metrics/reward-profile.ts';
import {
  applyResponseCookies,
  type BaseServerSpec,
  type ConfigShape,
  defineServerOfKind,
  jsonResponse,
  type RawJson,
  type RequestContext,
  type ServerConfigOf,
} from './base-server.ts';
import { readJsonBody } from './http-app.ts';
import { traced, tracedRollout } from '../telemetry/tracing.ts';
import type { ServerDefinition } from './server-definition.ts';
import { StartGate } from './start-gate.ts';

export type AgentRequestContext<Config, State> = RequestContext<Config, State>;

export interface AgentSpec<Shape extends ConfigShape, State> extends BaseServerSpec<Shape, State> {
  /** The loop for one conversation (the body was validated: unknown top-level keys are a 422). */
  responses: (params: ResponseCreateParams, context: AgentRequestContext<ServerConfigOf<Shape>, State>) => Promise<Response>;
  /** One rollout for a dataset row; unknown row fields must be kept and passed through. */
  run: (row: RunRequest, context: AgentRequestContext<ServerConfigOf<Shape>, State>) => Promise<VerifyResponse | RawJson>;
}

export interface AgentDefinition extends ServerDefinition {
  readonly kind: 'responses_api_agents';
}

export function defineAgent<Shape extends ConfigShape = Record<never, never>, State = undefined>(spec: AgentSpec<Shape, State>): AgentDefinition {
  const routes: AgentSpec<Shape, State>['routes'] = (app, setup) => {
    spec.routes?.(app, setup);
    // An agent that does not relay /aggregate_metrics to its environment profiles the results itself, as upstream's agents do.
    if (!app.routes.some((route) => route.method === 'POST' && route.path === '/aggregate_metrics')) {
      app.post('/aggregate_metrics', async (http) => {
        const body = validateBody<{ verify_responses: Record<string, unknown>[] }>(AggregateMetricsRequest, await readJsonBody(http));
        return http.json(computeAggregateMetrics(body.verify_responses));
      });
    }
  };
  return defineServerOfKind('responses_api_agents', { ...spec, routes }, ({ app, requestContext }) => {
    app.post('/v1/responses', async (http) => {
      const params = validateBody<ResponseCreateParams>(ResponseCreateParams, await readJsonBody(http));
      const handlerContext = requestContext(http);
      const response = await traced('agent', 'gym.agent.responses', () => spec.responses(params, handlerContext));
      validateBody(ResponseSchema, response);
      applyResponseCookies(http, handlerContext.responseCookies);
      return http.json(response);
    });

    // One gate per agent process: under a burst, rollouts under way finish before new ones start.
    const gate = new StartGate();
    app.post('/run', async (http) => {
      const row = validateBody<RunRequest>(RunRequest, await readJsonBody(http));
      await gate.enter();
      const handlerContext = requestContext(http);
      const result = await tracedRollout('gym.rollout', row, () => spec.run(row, handlerContext));
      applyResponseCookies(http, handlerContext.responseCookies);
      return jsonResponse(http, result);
    });
  });
}
