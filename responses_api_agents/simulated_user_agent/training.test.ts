/**
 * The trainer contract over multi-turn episodes: simulated_user_agent -> vllm_model (training mode) -> the
 * scripted vLLM engine that splices token ids as the trainers' servers do, on 5-user-turn episodes with a
 * tool call in every policy turn. The TRL and NeMo RL post-processing (vllm_model/trainer-replays.ts) must
 * accept the results: each policy call's prompt extends the previous prompt and generation, user messages are
 * environment tokens between them, and the user model's own token ids never appear.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ConfigDict } from 'ngym';
import {
  type InProcessGym,
  startInProcessGym,
  startVllmBackend,
  TOY_EOS,
  type VllmBackend,
  type VllmChatCall,
} from 'ngym/testing';
import { policyModelConfig } from '../../responses_api_models/vllm_model/test-config.ts';
import { nemoRlProcessResult, trlProcessRollout } from '../../responses_api_models/vllm_model/trainer-replays.ts';
import { AGENT, episodeConfig } from './test-helpers.ts';

const CITIES = ['Oslo', 'Paris', 'Rome', 'Lima', 'Kyiv'];
type Message = { role: string; content?: unknown };
const text = (content: unknown) => (typeof content === 'string' ? content : Array.isArray(content) ? content.map((part) => part?.text ?? '').join('') : '');

/** The policy: a user message about a city gets a get_weather call; a tool result gets an answer. */
function policyReply(call: VllmChatCall) {
  const messages = call.body.messages as Message[];
  const last = messages.at(-1) as Message;
  if (last.role === 'tool') return { reasoning: 'The tool answered.', content: 'It is cold there. Anything else?' };
  const city = /in ([A-Za-z]+)\?/.exec(text(last.content))?.[1] ?? 'nowhere';
  return { reasoning: `Look up ${city}.`, toolCalls: [{ name: 'get_weather', arguments: { city } }] };
}

/** The user model: asks about the next city each turn (its own earlier lines are its assistant messages), then stops. */
function userReply(call: VllmChatCall) {
  const said = (call.body.messages as Message[]).filter((message) => message.role === 'assistant').length;
  return { content: said < CITIES.length ? `And the weather in ${CITIES[said]}?` : '###STOP###' };
}

const tools = [
  { type: 'function', name: 'get_weather', description: '', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false }, strict: true },
];

function row(simulatedUser: Record<string, unknown>) {
  return {
    responses_create_params: { input: [{ role: 'system', content: 'You are a weather assistant.' }, { role: 'user', content: `What is the weather in ${CITIES[0]}?` }], tools, temperature: 1.0 },
    simulated_user: simulatedUser,
  };
}

let gym: InProcessGym | undefined;
let engines: VllmBackend[] = [];
afterEach(async () => {
  await gym?.close();
  gym = undefined;
  await Promise.all(engines.map((engine) => engine.close()));
  engines = [];
});

async function startGym(options: { splice?: boolean; userModel: boolean }) {
  const policyEngine = await startVllmBackend({ reply: policyReply, reasoningParser: 'reasoning_content', splice: options.splice });
  const userEngine = await startVllmBackend({ reply: userReply });
  engines.push(policyEngine, userEngine);
  const training = { return_token_id_information: true, uses_reasoning_parser: true };
  const config: ConfigDict = {
    ...episodeConfig({ environment: 'example_single_tool_call', agentConfig: { max_user_turns: options.userModel ? 6 : 5 }, models: { user: null } }),
    ...policyModelConfig(policyEngine.baseUrl, training),
  };
  if (options.userModel) {
    // The user model in training mode too, on its own engine: its token ids come back and must be dropped.
    config.user_model = { responses_api_models: { vllm_model: { entrypoint: 'app.ts', base_url: userEngine.baseUrl, api_key: 'EMPTY', model: 'toy-user', return_token_id_information: true, uses_reasoning_parser: false } } };
    const agent = (config[AGENT] as any).responses_api_agents.simulated_user_agent;
    agent.user_model_server = { type: 'responses_api_models', name: 'user_model' };
  }
  gym = await startInProcessGym({ config });
  return { policyEngine, userEngine };
}

async function run(body: unknown): Promise<Record<string, any>> {
  const response = await (gym as InProcessGym).client.post(AGENT, '/run', body);
  expect(response.status, response.text).toBe(200);
  return response.json<Record<string, any>>();
}

const userMessages = (output: any[]) => output.filter((item) => item.type === 'message' && item.role === 'user');
const tokenBearing = (output: any[]) => output.filter((item) => Array.isArray(item.generation_token_ids));

describe('simulated_user_agent: token ids over 5-turn episodes', () => {
  for (const userModel of [false, true]) {
    it(`passes the TRL and NeMo RL contiguity checks with a ${userModel ? 'model (vllm_model, training mode)' : 'scripted'} user`, async () => {
      const { policyEngine, userEngine } = await startGym({ userModel });
      const result = await run(row(userModel ? { instructions: 'Ask about several cities.' } : { turns: CITIES.slice(1).map((city) => `And the weather in ${city}?`) }));
      const output: any[] = result.response.output;
      expect(result.episode).toEqual({ stop_reason: userModel ? 'user_stopped' : 'turn_limit', user_turns: 5 });
      expect(userMessages(output).map((item) => item.content)).toEqual(CITIES.slice(1).map((city) => `And the weather in ${city}?`));
      // Every policy generation is in the output with its ids; nothing of the user model is.
      expect(tokenBearing(output)).toHaveLength(10);
      expect(tokenBearing(output).map((item) => item.generation_token_ids)).toEqual(policyEngine.generations.map((generation) => generation.generationTokenIds));
      for (const item of userMessages(output)) expect(Object.keys(item).sort()).toEqual(['content', 'role', 'type']);
      if (userModel) {
        expect(userEngine.generations).toHaveLength(5);
        // The user model emits long words in two pieces, so its generated ids differ from the re-tokenized text the
        // policy's prompt holds: the generated sequences must appear in no training field.
        const fields = tokenBearing(output).map((item) => [...item.prompt_token_ids, ...item.generation_token_ids].join(','));
        for (const generation of userEngine.generations.slice(0, -1)) {
          const ids = generation.generationTokenIds.filter((id) => id !== TOY_EOS).join(',');
          for (const field of fields) expect(field.includes(ids)).toBe(false);
        }
      }

      const trl = trlProcessRollout(result, TOY_EOS);
      expect(trl).toMatchObject({ failed: false, numTurns: 10, reward: 1 });
      expect(trl.logprobs).toHaveLength(trl.completionIds.length);
      const nemoRl = nemoRlProcessResult(result);
      expect(nemoRl.messageLog).toHaveLength(20);
      // The user's words are environment tokens: the prompt of the turn after each user message grows by them.
      const prompts = tokenBearing(output).map((item) => item.prompt_token_ids as number[]);
      for (let index = 2; index < prompts.length; index += 2) {
        const previous = tokenBearing(output)[index - 1];
        expect(prompts[index]?.length).toBeGreaterThan(previous.prompt_token_ids.length + previous.generation_token_ids.length);
      }
    });
  }

  it('negative: without the splice the re-tokenized history breaks contiguity and the checks raise', async () => {
    await startGym({ splice: false, userModel: false });
    const result = await run(row({ turns: ['And the weather in Paris?'] }));
    expect(() => trlProcessRollout(result, TOY_EOS)).toThrow('Non-contiguous messages');
    expect(() => nemoRlProcessResult(result)).toThrow(/Non-contiguous/);
  });
});
