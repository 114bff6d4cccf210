/**
 * An agent's `/run` around its `/v1/responses`, shared by simple_agent and non_executing_simple_agent: seed the
 * environment's session, answer the row's `responses_create_params` in it, and return the environment's verify
 * response as the rollout. A row the environment refuses (422 from `/seed_session` or `/verify`) is a 422 of
 * `/run` with the environment's detail, since the row is the caller's input.
 */
import { CookieJar } from '../client/cookies.ts';
import { raiseForStatus } from '../client/server-client.ts';
import type { Response, ResponseCreateParams } from '../protocol/responses.ts';
import type { RunRequest } from '../protocol/server-bodies.ts';
import { RawJson, type RequestContext } from '../server/base-server.ts';
import { traced, tracedHop } from '../telemetry/tracing.ts';
import { type ToolLoopConfig, refusedRow } from './tool-loop.ts';

type Context = RequestContext<ToolLoopConfig, unknown>;

export async function runAgentRollout(row: RunRequest, context: Context, respond: (params: ResponseCreateParams, context: Context) => Promise<Response>): Promise<RawJson> {
  const resourcesServer = context.config.resources_server.name;
  const cookies = context.cookies.clone();
  const seeded = raiseForStatus(refusedRow(await tracedHop('agent', 'gym.agent.seed_session', () => context.client.post(resourcesServer, '/seed_session', row, { cookies }))));
  cookies.merge(seeded.cookies);

  const respondContext: Context = { ...context, cookies, responseCookies: new CookieJar() };
  const response = await traced('agent', 'gym.agent.responses', () => respond(row.responses_create_params, respondContext));
  cookies.merge(respondContext.responseCookies);

  const verified = raiseForStatus(refusedRow(await tracedHop('verify', 'gym.agent.verify', () => context.client.post(resourcesServer, '/verify', { ...row, response }, { cookies }))));
  context.responseCookies.merge(cookies);
  // The environment's answer is the rollout: relayed as it came, not parsed and re-serialized.
  return new RawJson(verified.text);
}
