/**
 * simple_agent: the reference agent loop (spec resource-servers section 2). `/v1/responses` calls the
 * model, runs every function call against the resources server, feeds the outputs back, and stops when
 * the model answers without tool calls, stops early (`incomplete_details`), or `max_steps` is reached.
 * `/run` seeds the environment, runs that loop and returns the environment's verify response.
 *
 * Three fixes over upstream v0.1.1: invalid JSON tool arguments become a tool error output the model
 * reads (the rollout goes on); cookies from tool responses are merged rather than replaced, so an error
 * response without a cookie never loses the session; usage is summed over all model calls. And a row the
 * environment refuses (422 from `/seed_session` or `/verify`) is a 422 of `/run` with the environment's detail,
 * since the row is the caller's input, instead of a 500.
 */
import {
  CookieJar,
  defineAgent,
  type FunctionCallItem,
  ModelServerRef,
  NgymError,
  normalizeInput,
  pythonJsonDumps,
  RawJson,
  raiseForStatus,
  type RequestContext,
  RequestValidationError,
  ResourcesServerRef,
  Response,
  type ResponseCreateParams,
  type ResponseItem,
  type RunRequest,
  type ServerConfigOf,
  sumUsage,
  validateBody,
} from 'ngym';
import * as z from 'zod';

const config = {
  resources_server: ResourcesServerRef,
  model_server: ModelServerRef,
  max_steps: z.number().int().positive().nullable().optional(),
};
type Context = RequestContext<ServerConfigOf<typeof config>, undefined>;

function isAssistantMessage(item: ResponseItem): boolean {
  return (item.type === 'message' || item.type === undefined) && 'role' in item && item.role === 'assistant';
}

async function callTool(call: FunctionCallItem, context: Context, cookies: CookieJar): Promise<string> {
  let args: unknown;
  try {
    args = JSON.parse(call.arguments);
  } catch (error) {
    return pythonJsonDumps({ error: `Invalid tool call arguments: ${(error as Error).message}` }, { ensureAscii: false });
  }
  const response = await context.client.post(context.config.resources_server.name, `/${call.name}`, args, { cookies });
  cookies.merge(response.cookies);
  // Whatever the status, the body is what the model sees (a 422 or 500 explains the mistake).
  return response.text;
}

async function runLoop(params: ResponseCreateParams, context: Context): Promise<Response> {
  const input = normalizeInput(params.input);
  const outputs: ResponseItem[] = [];
  const resourcesCookies = context.cookies.clone();
  const modelCookies = new CookieJar();
  const maxSteps = context.config.max_steps ?? null;
  let usage: Response['usage'] = null;
  let last: Response | undefined;

  for (let step = 1; ; step++) {
    const reply = raiseForStatus(
      await context.client.post(context.config.model_server.name, '/v1/responses', { ...params, input: [...input, ...outputs] }, { cookies: modelCookies }),
    );
    modelCookies.merge(reply.cookies);
    let response: Response;
    try {
      response = validateBody<Response>(Response, reply.json<unknown>());
    } catch (error) {
      throw new NgymError('NGYM_UPSTREAM_BODY', `Model server ${context.config.model_server.name} returned an invalid Response: ${(error as Error).message}`);
    }
    last = response;
    usage = sumUsage(usage, response.usage);
    outputs.push(...response.output);

    if (response.incomplete_details) break;
    // An empty output would repeat the same request forever.
    if (response.output.length === 0) break;
    const calls = response.output.filter((item): item is FunctionCallItem => item.type === 'function_call');
    if (calls.length === 0 && response.output.some(isAssistantMessage)) break;
    for (const call of calls) {
      outputs.push({ type: 'function_call_output', call_id: call.call_id, output: await callTool(call, context, resourcesCookies) });
    }
    if (maxSteps !== null && step >= maxSteps) break;
  }

  context.responseCookies.merge(resourcesCookies).merge(modelCookies);
  return { ...(last as Response), output: outputs, usage };
}

/** Throws the environment's 422 detail as this request's own: the row it refused came from the caller. */
function refusedRow<Answer extends { status: number; text: string }>(answer: Answer): Answer {
  if (answer.status !== 422) return answer;
  let detail: unknown;
  try {
    detail = (JSON.parse(answer.text) as { detail?: unknown }).detail;
  } catch {
    return answer;
  }
  if (!Array.isArray(detail)) return answer;
  throw new RequestValidationError(detail);
}

async function run(row: RunRequest, context: Context): Promise<RawJson> {
  const resourcesServer = context.config.resources_server.name;
  const cookies = context.cookies.clone();
  const seeded = raiseForStatus(refusedRow(await context.client.post(resourcesServer, '/seed_session', row, { cookies })));
  cookies.merge(seeded.cookies);

  const loopContext: Context = { ...context, cookies, responseCookies: new CookieJar() };
  const response = await runLoop(row.responses_create_params, loopContext);
  cookies.merge(loopContext.responseCookies);

  const verified = raiseForStatus(refusedRow(await context.client.post(resourcesServer, '/verify', { ...row, response }, { cookies })));
  context.responseCookies.merge(cookies);
  // The environment's answer is the rollout: relayed as it came, not parsed and re-serialized.
  return new RawJson(verified.text);
}

export default defineAgent({
  className: 'SimpleAgent',
  config,
  responses: runLoop,
  run,
  // Run-level metrics belong to the environment: relay the request, and its answer or its 404.
  routes: (app, { client, config: agentConfig }) => {
    app.post('/aggregate_metrics', async (http) => {
      const answer = await client.post(agentConfig.resources_server.name, '/aggregate_metrics', await http.req.text());
      return http.body(answer.text, answer.status as 200, { 'content-type': 'application/json' });
    });
  },
});
