/**
 * The policy's tool-calling loop for agents: simple_agent and non_executing_simple_agent run it once per rollout,
 * simulated_user_agent once per user turn. Call the model, run every function call against the resources server,
 * feed the outputs back, and stop when the model answers without tool calls (reasoning only or nothing marks the
 * response incomplete), stops early (`incomplete_details`), or `maxSteps` model calls were made.
 */
import { CookieJar } from '../client/cookies.ts';
import { raiseForStatus, type ServerClient } from '../client/server-client.ts';
import { NgymError } from '../errors.ts';
import { type FunctionCallItem, normalizeInput, Response, type ResponseCreateParams, type ResponseItem, sumUsage } from '../protocol/responses.ts';
import { RequestValidationError, validateBody } from '../protocol/validation.ts';
import { pythonJsonDumps } from '../python-compat/python-json.ts';
import type { RequestContext } from '../server/base-server.ts';
import type { ServerApp } from '../server/http-app.ts';
import { tracedHop, withTokenUsage } from '../telemetry/tracing.ts';

export interface ToolLoopOptions {
  client: ServerClient;
  modelServer: string;
  resourcesServer: string;
  maxSteps: number | null;
  /** The resources server's session; tool responses' cookies are merged into it. */
  resourcesCookies: CookieJar;
  /** The model server's session (a vllm_model keeps one engine per rollout with it). */
  modelCookies: CookieJar;
  /** False: one model call, its tool calls left unexecuted, as the answer itself (non_executing_simple_agent). */
  executeToolCalls?: boolean;
}

export interface ToolLoopResult {
  /** The model's items and the tool outputs, in order, as the next call would send them. */
  output: ResponseItem[];
  /** The last model response (its id, model, status, incomplete_details...). */
  last: Response;
  usage: Response['usage'];
}

function isAssistantMessage(item: ResponseItem): boolean {
  return (item.type === 'message' || item.type === undefined) && 'role' in item && item.role === 'assistant';
}

async function callTool(call: FunctionCallItem, options: ToolLoopOptions): Promise<string> {
  let args: unknown;
  try {
    args = JSON.parse(call.arguments);
  } catch (error) {
    return pythonJsonDumps({ error: `Invalid tool call arguments: ${(error as Error).message}` }, { ensureAscii: false });
  }
  const response = await tracedHop('agent', 'gym.agent.tool_call', (span) => {
    span?.setAttributes({ 'gen_ai.tool.name': call.name, 'gen_ai.tool.call.id': call.call_id });
    return options.client.post(options.resourcesServer, `/${call.name}`, args, { cookies: options.resourcesCookies });
  });
  options.resourcesCookies.merge(response.cookies);
  // Whatever the status, the body is what the model sees (a 422 or 500 explains the mistake).
  return response.text;
}

/** One call of the policy model, validated; its span carries the step and the tokens it used. */
function callModel(params: ResponseCreateParams & { input: ResponseItem[] }, output: ResponseItem[], step: number, options: ToolLoopOptions): Promise<Response> {
  return tracedHop('agent', 'gym.agent.model_call', async (span) => {
    const reply = raiseForStatus(await options.client.post(options.modelServer, '/v1/responses', { ...params, input: [...params.input, ...output] }, { cookies: options.modelCookies }));
    options.modelCookies.merge(reply.cookies);
    let response: Response;
    try {
      response = validateBody<Response>(Response, reply.json<unknown>());
    } catch (error) {
      throw new NgymError('NGYM_UPSTREAM_BODY', `Model server ${options.modelServer} returned an invalid Response: ${(error as Error).message}`);
    }
    span?.setAttribute('nemo.gym.agent.step', step);
    return withTokenUsage(span, response);
  });
}

/**
 * A final response with neither a tool call nor an assistant message, not truncated (a stop token after reasoning,
 * or an empty output): status `incomplete`, and why in `metadata` (upstream 0.7.0's keys and reason codes).
 */
function unfinished(response: Response): Response {
  const reason = response.output.length > 0 ? 'incomplete_reasoning' : 'empty_output';
  const message = `The model stopped with ${reason === 'empty_output' ? 'an empty output' : 'reasoning only'}: no assistant message and no tool call, and no truncation reported.`;
  return { ...response, status: 'incomplete', metadata: { ...(response.metadata ?? {}), ng_termination_reason: reason, ng_termination_message: message } };
}

/** The config keys an agent running the loop has. */
export interface ToolLoopConfig {
  resources_server: { name: string };
  model_server: { name: string };
  max_steps?: number | null;
}

export function toolLoopOptions(context: RequestContext<ToolLoopConfig, unknown>, resourcesCookies: CookieJar, modelCookies: CookieJar): ToolLoopOptions {
  return {
    client: context.client,
    modelServer: context.config.model_server.name,
    resourcesServer: context.config.resources_server.name,
    maxSteps: context.config.max_steps ?? null,
    resourcesCookies,
    modelCookies,
  };
}

/** An agent's `/v1/responses`: the loop on the caller's conversation, the sessions' cookies returned to the caller. */
export async function respondWithTools(params: ResponseCreateParams, context: RequestContext<ToolLoopConfig, unknown>, loop: Pick<ToolLoopOptions, 'executeToolCalls'> = {}): Promise<Response> {
  const resourcesCookies = context.cookies.clone();
  const modelCookies = new CookieJar();
  const { output, last, usage } = await runToolLoop({ ...params, input: normalizeInput(params.input) }, { ...toolLoopOptions(context, resourcesCookies, modelCookies), ...loop });
  context.responseCookies.merge(resourcesCookies).merge(modelCookies);
  return { ...last, output, usage };
}

/** Runs the loop on `params`, whose `input` is the whole conversation so far. */
export async function runToolLoop(params: ResponseCreateParams & { input: ResponseItem[] }, options: ToolLoopOptions): Promise<ToolLoopResult> {
  const output: ResponseItem[] = [];
  let usage: Response['usage'] = null;
  let last: Response | undefined;

  for (let step = 1; ; step++) {
    const response = await callModel(params, output, step, options);
    last = response;
    usage = sumUsage(usage, response.usage);
    output.push(...response.output);

    if (options.executeToolCalls === false) break;
    if (response.incomplete_details) break;
    const calls = response.output.filter((item): item is FunctionCallItem => item.type === 'function_call');
    // No tool call ends the rollout, as in upstream 0.7.0's simple_agent: calling again would send the same
    // request. Without an assistant message either (reasoning only, or nothing) the answer is marked incomplete.
    if (calls.length === 0) {
      if (!response.output.some(isAssistantMessage)) last = unfinished(response);
      break;
    }
    for (const call of calls) {
      output.push({ type: 'function_call_output', call_id: call.call_id, output: await callTool(call, options) });
    }
    if (options.maxSteps !== null && step >= options.maxSteps) break;
  }
  return { output, last, usage };
}

/** Throws the environment's 422 detail as this request's own: the row it refused came from the caller. */
export function refusedRow<Answer extends { status: number; text: string }>(answer: Answer): Answer {
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

/** The `/aggregate_metrics` route of an agent: run-level metrics belong to the environment, so relay the request and its answer (or its 404). */
export function relayAggregateMetrics(app: ServerApp, client: ServerClient, resourcesServer: string): void {
  app.post('/aggregate_metrics', async (http) => {
    const answer = await client.post(resourcesServer, '/aggregate_metrics', await http.req.text());
    return http.body(answer.text, answer.status as 200, { 'content-type': 'application/json' });
  });
}
