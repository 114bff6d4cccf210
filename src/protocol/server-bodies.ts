/**
 * Bodies of the Gym-specific routes: `/seed_session`, `/verify` (resources servers) and `/run` (agents).
 * A dataset row is a `RunRequest`: `responses_create_params` plus any task fields, which are kept and
 * passed through to `/seed_session`, `/verify` and the rollout output (`_rowidx`, `expected_answer`, ...).
 */
import * as z from 'zod';
import { isValidRunRequest, isValidVerifyRequest } from './fast-checks.ts';
import { Response, ResponseCreateParams } from './responses.ts';
import { registerFastCheck } from './validation.ts';

export const AgentRef = z.looseObject({
  type: z.literal('responses_api_agents').optional(),
  name: z.string(),
});
export type AgentRef = z.infer<typeof AgentRef>;

export const RunRequest = z.looseObject({
  responses_create_params: ResponseCreateParams,
  agent_ref: AgentRef.optional(),
});
export type RunRequest = { responses_create_params: ResponseCreateParams; agent_ref?: AgentRef } & Record<string, unknown>;

export const VerifyRequest = RunRequest.extend({ response: Response });
export type VerifyRequest = RunRequest & { response: Response };

export const VerifyResponse = VerifyRequest.extend({ reward: z.number() });
export type VerifyResponse = VerifyRequest & { reward: number };

/** Any JSON object: the whole dataset row, of which a stateful server reads what it needs. */
export const SeedSessionRequest = z.looseObject({});
export type SeedSessionRequest = Record<string, unknown>;

/** `POST /aggregate_metrics`: the run's verify results, without their trajectories. */
export const AggregateMetricsRequest = z.looseObject({ verify_responses: z.array(z.looseObject({})) });

registerFastCheck(RunRequest, isValidRunRequest);
registerFastCheck(SeedSessionRequest, (value) => typeof value === 'object' && value !== null && !Array.isArray(value));
registerFastCheck(VerifyRequest, isValidVerifyRequest);
