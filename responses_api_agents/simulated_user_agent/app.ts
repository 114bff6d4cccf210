/**
 * simulated_user_agent: multi-turn episodes with a simulated user. `/run` seeds the environment, then
 * alternates: the policy answers the conversation so far with simple_agent's tool loop (messages and tool
 * calls to the resources server), and the user (scripted from the row, or a model server) says the next
 * thing. The episode ends when the user stops, the environment reports the goal met (`goal_check_path`),
 * the policy stops early (`incomplete_details`), or `max_user_turns` user messages were answered. Verify
 * then scores the whole episode; it receives the row, the whole trajectory as `response`, and `episode`
 * (why it ended, how many user turns), which it echoes into the rollout.
 *
 * For training, `response.output` holds every policy item with its token ids as the model server returned
 * them, and the user's messages as plain text between turns: each policy call's input is the previous call's
 * input plus its output, so the trainers' prefix rule holds across user turns, and the user model's tokens
 * never appear in the training fields.
 *
 * `/v1/responses` is one policy turn: the tool loop on the given conversation, as simple_agent's.
 */
import {
  CookieJar,
  defineAgent,
  ModelServerRef,
  normalizeInput,
  raiseForStatus,
  RawJson,
  refusedRow,
  relayAggregateMetrics,
  type RequestContext,
  RequestValidationError,
  ResourcesServerRef,
  respondWithTools,
  type Response,
  type ResponseItem,
  type RunRequest,
  runToolLoop,
  type ServerConfigOf,
  sumUsage,
  toolLoopOptions,
} from 'ngym';
import * as z from 'zod';
import {
  askUserModel,
  DEFAULT_STOP_TOKEN,
  DEFAULT_USER_PROMPT_TEMPLATE,
  readUserReply,
  type SimulatedUser,
  simulatedUserOf,
  type UserReply,
  userMessage,
  userPromptTemplate,
} from './simulated-user.ts';

const config = {
  resources_server: ResourcesServerRef,
  model_server: ModelServerRef,
  /** Model calls per policy turn (null: until the policy answers without a tool call). */
  max_steps: z.number().int().positive().nullable().optional(),
  /** The user model; null when every row scripts its user (`simulated_user.turns`). */
  user_model_server: ModelServerRef.nullable().default(null),
  user_prompt_template: z.string().min(1).default(DEFAULT_USER_PROMPT_TEMPLATE),
  user_stop_token: z.string().min(1).default(DEFAULT_STOP_TOKEN),
  /** Extra Responses create params for the user model (temperature, max_output_tokens...). */
  user_responses_create_params: z.record(z.string(), z.unknown()).default({}),
  /** The turn limit: user messages answered per episode, the opening one included. */
  max_user_turns: z.number().int().positive().default(10),
  /** A resources server route asked after each policy turn with the verify body; `{"goal_met": true}` ends the episode. */
  goal_check_path: z.string().startsWith('/').nullable().default(null),
};
type Config = ServerConfigOf<typeof config>;
type State = { template: ReturnType<typeof userPromptTemplate> };
type Context = RequestContext<Config, State>;

type StopReason = 'user_stopped' | 'goal_met' | 'turn_limit' | 'policy_incomplete';

/** The user's next message: the next scripted turn (none left: the user stops), or the user model's reply. */
async function nextUserReply(user: SimulatedUser, conversation: ResponseItem[], turn: number, context: Context, userCookies: CookieJar): Promise<UserReply> {
  const stopToken = context.config.user_stop_token;
  if (user.turns !== undefined) {
    const scripted = user.turns[turn - 2];
    return scripted === undefined ? { text: '', stop: true } : readUserReply(scripted, stopToken);
  }
  return await askUserModel(user, conversation, turn, {
    client: context.client,
    server: (context.config.user_model_server as { name: string }).name,
    template: context.state.template,
    stopToken,
    createParams: context.config.user_responses_create_params,
    cookies: userCookies,
  });
}

async function goalMet(row: RunRequest, response: Response, context: Context, cookies: CookieJar): Promise<boolean> {
  const path = context.config.goal_check_path;
  if (path === null) return false;
  const answer = raiseForStatus(refusedRow(await context.client.post(context.config.resources_server.name, path, { ...row, response }, { cookies })));
  cookies.merge(answer.cookies);
  return answer.json<{ goal_met?: unknown }>().goal_met === true;
}

async function run(row: RunRequest, context: Context): Promise<RawJson> {
  if ('episode' in row) {
    throw new RequestValidationError([{ type: 'extra_forbidden', loc: ['body', 'episode'], msg: 'simulated_user_agent sets `episode` itself; rename this row field', input: row.episode }]);
  }
  const user = simulatedUserOf(row, context.config.user_model_server === null ? null : context.state.template, context.config.user_stop_token);
  const resourcesServer = context.config.resources_server.name;
  const cookies = context.cookies.clone();
  const seeded = raiseForStatus(refusedRow(await context.client.post(resourcesServer, '/seed_session', row, { cookies })));
  cookies.merge(seeded.cookies);

  const params = row.responses_create_params;
  const opening = normalizeInput(params.input);
  const output: ResponseItem[] = [];
  const modelCookies = new CookieJar();
  const userCookies = new CookieJar();
  let usage: Response['usage'] = null;
  let response: Response;
  let userTurns = 1;
  let stopReason: StopReason;
  for (;;) {
    const turn = await runToolLoop({ ...params, input: [...opening, ...output] }, toolLoopOptions(context, cookies, modelCookies));
    output.push(...turn.output);
    usage = sumUsage(usage, turn.usage);
    response = { ...turn.last, output: [...output], usage };
    if (turn.last.incomplete_details) {
      stopReason = 'policy_incomplete';
      break;
    }
    if (await goalMet(row, response, context, cookies)) {
      stopReason = 'goal_met';
      break;
    }
    if (userTurns >= context.config.max_user_turns) {
      stopReason = 'turn_limit';
      break;
    }
    const reply = await nextUserReply(user, [...opening, ...output], userTurns + 1, context, userCookies);
    if (reply.text !== '' || !reply.stop) output.push(userMessage(reply.text));
    if (reply.stop) {
      stopReason = 'user_stopped';
      response = { ...response, output: [...output] };
      break;
    }
    userTurns++;
  }

  const episode = { stop_reason: stopReason, user_turns: userTurns };
  const verified = raiseForStatus(refusedRow(await context.client.post(resourcesServer, '/verify', { ...row, response, episode }, { cookies })));
  context.responseCookies.merge(cookies);
  // The environment's answer is the rollout: relayed as it came, not parsed and re-serialized.
  return new RawJson(verified.text);
}

export default defineAgent({
  className: 'SimulatedUserAgent',
  config,
  setup: ({ config: agentConfig }): State => ({ template: userPromptTemplate(agentConfig.user_prompt_template) }),
  responses: respondWithTools,
  run,
  routes: (app, { client, config: agentConfig }) => relayAggregateMetrics(app, client, agentConfig.resources_server.name),
});
